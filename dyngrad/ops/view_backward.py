"""The backward primitives of the view ops (shape.py): scatters, ``cat``/``stack``, as_strided.

Note [View backward as a scatter]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A view that selects part of its input (select, slice, diagonal, unfold) has as gradient the
incoming gradient put back where the view read it, in a zero tensor of the input's shape. The
positions are the view's own geometry kernel run on a *contiguous* tensor of that shape:
``kernel((sizes, contiguous_strides(sizes), 0), *args)``. Where that geometry reads one element
several times (``unfold`` with step < size) the gradients are added, else a plain strided write
does it. Each scatter is an op of its own, named as torch names it (``select_backward`` records
``SelectBackwardBackward0``), and its derivative is the view again, so derivatives of any order
need no more code; being linear, each takes its tangent by being applied to the incoming
gradient's tangent (``AUTO_LINEAR``). Multi-output views (``unbind``, ``split``) instead
``stack``/``cat`` their gradients, zeros standing in for outputs that got none, as torch does.

These primitives are not user ops: they are kept out of ``OPS`` (which the op database covers).
"""
from __future__ import annotations

from .._promotion import Promote
from .._utils import canonical_dim, contiguous_strides
from ..backends import numpy_backend as _npb
from . import shape as S
from ._geometry import _numel, maybe_overlapping, min_storage_size
from ._registry import OPS, defop
from ..autograd.forward_ad import AUTO_LINEAR


def backward_only(spec):
    """Keep a backward-only primitive out of ``OPS`` (the table of ops users call)."""
    if OPS.get(spec.name) is spec:
        del OPS[spec.name]
    return spec


def _scatter(xp, grad, input_sizes, kernel, *args):
    """Zeros of `input_sizes` with `grad` added where ``kernel``'s view reads. See the Note."""
    sizes = tuple(input_sizes)
    n = _numel(sizes)
    out = xp.zeros(n, grad.dtype)
    shape, stride, offset = kernel((sizes, contiguous_strides(sizes), 0), *args)
    if grad.size:
        if maybe_overlapping(shape, stride):
            index = _npb.strided(xp.arange(n), shape, stride, offset)
            xp.add.at(out, index, grad)
        else:
            _npb.strided(out, shape, stride, offset)[...] = grad
    return out.reshape(sizes)


@backward_only
@defop("select_backward", node="SelectBackwardBackward0", promote=Promote.NONE,
       inputs=("grad_output",), variants=())
def select_backward(xp, grad_output, input_sizes, dim, index):
    return _scatter(xp, grad_output, input_sizes, S._select.kernel, dim, index)


@select_backward.backward
def _(ctx, grad):
    return S._select(grad, ctx.dim, ctx.index)


@backward_only
@defop("slice_backward", node="SliceBackwardBackward0", promote=Promote.NONE,
       inputs=("grad_output",), variants=())
def slice_backward(xp, grad_output, input_sizes, dim, start, end, step):
    return _scatter(xp, grad_output, input_sizes, S._slice.kernel, dim, start, end, step)


@slice_backward.backward
def _(ctx, grad):
    return S._slice(grad, ctx.dim, ctx.start, ctx.end, ctx.step)


@backward_only
@defop("diagonal_backward", node="DiagonalBackwardBackward0", promote=Promote.NONE,
       inputs=("grad_output",), variants=())
def diagonal_backward(xp, grad_output, input_sizes, offset, dim1, dim2):
    return _scatter(xp, grad_output, input_sizes, S._diagonal.kernel, offset, dim1, dim2)


@diagonal_backward.backward
def _(ctx, grad):
    return S._diagonal(grad, ctx.offset, ctx.dim1, ctx.dim2)


@backward_only
@defop("unfold_backward", node="UnfoldBackwardBackward0", promote=Promote.NONE,
       inputs=("grad_in",), variants=())
def unfold_backward(xp, grad_in, input_sizes, dim, size, step):
    return _scatter(xp, grad_in, input_sizes, S._unfold.kernel, dim, size, step)


@unfold_backward.backward
def _(ctx, grad):
    return S._unfold(grad, ctx.dim, ctx.size, ctx.step)


# linear, as torch's auto_linear says (cat, stack and as_strided_scatter below too)
for _spec in (select_backward, slice_backward, diagonal_backward, unfold_backward):
    _spec.jvp(AUTO_LINEAR)


# ---------------------------------------------------------------------------------------------
# cat / stack: the backward of split and unbind
# ---------------------------------------------------------------------------------------------
@backward_only
@defop("cat", node="CatBackward0", promote=Promote.NONE, inputs=("tensors[]",), variants=())
def cat(xp, tensors, dim=0):
    return xp.concatenate(tensors, axis=dim)


@cat.backward
def _(ctx, grad):
    dim = canonical_dim(ctx.dim, grad.ndim)
    out = []
    start = 0
    for i, needed in enumerate(ctx.needs_input_grad):
        n = ctx.input_metadata(i)[0][dim]
        out.append(S._slice(grad, dim, start, start + n, 1) if needed else None)
        start += n
    return tuple(out)


@backward_only
@defop("stack", node="StackBackward0", promote=Promote.NONE, inputs=("tensors[]",), variants=())
def stack(xp, tensors, dim=0):
    return xp.stack(tensors, axis=dim)


@stack.backward
def _(ctx, grad):
    return tuple(S._select(grad, ctx.dim, i) if needed else None
                 for i, needed in enumerate(ctx.needs_input_grad))


cat.jvp(AUTO_LINEAR)
stack.jvp(AUTO_LINEAR)


def with_zeros(grads, shapes):
    """One gradient per output: zeros (of the output's shape) where an output got none."""
    ref = next(g for g in grads if g is not None)
    return [grads[i] if i < len(grads) and grads[i] is not None else ref.new_zeros(shape)
            for i, shape in enumerate(shapes)]


# ---------------------------------------------------------------------------------------------
# as_strided
# ---------------------------------------------------------------------------------------------
@backward_only
@defop("as_strided_scatter", node="AsStridedScatterBackward0", promote=Promote.NONE,
       inputs=("self", "src"), variants=())
def as_strided_scatter(xp, self, src, size, stride, storage_offset=None):
    """``self`` (contiguous, from offset 0) with ``src`` written at the strided positions."""
    out = xp.array(self, order="C")
    _npb.strided(out.reshape(-1), tuple(size), tuple(stride),
                 0 if storage_offset is None else storage_offset)[...] = src
    return out


@as_strided_scatter.backward
def _(ctx, grad):
    geometry = (ctx.size, ctx.stride, ctx.storage_offset)
    self_grad = src_grad = None
    if ctx.needs_input_grad[0]:
        self_grad = as_strided_scatter(grad, grad.new_zeros(ctx.src_shape), *geometry)
    if ctx.needs_input_grad[1]:
        src_grad = S.as_strided_view(grad, *geometry)
    return self_grad, src_grad


as_strided_scatter.jvp(AUTO_LINEAR)


# Note [as_strided backward]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's as_strided_backward (FunctionsManual.cpp), step for step and with the same ops: the
# output's and the input's geometry both address one storage. Size-1 dims of the output are
# squeezed away and stride-0 dims summed; the gradient is then scattered into a zero "storage"
# through the output geometry (index_add when that geometry may overlap, so repeated elements
# add up), divided by how often the *input* geometry reads each element (when it may overlap),
# and read back through the input geometry -- its own strides and storage offset, shifted so
# that the smaller of the two offsets becomes 0.
def as_strided_backward(grad, input_geometry, size, stride, storage_offset):
    """The gradient of ``input.as_strided(size, stride, storage_offset)`` w.r.t. ``input``."""
    inp_sizes, inp_strides, inp_offset = input_geometry
    if storage_offset is None:
        storage_offset = inp_offset
    out_sizes, out_strides = [], []
    for i in range(grad.ndim - 1, -1, -1):
        n, s = size[i], stride[i]
        if n == 0:
            return grad.new_zeros(inp_sizes)
        if n == 1:
            grad = S._squeeze_dim(grad, i)
        elif s == 0:
            grad = grad.sum(i)
        else:
            out_sizes.insert(0, n)
            out_strides.insert(0, s)
    in_sizes, in_strides = [], []
    for n, s in zip(inp_sizes, inp_strides):
        if n == 0:
            return grad.new_zeros(inp_sizes)
        if n != 1:
            in_sizes.append(n)
            in_strides.append(s)
    out_overlap = maybe_overlapping(out_sizes, out_strides)
    inp_overlap = maybe_overlapping(in_sizes, in_strides)
    shared = min(inp_offset, storage_offset)
    inp_eff, out_eff = inp_offset - shared, storage_offset - shared
    base = max(min_storage_size(in_sizes, in_strides, inp_eff),
               min_storage_size(out_sizes, out_strides, out_eff))
    storage = grad.new_zeros(base)
    if inp_overlap or out_overlap:
        from .range_factories import arange
        positions = arange(base)
    from .scatter import index_add
    if out_overlap:
        index = S.reshape(S.as_strided_view(positions, out_sizes, out_strides, out_eff), -1)
        storage = index_add(storage, 0, index, S.reshape(grad, -1))
    else:
        storage = as_strided_scatter(storage, grad, tuple(out_sizes), tuple(out_strides), out_eff)
    if inp_overlap:
        index = S.reshape(S.as_strided_view(positions, in_sizes, in_strides, inp_eff), -1)
        count = index_add(storage.new_zeros(base), 0, index,
                          S.expand(storage.new_ones(1), index.shape[0]))
        storage = storage / count
    return S.as_strided_view(storage, tuple(inp_sizes), tuple(inp_strides), inp_eff)
