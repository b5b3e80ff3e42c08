"""Conversions: ``to``/``type``/``type_as`` and the dtype shorthands (``float()``, ``long()``…),
``cpu``/``cuda``, the in-place writers ``copy_``/``fill_``/``zero_``, and the ``new_*``
constructors.

``to`` returns ``self`` when nothing would change (dtype, device, and a memory format the tensor
already suggests), as torch does; otherwise it copies through the ``_to_copy`` op
(``ToCopyBackward0``), keeping the layout under ``preserve_format``.
"""
from __future__ import annotations

import numbers

from .. import _dtypes as D
from .._device import device as _device
from .._formats import memory_format as _memory_format
from ..backends.sparse_coo import COO as _COO
from .._promotion import Promote
from .._utils import broadcast_shapes, shape_str
from ..backends import numpy_backend as _npb
from .creation import (ZEROS, _size_args, _tensor_cls, _type_name, alloc, cast_array, check_device,
                       check_to_device,
                       check_size, checked_scalar, copy_with_strides, dtype_arg, empty_strided,
                       fill_array, finish, format_strides, full, number,
                       preserve_strides, suggest_memory_format, zeros_like, check_pin_memory)
from ._autograd_utils import handle_r_to_c
from ._arg_parser import check_call, parse_error
from ._registry import METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD

xp = _npb.xp


# ---------------------------------------------------------------------------------------------
# _to_copy and to()
# ---------------------------------------------------------------------------------------------
def _copy_strides(arr, memory_format):
    from .._tensor import preserve_format
    if memory_format is None or memory_format is preserve_format:
        return preserve_strides(arr.shape, tuple(s // arr.itemsize for s in arr.strides))
    return format_strides(arr.shape, memory_format)


@defop("_to_copy", node="ToCopyBackward0", promote=Promote.NONE, variants=())
def to_copy(xp, self, *, dtype=None, memory_format=None):
    """A copy of `self` in `dtype`, laid out by `memory_format` (preserve: like self)."""
    np_dtype = self.dtype if dtype is None else dtype.np
    return copy_with_strides(self, np_dtype, _copy_strides(self, memory_format))


@to_copy.backward
def _(ctx, grad):
    # the engine casts the gradient back to self's dtype; a real self takes a complex
    # gradient's real part first (torch's _to_copy_backward)
    if grad._data.dtype.kind == "c" and ctx._meta[0][1].kind != "c":
        grad = grad.real
    return (grad,)


to_copy.jvp(AUTO_LINEAR)


def _aliases(self, dtype, memory_format) -> bool:
    """torch's to_will_alias: same dtype and a memory format the tensor already suggests."""
    from .._tensor import preserve_format
    if dtype is not None and dtype is not self.dtype:
        return False
    return memory_format is None or memory_format is preserve_format or \
        suggest_memory_format(self._data.shape, self.stride()) is memory_format


def _is_py_type(v) -> bool:
    return v is float or v is int or v is bool or v is complex


# the dtypes of the tensors torch's parser makes of Python numbers, which ``to`` takes as its
# Tensor argument
_NUMBER_DTYPES = {bool: D.bool_, float: D.float64, complex: D.complex128}


_TO_KEYWORDS = frozenset(("device", "dtype", "non_blocking", "copy", "memory_format"))


def _odd_keywords(args, kwargs, Tensor) -> bool:
    """Whether ``to``'s keywords need the parser's full match: one of another name or type,
    or a dtype or device beside a tensor argument (cheap tests, before the parser's 5 us)."""
    if not kwargs.keys() <= _TO_KEYWORDS or (args and isinstance(args[0], Tensor)):
        return True
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    form = kwargs.get("memory_format")
    return not (dtype is None or isinstance(dtype, D.dtype) or _is_py_type(dtype)) or not (
        device is None or isinstance(device, (str, _device))
        or type(device) is int) or not (form is None or isinstance(form, _memory_format))


def _refused_to(args, kwargs) -> TypeError:
    """The parser's TypeError for a ``to`` call that suits none of its overloads (the table's
    entry of ``to``)."""
    return TypeError(parse_error("to", args, kwargs, True)
                     or f"to(): invalid arguments {args!r} {kwargs!r}")


def _parse_to(self, args, kwargs):
    """(device, dtype, copy, memory_format) from torch's three ``to`` signatures; the parser's
    TypeError for a call that suits none of them (checked only where a cheap test fails: the
    parser's full match costs more than the rest of the call)."""
    Tensor = _tensor_cls()
    if kwargs and _odd_keywords(args, kwargs, Tensor):
        check_call("to", args, kwargs, True)
        if "tensor" in kwargs:   # (the third overload's argument, by its name)
            kwargs = dict(kwargs)
            args = (kwargs.pop("tensor"),) + args
    given = kwargs
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs or type(non_blocking) is not bool or type(copy) is not bool or len(args) > 4:
        raise _refused_to(args, given)
    dtype = dtype_arg(dtype, "to")
    rest = list(args)
    if rest:
        a = rest.pop(0)
        if isinstance(a, D.dtype) or _is_py_type(a):
            dtype = dtype_arg(a, "to")
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif type(a) in _NUMBER_DTYPES:   # (a Python number is a tensor to ``to``'s parser)
            dtype = _NUMBER_DTYPES[type(a)]
        elif a is None or isinstance(a, (str, _device, int)) and type(a) is not bool:
            device = a
            if rest and (rest[0] is None or isinstance(rest[0], D.dtype)):
                dtype = rest.pop(0)
            elif rest and _is_py_type(rest[0]):
                dtype = dtype_arg(rest.pop(0), "to")
        else:
            raise _refused_to(args, given)
    if len(rest) > 2 or not all(type(v) is bool for v in rest):   # non_blocking, copy
        raise _refused_to(args, given)
    if len(rest) == 2:
        copy = rest[1]   # (non_blocking: copies are synchronous here)
    return device, dtype, copy, memory_format


def to(self, *args, **kwargs):
    """Convert dtype and/or device: ``to(dtype)``, ``to(device, dtype)``, ``to(other)``,
    with ``non_blocking``, ``copy`` and ``memory_format`` keywords. Returns ``self`` when
    nothing changes (unless ``copy=True``)."""
    if len(args) == 1 and not kwargs and isinstance(args[0], D.dtype):   # x.to(dtype)
        return self if args[0] is self.dtype else to_copy(self, dtype=args[0])
    device, dtype, copy, memory_format = _parse_to(self, args, kwargs)
    check_to_device(device)
    if not copy and _aliases(self, dtype, memory_format):
        return self
    kw = {}
    if dtype is not None:
        kw["dtype"] = dtype
    if memory_format is not None:
        kw["memory_format"] = memory_format
    return to_copy(self, **kw)


_TYPE_NAMES = {f"torch.{d._legacy}Tensor": d for d in D.ALL_DTYPES}


def type_(self, dtype=None, non_blocking=False, *, memory_format=None):
    """With no argument: the legacy type name (``'torch.FloatTensor'``). Otherwise convert to
    `dtype` (a dtype, a legacy type such as ``torch.LongTensor``, or its name); returns
    ``self`` if it already has that type. ``torch.Tensor`` names the default dtype."""
    if dtype is None:
        return f"torch.{'sparse.' if self.is_sparse else ''}{self.dtype._legacy}Tensor"
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda.") and dtype[len("torch.cuda."):] in \
                {k[len("torch."):] for k in _TYPE_NAMES}:
            check_device("cuda")
        d = D.get_default_dtype() if dtype == "torch.Tensor" else _TYPE_NAMES.get(dtype)
        if d is None:
            raise ValueError(f"invalid type: '{dtype}'")
    elif isinstance(dtype, D.dtype):
        d = dtype
    elif isinstance(dtype, type):
        from .._legacy_types import type_dtype
        d = type_dtype(dtype)
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    if memory_format is not None:   # (a layout to convert to even at the same dtype)
        return to(self, d, memory_format=memory_format)
    if d is self.dtype:
        return self
    return to_copy(self, dtype=d)


type_.__qualname__ = "type"   # (Python's binding errors name it as torch's: "type() got...")


def type_as(self, other):
    """``self`` converted to `other`'s dtype."""
    if not isinstance(other, _tensor_cls()):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not "
                        f"{_type_name(other)}")
    return type_(self, other.dtype)


def _shorthand(name, dtype):
    def method(self, *args, memory_format=None):
        if args:
            raise TypeError(f"{name}() takes 0 positional arguments but {len(args)} "
                            f"{'was' if len(args) == 1 else 'were'} given")
        if memory_format is None:
            return self if self._data.dtype == dtype.np else to_copy(self, dtype=dtype)
        return to(self, dtype, memory_format=memory_format)
    method.__name__ = name
    method.__doc__ = f"``self.to({dtype})``."
    return method


_SHORTHANDS = {"half": D.float16, "bfloat16": D.bfloat16, "float": D.float32, "double": D.float64, "short": D.int16,
               "int": D.int32, "long": D.int64, "bool": D.bool_, "byte": D.uint8,
               "char": D.int8, "cfloat": D.complex64, "cdouble": D.complex128}


def cpu(self, *args, memory_format=None):
    """This tensor (it already lives on the cpu), in `memory_format` where one is given."""
    if args:   # (torch's count, without self)
        raise TypeError(f"cpu() takes 0 positional arguments but {len(args)} "
                        f"{'was' if len(args) == 1 else 'were'} given")
    if memory_format is None:
        return self
    from .._formats import memory_format as _memory_format
    if not isinstance(memory_format, _memory_format):
        raise TypeError(f"cpu(): argument 'memory_format' must be torch.memory_format, not "
                        f"{_type_name(memory_format)}")
    return to(self, memory_format=memory_format)


def cuda(self, device=None, non_blocking=False, memory_format=None):
    """Move to a CUDA device: torch's error here, where dyngrad has no CUDA backend."""
    check_device(device if device is not None else "cuda")
    return self


def _move_to(kind):
    """``Tensor.xpu()``/``ipu()``/``mtia()``: as ``to(kind)``, torch's error for a device this
    build has no backend for (an int picks the absent accelerator, as ``device(0)``)."""
    def method(self, device=None, non_blocking=False, memory_format=None):
        check_to_device(device if device is not None else kind)
        return self
    method.__name__ = kind
    method.__doc__ = f"Move to an {kind.upper()} device: torch's error here, as for cuda()."
    return method


# ---------------------------------------------------------------------------------------------
# In-place writers
# ---------------------------------------------------------------------------------------------
@defop("copy_", node="CopyBackwards", promote=Promote.NONE, inputs=("self", "src"),
       variants=())
def copy(xp, self, src, non_blocking=False):
    src = xp.asarray(src)
    if src.shape == self.shape:
        return cast_array(src, self.dtype)
    shape = tuple(broadcast_shapes(self.shape, src.shape))
    if shape != self.shape:
        raise RuntimeError(f"output with shape {shape_str(self.shape)} doesn't match the "
                           f"broadcast shape {shape_str(shape)}")
    return xp.broadcast_to(cast_array(src, self.dtype), self.shape)


@copy.backward
def _(ctx, grad):   # a real src of a complex self: the real part (Note [Complex gradients])
    return zeros_like(grad), handle_r_to_c(ctx, 1, grad)


copy.jvp(AUTO_LINEAR)


def copy_(self, *args, **kwargs):
    """``copy_(src, non_blocking=False)``: copy `src` into this tensor in place, broadcasting
    it and converting its dtype."""
    names = ("other", "non_blocking")
    values = dict(zip(names, args))
    unknown = [k for k in kwargs if k not in names or k in values]
    values.update((k, v) for k, v in kwargs.items() if k not in unknown)
    if "other" not in values:
        raise TypeError('copy_() missing 1 required positional arguments: "other"')
    if unknown:
        raise TypeError(f"copy_() got an unexpected keyword argument '{unknown[0]}'")
    src = values["other"]
    Tensor = _tensor_cls()
    if not isinstance(src, (Tensor, bool, int, float, complex)):   # (overlap: the dispatcher)
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{_type_name(src)}")
    return copy.call_inplace(self, src, bool(values.get("non_blocking", False)))


@defop("fill_.Scalar", node="FillBackward2", promote=Promote.NONE, variants=(), public="fill_")
def fill_scalar(xp, self, value):
    d = D.from_np(self.dtype)
    return xp.full(self.shape, fill_array(checked_scalar(number(value), d), d), self.dtype)


@fill_scalar.backward
def _(ctx, grad):
    return (zeros_like(grad),)


fill_scalar.jvp(FROM_BACKWARD)


@defop("fill_.Tensor", node="FillBackward3", promote=Promote.NONE, inputs=("self", "value"),
       variants=(), public="fill_")
def fill_tensor(xp, self, value):
    if value.ndim:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    return xp.full(self.shape, cast_array(value, self.dtype), self.dtype)


@fill_tensor.backward
def _(ctx, grad):
    return zeros_like(grad), grad.sum()


fill_tensor.jvp(AUTO_LINEAR)


def _writable_alias(self):
    """`self`, or where torch lets fill_/zero_ write through repeated elements (an expanded
    tensor), a view of the same memory without the repeats."""
    if 0 not in self._data.strides:
        return self
    shape, stride = self._data.shape, self.stride()
    if not any(s == 0 and n > 1 for n, s in zip(shape, stride)):
        return self
    keep = tuple(1 if s == 0 else n for n, s in zip(shape, stride))
    return self._make_view(keep, stride, self._offset)


def fill_(self, value):
    """Fill with `value` (a number or a 0-dim tensor) in place."""
    Tensor = _tensor_cls()
    target = _writable_alias(self)
    if isinstance(value, Tensor):
        fill_tensor.call_inplace(target, value)
    elif isinstance(value, numbers.Number):
        fill_scalar.call_inplace(target, value)
    else:
        tn = _type_name(value)
        raise TypeError(f"fill_() received an invalid combination of arguments - got ({tn}), "
                        "but expected one of:\n"
                        " * (Tensor value)\n"
                        f"      didn't match because some of the arguments have invalid types: "
                        f"(!{tn}!)\n"
                        " * (Number value)\n"
                        f"      didn't match because some of the arguments have invalid types: "
                        f"(!{tn}!)\n")
    return self     # an alias shares self's storage, so self's version was bumped


@defop("zero_", node="ZeroBackward0", promote=Promote.NONE, variants=())
def zero(xp, self):
    return xp.zeros(self.shape, self.dtype)


@zero.backward
def _(ctx, grad):
    return (zeros_like(grad),)


zero.jvp(AUTO_LINEAR)


def zero_(self):
    """Fill with zeros in place."""
    if type(self._data) is _COO:   # (no element specified any more: ops/sparse.py)
        return zero.call_inplace(self)
    zero.call_inplace(_writable_alias(self))
    return self


# ---------------------------------------------------------------------------------------------
# new_* constructors: this tensor's dtype (and device) unless given
# ---------------------------------------------------------------------------------------------
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """``dyngrad.tensor(data)`` with this tensor's dtype unless `dtype` is given."""
    if type(requires_grad) is not bool:   # (torch's parser: no other type)
        raise TypeError(parse_error("new_tensor", (data,), {"requires_grad": requires_grad},
                                    True))
    from .tensor_new import tensor
    return tensor(data, dtype=dtype_arg(dtype, "new_tensor") or self.dtype, device=device,
                  requires_grad=requires_grad,
                  _api="tensor.new_tensor")


def _new_filled(fname, self, size, fill, dtype, device, requires_grad, pin_memory, kw_size=None):
    check_pin_memory(pin_memory)
    shape = check_size(_size_args(fname, size, kw_size))
    d = dtype_arg(dtype, fname) or self.dtype
    if fill is not None and fill is not ZEROS:
        fill = fill_array(checked_scalar(fill, d), d)
    return finish(alloc(shape, d.np, fill=fill), requires_grad, device)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False, **kw):
    """Zeros of `size` with this tensor's dtype unless given."""
    return _new_filled("new_zeros", self, size, ZEROS, dtype, device, requires_grad, pin_memory,
                       kw.pop("size", None))


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False, **kw):
    return _new_filled("new_ones", self, size, 1, dtype, device, requires_grad, pin_memory,
                       kw.pop("size", None))


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False, **kw):
    return _new_filled("new_empty", self, size, None, dtype, device, requires_grad, pin_memory,
                       kw.pop("size", None))


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    check_pin_memory(pin_memory)
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{_type_name(size)}")
    return full(size, fill_value, dtype=dtype_arg(dtype, "new_full") or self.dtype, device=device,
                requires_grad=requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    check_pin_memory(pin_memory)
    return empty_strided(size, stride, dtype=dtype_arg(dtype, "new_empty_strided") or self.dtype,
                         device=device,
                         requires_grad=requires_grad)


for _name, _fn in (("to", to), ("type", type_), ("type_as", type_as), ("cpu", cpu),
                   ("cuda", cuda), ("xpu", _move_to("xpu")), ("ipu", _move_to("ipu")),
                   ("mtia", _move_to("mtia")), ("copy_", copy_), ("fill_", fill_), ("zero_", zero_),
                   ("new_tensor", new_tensor), ("new_zeros", new_zeros),
                   ("new_ones", new_ones), ("new_empty", new_empty), ("new_full", new_full),
                   ("new_empty_strided", new_empty_strided)):
    METHODS[_name] = _fn
for _name, _d in _SHORTHANDS.items():
    METHODS[_name] = _shorthand(_name, _d)
del _name, _fn, _d
