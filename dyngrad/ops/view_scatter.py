"""The out-of-place writes through a view: select_scatter, slice_scatter, diagonal_scatter.

``x.select_scatter(src, dim, index)`` is a copy of ``x`` whose ``x.select(dim, index)`` view
holds ``src``: the functional form of ``x.select(dim, index).copy_(src)``. ``src`` must have
the view's shape exactly and is cast to ``x``'s dtype. Each op's backward is the pair (the same
scatter of zeros for ``self``, the view for ``src``), as in torch's derivatives.yaml.

Note [clone_preserve_strides]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch copies ``self`` keeping its exact strides, even those of a non-dense tensor (``x[:,
::2]`` gives a result with strides ``(6, 2)``): it clones the whole memory span and views it
with the same geometry. Only a tensor whose elements share memory (``expand``) is cloned
densely instead. Differences from torch: the result's storage offset is 0 (torch keeps
``self``'s offset into its cloned storage).
"""
from __future__ import annotations

from .._promotion import Promote
from .._utils import shape_str
from ..backends import numpy_backend as _npb
from . import shape as S
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR
from .creation import cast_array


def _clone_preserve_strides(xp, self):
    """A copy of `self` with its strides. See Note [clone_preserve_strides]."""
    strides = S._elem_strides(self)
    if any(s == 0 and n > 1 for n, s in zip(self.shape, strides)):
        return S._clone.kernel(xp, self)
    span = _npb.flat_buffer(self).copy()
    return _npb.strided(span, self.shape, strides, 0)


def _write_view(xp, self, src, kernel, *args):
    """A copy of `self` with `src` written into the view ``kernel(geometry, *args)``."""
    out = _clone_preserve_strides(xp, self)
    shape, stride, offset = kernel((out.shape, S._elem_strides(out), 0), *args)
    if tuple(src.shape) != tuple(shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{shape_str(src.shape)}, slice size = {shape_str(shape)}")
    view = _npb.strided(_npb.flat_buffer(out), shape, stride, offset)
    view[...] = cast_array(src, out.dtype)
    return out


# (torch cannot differentiate select_scatter and slice_scatter on complex outputs, while it can
# diagonal_scatter: hence complex_autograd=False on these two)
@defop("select_scatter", node="SelectScatterBackward0", promote=Promote.NONE,
       inputs=("self", "src"), scalars=(), complex_autograd=False)
def _select_scatter(xp, self, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``."""
    return _write_view(xp, self, src, S._select.kernel, dim, index)


@_select_scatter.backward
def _(ctx, grad):
    need_self, need_src = ctx.needs_input_grad
    return (_select_scatter(grad, grad.new_zeros(ctx.src_shape), ctx.dim, ctx.index)
            if need_self else None,
            S._select(grad, ctx.dim, ctx.index) if need_src else None)


_select_scatter.jvp(AUTO_LINEAR)


@defop("slice_scatter", node="SliceScatterBackward0", promote=Promote.NONE,
       inputs=("self", "src"), scalars=(), complex_autograd=False)
def _slice_scatter(xp, self, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` written at ``input[start:end:step]`` along ``dim``."""
    return _write_view(xp, self, src, S._slice.kernel, dim, start, end, step)


@_slice_scatter.backward
def _(ctx, grad):
    need_self, need_src = ctx.needs_input_grad
    geometry = (ctx.dim, ctx.start, ctx.end, ctx.step)
    return (_slice_scatter(grad, grad.new_zeros(ctx.src_shape), *geometry) if need_self else None,
            S._slice(grad, *geometry) if need_src else None)


_slice_scatter.jvp(AUTO_LINEAR)


@defop("diagonal_scatter", node="DiagonalScatterBackward0", promote=Promote.NONE,
       inputs=("self", "src"), variants=("function", "method"), scalars=())
def diagonal_scatter(xp, self, src, offset=0, dim1=0, dim2=1):
    return _write_view(xp, self, src, S._diagonal.kernel, offset, dim1, dim2)


@diagonal_scatter.backward
def _(ctx, grad):
    need_self, need_src = ctx.needs_input_grad
    geometry = (ctx.offset, ctx.dim1, ctx.dim2)
    return (diagonal_scatter(grad, grad.new_zeros(ctx.src_shape), *geometry)
            if need_self else None,
            S._diagonal(grad, *geometry) if need_src else None)


diagonal_scatter.jvp(AUTO_LINEAR)


