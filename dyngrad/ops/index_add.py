"""The public index_add, masked_scatter and put (with their in-place forms): torch's argument
checks and errors in front of the primitives of scatter.py, which are also the backward of
index_select, masked_select and take.

Results: index_add and masked_scatter give contiguous tensors (masked_scatter of the broadcast
of input and mask); put keeps input's layout (torch clones with preserve_format first).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._utils import canonical_dim, shape_str
from ..backends import numpy_backend as _npb
from . import _geometry as G
from . import shape as S
from . import scatter as _sc
from ._registry import FUNCTIONS, INPLACE, METHODS
from ._selection import warn_at_caller
from .gather_scatter import _broadcast, check_bounds, tensor_arg

# torch's node also shows the source's rank
_sc._index_add.node_cls._saved_source_dim = property(lambda node: len(node.source_shape))


def _legacy(t) -> str:
    return t.dtype._legacy


# ---------------------------------------------------------------------------------------------
# index_add
# ---------------------------------------------------------------------------------------------
def index_func_checks(func, self, dim, index, source) -> int:
    """torch's index_func_meta_impl for ``func`` ("index_add_", "index_reduce_"): index rank
    and dtype, self and source dtypes, dim and sizes; returns the wrapped dim."""
    nd, sd = self._data.ndim, source._data.ndim
    d = canonical_dim(dim, nd)
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"{func}(): Index is supposed to be a vector, but got dim: "
                         f"{idx.ndim} with type: {_legacy(index)} and size: "
                         f"{shape_str(idx.shape)}")
    if index.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"{func}(): Expected dtype int32/int64 for index but got: "
                           f"{_legacy(index)}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"{func}(): self ({_legacy(self)}) and source ({_legacy(source)}) "
                           "must have the same scalar type")
    if not (d == 0 or d < sd):
        raise RuntimeError(f"{func}(): Indexing dim {d} is out of bounds of the source "
                           f"tensor with dim {sd}")
    n = idx.size
    count = 1 if sd == 0 else source._data.shape[d]
    if n != count:
        raise RuntimeError(f"{func}(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {d}")
    self_sizes, source_sizes = list(self._data.shape), list(source._data.shape)
    if sd and nd:
        del self_sizes[d], source_sizes[d]
    if self_sizes != source_sizes:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {shape_str(self._data.shape)} "
                           f"source.shape = {shape_str(source._data.shape)}")
    return d


def _index_add_checks(self, dim, index, source, alpha) -> int:
    """torch's index_func_meta_impl and index_add's bounds checks; returns the wrapped dim."""
    d = index_func_checks("index_add_", self, dim, index, source)
    nd, idx, n = self._data.ndim, index._data, index._data.size
    if n and self._data.size:
        flat = idx.reshape(-1)
        size = self._data.shape[d] if nd else 1
        # torch's fast path (a scatter_add) words the error its own way
        if nd > 1 and d in (0, nd - 1) and alpha == 1 and type(alpha) is not bool \
                and index.dtype is D.int64:
            check_bounds(flat, size, d)
        elif ((flat < 0) | (flat >= size)).any():
            raise IndexError("index out of range in self")
    return d


def _alpha(dtype, alpha):
    """alpha as the kernel's scalar type takes it (c10 truncates a float alpha for ints)."""
    if dtype is D.bool_:
        return bool(alpha)
    if dtype.category == D.INT and isinstance(alpha, float):
        return int(alpha)
    return alpha


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """``input`` with ``alpha * source`` added at positions ``index`` along ``dim``."""
    tensor_arg("index_add", "index", index, 3)
    tensor_arg("index_add", "source", source, 4)
    _index_add_checks(input, dim, index, source, alpha)
    if out is not None:
        return _sc._index_add(input, source, index, dim, _alpha(input.dtype, alpha), out=out)
    return _sc._index_add(input, source, index, dim, _alpha(input.dtype, alpha))


def _index_add_method(self, dim, index, source, *, alpha=1):
    tensor_arg("index_add", "index", index, 2)
    tensor_arg("index_add", "source", source, 3)
    _index_add_checks(self, dim, index, source, alpha)
    return _sc._index_add(self, source, index, dim, _alpha(self.dtype, alpha))


def index_add_(self, dim, index, source, *, alpha=1):
    """In-place :func:`index_add`."""
    tensor_arg("index_add_", "index", index, 2)
    tensor_arg("index_add_", "source", source, 3)
    _index_add_checks(self, dim, index, source, alpha)
    return _sc._index_add.call_inplace(self, source, index, dim, _alpha(self.dtype, alpha))


# ---------------------------------------------------------------------------------------------
# masked_scatter
# ---------------------------------------------------------------------------------------------
_UINT8_MASK = ("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
               "deprecated,please use a mask with dtype torch.bool instead. (Triggered "
               "internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
               "TensorAdvancedIndexing.cpp:3130.)")


def _masked_scatter_checks(self, mask, source, shape) -> None:
    """masked_scatter_'s checks on ``self`` (of `shape`, already broadcast with the mask)."""
    if self.dtype is not source.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{_legacy(self)} and {_legacy(source)}")
    if mask.dtype is D.uint8:
        warn_at_caller(_UINT8_MASK)
    if mask.dtype is not D.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {mask.dtype._legacy}")
    G.expand_geometry(mask._data.shape, mask.stride(), shape, S._type_name(mask))
    ones = int(_npb.xp.broadcast_to(mask._data, shape).sum())
    if source._data.size < ones:
        raise RuntimeError("Number of elements of source < number of ones in mask")


def masked_scatter(input, mask, source):
    """``input`` (broadcast with ``mask``) with the elements of ``source``, in order, where
    ``mask`` is True."""
    shape = _broadcast(tuple(mask._data.shape), tuple(input._data.shape))
    _masked_scatter_checks(input, mask, source, shape)
    return _sc.masked_scatter(input, source, mask)


def masked_scatter_(self, mask, source):
    """In-place :func:`masked_scatter` (``mask`` must broadcast to ``self``)."""
    self._check_writeable()
    _masked_scatter_checks(self, mask, source, tuple(self._data.shape))
    return _sc.masked_scatter.call_inplace(self, source, mask)


# ---------------------------------------------------------------------------------------------
# put
# ---------------------------------------------------------------------------------------------
def _put_checks(self, index, source) -> None:
    if index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_legacy(index)}")
    if self.dtype is not source.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_legacy(self)} and source.dtype = {_legacy(source)}")
    n, m = index._data.size, source._data.size
    if n != m:
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {m}, index.numel() = {n}")
    size = self._data.size
    if size == 0 and n:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    flat = index._data.reshape(-1)
    bad = (flat < -size) | (flat >= size)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(flat[bad][0])} on a tensor "
                         f"of {size} elements.")


def put(input, index, source, accumulate=False):
    """``input`` with ``source`` written (or added, ``accumulate``) at the flat positions
    ``index`` (negative ones count from the end)."""
    _put_checks(input, index, source)
    return _sc.put(input, source, index, accumulate)


def put_(self, index, source, accumulate=False):
    """In-place :func:`put`."""
    self._check_writeable()
    _put_checks(self, index, source)
    return _sc.put.call_inplace(self, source, index, accumulate)


for _fn in (index_add, masked_scatter, put):
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
METHODS["index_add"] = _index_add_method
for _fn in (index_add_, masked_scatter_, put_):
    METHODS[_fn.__name__] = INPLACE[_fn.__name__] = _fn
