"""The out-of-place writes through a view: select_scatter, slice_scatter, diagonal_scatter; and
slice_inverse, the view of a slice's base that undoes a slice (functionalization's).

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
from ._geometry import storage_extent
from ._schema_args import parse as _parse
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




# -- slice_inverse: the view slice_scatter's functionalization undoes ------------------------------
@defop("slice_inverse", node="SliceInverseBackward0", view=True, inputs=("self", "src"),
       variants=(), complex_autograd=False)
def _slice_inverse(geom, src, dim=0, start=None, end=None, step=1):
    """``self`` seen with ``src``'s geometry (size, stride, storage offset): the base a slice
    came from, when ``self`` is ``src.slice(dim, start, end, step)``; dim, start, end and step
    only serve the backward."""
    return tuple(src._data.shape), src.stride(), src._offset


@_slice_inverse.backward
def _(ctx, grad):
    # (the src gradient first: torch's formula raises there when the slice does not fit)
    need = ctx.needs_input_grad
    geometry = (ctx.dim, ctx.start, ctx.end, ctx.step)
    g_src = _slice_scatter(grad, grad.new_zeros(ctx.self_shape, dtype=ctx.self_dtype),
                           *geometry) if len(need) > 1 and need[1] else None
    return (S._slice(grad, *geometry) if need[0] else None), g_src


@_slice_inverse.jvp
def _(ctx, self_t, *_):
    # linear in `input` (src gives only the geometry): as torch, `input`'s tangent laid out as
    # `input` is in its storage, seen with src's geometry; memory no element of `input` covers
    # holds zeros here (torch's tangent leaves it uninitialised). (A view's rule sees `src`
    # among the other arguments.)
    from .creation import zeros
    src, primal = ctx._args[0], ctx.primals[0]
    itemsize = primal._data.itemsize
    size = max(primal._storage_obj().buffer.nbytes // itemsize,
               src._offset + storage_extent(tuple(src._data.shape), src.stride()))
    buf = zeros(size, dtype=self_t.dtype)
    buf.as_strided(tuple(primal._data.shape), primal.stride(), primal._offset).copy_(self_t)
    return buf.as_strided(tuple(src._data.shape), src.stride(), src._offset)


_SLICE_INVERSE = (("input", "Tensor"), ("src", "Tensor"), ("dim", "int", 0),
                  ("start", "int?", None), ("end", "int?", None), ("step", "int", 1))


def slice_inverse(*args, **kwargs):
    """A view of `input`'s memory with `src`'s size, stride and storage offset (bounds-checked
    against `input`'s storage, as ``as_strided``): the inverse of ``src.slice(dim, start, end,
    step)`` that functionalization uses. Its backward slices the gradient for `input` and
    scatters it for `src` (node SliceInverseBackward0, linked to both).

    Example::

        >>> base = torch.arange(10.)
        >>> torch.slice_inverse(base[2:8:2], base, 0, 2, 8, 2)   # a view of all of base
    """
    from ..autograd import grad_mode as _gm
    from ._record import _record
    from .shape_select import _as_strided_args
    input, src, dim, start, end, step = _parse("slice_inverse", _SLICE_INVERSE, args, kwargs)
    _as_strided_args(input, tuple(src._data.shape), src.stride(), src._offset)
    out = _slice_inverse(input, src, dim, start, end, step)
    if _gm.is_grad_enabled() and (input.requires_grad or src.requires_grad):
        # torch links both inputs (the view path links `input` alone): the node made anew
        _record(_slice_inverse, (input, src), (src, dim, start, end, step), {}, (out,))
    return out


FUNCTIONS["slice_inverse"] = slice_inverse
METHODS["slice_inverse"] = slice_inverse
