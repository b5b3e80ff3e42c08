"""The ``*_copy`` ops: a view op's result as a new contiguous tensor (``permute_copy``…).

Note [View copies]
~~~~~~~~~~~~~~~~~~
torch generates one primitive per view op, whose node is the view's own node name with
``_copy`` appended (``PermuteBackward0_copy``) and whose backward is the view's formula. Here
each copy op is declared from its view's OpSpec: the kernel runs the view's geometry kernel on a
contiguous copy of the input (the values a view of any layout reads are the same) and copies
the piece(s) out contiguously; the backward formula and the argument names (``ctx.dims``…) are
the view's. ``detach_copy`` has torch's NotImplemented node instead.
"""
from __future__ import annotations

import inspect

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import contiguous_strides
from ..autograd.forward_ad import AUTO_LINEAR
from ..backends import numpy_backend as _npb
from ..autograd.grad_mode import is_grad_enabled as _grad_enabled, no_grad as _no_grad
from . import shape as _shape, split as _split  # noqa: F401  (the views are declared first)
from ._registry import FUNCTIONS, _SPECS, defop
from .arithmetic import _no_derivative
from .complex_views import _require, view_as_complex, view_as_real
from .shape_select import _as_strided, _as_strided_args


def _copy_kernel(view):
    """A forward kernel ``(xp, self, *view's arguments)`` for the copy of `view`."""
    def kernel(xp, self, *args, **kwargs):
        flat = xp.array(self, copy=True, order="C").reshape(-1)
        geoms = view.kernel((self.shape, contiguous_strides(self.shape), 0), *args, **kwargs)
        if isinstance(geoms, list):
            return tuple(_copy(xp, flat, g) for g in geoms)
        return _copy(xp, flat, geoms)
    # the view's argument names, so that its backward formula reads them off the node
    first = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("xp", "self")]
    kernel.__signature__ = inspect.Signature(first + list(view.signature.parameters.values()))
    return kernel


def _copy(xp, flat, geometry):
    """A contiguous copy of the view of `flat` with this (shape, stride, offset)."""
    return xp.array(_npb.strided(flat, *geometry), copy=True, order="C")


# torch differentiates the complex results of every copy but these two
_NO_COMPLEX_AUTOGRAD = ("select_copy", "slice_copy")


def _declare(view_name, copy_name, multi=False):
    view = _SPECS[view_name]
    overload = view_name.partition(".")[2]
    spec = defop(f"{copy_name}.{overload}" if overload else copy_name, node=view.node + "_copy",
                 promote=Promote.NONE, variants=("function",) if multi else ("function", "out"),
                 public=copy_name, complex_autograd=copy_name not in _NO_COMPLEX_AUTOGRAD,
                 scalars=())(
        _copy_kernel(view))
    spec.backward(view.backward_fn)
    spec.jvp(AUTO_LINEAR)
    spec.out_returns_none = multi   # (torch's split_copy.Tensor_out & co. return nothing)
    return spec


_COPIES = {"view": "view_copy", "permute": "permute_copy", "t": "t_copy",
           "expand": "expand_copy", "unsqueeze": "unsqueeze_copy",
           "transpose.int": "transpose_copy", "select.int": "select_copy",
           "slice.Tensor": "slice_copy", "diagonal": "diagonal_copy", "unfold": "unfold_copy",
           "alias": "alias_copy"}
for _view, _name in _COPIES.items():
    _declare(_view, _name)
for _view, _name in (("split.Tensor", "split_copy"), ("split_with_sizes", "split_with_sizes_copy"),
                     ("unbind.int", "unbind_copy")):
    _declare(_view, _name, multi=True)

_squeeze = _declare("squeeze", "squeeze_copy")
_squeeze_dim = _declare("squeeze.dim", "squeeze_copy")
_squeeze_dims = _declare("squeeze.dims", "squeeze_copy")


def squeeze_copy(input, dim=None, *, out=None):
    """``squeeze`` (all size-1 dims, one dim, or a list of dims) copied out."""
    kw = {} if out is None else {"out": out}
    if dim is None:
        return _squeeze(input, **kw)
    if isinstance(dim, (list, tuple)):
        return _squeeze_dims(input, tuple(dim), **kw)
    return _squeeze_dim(input, dim, **kw)


FUNCTIONS["squeeze_copy"] = squeeze_copy
_view_copy = _SPECS["view_copy"]


def view_copy(input, size, *, out=None):
    """``view`` (a shape, or a dtype to reinterpret the memory as) copied out contiguously.

    The dtype form is outside autograd in torch: its result has no grad_fn."""
    if isinstance(size, D.dtype):
        with _no_grad():
            view = input.view(size)
            result = view.contiguous()
            if result is view:
                result = view.clone()
        if out is None:
            return result
        from ._selection import resize_output
        resize_output(out, result.shape)
        return out.copy_(result)
    return _view_copy(input, size) if out is None else _view_copy(input, size, out=out)


@defop("detach_copy", node="NotImplemented", promote=Promote.NONE,
       variants=("function", "out"), scalars=())
def _detach_copy(xp, self):
    return xp.array(self, copy=True, order="C")


_detach_copy.backward(_no_derivative("detach_copy"))


# -- copies whose view reads the storage or changes the dtype ------------------------------------
@defop("as_strided_copy", node="AsStridedBackward0_copy", promote=Promote.NONE,
       variants=("function", "out"))
def _as_strided_copy(xp, self, size, stride, storage_offset=None, self_geometry=None, *,
                     _buffer=None):
    # as_strided reads the input's storage (_buffer), not its elements
    return _copy(xp, _buffer, (size, stride, storage_offset))


_as_strided_copy.backward(_as_strided.backward_fn)


@_as_strided_copy.jvp
def _(ctx, self_t):   # the same geometry over the tangent's own storage
    return as_strided_copy(self_t, ctx.size, ctx.stride, ctx.storage_offset)


def as_strided_copy(input, size, stride, storage_offset=None, *, out=None):
    """``as_strided`` (over ``input``'s storage, bounds-checked) copied out contiguously."""
    size, stride, offset = _as_strided_args(input, size, stride, storage_offset)
    geometry = (tuple(input.shape), input.stride(), input.storage_offset())
    kw = {} if out is None else {"out": out}
    return _as_strided_copy(input, size, stride, offset, geometry,
                            _buffer=input._storage_obj().buffer, **kw)


@defop("view_as_real_copy", node="ViewAsRealBackward0_copy", promote=Promote.NONE,
       variants=("out",), kernel_dtypes=True)
def _view_as_real_copy(xp, self):
    return xp.ascontiguousarray(xp.stack([self.real, self.imag], -1))


@_view_as_real_copy.backward
def _(ctx, grad):
    return view_as_complex(grad.contiguous())


@defop("view_as_complex_copy", node="ViewAsComplexBackward0_copy", promote=Promote.NONE,
       variants=("out",), kernel_dtypes=True)
def _view_as_complex_copy(xp, self):
    unit = xp.asarray(1j, dtype=xp.result_type(self.dtype, xp.complex64))
    return self[..., 0] + unit * self[..., 1]


@_view_as_complex_copy.backward
def _(ctx, grad):
    return view_as_real(grad.contiguous())


_view_as_real_copy.jvp(AUTO_LINEAR)
_view_as_complex_copy.jvp(AUTO_LINEAR)


def view_as_real_copy(input, *, out=None):
    """``view_as_real`` copied out: shape ``(*input.shape, 2)``, contiguous."""
    _require("view_as_real_copy", input, "input", 1)
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _view_as_real_copy(input, **({} if out is None else {"out": out}))


def view_as_complex_copy(input, *, out=None):
    """``view_as_complex`` of a contiguous copy: the last dim of size 2 becomes complex.

    torch has no derivative for it (complex outputs of this op are not differentiable)."""
    _require("view_as_complex_copy", input, "input", 1)
    with _no_grad():
        view_as_complex(input)            # view_as_complex's checks, layout included
    if input.requires_grad and _grad_enabled():
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation "
                           "for outputs with complex dtype.")
    return _view_as_complex_copy(input, **({} if out is None else {"out": out}))


for _fn in (view_copy, as_strided_copy, view_as_real_copy, view_as_complex_copy):
    FUNCTIONS[_fn.__name__] = _fn
