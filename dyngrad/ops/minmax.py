"""max, min, amax, amin, aminmax, argmax, argmin: the value-selecting reductions.

torch's gradient conventions, which differ between the overloads:

* ``max(x)`` (``MaxBackward1``) spreads the gradient evenly over every element equal to the
  maximum (over the NaNs when the maximum is NaN);
* ``max(x, dim)`` (``MaxBackward0``) returns ``return_types.max(values, indices)`` and sends the
  gradient to the returned index only (the first occurrence);
* ``amax`` / ``amin`` / ``aminmax`` divide the gradient evenly among the ties of each slice;
* ``max(a, b)`` is ``maximum`` (ties split in half, in pointwise.py).
"""
from __future__ import annotations

from .. import return_types
from .._promotion import Promote
from .._utils import canonical_dim, plain_int
from . import _registry
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import FROM_BACKWARD
from .linalg import cpp_type_name
from .pointwise import _not_implemented, maximum, minimum
from .reduction import (_NO_DIM, _dims, _kw, dense, invalid_arguments, reduced_axes,
                        unsqueeze_multiple, write_outs)


def _where(cond, a, b):
    return FUNCTIONS["where"](cond, a, b)


def _check_not_empty(name, x, dim, sep="()"):
    """torch's errors for reducing an empty tensor (an op without identity)."""
    if x.size:
        return
    axes = _dims(dim, x.ndim)
    if axes is None:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    for d in axes:
        if x.shape[d] == 0:
            raise IndexError(f"{name}{sep}: Expected reduction dim {d} to have non-zero size.")


# -- max(x), min(x) ------------------------------------------------------------------------------
def _evenly_distribute_backward(grad, self, value):
    """The gradient of a full max/min: shared evenly by the elements equal to the value."""
    mask = (self != self) if bool((value != value).item()) else (self == value)
    return _where(mask, grad / mask.sum(), 0.0)


def _full(name, reduce_name, kernel_name):
    @defop(name, node=f"{name.capitalize()}Backward1", promote=Promote.NONE, variants=(),
           saves=("self", "result"), scalars=())
    def op(xp, self):
        if self.dtype.kind == "c":
            raise _not_implemented(kernel_name, self.dtype)
        _check_not_empty(name, self, None)
        return getattr(xp, reduce_name)(self)

    @op.backward
    def _(ctx, grad):
        self, result = ctx.saved_tensors
        return _evenly_distribute_backward(grad, self, result)

    @op.jvp
    def _(ctx, self_t):   # the mean of the tangents at the ties (NaN when the result is NaN)
        self, result = ctx.saved_tensors
        mask = self == result
        return (self_t * mask).sum() / mask.sum()
    return op


max_all = _full("max", "max", "max_all")
min_all = _full("min", "min", "min_all")


# -- max(x, dim), min(x, dim) -> (values, indices) -----------------------------------------------
def _value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim):
    """torch's scatter of the gradient to the selected indices, as a one-hot `where`."""
    if not sizes:
        return grad
    d = canonical_dim(dim, len(sizes))
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    shape = [1] * len(sizes)
    shape[d] = sizes[d]
    positions = FUNCTIONS["arange"](sizes[d]).reshape(shape)
    return _where(indices == positions, grad, 0.0)


def _with_dim(name, arg_name):
    @defop(f"{name}.dim", node=f"{name.capitalize()}Backward0", promote=Promote.NONE,
           variants=(), public=name, outputs=("values", "indices"), saves=("indices",),
           nondiff_outputs=(1,), kernel_dtypes=True, scalars=())
    def op(xp, self, dim, keepdim=False):
        if self.dtype.kind == "c":
            raise RuntimeError(f"{name}(): does not support complex input")
        d = canonical_dim(dim, self.ndim)
        if self.ndim == 0:
            return self.copy(), xp.zeros((), xp.int64)
        _check_not_empty(name, self, d)
        indices = getattr(xp, arg_name)(self, axis=d, keepdims=True)
        values = xp.take_along_axis(self, indices, axis=d)
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
        return dense(xp, values), dense(xp, indices.astype(xp.int64))

    @op.backward
    def _(ctx, grad, grad_indices=None):
        indices, = ctx.saved_tensors
        return _value_selecting_reduction_backward(grad, ctx.dim, indices, ctx.self_shape,
                                                   ctx.keepdim)

    @op.jvp
    def _(ctx, self_t):   # the tangent at the selected index
        indices = ctx.result[1]
        if self_t.dim() == 0:
            return self_t.clone()
        if not ctx.keepdim:
            indices = indices.unsqueeze(ctx.dim)
        values = self_t.gather(ctx.dim, indices)
        return values if ctx.keepdim else values.squeeze(ctx.dim)
    return op


max_dim = _with_dim("max", "argmax")
min_dim = _with_dim("min", "argmin")


def _dim_reduction_resolver(name, full, with_dim, binary):
    tuple_type = getattr(return_types, name)
    signatures = ("Tensor input, *, Tensor out = None",
                  "Tensor input, Tensor other, *, Tensor out = None",
                  "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None")

    def public(input, dim=_NO_DIM, keepdim=_NO_DIM, *, other=None, out=None):
        from ._registry import _Tensor
        if other is not None or isinstance(dim, _Tensor):
            return binary(input, dim if other is None else other, **_kw(out=out))
        if dim is _NO_DIM and keepdim is _NO_DIM:
            return full(input, **_kw(out=out))
        dim = plain_int(dim)
        if type(dim) is not int or (out is not None and not isinstance(out, (tuple, list))):
            args = (input,) if dim is _NO_DIM else (input, dim)
            kws = {} if keepdim is _NO_DIM else {"keepdim": keepdim}
            if out is not None:
                kws["out"] = out
            raise invalid_arguments(name, args, kws, signatures)
        result = tuple_type(with_dim(input, dim, False if keepdim is _NO_DIM else keepdim))
        return result if out is None else write_outs(name, out, result)

    public.__name__ = public.__qualname__ = name
    public.__doc__ = (f"``{name}(input)``: the {name}imum element (0-dim); ``{name}(input, dim, "
                      f"keepdim=False)``: ``return_types.{name}(values, indices)``; "
                      f"``{name}(input, other)``: ``{binary.base}``.")
    FUNCTIONS[name] = METHODS[name] = public
    return public


max = _dim_reduction_resolver("max", max_all, max_dim, maximum)
min = _dim_reduction_resolver("min", min_all, min_dim, minimum)


# -- amax, amin ----------------------------------------------------------------------------------
def restore_reduced_dims(t, dim, ndim, keepdim):
    return t if keepdim else unsqueeze_multiple(t, dim, ndim)


def scale_grad_by_count(grad, mask, dims):
    """The gradient shared evenly by the ties of each reduced slice (`mask`)."""
    return (grad / mask.sum(dims, True)) * mask


def _amax_amin(name, reduce_name, kernel_name):
    @defop(name, node=f"{name.capitalize()}Backward0", promote=Promote.NONE,
           variants=("function", "method", "out"), saves=("self", "result"), scalars=())
    def op(xp, self, dim=(), keepdim=False):
        if self.dtype.kind == "c":
            raise _not_implemented(kernel_name, self.dtype)
        axes = _dims(dim, self.ndim)
        _check_not_empty(name, self, dim)
        return dense(xp, getattr(xp, reduce_name)(self, axis=axes, keepdims=keepdim))

    @op.backward
    def _(ctx, grad):
        self, result = ctx.saved_tensors
        ndim = self.dim()
        mask = restore_reduced_dims(result, ctx.dim, ndim, ctx.keepdim) == self
        dims = list(reduced_axes(ctx.dim, ndim))
        return scale_grad_by_count(restore_reduced_dims(grad, ctx.dim, ndim, ctx.keepdim),
                                   mask, dims)

    @op.jvp
    def _(ctx, self_t):   # the mean of the tangents at the ties of each slice
        self, result = ctx.saved_tensors
        ndim = self.dim()
        mask = restore_reduced_dims(result, ctx.dim, ndim, ctx.keepdim) == self
        dims = list(reduced_axes(ctx.dim, ndim))
        if not dims:
            return self_t.clone()
        return (self_t * mask).sum(dims, ctx.keepdim) / mask.sum(dims, ctx.keepdim)
    return op


_amax = _amax_amin("amax", "max", "max_values_cpu")
_amin = _amax_amin("amin", "min", "min_values_cpu")


def _same_dtype_out(input, out):
    """amax's and amin's out= takes the input's dtype only, where other reductions cast into
    their out= (torch's message)."""
    tensor = _registry._Tensor
    if isinstance(out, tensor) and isinstance(input, tensor) and out.dtype != input.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got "
                           f"{input.dtype._legacy} for input's dtype and {out.dtype._legacy} for "
                           "out's dtype.")


def amax(input, dim=(), keepdim=False, *, out=None):
    """The maximum over ``dim`` (an int or a tuple; () or None: every dim); ties share the
    gradient evenly."""
    _same_dtype_out(input, out)
    return _amax(input, () if dim is None else dim, keepdim, **_kw(out=out))


def amin(input, dim=(), keepdim=False, *, out=None):
    """The minimum over ``dim`` (an int or a tuple; () or None: every dim); ties share the
    gradient evenly."""
    _same_dtype_out(input, out)
    return _amin(input, () if dim is None else dim, keepdim, **_kw(out=out))


# -- aminmax -------------------------------------------------------------------------------------
@defop("aminmax", node="AminmaxBackward0", promote=Promote.NONE, variants=(),
       outputs=("min", "max"), saves=("self", "min", "max"), scalars=())
def _aminmax(xp, self, *, dim=None, keepdim=False):
    if self.dtype.kind == "c":
        raise _not_implemented("aminmax_cpu", self.dtype)
    if dim is None:
        if not self.size:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        axes = None
    else:
        axes = canonical_dim(dim, self.ndim)
        if self.ndim:
            _check_not_empty("aminmax", self, axes, sep="")
        else:
            axes = None
    return (dense(xp, xp.min(self, axis=axes, keepdims=keepdim)),
            dense(xp, xp.max(self, axis=axes, keepdims=keepdim)))


@_aminmax.backward
def _(ctx, grad_min=None, grad_max=None):   # (trailing unused outputs send nothing)
    self, low, high = ctx.saved_tensors
    ndim = self.dim()
    dims = [] if ctx.dim is None else [ctx.dim]
    grads = []
    for grad, value in ((grad_min, low), (grad_max, high)):
        if grad is not None:
            mask = restore_reduced_dims(value, dims, ndim, ctx.keepdim) == self
            grads.append(scale_grad_by_count(
                restore_reduced_dims(grad, dims, ndim, ctx.keepdim), mask, reduced_axes(dims,
                                                                                         ndim)))
    if not grads:
        return None
    return grads[0] if len(grads) == 1 else grads[0] + grads[1]


_aminmax.jvp(FROM_BACKWARD)


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``return_types.aminmax(min, max)`` over everything or over ``dim``."""
    result = return_types.aminmax(_aminmax(input, dim=dim, keepdim=keepdim))
    if out is None:
        return result
    for o in out if isinstance(out, (tuple, list)) else ():
        if isinstance(o, _registry._Tensor) and o.dtype != input.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(input.dtype)}, "
                               f"but got {cpp_type_name(o.dtype)} instead")
    return write_outs("aminmax", out, result)


# -- argmax, argmin ------------------------------------------------------------------------------
def _arg(name):
    @defop(name, node=None, promote=Promote.NONE, variants=("function", "method", "out"),
           kernel_dtypes=True, scalars=())
    def op(xp, self, dim=None, keepdim=False):
        dim = plain_int(dim)
        if dim is not None and type(dim) is not int:
            raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not "
                            f"{type(dim).__name__}")
        if self.dtype.kind == "b":
            raise RuntimeError(f"{name}(): does not support bool input")
        if self.dtype.kind == "c":
            raise RuntimeError(f"{name}(): does not support complex input")
        fn = getattr(xp, name)
        if dim is None:
            if not self.size:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            r = fn(self.reshape(-1))
            return xp.full((1,) * self.ndim if keepdim else (), r, xp.int64)
        d = canonical_dim(dim, self.ndim)
        if not self.ndim:
            return xp.zeros((), xp.int64)
        _check_not_empty(name, self, d)
        return dense(xp, fn(self, axis=d, keepdims=keepdim).astype(xp.int64))
    return op


argmax = _arg("argmax")
argmin = _arg("argmin")

for _name, _fn in (("amax", amax), ("amin", amin), ("aminmax", aminmax)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
