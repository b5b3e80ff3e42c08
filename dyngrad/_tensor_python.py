"""The Tensor methods that torch writes in Python (torch/_tensor.py): split, unflatten, unique,
unique_consecutive, norm, stft, istft, lu and the removed eig, symeig, lstsq, solve; also
backward, register_hook, storage, resize and a few more, defined elsewhere in dyngrad. And the
methods that torch's C binds with no parameters (Note [Methods of no arguments], below).

Note [Methods torch writes in Python]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch binds most Tensor methods in C, and its argument parser words a bad call's error
("split() received an invalid combination of arguments..."). About thirty methods are Python
functions of torch's Tensor class. For those, Python words a call that does not fit the
signature, and names the method by its class. It also counts `self`:
"Tensor.split() missing 1 required positional argument: 'split_size'", "Tensor.unique() takes
from 1 to 5 positional arguments but 6 were given". So dyngrad's methods of those names
(``PYTHON_METHODS`` in ops/_signatures.py) are plain Python functions with torch's
signatures, named ``Tensor.<name>``, and Python gives the same words.
Each calls what torch's calls. ``split`` calls the ``split`` binding for an int and
``split_with_sizes`` for anything else; ``lu`` calls ``_lu_with_info``. Those bindings'
refusals are their parser's, as in torch.
"""
from __future__ import annotations

import types

from ._tensor import METHOD_CODES
from .ops import _arg_parser, legacy_removed as _removed
from .ops._arg_parser import check_binding, check_call
from .ops._signatures import PYTHON_METHODS
from .ops.split import _split, _split_with_sizes

# the bindings that torch's methods call and no public name of dyngrad stands for (torchgen's
# texts: tests/test_tensor_python_methods.py checks them)
SPLIT = ("split(Tensor input, SymInt split_size, int dim=0)",
         "split(Tensor input, SymInt[] split_size, int dim=0)")
SPLIT_WITH_SIZES = ("split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)",)

_Tensor = _torch = None   # the Tensor class and the dyngrad module, set by install()


def _ints(values) -> bool:
    return type(values) in (list, tuple) and all(type(v) is int for v in values)


def split(self, split_size, dim=0):
    if isinstance(split_size, _Tensor):
        try:
            split_size = int(split_size)
        except ValueError:   # (a tensor of several elements: split_with_sizes refuses it)
            pass
    if isinstance(split_size, int):
        if type(split_size) is not int or type(dim) is not int:   # (a bool: the parser's)
            check_binding(SPLIT, (self, split_size, dim))
        return _split(self, split_size, dim)
    if type(dim) is not int or not _ints(split_size):
        check_binding(SPLIT_WITH_SIZES, (self, split_size, dim))
    return _split_with_sizes(self, split_size, dim)


def unflatten(self, dim, sizes):
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if type(dim) is not int or not _ints(sizes):   # (the method's binding: its parser's words)
        check_call("unflatten", (dim, sizes), {}, True)
    return _torch.unflatten(self, dim, sizes)


def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _torch.unique(self, sorted=sorted, return_inverse=return_inverse,
                         return_counts=return_counts, dim=dim)


def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    return _torch.unique_consecutive(self, return_inverse=return_inverse,
                                     return_counts=return_counts, dim=dim)


def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return _torch.norm(self, p, dim, keepdim, dtype=dtype)


def stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    return _torch.stft(self, n_fft, hop_length, win_length, window, center, pad_mode,
                       normalized, onesided, return_complex=return_complex,
                       align_to_window=align_to_window)


def istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    # (torch.istft is the binding: its parser sees the arguments by position, as here, and
    # dyngrad's istft checks them so)
    return _torch.istft(self, n_fft, hop_length, win_length, window, center, normalized,
                        onesided, length, return_complex=return_complex)


def lu(self, pivot=True, get_infos=False):
    return _torch.lu(self, pivot=pivot, get_infos=get_infos)


# the removed functions: each method raises the function's RuntimeError, as torch's do
def eig(self, eigenvectors=False):
    return _removed.eig(self, eigenvectors=eigenvectors)


def symeig(self, eigenvectors=False):
    return _removed._symeig(self, eigenvectors=eigenvectors)


def lstsq(self, other):
    return _removed.lstsq(self, other)


def solve(self, other):
    return _removed.solve(self, other)


_WRITTEN_HERE = (split, unflatten, unique, unique_consecutive, norm, stft, istft, lu, eig,
                 symeig, lstsq, solve)


def install(torch) -> None:
    """Put this module's methods on ``torch.Tensor``, and name every method of
    ``PYTHON_METHODS`` ``Tensor.<name>`` (a copy where the function is also reached by another
    name), once the registry's methods are installed. Each method calls the public function
    of `torch` (the dyngrad module) that torch's calls."""
    global _Tensor, _torch
    _Tensor, _torch = torch.Tensor, torch
    tensor_cls = torch.Tensor
    for fn in _WRITTEN_HERE:
        setattr(tensor_cls, fn.__name__, fn)
    for name in PYTHON_METHODS:
        fn = tensor_cls.__dict__[name]
        if fn.__qualname__ != f"Tensor.{name}":   # (a copy: the function may have other names)
            fn = _renamed(fn, name, f"Tensor.{name}")
            setattr(tensor_cls, name, fn)
        METHOD_CODES.add(fn.__code__)   # (how nn/parameter.py's _used_in tells methods)
    for name in _PARSER_NAMED:
        setattr(tensor_cls, name, _renamed(tensor_cls.__dict__[name], name, name))
    for name in _NOARGS:   # Note [Methods of no arguments]
        setattr(tensor_cls, name, _taking_no_arguments(tensor_cls.__dict__[name], name))


# Note [Methods of no arguments]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch binds some methods in C with no parameters at all (METH_NOARGS), so Python itself
# refuses an argument: "TensorBase.data_ptr() takes no arguments (1 given)", "...takes no
# keyword arguments". dyngrad's are Python functions of `self` alone, whose refusal Python
# words otherwise ("Tensor.data_ptr() takes 1 positional argument but 2 were given"). The
# methods below take any arguments and refuse them in torch's words, one frame in between.
# The ones that run in loops (dim, numel, nelement, ndimension, item, detach, is_complex,
# is_floating_point) are left as they are: the frame costs about 50 ns a call, more than such
# a method's own work (x.dim() takes 30 ns; x.storage_offset() went from 29 to 76).
_NOARGS = ("coalesce", "const_data_ptr", "data_ptr", "dense_dim", "detach_",
           "element_size", "get_device", "indices", "is_coalesced", "is_inference", "is_signed",
           "retain_grad", "sparse_dim", "storage_offset", "tolist", "untyped_storage", "values")


# Methods torch binds by hand through its parser, written by hand here as functions of their
# own parameters: the parser words an unknown keyword with the bare name ("size() got an
# unexpected keyword argument 'zzz'"), and Python words it with the function's __qualname__,
# so that is the bare name too. (A count of positional arguments stays Python's, which
# counts self: rewording it would put a frame on every call of these.)
_PARSER_NAMED = ("size", "stride", "is_contiguous", "numpy", "requires_grad_", "to_dense")


def _taking_no_arguments(fn, name):
    def method(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(_arg_parser.parse_error(name, args, kwargs, True))
        return fn(self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    return method


def _renamed(fn, name, qualname):
    """A copy of the function `fn` named `qualname` in Python's words for a call that does
    not fit it (Note [Methods torch writes in Python])."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__dict__.update(fn.__dict__)
    copy.__doc__, copy.__module__ = fn.__doc__, fn.__module__
    copy.__qualname__ = qualname
    return copy
