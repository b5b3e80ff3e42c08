"""Embedding lookup: ``torch.embedding`` (EmbeddingBackward0), ``torch.embedding_renorm_`` and
``nn.functional.embedding`` (padding_idx, max_norm, scale_grad_by_freq); bags of embeddings:
``torch.embedding_bag`` / ``nn.functional.embedding_bag`` (EmbeddingBagBackward0; sum, mean,
max; offsets, per_sample_weights, include_last_offset, padding_idx).

The gradient (torch's ``embedding_dense_backward``, a primitive here too) sums each output
row's gradient into its weight row, with a derivative of its own for double backward; rows at
``padding_idx`` send nothing, and ``scale_grad_by_freq`` divides by how often each index
occurs in the batch.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from ..autograd.grad_mode import no_grad
from ..backends import numpy_backend as _npb
from ._registry import FUNCTIONS, OPS, defop
from ..autograd.forward_ad import AUTO_LINEAR


def _check_indices(indices, fname):
    if indices.dtype.kind not in "iu" or indices.dtype.itemsize not in (4, 8) \
            or indices.dtype.kind == "u":
        got = D.type_string(D.from_np(indices.dtype))
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {got} "
                           f"instead (while checking arguments for {fname})")


@defop("embedding", node="EmbeddingBackward0", promote=Promote.NONE,
       inputs=("weight", "indices"), differentiable=("weight",), nopromote=("indices",),
       saves=("indices",), variants=("function",), scalars=(), complex_autograd=False)
def embedding(xp, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by ``indices``: shape ``indices.shape + (dim,)``."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, "embedding")
    n = weight.shape[0]
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise IndexError("index out of range in self")
    return xp.ascontiguousarray(weight[indices])


@embedding.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    if ctx.sparse:
        from .sparse import embedding_sparse_backward
        return embedding_sparse_backward(grad, indices, ctx.weight_shape[0], ctx.padding_idx,
                                         ctx.scale_grad_by_freq)
    return embedding_dense_backward(grad, indices, ctx.weight_shape[0], ctx.padding_idx,
                                    ctx.scale_grad_by_freq)


embedding.jvp(AUTO_LINEAR)


# Note [Embedding double backward]
# torch differentiates its backward as if ``scale_grad_by_freq`` were off (its formula's
# comment says the first backward already scaled: it did, but not the derivative w.r.t. the
# incoming gradient). We keep that formula to give torch's numbers. The backward is a
# primitive of its own (EmbeddingDenseBackwardBackward0 in torch's double-backward graphs),
# kept out of OPS like the other backward-only primitives: tests/test_normalization.py.
@defop("embedding_dense_backward", node="EmbeddingDenseBackwardBackward0",
       promote=Promote.NONE, inputs=("grad_output", "indices"), differentiable=("grad_output",),
       nopromote=("indices",), saves=("indices",), variants=(), scalars=())
def embedding_dense_backward(xp, grad_output, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
    """Sum each looked-up row's gradient into its weight row (none for ``padding_idx``)."""
    idx = indices.reshape(-1)
    g = grad_output.reshape(idx.size, -1) if idx.size else \
        grad_output.reshape(0, grad_output.shape[-1] if grad_output.ndim else 1)
    if padding_idx >= 0:
        g = g * (idx != padding_idx)[:, None]
    if scale_grad_by_freq:
        counts = xp.bincount(idx, minlength=num_weights)
        g = g / counts[idx][:, None]
    out = xp.zeros((num_weights, g.shape[1]), grad_output.dtype)
    _npb.add_at_axis(out, 0, idx, g.astype(grad_output.dtype, copy=False))
    return out


OPS.pop("embedding_dense_backward", None)


@embedding_dense_backward.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    rows = grad.index_select(0, indices.reshape(-1))
    if ctx.padding_idx >= 0:
        rows = rows * (indices.reshape(-1) != ctx.padding_idx).to(rows.dtype).unsqueeze(1)
    return rows.view(tuple(indices.shape) + (-1,))


embedding_dense_backward.jvp(AUTO_LINEAR)


# torch saves weight.size(0) (a SymInt) under this name
embedding.node_cls._saved_weight_sym_argsize_0 = property(lambda self: self.weight_shape[0])


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rescale, in place, each looked-up row whose ``norm_type`` norm
    exceeds ``max_norm`` to norm ``max_norm`` (torch divides by ``norm + 1e-7``)."""
    _check_indices(indices._data, "embedding_renorm_")
    rows = sorted(set(int(i) for i in indices.reshape(-1).tolist()))
    if not rows:
        return weight
    idx = FUNCTIONS["tensor"](rows)
    with no_grad():
        sel = weight.index_select(0, idx)
        norms = FUNCTIONS["linalg.vector_norm"](sel, norm_type, 1, True)
        scale = FUNCTIONS["where"](norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_copy_(0, idx, sel * scale.to(sel.dtype))
    return weight


def embedding_functional(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
                         scale_grad_by_freq=False, sparse=False):
    """nn.functional.embedding. ``sparse=True`` gives ``weight`` a sparse COO gradient."""
    if padding_idx is not None:
        n = weight.size(0)
        if padding_idx > 0:
            assert padding_idx < n, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -n, "Padding_idx must be within num_embeddings"
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        embedding_renorm_(weight, input, max_norm, norm_type)
    return embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


FUNCTIONS["embedding_renorm_"] = embedding_renorm_
FUNCTIONS["nn.functional.embedding"] = embedding_functional


# ---------------------------------------------------------------------------------------------
# embedding_bag
# ---------------------------------------------------------------------------------------------
_MODES = {0: "sum", 1: "mean", 2: "max"}


@defop("_embedding_bag", node="EmbeddingBagBackward0", promote=Promote.NONE,
       inputs=("weight", "indices", "offsets", "per_sample_weights"),
       differentiable=("weight", "per_sample_weights"), nopromote=("indices", "offsets"),
       outputs=("result0", "result1", "result2", "result3"),
       saves=("weight", "indices", "offsets", "per_sample_weights", "result1", "result2",
              "result3"), nondiff_outputs=(1, 2, 3), variants=(), scalars=(),
       kernel_dtypes=True)
def _embedding_bag(xp, weight, indices, offsets, per_sample_weights=None,
                   scale_grad_by_freq=False, mode=0, sparse=False, include_last_offset=False,
                   padding_idx=None):
    """Sums, means or maxima of bags of embedding rows: (output, offset2bag, bag_size,
    max_indices), torch's four results. (Tensors first, as the dispatcher wants; torch's
    schema puts per_sample_weights later.)"""
    if weight.dtype.kind not in "fV":
        got = D.type_string(D.from_np(weight.dtype))   # (bool, complex: CPUBoolType...)
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have one of the "
                           f"following scalar types: Half, BFloat16, Float, Double; but got "
                           f"{got} instead (while checking arguments for embedding_bag)")
    _check_indices(indices, "embedding_bag")
    n, dim = weight.shape
    idx = indices.reshape(-1).astype(xp.int64)
    offs = offsets.reshape(-1).astype(xp.int64)
    bad = xp.nonzero((idx < 0) | (idx >= n))[0]
    if bad.size:
        raise RuntimeError(f"Index {int(bad[0])} of input takes value {int(idx[bad[0]])} which "
                           f"is not in the valid range [0, {n})")
    if offs.size and offs[0] != 0:
        wide = "Long" if 8 in (indices.dtype.itemsize, offsets.dtype.itemsize) else "Int"
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(offs[0])}\n"
                           f"[ torch.{wide}Tensor{{}} ]")
    if offs.size and offs[-1] > idx.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.size} but "
                           f"got offsets[-1] of {int(offs[-1])}")
    bags = offs.size - 1 if include_last_offset else offs.size
    starts = offs[:max(bags, 0)]
    offset2bag = xp.clip(xp.searchsorted(starts, xp.arange(idx.size), side="right") - 1,
                         0, max(bags - 1, 0)).astype(xp.int64)
    valid = idx != (-1 if padding_idx is None else padding_idx)
    if include_last_offset and offs.size:
        valid = valid & (xp.arange(idx.size) < offs[-1])
    counts = xp.bincount(offset2bag[valid], minlength=max(bags, 0))[:max(bags, 0)]
    out = xp.zeros((max(bags, 0), dim), weight.dtype)
    if mode == 2:
        max_indices = xp.zeros((max(bags, 0), dim), xp.int64)
        for b in range(bags):
            pos = xp.nonzero(valid & (offset2bag == b))[0]
            if pos.size:
                rows = weight[idx[pos]]
                best = xp.argmax(rows, axis=0)
                out[b] = rows[best, xp.arange(dim)]
                max_indices[b] = idx[pos][best]
        bag_size = counts.astype(xp.int64)
    else:
        rows = weight[idx]
        if per_sample_weights is not None:
            rows = rows * per_sample_weights.reshape(-1)[:, None]
        _npb.add_at_axis(out, 0, offset2bag[valid], rows[valid].astype(weight.dtype, copy=False))
        if mode == 1:
            out = out / xp.maximum(counts, 1)[:, None].astype(weight.dtype)
            bag_size = counts.astype(xp.int64)
            max_indices = bag_size.copy()
        else:
            bag_size = xp.zeros(max(bags, 0), xp.int64)
            max_indices = bag_size.copy()
    if mode == 0 and padding_idx is None and weight.dtype != xp.float64:
        offset2bag = offset2bag[:0]   # torch's float/half sum fast path leaves it empty
    it = indices.dtype   # the index results take the indices' dtype
    return (out.astype(weight.dtype), offset2bag.astype(it), bag_size.astype(it),
            max_indices.astype(it))


@_embedding_bag.backward
def _(ctx, grad, *_):
    # torch's embedding_bag backward is not itself differentiable (its gradient has no
    # grad_fn): computed without recording, to the same effect
    weight, indices, offsets, psw, offset2bag, bag_size, max_indices = ctx.saved_tensors
    need = ctx.needs_input_grad
    num, dim = ctx.weight_shape
    zeros = FUNCTIONS["zeros"]
    with no_grad():
        idx = indices.reshape(-1).long()
        offset2bag, max_indices = offset2bag.long(), max_indices.long()
        if offset2bag.numel() != idx.numel():   # (left empty by the sum fast path)
            offset2bag = _offset2bag(offsets, idx.numel(), ctx.include_last_offset)
        pad = -1 if ctx.padding_idx is None else ctx.padding_idx
        valid = (idx != pad).to(grad.dtype).unsqueeze(1)
        gw = gpsw = None
        if ctx.mode == 2:
            filled = (bag_size > 0).to(grad.dtype).unsqueeze(1)
            gw = zeros((num, dim), dtype=grad.dtype).scatter_add(0, max_indices, grad * filled)
        else:
            rows = grad.index_select(0, offset2bag)
            if ctx.mode == 1:
                rows = rows / bag_size.index_select(0, offset2bag).clamp(min=1).unsqueeze(1)
            if need[1] and psw is not None:
                picked = weight.index_select(0, idx)
                gpsw = (rows * picked * valid).sum(1).view(psw.shape)
            if need[0]:
                if psw is not None:
                    rows = rows * psw.reshape(-1).unsqueeze(1)
                rows = rows * valid
                if ctx.scale_grad_by_freq:
                    ones = FUNCTIONS["ones"]((idx.numel(),), dtype=grad.dtype)
                    counts = zeros((num,), dtype=grad.dtype).index_add(0, idx, ones)
                    rows = rows / counts.index_select(0, idx).unsqueeze(1)
                gw = zeros((num, dim), dtype=grad.dtype).index_add(0, idx, rows)
    return (gw if need[0] else None), gpsw


_embedding_bag.node_cls._saved_padding_idx = property(
    lambda self: -1 if self.padding_idx is None else self.padding_idx)
_embedding_bag.node_cls._saved_weight_sym_argsize_0 = property(
    lambda self: self.weight_shape[0])


def _offset2bag(offsets, n, include_last_offset):
    """The bag of each of `n` indices (a LongTensor), from the bag starts in `offsets`."""
    starts = [int(o) for o in offsets.reshape(-1).tolist()]
    if include_last_offset:
        starts = starts[:-1]
    bag, out = 0, []
    for i in range(n):
        while bag + 1 < len(starts) and starts[bag + 1] <= i:
            bag += 1
        out.append(bag)
    return FUNCTIONS["tensor"](out, dtype=D.int64)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.embedding_bag: (output, offset2bag, bag_size, max_indices); a negative
    ``padding_idx`` counts from the end."""
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return _embedding_bag(weight, indices, offsets, per_sample_weights, scale_grad_by_freq,
                          mode, sparse, include_last_offset, padding_idx)


def embedding_bag_functional(input, weight, offsets=None, max_norm=None, norm_type=2,
                             scale_grad_by_freq=False, mode="mean", sparse=False,
                             per_sample_weights=None, include_last_offset=False,
                             padding_idx=None):
    """nn.functional.embedding_bag: bags given by ``offsets`` (1-D input) or by the rows of a
    2-D input; mode "sum", "mean" or "max"."""
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = FUNCTIONS["arange"](0, input.numel(), input.size(1), dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    modes = {v: k for k, v in _MODES.items()}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    return embedding_bag(weight, input, offsets, scale_grad_by_freq, modes[mode], sparse,
                         per_sample_weights, include_last_offset, padding_idx)[0]


FUNCTIONS["embedding_bag"] = embedding_bag
FUNCTIONS["nn.functional.embedding_bag"] = embedding_bag_functional
