"""Gather and scatter along a dim: gather, scatter (src / value, legacy ``reduce=``),
scatter_add, scatter_reduce and take_along_dim.

Note [Gather and scatter positions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``index`` has the rank of ``self`` (a 0-dim tensor counts as 1-d of size 1) and may be smaller
than it in every dim. Element ``i`` of ``index`` names a position of ``self`` whose coordinates
are ``i``'s own, except along ``dim`` where it is ``index[i]``: gather reads there, scatter
writes ``src[i]`` there (``src`` is read over index's extent only). Every index must lie in
``[0, self.size(dim))``; torch reports the first bad one in index order (C order) with
"index 5 is out of bounds for dimension 1 with size 3". An empty index skips every check but
the dtypes. Where several ``src`` elements land on one position, the last one wins (plain
scatter: nondeterministic in torch, last-wins on its CPU) or they are reduced.

gather and scatter are each other's adjoint, so each one's backward is the other and higher
derivatives need no more code. scatter_reduce's backward follows torch's
FunctionsManual.cpp ``scatter_reduce_backward``, its quirks included (see the formula).
"""
from __future__ import annotations

from math import copysign as _copysign

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_error, broadcast_shapes, canonical_dim, shape_str
from ..backends import numpy_backend as _npb
from . import shape as S
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD, fw_not_implemented
from .creation import checked_scalar, fill_array, number, ones_like, zeros_like
from .pointwise import _not_implemented, _warn_once, where_self
from .view_backward import backward_only
from ._arg_parser import type_name as _tp_name

_xp = _npb.xp


def _tensor_cls():
    return S._tensor_cls()


# ---------------------------------------------------------------------------------------------
# Shared checks. See Note [Gather and scatter positions].
# ---------------------------------------------------------------------------------------------
def _rank(a) -> int:
    return a.ndim or 1


def _size(a, d: int) -> int:
    """torch's ensure_nonempty_size: 1 for a 0-dim tensor, else size(d) (IndexError if none)."""
    if a.ndim == 0:
        return 1
    return a.shape[canonical_dim(d, a.ndim)]


def tensor_arg(fname: str, name: str, value, pos: int) -> None:
    """torch's TypeError for a non-Tensor argument (positions as in the function form; the
    method form numbers from ``self``'s successor in torch, one less)."""
    if not isinstance(value, _tensor_cls()):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{_tp_name(value)}")


def no_complex_autograd(name: str, dtype, *inputs) -> None:
    """torch's error for ops it cannot differentiate on complex outputs (checked when the
    output would require grad)."""
    from ..autograd import grad_mode
    if dtype.is_complex and grad_mode.is_grad_enabled() and any(
            isinstance(t, _tensor_cls()) and t.requires_grad for t in inputs):
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           "with complex dtype.")


def _as_1d(a):
    return a.reshape(1) if a.ndim == 0 else a


def index_dtype_check(fname: str, index) -> None:
    """A non-empty index must be int64 or int32 (an empty one may be anything)."""
    if index.size and index.dtype not in (_xp.int64, _xp.int32):
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")


def check_bounds(index, size: int, dim: int, exc=RuntimeError, prefix: str = "",
                 allow_negative: bool = False) -> None:
    """The first index outside [0, size) (or [-size, size)), in C order, raises torch's error."""
    lo = -size if allow_negative else 0
    bad = (index < lo) | (index >= size)
    if bad.any():
        raise exc(f"{prefix}index {int(index[bad].reshape(-1)[0])} is out of bounds for "
                  f"dimension {dim} with size {size}")


def _positions(index, d: int):
    """The fancy index of self's positions named by `index` (index along `d`, own elsewhere)."""
    nd = index.ndim
    out = []
    for k in range(nd):
        if k == d:
            out.append(index.astype(_xp.intp, copy=False))
        else:
            shape = [1] * nd
            shape[k] = index.shape[k]
            out.append(_xp.arange(index.shape[k]).reshape(shape))
    return tuple(out)


def _read_extent(src, index_shape):
    """`src` restricted to index's extent (scatter reads no further)."""
    return src[tuple(slice(0, n) for n in index_shape)]


def _scatter_shape_check(self, index, src, d: int) -> None:
    """torch's scatter_shape_check: index no larger than self (but along dim) and src."""
    if _rank(self) != _rank(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(k != d and _size(index, k) > _size(self, k) for k in range(_rank(self)))
    if src is None:
        if wrong:
            raise RuntimeError(f"Expected index {shape_str(index.shape)} to be no larger than "
                               f"self {shape_str(self.shape)} apart from dimension {d}")
        return
    if not wrong:
        wrong = any(_size(index, k) > _size(src, k) for k in range(_rank(self)))
    if _rank(src) != _rank(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        raise RuntimeError(f"Expected index {shape_str(index.shape)} to be no larger than self "
                           f"{shape_str(self.shape)} apart from dimension {d} and to be no "
                           f"larger size than src {shape_str(src.shape)}")


def _scatter_prologue(self, index, src, dim):
    """Checks shared by the scatters; returns (wrapped dim, contiguous copy of self)."""
    d = canonical_dim(dim, self.ndim)
    index_dtype_check("scatter", index)
    if src is not None and src.dtype != self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.size:
        _scatter_shape_check(self, index, src, d)
    return d, _xp.array(self, order="C")


def _scatter_into(out, index, values, d, ufunc=None):
    """Write (or reduce with `ufunc`) `values` at index's positions of `out`, in place."""
    target = _as_1d(out)
    idx = _as_1d(index)
    check_bounds(idx, target.shape[d], d)
    pos = _positions(idx, d)
    if ufunc is None:
        target[pos] = values
    else:
        ufunc.at(target, pos, values)


# ---------------------------------------------------------------------------------------------
# gather
# ---------------------------------------------------------------------------------------------
@defop("gather", node="GatherBackward0", promote=Promote.NONE, inputs=("self", "index"),
       differentiable=("self",), saves=("self", "index"), variants=(), scalars=())
def _gather(xp, self, index, dim, sparse_grad=False):
    d = canonical_dim(dim, self.ndim)
    if not index.size:
        return xp.empty(index.shape, self.dtype)
    index_dtype_check("gather", index)
    if _rank(self) != _rank(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for k in range(_rank(self)):
        if k != d and _size(index, k) > _size(self, k):
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"{shape_str(index.shape)} to be no larger than self "
                               f"{shape_str(self.shape)} apart from dimension {d}")
    src, idx = _as_1d(self), _as_1d(index)
    check_bounds(idx, src.shape[d], d)
    extent = tuple(slice(None) if k == d else slice(0, n) for k, n in enumerate(idx.shape))
    out = xp.take_along_axis(src[extent], idx.astype(xp.intp, copy=False), axis=d)
    return xp.ascontiguousarray(out).reshape(index.shape)


@_gather.backward
def _(ctx, grad):
    self, index = ctx.saved_tensors
    if ctx.sparse_grad:   # a sparse gradient: each element of grad at its source's address
        from .sparse import gather_sparse_backward
        return gather_sparse_backward(self.shape, ctx.dim, index, grad)
    # torch's gather_backward: zeros of self's shape, scatter_add'ed
    return _scatter_add(grad.new_zeros(self.shape), index, grad, ctx.dim)


_gather.jvp(AUTO_LINEAR)


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """The entries of ``input`` named by ``index`` along ``dim`` (a result of index's shape);
    with ``sparse_grad=True`` the gradient w.r.t. ``input`` is a sparse COO tensor."""
    tensor_arg("gather", "input", input, 1)
    tensor_arg("gather", "index", index, 3)
    return _gather_call(input, dim, index, sparse_grad, out)


def _gather_method(self, dim, index, *, sparse_grad=False):
    tensor_arg("gather", "index", index, 2)
    return _gather_call(self, dim, index, sparse_grad, None)


def _gather_call(input, dim, index, sparse_grad, out):
    if out is not None:
        if out.dtype is not input.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_c10(input.dtype)}, but got "
                               f"{_c10(out.dtype)} instead")
        return _gather(input, index, dim, sparse_grad, out=out)
    return _gather(input, index, dim, sparse_grad)


def _c10(dtype) -> str:
    """The name ``caffe2::TypeMeta`` prints for a dtype (``float``, ``long int``...)."""
    from .creation import TYPEMETA_NAME
    return TYPEMETA_NAME[dtype]


# ---------------------------------------------------------------------------------------------
# scatter (src / value, and the legacy reduce= overloads)
# ---------------------------------------------------------------------------------------------
@defop("scatter.src", node="ScatterBackward0", promote=Promote.NONE,
       inputs=("self", "index", "src"), differentiable=("self", "src"), saves=("index",),
       variants=(), scalars=())
def _scatter_src(xp, self, index, src, dim):
    d, out = _scatter_prologue(self, index, src, dim)
    if index.size:
        _scatter_into(out, index, _read_extent(_as_1d(src), _as_1d(index).shape), d)
    return out


@_scatter_src.backward
def _(ctx, grad):
    (index,) = ctx.saved_tensors
    need_self, need_src = ctx.needs_input_grad
    return (_scatter_value(grad, index, ctx.dim, 0) if need_self else None,
            _gather(grad, index, ctx.dim) if need_src else None)


_scatter_src.jvp(AUTO_LINEAR)


_FILLS: dict = {}   # (type, value, NumPy dtype) -> read-only 0-dim array, for common fills


def _fill_value(value, dtype):
    """A Python number as a 0-dim array of `dtype`, with torch's overflow checks. The fills
    seen most (0, 1, -inf in a mask...) are kept, read-only, after their first check."""
    t = type(value)
    key = (t, value, dtype) if t is int or t is bool else \
        (t, value, dtype, _copysign(1.0, value)) if t is float else None   # (-0.0 is not 0.0)
    if key is not None:
        arr = _FILLS.get(key)
        if arr is not None:
            return arr
    d = D.from_np(dtype)
    arr = fill_array(checked_scalar(number(value), d), d)
    if key is not None and len(_FILLS) < 256:   # (a NaN key never matches: bounded)
        arr.flags.writeable = False
        _FILLS[key] = arr
    return arr


@defop("scatter.value", node="ScatterBackward1", promote=Promote.NONE,
       inputs=("self", "index"), differentiable=("self",), saves=("index",), variants=(),
       scalars=())
def _scatter_value(xp, self, index, dim, value):
    d, out = _scatter_prologue(self, index, None, dim)
    if index.size:
        _scatter_into(out, index, _fill_value(value, self.dtype), d)
    return out


@_scatter_value.backward
def _(ctx, grad):
    (index,) = ctx.saved_tensors
    return _scatter_value(grad, index, ctx.dim, 0)


_scatter_value.jvp(FROM_BACKWARD)


_LEGACY_REDUCE = {"add": _xp.add, "multiply": _xp.multiply}
_REDUCE_WARNING = ("The reduce argument of torch.scatter with Tensor src is deprecated and will "
                   "be removed in a future PyTorch release. Use torch.scatter_reduce instead for "
                   "more reduction options. (Triggered internally at /__w/pytorch/pytorch/aten/"
                   "src/ATen/native/TensorAdvancedIndexing.cpp:225.)")


def _legacy_reduce(reduce):
    ufunc = _LEGACY_REDUCE.get(reduce)
    if ufunc is None:
        raise RuntimeError("reduce argument must be either add or multiply.")
    return ufunc


# torch has no derivative for the reduce= overloads: their grad_fn is a "NotImplemented" node
@defop("scatter.reduce", node="NotImplemented", promote=Promote.NONE,
       inputs=("self", "index", "src"), differentiable=("self", "src"), variants=(),
       scalars=())
def _scatter_reduce_legacy(xp, self, index, src, dim, reduce):
    d, out = _scatter_prologue(self, index, src, dim)
    ufunc = _legacy_reduce(reduce)
    if index.size:
        _scatter_into(out, index, _read_extent(_as_1d(src), _as_1d(index).shape), d, ufunc)
    return out


@defop("scatter.value_reduce", node="NotImplemented", promote=Promote.NONE,
       inputs=("self", "index"), differentiable=("self",), variants=(), scalars=())
def _scatter_value_reduce(xp, self, index, dim, value, reduce):
    d, out = _scatter_prologue(self, index, None, dim)
    ufunc = _legacy_reduce(reduce)
    if index.size:
        _scatter_into(out, index, _fill_value(value, self.dtype), d, ufunc)
    return out


def _no_derivative(name):
    def formula(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return formula


# the in-place overloads are ops of their own in torch (their error names scatter_)
_scatter_reduce_legacy_ = defop("scatter_.reduce", node="NotImplemented", promote=Promote.NONE,
                                inputs=("self", "index", "src"), differentiable=("self", "src"),
                                variants=(), scalars=())(_scatter_reduce_legacy.kernel)
_scatter_value_reduce_ = defop("scatter_.value_reduce", node="NotImplemented",
                               promote=Promote.NONE, inputs=("self", "index"),
                               differentiable=("self",), variants=(),
                               scalars=())(_scatter_value_reduce.kernel)
_scatter_reduce_legacy.backward(_no_derivative("scatter"))
_scatter_value_reduce.backward(_no_derivative("scatter"))
_scatter_reduce_legacy_.backward(_no_derivative("scatter_"))
_scatter_value_reduce_.backward(_no_derivative("scatter_"))
_scatter_reduce_legacy.jvp(fw_not_implemented("aten::scatter", short=True))
_scatter_value_reduce.jvp(fw_not_implemented("aten::scatter", short=True))
_scatter_reduce_legacy_.jvp(fw_not_implemented("aten::scatter_", short=True))
_scatter_value_reduce_.jvp(fw_not_implemented("aten::scatter_", short=True))


def _scatter_call(self, dim, index, src, value, reduce, out=None, inplace=False):
    """Pick scatter's overload (src tensor or value number, with or without ``reduce``)."""
    Tensor = _tensor_cls()
    if src is None:
        src, value = value, None
    elif value is not None:
        raise TypeError("scatter() received an invalid combination of arguments")
    if src is None:
        raise TypeError("scatter() missing 1 required positional arguments: \"src\"")
    is_tensor = isinstance(src, Tensor)
    if is_tensor:
        if reduce is None:
            spec, args = _scatter_src, (self, index, src, dim)
        else:
            _warn_once(_REDUCE_WARNING)
            spec, args = _scatter_reduce_legacy, (self, index, src, dim, reduce)
    else:
        if reduce is None:
            spec, args = _scatter_value, (self, index, dim, src)
        else:
            spec, args = _scatter_value_reduce, (self, index, dim, src, reduce)
    if inplace:
        spec = {_scatter_reduce_legacy: _scatter_reduce_legacy_,
                _scatter_value_reduce: _scatter_value_reduce_}.get(spec, spec)
        return spec.call_inplace(*args)
    if out is not None:
        return spec(*args, out=out)
    return spec(*args)


def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """``input`` with ``src`` (a tensor, or a number ``value``) written at ``index`` along
    ``dim``; ``reduce='add'``/``'multiply'`` combines instead of overwriting (deprecated)."""
    return _scatter_call(input, dim, index, src, value, reduce, out)


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    """In-place :func:`scatter`."""
    return _scatter_call(self, dim, index, src, value, reduce, inplace=True)


# ---------------------------------------------------------------------------------------------
# scatter_add
# ---------------------------------------------------------------------------------------------
@defop("scatter_add", node="ScatterAddBackward0", promote=Promote.NONE,
       inputs=("self", "index", "src"), differentiable=("self", "src"), saves=("index",),
       variants=(), scalars=())
def _scatter_add(xp, self, index, src, dim):
    d, out = _scatter_prologue(self, index, src, dim)
    if index.size:
        _scatter_into(out, index, _read_extent(_as_1d(src), _as_1d(index).shape), d, xp.add)
    return out


@_scatter_add.backward
def _(ctx, grad):
    (index,) = ctx.saved_tensors
    need_self, need_src = ctx.needs_input_grad
    return (grad if need_self else None,
            _gather(grad, index, ctx.dim) if need_src else None)


_scatter_add.jvp(AUTO_LINEAR)


def scatter_add(input, dim, index, src, *, out=None):
    """``input`` with ``src`` added at ``index`` along ``dim`` (repeated positions add up)."""
    tensor_arg("scatter_add", "src", src, 4)
    if out is not None:
        return _scatter_add(input, index, src, dim, out=out)
    return _scatter_add(input, index, src, dim)


def _scatter_add_method(self, dim, index, src):
    tensor_arg("scatter_add", "src", src, 3)
    return _scatter_add(self, index, src, dim)


def scatter_add_(self, dim, index, src):
    """In-place :func:`scatter_add`."""
    tensor_arg("scatter_add_", "src", src, 3)
    return _scatter_add.call_inplace(self, index, src, dim)


# ---------------------------------------------------------------------------------------------
# scatter_reduce
# ---------------------------------------------------------------------------------------------
_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "max": "amax",
               "amin": "amin", "min": "amin"}


def _identity(kind, dtype):
    """The value positions start from when ``include_self=False``."""
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    if dtype.kind == "b":
        return kind == "amin"
    if dtype.kind in "iu":
        info = _xp.iinfo(dtype)
        return info.min if kind == "amax" else info.max
    return float("-inf") if kind == "amax" else float("inf")


@defop("scatter_reduce.two", node="ScatterReduceBackward0", promote=Promote.NONE,
       inputs=("self", "index", "src"), differentiable=("self", "src"),
       saves=("self", "index", "src", "result"), variants=(), scalars=())
def _scatter_reduce(xp, self, index, src, dim, reduce, include_self=True):
    d, out = _scatter_prologue(self, index, src, dim)
    kind = _REDUCTIONS.get(reduce)
    if kind is None:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if not index.size:
        return out
    if out.dtype.kind == "u" and out.itemsize > 1:   # Note [Limited unsigned dtypes]
        raise _not_implemented("scatter_gather_tensor_cpu" if kind in ("sum", "prod") else
                               f"scatter_gather_tensor_cpu_reduce_{kind}", out.dtype)
    if not include_self:
        _scatter_into(out, index, _identity(kind, out.dtype), d)
    if (kind == "mean" and out.dtype.kind == "b") or (kind in ("amax", "amin")
                                                      and out.dtype.kind == "c"):
        raise _not_implemented(f"scatter_gather_tensor_cpu_reduce_{kind}", out.dtype)
    values = _read_extent(_as_1d(src), _as_1d(index).shape)
    ufunc = {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "amax": xp.maximum,
             "amin": xp.minimum}[kind]
    _scatter_into(out, index, values, d, ufunc)
    if kind == "mean":
        count = xp.ones_like(out) if include_self else xp.zeros_like(out)
        _scatter_into(count, index, xp.ones_like(values), d, xp.add)
        count[count == 0] = 1
        if out.dtype.kind in "fcV":
            out = (out / count).astype(out.dtype, copy=False)
        else:
            out = xp.floor_divide(out, count)
    return out


@_scatter_reduce.backward
def _(ctx, grad):
    self, index, src, result = ctx.saved_tensors
    dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
    need_self, need_src = ctx.needs_input_grad
    grad_self = grad_src = None
    if reduce == "sum":
        grad_self = grad
        grad_src = _gather(grad, index, dim) if need_src else None
    elif reduce == "prod":
        grad_self, grad_src = _prod_backward(grad, self, dim, index, src, include_self, result)
    elif reduce == "mean":
        from .index_fill import masked_fill
        n = ones_like(grad) if include_self else zeros_like(grad)
        n = _scatter_add(n, index, ones_like(src), dim)
        n = masked_fill(n, n == 0, 1)
        grad_self = grad / n
        if need_src:
            grad_src = _gather(grad, index, dim) / _gather(n, index, dim)
    elif reduce in ("amax", "amin"):
        # ties share the gradient evenly. As in torch, an excluded self (include_self=False)
        # equal to the result still counts as a tie (it then gets no gradient itself).
        value = _gather(result, index, dim)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        n = _scatter_add(self_is_result, index, src_is_result, dim)
        distributed = grad / n
        grad_self = (self == result) * distributed
        if need_src:
            grad_src = (src == value) * _gather(distributed, index, dim)
    else:
        raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                           f"'amin' but got {reduce}.")
    if not include_self and need_self:
        grad_self = _scatter_value(grad_self, index, dim, 0)
    return (grad_self if need_self else None), (grad_src if need_src else None)


@_scatter_reduce.jvp
def _(ctx, self_t, index_t, src_t):
    if ctx.reduce == "prod":
        return None   # torch computes no tangent for reduce="prod"
    return FROM_BACKWARD(ctx, self_t, index_t, src_t)


def _prod_backward(grad, self, dim, index, src, include_self, result):
    """torch's gradient of a scatter product, exact where factors are zero."""
    from .index_fill import masked_fill
    masked_self = masked_fill(self, self == 0, 1)
    masked_self_result = _scatter_reduce(masked_self, index, src, dim, "prod", include_self)
    grad_self = grad * masked_self_result / masked_self
    src_zero = src == 0
    src_num_zeros = _gather(_scatter_add(zeros_like(self), index, src_zero.to(self.dtype), dim),
                            index, dim)
    src_single_zero = src_zero & (src_num_zeros == 1)
    # where src holds the only zero reaching a position, the product of the other factors
    masked_src = masked_fill(src, src_single_zero, 1)
    masked_src_result = _scatter_reduce(self, index, masked_src, dim, "prod", include_self)
    grad_src = where_self(src_single_zero, _gather(grad * masked_src_result, index, dim),
                          _gather(grad * result, index, dim) / masked_fill(src, src_zero, 1))
    if (src_num_zeros > 1).sum().item():
        grad_src = _delayed_error(grad_src, "scatter_reduce(): Double backward is unsupported "
                                  "for src when >1 zeros in src are scattered to the same "
                                  "position in self")
    return grad_self, grad_src


# torch's DelayedError: the gradient is right, but differentiating it again raises
@backward_only
@defop("_delayed_error", node="Error", promote=Promote.NONE, variants=(), scalars=())
def _delayed_error(xp, self, msg):
    return self


@_delayed_error.backward
def _(ctx, grad):
    raise RuntimeError(ctx.msg)


@_delayed_error.jvp
def _(ctx, self_t):
    # once recorded (a backward with create_graph), torch's node hands on the values alone: the
    # tangent is dropped; otherwise it passes through
    return None if ctx.result.requires_grad else self_t


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """``input`` with ``src`` reduced into it at ``index`` along ``dim``: ``reduce`` is
    'sum', 'prod', 'mean', 'amax' or 'amin'; ``include_self`` counts input's own values."""
    tensor_arg("scatter_reduce", "src", src, 4)
    args = (input, index, src, dim, reduce, include_self)
    if out is not None:
        return _scatter_reduce(*args, out=out)
    result = _scatter_reduce(*args)
    no_complex_autograd("scatter_reduce", result.dtype, input, src)
    return result


def _scatter_reduce_method(self, dim, index, src, reduce, *, include_self=True):
    tensor_arg("scatter_reduce", "src", src, 3)
    result = _scatter_reduce(self, index, src, dim, reduce, include_self)
    no_complex_autograd("scatter_reduce", result.dtype, self, src)
    return result


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """In-place :func:`scatter_reduce`."""
    tensor_arg("scatter_reduce_", "src", src, 3)
    return _scatter_reduce.call_inplace(self, index, src, dim, reduce, include_self)


# ---------------------------------------------------------------------------------------------
# take_along_dim (torch composes it: broadcast, then gather)
# ---------------------------------------------------------------------------------------------
def take_along_dim(input, indices, dim=None, *, out=None):
    """``input``'s entries at ``indices`` along ``dim`` (both broadcast but along ``dim``;
    indices taken modulo the dim's size, as torch does); with no ``dim``, along the flattened
    input (indices must then be in range)."""
    if dim is None:
        return gather(S.view(input, -1), 0, S.view(indices, -1), out=out)
    nd, ni = input._data.ndim, indices._data.ndim
    if nd != ni:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {nd} dimensions for input, and {ni} "
                           "dimensions for indices")
    if indices.dtype is not D.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype._legacy}")
    d = canonical_dim(dim, nd)
    if nd == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    shape, ishape = tuple(input._data.shape), tuple(indices._data.shape)
    index_shape = _broadcast(shape[:d] + (ishape[d],) + shape[d + 1:], ishape)
    self_shape = _broadcast(ishape[:d] + (shape[d],) + ishape[d + 1:], shape)
    # torch wraps the indices into range here (negative ones count from the end)
    indices = S._expand(indices, index_shape)
    if indices._data.size:   # (an empty % 0 is no error in torch)
        indices = indices % self_shape[d]
    return gather(S._expand(input, self_shape), d, indices, out=out)


def _broadcast(a, b) -> tuple:
    try:
        return tuple(broadcast_shapes(a, b))
    except RuntimeError:
        raise broadcast_error([a, b]) from None


# ---------------------------------------------------------------------------------------------
# nonzero / argwhere (no gradient: plain functions)
# ---------------------------------------------------------------------------------------------
def _nonzero_array(arr):
    """torch's (n, ndim) int64 result, column-major: strides (1, n)."""
    if arr.ndim == 0:
        n = int(bool(arr))
        return _npb.strided(_xp.empty(0, _xp.int64), (n, 0), (1, n), 0)
    columns = _xp.nonzero(arr)
    n = int(columns[0].size)
    flat = _xp.concatenate(columns).astype(_xp.int64, copy=False)
    return _npb.strided(flat, (n, arr.ndim), (1, n), 0)


def nonzero(input, *, out=None, as_tuple=False):
    """The indices of the nonzero elements: an (n, ndim) tensor, or one vector per dim."""
    from .creation import finish
    if input.dtype in D.LIMITED_UNSIGNED:   # Note [Limited unsigned dtypes] in _promotion.py
        from ._unsigned import refuse
        raise refuse("nonzero_count_cpu", input.dtype)
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        t = input if input._data.ndim else S.unsqueeze(input, 0)
        from .split import unbind
        return unbind(finish(_nonzero_array(t._data)), 1)
    result = _nonzero_array(input._data)
    if out is None:
        return finish(result)
    if out.dtype is not D.int64:
        raise RuntimeError("nonzero: Expected out tensor to have scalar type Long but got scalar "
                           f"type{out.dtype._legacy}")
    if out._data.shape != result.shape:   # resized out gets the column-major layout
        from ._selection import resize_output
        resize_output(out, result.shape)
        out.as_strided_(result.shape, (1, result.shape[0]))
    _xp.copyto(out._data, result)
    out._bump_version()
    return out


def argwhere(input):
    """``nonzero(input)``: the indices of the nonzero elements, one row each."""
    return nonzero(input)

for _fn in (gather, scatter, scatter_add, scatter_reduce, take_along_dim, nonzero, argwhere):
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
# torch numbers a method's arguments from the one after self
METHODS["gather"] = _gather_method
METHODS["scatter_add"] = _scatter_add_method
METHODS["scatter_reduce"] = _scatter_reduce_method
for _fn in (scatter_, scatter_add_, scatter_reduce_):
    METHODS[_fn.__name__] = INPLACE[_fn.__name__] = _fn


# an out= may share no memory with the inputs (Note [out= and memory overlap] in _dispatch.py)
_gather.out_overlap = "full"
