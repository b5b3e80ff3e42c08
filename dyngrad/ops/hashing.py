"""hash_tensor: torch's xor-reduction hash of a tensor's elements (no gradient).

Each element is widened to its 64-bit type (floating types and bool to float64 and int64, as
torch's ``upcast``: a float32 1.1 hashes as the double it converts to) and its bit pattern read
as uint64; the hash of a slice is the xor of those words (mode 0, the only mode torch has). The
result is always uint64. As torch's ``xor_sum`` kernel, complex inputs and the limited unsigned
dtypes (uint16/32/64) have none (Note [Limited unsigned dtypes] in _promotion.py).

``dim`` is an int, a list of ints, or None / () for every dim; the empty-tensor checks are
those of torch's other reductions without identity. The method takes ``dim`` as its one
positional argument.
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._utils import canonical_dims
from ..backends import numpy_backend as _npb
from ._registry import FUNCTIONS, METHODS
from . import _registry
from ._selection import contiguous, wrap_plain, write_out
from ._arg_parser import type_name as _tp_name

_xp = _npb.xp


def _check_args(input, dim, keepdim, mode):
    if not isinstance(input, _registry._Tensor):
        raise TypeError("hash_tensor(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")
    if dim is not None and not isinstance(dim, int) and not (
            isinstance(dim, (tuple, list)) and all(isinstance(d, int) for d in dim)):
        raise TypeError("hash_tensor(): argument 'dim' (position 2) must be tuple of ints, not "
                        f"{type(dim).__name__}")
    if type(keepdim) is not bool:
        raise TypeError("hash_tensor(): argument 'keepdim' must be bool, not "
                        f"{type(keepdim).__name__}")
    if type(mode) is bool or not isinstance(mode, int):
        raise TypeError(f"hash_tensor(): argument 'mode' must be int, not {type(mode).__name__}")


def _axes(x, dim):
    """The reduced axes (None: all), after torch's checks of an empty input."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        axes = None
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(operator.index(d) for d in dim)
        axes = canonical_dims(dims, max(x.ndim, 1)) if x.ndim else ()
    if not x.size:
        if axes is None:
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        for d in sorted(axes):
            if x.shape[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero "
                                 "size.")
    return axes


def hash_tensor(input, dim=(), *, keepdim=False, mode=0, out=None):
    """The xor of the elements' 64-bit patterns over ``dim`` (every dim by default), as a
    uint64 tensor."""
    _check_args(input, dim, keepdim, mode)
    if out is not None and out.dtype is not D.uint64:
        raise RuntimeError(f"Expected result to be of dtype uint64, but got {out.dtype._legacy}")
    x = input._data
    axes = _axes(x, dim)
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if x.dtype.kind == "c" or input.dtype in D.LIMITED_UNSIGNED:
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{input.dtype._legacy}'")
    wide = x.astype(_xp.float64 if x.dtype.kind in "fV" else _xp.int64).view(_xp.uint64)
    if axes == ():
        reduced = wide.copy()
    else:
        reduced = _xp.bitwise_xor.reduce(wide, axis=axes, keepdims=keepdim)
    result = wrap_plain(contiguous(_xp.asarray(reduced, _xp.uint64)))
    if out is not None:
        write_out(out, result)
        return out
    return result


def _hash_tensor_method(self, *args, keepdim=False, mode=0, **kwargs):
    if len(args) > 1:
        raise TypeError(f"hash_tensor() takes from 0 to 1 positional arguments but {len(args)} "
                        "were given")
    if args and "dim" in kwargs:
        raise TypeError("hash_tensor() got multiple values for argument 'dim'")
    dim = args[0] if args else kwargs.pop("dim", ())
    if kwargs:
        raise TypeError(f"hash_tensor() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return hash_tensor(self, dim, keepdim=keepdim, mode=mode)


FUNCTIONS["hash_tensor"] = hash_tensor
METHODS["hash_tensor"] = _hash_tensor_method
