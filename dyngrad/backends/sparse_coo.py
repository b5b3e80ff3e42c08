"""The sparse COO layout on NumPy: what a ``torch.sparse_coo`` tensor holds in place of an array.

Note [Sparse COO tensors]
~~~~~~~~~~~~~~~~~~~~~~~~~
A sparse COO tensor of shape ``(d0, ..., dk)`` stores only its specified elements: ``indices``,
an int64 array of shape ``(sparse_dim, nnz)`` whose column ``j`` addresses the first
``sparse_dim`` dims, and ``values``, of shape ``(nnz, *dense_shape)``, the element (or, for a
hybrid tensor, the dense block) at that address. An address may repeat: its elements are then
summed, and the tensor is *uncoalesced*. ``coalesce()`` sorts the addresses in row-major order
and sums the repeats; it marks the result coalesced, and torch's ``indices()``/``values()``
refuse a tensor not so marked (``_indices()``/``_values()`` do not).

In dyngrad a sparse tensor is an ordinary ``Tensor`` whose ``_data`` is a ``COO`` object from
this module instead of an ndarray (torch's SparseTensorImpl beside TensorImpl). It answers the
metadata a Tensor reads off its array (shape, ndim, dtype, size, itemsize, and strides of
zero, as torch's sparse tensors report), so ``s.shape``, ``s.dtype`` and ``s.numel()`` need
nothing of their own. Its kernels are in ops/sparse.py; the dispatcher sends an op with a
sparse argument there (Note [Sparse dispatch] in that file).
"""
from __future__ import annotations

import numpy as np

# How many COO objects exist, and who is told when that number leaves or reaches zero (the
# dispatcher: Note [Sparse dispatch] in ops/sparse.py)
live = 0
on_change = None


class COO:
    """``indices`` (int64, ``(sparse_dim, nnz)``), ``values`` (``(nnz, *dense_shape)``),
    ``shape`` and whether the tensor is known to be coalesced."""

    __slots__ = ("indices", "values", "shape", "coalesced")

    def __init__(self, indices, values, shape, coalesced=False):
        self.indices = indices
        self.values = values
        self.shape = tuple(shape)
        self.coalesced = bool(coalesced)
        global live
        live += 1
        if live == 1 and on_change is not None:
            on_change(True)

    def __del__(self):
        global live
        try:
            live -= 1
            if live == 0 and on_change is not None:
                on_change(False)
        except Exception:   # noqa: BLE001  (at interpreter exit the module may be gone)
            pass

    # -- what a Tensor reads off its array ------------------------------------------------------
    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def itemsize(self) -> int:
        return self.values.itemsize

    @property
    def strides(self) -> tuple:
        return (0,) * len(self.shape)

    @property
    def sparse_dim(self) -> int:
        return self.indices.shape[0]

    @property
    def dense_dim(self) -> int:
        return self.values.ndim - 1

    @property
    def nnz(self) -> int:
        return self.indices.shape[1]

    def astype(self, dtype) -> "COO":
        return COO(self.indices, self.values.astype(dtype), self.shape, self.coalesced)

    def copy(self) -> "COO":
        return COO(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def assign(self, other: "COO") -> None:
        """Become `other` (an in-place op's result): the tensors sharing this object see it."""
        self.indices, self.values = other.indices, other.values
        self.shape, self.coalesced = other.shape, other.coalesced

    def with_values(self, values, coalesced=None) -> "COO":
        """The same addresses holding `values`."""
        return COO(self.indices, values, self.shape,
                   self.coalesced if coalesced is None else coalesced)

    def __repr__(self) -> str:
        return f"COO(shape={self.shape}, nnz={self.nnz}, dtype={self.dtype})"


# ---------------------------------------------------------------------------------------------
# addresses
# ---------------------------------------------------------------------------------------------
def linear_index(indices, sparse_shape):
    """Each column's row-major position among the sparse dims (int64)."""
    lin = np.zeros(indices.shape[1], np.int64)
    for row, n in zip(indices, sparse_shape):
        lin = lin * n + row
    return lin


def rounds(lin):
    """The positions of `lin`'s entries in rounds of distinct values: the first occurrence of
    each value (in value order), then the second... so that summing round after round adds
    an address's repeated elements one by one, in their order (torch's sequential sums)."""
    order = np.argsort(lin, kind="stable")
    ordered = lin[order]
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(lin)), 0))
    rank = np.arange(len(lin)) - group_start   # (in sorted order)
    return [order[rank == r] for r in range(int(rank.max()) + 1)] if len(lin) else []


def coalesce(a: COO) -> COO:
    """Sorted, unique addresses with the repeats summed one by one in their order (a
    coalesced copy; `a` if it is one). torch sorts with an unstable sort beyond 16 elements,
    so its order of repeated elements, and a sum's last bit, can differ there."""
    if a.coalesced:
        return a
    if a.nnz == 0:
        return COO(a.indices, a.values, a.shape, True)
    lin = linear_index(a.indices, a.shape[:a.sparse_dim])
    first, *later = rounds(lin)
    # (torch writes the addresses into an array as wide as the input's and narrows it: a
    # coalesced tensor with fewer elements has indices strided by the old count)
    indices = np.empty((a.sparse_dim, a.nnz), np.int64)[:, :len(first)]
    indices[...] = a.indices[:, first]
    values = a.values[first].copy()
    slot = {v: i for i, v in enumerate(lin[first].tolist())} if later else None
    for picked in later:
        at = np.array([slot[v] for v in lin[picked].tolist()], np.intp)
        values[at] = values[at] + a.values[picked]
    return COO(indices, values, a.shape, True)


def to_dense(a: COO):
    """The strided array: zeros, with every specified element added at its address."""
    if a.sparse_dim == 0:   # (every element is one block of the whole shape)
        return a.values.sum(0, dtype=a.dtype)
    out = np.zeros(a.shape, a.dtype)
    if a.nnz:
        np.add.at(out, tuple(a.indices), a.values)
    return out


def from_dense(x, sparse_dim: int) -> COO:
    """The COO form of an array, its first `sparse_dim` dims sparse: an address for each block
    with a nonzero element, in row-major order (coalesced)."""
    nonzero = x != 0
    if sparse_dim < x.ndim:
        nonzero = nonzero.reshape(x.shape[:sparse_dim] + (-1,)).any(-1)
    where = np.nonzero(nonzero)
    indices = np.array(where, dtype=np.int64).reshape(sparse_dim, -1)
    return COO(indices, np.ascontiguousarray(x[where]), x.shape, True)


def empty(shape, sparse_dim: int, dtype) -> COO:
    """No specified element (coalesced, as torch marks an empty tensor)."""
    dense = tuple(shape[sparse_dim:])
    return COO(np.zeros((sparse_dim, 0), np.int64), np.zeros((0,) + dense, dtype), shape, True)


def add(t: COO, s: COO, alpha=1) -> COO:
    """``t + alpha * s``, as torch's CPU kernel makes it (in place or not).

    With both values arrays contiguous, one pass over the two address lists takes the smaller
    address first and adds the elements of an address both hold: on coalesced inputs that is
    the coalesced sum; on others it is torch's walk, repeated here (an address may then appear
    more than once). Otherwise the lists are joined (uncoalesced, coalesced only once they
    hold more elements than the tensor has). An empty input gives the other one's elements."""
    dtype = np.result_type(t.values, s.values)
    if s.nnz == 0:
        return COO(t.indices.copy(), t.values.astype(dtype), t.shape, t.coalesced)
    if t.nnz == 0:
        return COO(s.indices.copy(), np.asarray(s.values * alpha, dtype), t.shape, s.coalesced)
    if not (t.values.flags.c_contiguous and s.values.flags.c_contiguous):
        joined = COO(np.concatenate([t.indices, s.indices], axis=1),
                     np.concatenate([t.values.astype(dtype), np.asarray(s.values * alpha,
                                                                        dtype)]), t.shape)
        return coalesce(joined) if joined.nnz > joined.size else joined
    if t.coalesced and s.coalesced:
        return _merge_sorted(t, s, alpha, dtype)
    return _merge_walk(t, s, alpha, dtype)


def fma(x, a, y, dtype):
    """``x + a * y`` rounded once to `dtype` (a fused multiply-add, as torch's kernels add a
    scaled element): in float64 for float32 and narrower floats, whose products it holds
    exactly; in `dtype` itself otherwise."""
    wide = np.float64 if dtype.kind == "f" and dtype.itemsize < 8 else dtype
    a = np.asarray(a).astype(dtype).astype(wide)
    return (np.asarray(x).astype(wide) + a * np.asarray(y).astype(wide)).astype(dtype)


def _merge_sorted(t, s, alpha, dtype):
    lin_t = linear_index(t.indices, t.shape)
    lin_s = linear_index(s.indices, t.shape)
    both = np.concatenate([lin_t, lin_s])
    order = np.argsort(both, kind="stable")
    ordered = both[order]
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    starts = np.flatnonzero(first)
    indices = np.concatenate([t.indices, s.indices], axis=1)[:, order[starts]]
    # each output address holds t's element or zero, plus alpha times s's element or zero
    tv = np.zeros((len(starts),) + t.values.shape[1:], dtype)
    sv = np.zeros_like(tv)
    slot = np.cumsum(first) - 1
    from_t = order < t.nnz
    tv[slot[from_t]] = t.values[order[from_t]]
    sv[slot[~from_t]] = s.values[order[~from_t] - t.nnz]
    return COO(np.ascontiguousarray(indices), fma(tv, alpha, sv, dtype), t.shape, True)


def _merge_walk(t, s, alpha, dtype):
    ti, si = t.indices.T.tolist(), s.indices.T.tolist()
    cols, vals = [], []
    i = j = 0
    while i < len(ti) or j < len(si):
        cmp = -1 if i >= len(ti) else 1 if j >= len(si) else \
            (ti[i] < si[j]) - (ti[i] > si[j])
        if cmp >= 0:
            cols.append(ti[i])
            vals.append(t.values[i].astype(dtype))
            i += 1
        if cmp <= 0:
            if cmp < 0:
                cols.append(si[j])
                vals.append(np.zeros(t.values.shape[1:], dtype))
            vals[-1] = fma(vals[-1], alpha, s.values[j], dtype)
            j += 1
    indices = np.array(cols, np.int64).T.reshape(t.sparse_dim, -1)
    return COO(np.ascontiguousarray(indices), np.array(vals, dtype), t.shape, False)


def sparse_mask(x, mask: COO) -> COO:
    """The elements of the dense `x` at `mask`'s addresses, with `mask`'s addresses (coalesced
    ``mask``: as torch, which asks for one)."""
    return COO(mask.indices.copy(), np.ascontiguousarray(x[tuple(mask.indices)]), mask.shape,
               mask.coalesced)
