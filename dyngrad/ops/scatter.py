"""Scatters into a tensor: index_add, masked_scatter, put -- the backward of the gathers.

Each is the adjoint of a gather in indexing.py (index_select <-> index_add, masked_select <->
masked_scatter, take <-> put), so each one's backward is that gather again, and higher
derivatives of the gathers alternate between the two. They carry torch's node names
(``IndexAddBackward0``…) because torch's formulas call these very ops.

The public functions (``torch.index_add``, ``Tensor.masked_scatter_``, ``Tensor.put_``...)
are in index_add.py: they run torch's argument checks, then these primitives, whose own checks
are the minimum the formulas need.
"""
from __future__ import annotations

from .._promotion import Promote
from .._utils import broadcast_shapes, canonical_dim
from ..backends import numpy_backend as _npb
from ._geometry import _numel
from .creation import laid_out_like
from ._registry import defop
from ..autograd.forward_ad import AUTO_LINEAR, _size_error
from .view_backward import backward_only


@defop("index_add", node="IndexAddBackward0", promote=Promote.NONE,
       inputs=("self", "source", "index"), differentiable=("self", "source"),
       saves=("index", "source"), variants=())
def _index_add(xp, self, source, index, dim, alpha=1, _into=None):
    # (_into: index_add_'s target, written in place where nothing is recorded, Note [In-place
    # kernels write into the target]; a source sharing its memory is read from a copy)
    if _into is None:
        out = xp.array(self, order="C")
    else:
        out = _into
        if alpha == 1 and xp.may_share_memory(out, source):
            source = source.copy()
    src = source if alpha == 1 else source * alpha
    if out.ndim == 0:
        xp.add.at(out.reshape(1), index.reshape(-1), src.reshape(-1))
    else:
        if src.ndim == 0:
            src = src.reshape(1)
        _npb.add_at_axis(out, canonical_dim(dim, out.ndim), index.reshape(-1), src)
    return out


@_index_add.backward
def _(ctx, grad):
    index, _ = ctx.saved_tensors
    self_grad = grad if ctx.needs_input_grad[0] else None
    source_grad = None
    if ctx.needs_input_grad[1]:
        from .indexing import index_select
        source_grad = index_select(grad, ctx.dim, index)
        if not ctx.source_shape:
            source_grad = source_grad.reshape(())
        if ctx.alpha != 1:
            source_grad = source_grad * ctx.alpha
    return self_grad, source_grad


_index_add.jvp(AUTO_LINEAR)


def index_add(input, dim: int, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added at positions ``index`` along ``dim`` (a copy)."""
    return _index_add(input, source, index, dim, alpha)


# ---------------------------------------------------------------------------------------------
# masked_scatter
# ---------------------------------------------------------------------------------------------
@defop("masked_scatter", node="MaskedScatterBackward0", promote=Promote.NONE,
       inputs=("self", "source", "mask"), differentiable=("self", "source"), saves=("mask",),
       variants=())
def masked_scatter(xp, self, source, mask):
    """``self`` (broadcast with ``mask``) with the first elements of ``source`` where mask."""
    shape = tuple(broadcast_shapes(self.shape, mask.shape))
    out = xp.array(xp.broadcast_to(self, shape), order="C")
    full = xp.broadcast_to(mask, shape)
    out[full] = source.reshape(-1)[:int(full.sum())]
    return out


@masked_scatter.backward
def _(ctx, grad):
    (mask,) = ctx.saved_tensors
    self_grad = source_grad = None
    if ctx.needs_input_grad[0]:
        from .pointwise import where
        self_grad = where(mask, 0.0, grad)
    if ctx.needs_input_grad[1]:
        source_grad = masked_scatter_backward(grad, mask, ctx.source_shape)
    return self_grad, source_grad


masked_scatter.jvp(AUTO_LINEAR)


@backward_only
@defop("masked_scatter_backward", node="MaskedScatterBackwardBackward0", promote=Promote.NONE,
       inputs=("grad_output", "mask"), differentiable=("grad_output",), saves=("mask",),
       variants=())
def masked_scatter_backward(xp, grad_output, mask, sizes):
    """``grad_output[mask]`` padded with zeros to ``sizes`` (the source's shape)."""
    shape = tuple(broadcast_shapes(grad_output.shape, mask.shape))
    picked = xp.broadcast_to(grad_output, shape)[xp.broadcast_to(mask, shape)]
    out = xp.zeros(_numel(sizes), grad_output.dtype)
    out[:picked.size] = picked
    return out.reshape(tuple(sizes))


@masked_scatter_backward.backward
def _(ctx, grad):
    (mask,) = ctx.saved_tensors
    return masked_scatter(grad.new_zeros(ctx.grad_output_shape), grad, mask)


@masked_scatter_backward.jvp
def _(ctx, grad_output_t, mask):
    # torch's formula pads the picked tangents to grad_output_t's own shape, not to `sizes`: a
    # source shaped otherwise than the gradient cannot take that tangent, and torch says so
    tangent = masked_scatter_backward(grad_output_t, ctx.primals[1], grad_output_t.shape)
    if tangent.shape != ctx.result.shape:
        raise _size_error(ctx.result.shape, tangent.shape)
    return tangent


# ---------------------------------------------------------------------------------------------
# put
# ---------------------------------------------------------------------------------------------
@defop("put", node="PutBackward0", promote=Promote.NONE, inputs=("self", "source", "index"),
       differentiable=("self", "source"), saves=("index", "source"), variants=())
def put(xp, self, source, index, accumulate=False):
    """``self`` with ``source`` written (or added) at the flat positions ``index``."""
    out = xp.array(self, order="C")
    flat = out.reshape(-1)
    if accumulate:
        xp.add.at(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return laid_out_like(out, self)   # torch: clone(preserve_format).put_


@put.backward
def _(ctx, grad):
    index, _ = ctx.saved_tensors
    self_grad = source_grad = None
    if ctx.needs_input_grad[0]:
        self_grad = grad if ctx.accumulate else \
            put(grad, grad.new_zeros(ctx.source_shape), index, False)
    if ctx.needs_input_grad[1]:
        from .indexing import take
        source_grad = take(grad, index).reshape(ctx.source_shape)
    return self_grad, source_grad


put.jvp(AUTO_LINEAR)

