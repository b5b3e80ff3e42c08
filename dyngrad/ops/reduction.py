"""Reductions: sum, mean, nansum, nanmean, prod, all, any, count_nonzero, with their derivatives.

The other reductions live beside this file: minmax.py (max, min, amax, amin, aminmax, argmax,
argmin), statistics.py (var, std, var_mean, std_mean, logsumexp), norms.py (norm,
linalg.vector_norm / matrix_norm / norm) and softmax.py. They share the helpers here.

torch has two overloads of most reductions: ``sum(input, *, dtype)`` over everything
(``SumBackward0``) and ``sum(input, dim, keepdim=False, *, dtype)`` (``SumBackward1``), chosen
by whether ``dim`` is passed at all (``dim=None`` passed explicitly picks the second). The
public functions below keep that distinction with a sentinel. ``dim`` is an int or a tuple of
ints; the nodes keep it as given (``_saved_dim`` shows -1 as torch does) and canonicalise it
when they run.

The sum and mean derivatives save no tensor, only the input's shape
(``_saved_self_sym_sizes``): the gradient is the output's gradient expanded back over the
reduced dims (divided by their size for mean).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import canonical_dim, canonical_dims, dims_spelled_out, plain_int
from ..backends import numpy_backend as _npb
from ..autograd import grad_mode as _gm
from ._autograd_utils import arrays_only, conj, from_array, reduction_tangent
from ._registry import FUNCTIONS, METHODS, OPS, defop
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD
from .pointwise import _not_implemented, _warn_once
from .view_backward import backward_only

_NO_DIM = object()   # `dim` not passed (a passed None means "all dims", other overload)


def _dims(dim, ndim):
    """The reduced axes (canonical), or None for all of them (dim None, () or [])."""
    if dim is None or (type(dim) is tuple or type(dim) is list) and not dim:
        return None
    axes = canonical_dims(dim, max(ndim, 1))   # a 0-dim tensor takes dim 0 / -1 (checked)
    return axes if ndim else ()


def reduced_axes(dim, ndim) -> tuple:
    """The reduced axes as a tuple (all of them for None / ())."""
    axes = _dims(dim, ndim)
    return tuple(range(ndim)) if axes is None else axes


def unsqueeze_multiple(t, dim, ndim):
    """torch's unsqueeze_multiple: put back the reduced dims (size 1) of a keepdim=False result."""
    unsqueeze = OPS["unsqueeze"]   # (the op itself: Tensor.unsqueeze is two frames more)
    for d in sorted(_dims(dim, ndim) or ()):
        t = unsqueeze(t, d)
    return t


_COMPLEX_TO_REAL = ("Casting complex values to real discards the imaginary part (Triggered "
                    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)")


def _accumulate(xp, x, dtype):
    """Cast to the requested dtype; accumulate float16 in float32, as torch's CPU kernels do."""
    if dtype is not None and x.dtype != dtype.np:
        if x.dtype.kind == "c" and not dtype.is_complex:
            _warn_once(_COMPLEX_TO_REAL)
            x = xp.real(x)
        x = x.astype(dtype.np)
    return x, (xp.float32 if x.dtype in _npb.LOW else None)


def dense(xp, result):
    """torch allocates reduction results contiguous; NumPy follows the input's memory order.

    A size-1 dim (a ``keepdim`` result) gets its contiguous stride too: NumPy calls an array
    C-contiguous whatever stride such a dim has, and ``stride()`` shows it (a column sum of a
    transposed matrix kept (1, 1) where torch gives (7, 1))."""
    return _npb.c_contiguous(result)


def reduce_rows(xp, ufunc, x, axis, keepdims=False, dtype=None):
    """``ufunc.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)``, fast for many short rows.

    NumPy reduces the last axis of a C-contiguous array one row at a time, setting its loop up
    for every row: over 512 rows of 10 logits that is 3-5x slower than reducing a transposed
    copy column by column, one vectorised pass per column (and 20x over 4096 rows of 3). So
    short last-axis rows (at most 16 elements) take the transposed copy: from 32 rows for a max
    or min (2.1 -> 1.4 us over 32 rows of 10), which is the same either way, and from 128 rows
    for a sum, which may differ in the last bit, as any two summation orders do (torch's own
    order is a third one).
    """
    nd = x.ndim
    if nd >= 2 and (axis == nd - 1 or axis == -1 or axis == (nd - 1,)):
        n = x.shape[-1]
        rows = 32 if ufunc is xp.maximum or ufunc is xp.minimum else 128
        if 1 < n <= 16 and x.size >= rows * n and x.flags.c_contiguous:
            columns = xp.ascontiguousarray(x.reshape(-1, n).T)
            r = ufunc.reduce(columns, axis=0, dtype=dtype)
            return r.reshape(x.shape[:-1] + (1,) if keepdims else x.shape[:-1])
    return ufunc.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)


def _sum(xp, x, axes, keepdim, dtype):
    if axes is None and not keepdim and dtype is None and x.dtype.kind == "f" and x.itemsize >= 4:
        return xp.add.reduce(x, None)   # a float sum of everything: one 0-dim result
    if axes and dtype is None and len(axes) < x.ndim and max(axes) == len(axes) - 1 \
            and type(x) is _npb.np.ndarray:
        # the leading axes (a bias's gradient): Note [Leading-axis sums as products]
        total = _npb.leading_sum(x, len(axes))
        if total is not None:
            return dense(xp, total.reshape((1,) * len(axes) + total.shape)) if keepdim else total
    x, acc = _accumulate(xp, x, dtype)
    total = reduce_rows(xp, xp.add, x, axes, keepdim, acc)   # (xp.sum, unwrapped)
    return dense(xp, total if acc is None else total.astype(x.dtype))


def sum_backward(grad, sizes, dim, keepdim):
    """torch's sum_backward: unsqueeze the reduced dims (unless kept), expand to `sizes`."""
    if not keepdim and sizes:
        grad = unsqueeze_multiple(grad, dim, len(sizes))
    return grad.expand(sizes)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _kw(dtype=None, out=None) -> dict:
    kw = {} if out is None else {"out": out}
    if dtype is not None:
        kw["dtype"] = dtype
    return kw


def write_out(name: str, out, result):
    """``out=`` for a composite: copy `result` into `out` (resized as torch does)."""
    from ._dispatch import _write_out
    if _gm._state.grad_enabled and result.requires_grad:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    return _write_out(None, out, result._data)


def write_outs(name: str, outs, results):
    """``out=(a, b)`` for an op returning a named tuple."""
    from ._dispatch import check_out_tuple
    check_out_tuple(name, outs, len(results), None)   # (the parser has checked the elements)
    for o in outs:   # (an expanded out=: Note [out= and memory overlap] in _dispatch.py)
        o._check_writeable()
    for o, r in zip(outs, results):
        write_out(name, o, r)
    if not hasattr(type(results), "n_fields"):
        return tuple(outs)
    # torch returns return_types.<name>_out for out= calls
    out_type = _OUT_TYPES.get(name)
    if out_type is None:
        from ..return_types import _structseq
        fields = tuple(f for f in dir(type(results)) if f in ("values", "indices", "min", "max"))
        fields = ("min", "max") if "min" in fields else ("values", "indices")
        out_type = _OUT_TYPES[name] = _structseq(f"{name}_out", fields)
    return out_type(tuple(outs))


_OUT_TYPES: dict = {}


def _describe(v) -> str:
    from ._registry import _Tensor
    return "Tensor" if isinstance(v, _Tensor) else type(v).__name__


def invalid_arguments(name: str, args, kwargs, signatures) -> TypeError:
    """torch's argument-parser error for a call no overload accepts (function form)."""
    got = [_describe(a) for a in args] + [f"{k}={_describe(kwargs[k])}" for k in sorted(kwargs)]
    lines = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{lines}")


# -- sum, mean -----------------------------------------------------------------------------------
@defop("sum", node="SumBackward0", promote=Promote.SUM_TO_LONG, variants=(), scalars=())
def sum_all(xp, self, *, dtype=None):
    return _sum(xp, self, None, False, dtype)


@sum_all.backward
def _(ctx, grad):
    return grad.expand(ctx.self_shape)


sum_all.jvp(AUTO_LINEAR)


@defop("sum.dim_IntList", node="SumBackward1", promote=Promote.SUM_TO_LONG, variants=(),
       public="sum", scalars=())
def sum_dim(xp, self, dim, keepdim=False, *, dtype=None):
    return _sum(xp, self, _dims(dim, self.ndim), keepdim, dtype)


@sum_dim.backward
def _(ctx, grad):
    return sum_backward(grad, ctx.self_shape, ctx.dim, ctx.keepdim)


sum_dim.jvp(AUTO_LINEAR)


def sum(input, dim=_NO_DIM, keepdim=False, *, dtype=None, out=None):
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints)."""
    if dim is _NO_DIM and not keepdim and dtype is None and out is None:
        return sum_all(input)
    kw = _kw(dtype, out)
    if dim is _NO_DIM:
        if keepdim is not False:   # (no overload takes keepdim without dim: the parser words it)
            raise TypeError("sum(): keepdim without dim")
        return sum_all(input, **kw)
    return sum_dim(input, dim, keepdim, **kw)


def _mean_check(x, dtype, name="mean") -> None:
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError(f"{name}(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: {dtype._legacy}")
        return
    if x.dtype.kind not in "fcV":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: "
                           f"{D.from_np(x.dtype)._legacy}")


def _mean(xp, x, axes, keepdim, dtype):
    _mean_check(x, dtype)
    x, acc = _accumulate(xp, x, dtype)
    total = xp.add.reduce(x, axis=axes, keepdims=keepdim, dtype=acc)   # (xp.sum, unwrapped)
    count = x.size if axes is None else _numel(x.shape[a] for a in axes)
    mean = xp.true_divide(total, count)   # an empty reduction gives nan, without a warning
    return dense(xp, mean if acc is None else mean.astype(x.dtype))


@defop("mean", node="MeanBackward0", promote=Promote.NONE, variants=(), scalars=())
def mean_all(xp, self, *, dtype=None):
    return _mean(xp, self, None, False, dtype)


@mean_all.backward
def _(ctx, grad):
    numel = ctx._saved_self_sym_numel
    if arrays_only(grad):
        # Note [Array formulas]: the expand and the division, on the array: the 0-dim gradient
        # divided once, then written into every element (the same value the division of each
        # element of the expanded gradient gives; np.broadcast_to alone took 2 of the 3 us)
        g = grad._data
        out = _npb.xp.empty(ctx.self_shape, g.dtype)
        if numel:   # (an empty input's gradient is empty: no division, nor its warning)
            out.fill(g / numel)
        return from_array(out)
    return grad.expand(ctx.self_shape) / numel


mean_all.jvp(AUTO_LINEAR)


@defop("mean.dim", node="MeanBackward1", promote=Promote.NONE, variants=(), public="mean",
       scalars=())
def mean_dim(xp, self, dim, keepdim=False, *, dtype=None):
    return _mean(xp, self, _dims(dim, self.ndim), keepdim, dtype)


@mean_dim.backward
def _(ctx, grad):
    sizes = ctx.self_shape
    count = _numel(sizes[d] for d in reduced_axes(ctx.dim, len(sizes))) if sizes else 1
    return sum_backward(grad, sizes, ctx.dim, ctx.keepdim) / count


mean_dim.jvp(AUTO_LINEAR)


# torch's MeanBackward nodes also show the input's element count
for _spec in (mean_all, mean_dim):
    _spec.node_cls._saved_self_sym_numel = property(lambda ctx: _numel(ctx.self_shape))


def mean(input, dim=_NO_DIM, keepdim=False, *, dtype=None, out=None):
    """Mean of all elements, or over ``dim``; floating and complex inputs only (as torch)."""
    kw = _kw(dtype, out)
    if dim is _NO_DIM:
        if keepdim is not False:   # (no overload takes keepdim without dim: the parser words it)
            raise TypeError("mean(): keepdim without dim")
        return mean_all(input, **kw)
    return mean_dim(input, dim, keepdim, **kw)


# -- nansum, nanmean -----------------------------------------------------------------------------
@defop("nansum", node="NansumBackward0", promote=Promote.SUM_TO_LONG,
       variants=("function", "method", "out"), saves=("self",), scalars=())
def nansum(xp, self, dim=None, keepdim=False, *, dtype=None):
    if self.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if self.dtype.kind in "fV" and dtype is not None and dtype.is_complex:
        raise _not_implemented("nansum_cpu", dtype.np)   # (integers take the plain sum)
    x, acc = _accumulate(xp, self, dtype)
    if x.dtype.kind in "fcV":
        x = xp.where(x != x, xp.zeros((), x.dtype), x)
    total = xp.sum(x, axis=_dims(dim, self.ndim), keepdims=keepdim, dtype=acc)
    return dense(xp, total if acc is None else total.astype(x.dtype))


@nansum.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    # d/dx nansum = 1 where x is not NaN (x == x), 0 at the NaNs
    return sum_backward(grad, ctx.self_shape, ctx.dim, ctx.keepdim) * (self == self)


nansum.jvp(FROM_BACKWARD)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean over the non-NaN elements (nansum divided by their count); float and complex only.

    torch composes it too: the graph is ``DivBackward0`` over ``NansumBackward0``.
    """
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype._legacy}")
    _mean_check(input._data, dtype, "nanmean")
    count = (input == input).sum(dim, keepdim)
    result = nansum(input, dim, keepdim, **_kw(dtype)) / count
    if out is not None:   # (an expanded out=: Note [out= and memory overlap] in _dispatch.py)
        out._check_writeable()
    return result if out is None else write_out("nanmean", out, result)


# -- prod ----------------------------------------------------------------------------------------
def _prod(xp, x, axis, keepdim, dtype):
    x, acc = _accumulate(xp, x, dtype)
    if x.dtype.kind == "V":   # torch's bfloat16 product rounds to bfloat16 at each step
        acc = None
    r = xp.prod(x, axis=axis, keepdims=keepdim, dtype=acc)
    return dense(xp, r if acc is None else r.astype(x.dtype))


@defop("prod", node="ProdBackward0", promote=Promote.SUM_TO_LONG, variants=(),
       saves=("self", "result"), scalars=())
def prod_all(xp, self, *, dtype=None):
    return _prod(xp, self, None, False, dtype)


@defop("prod.dim_int", node="ProdBackward1", promote=Promote.SUM_TO_LONG, variants=(),
       public="prod", saves=("self", "result"), scalars=())
def prod_dim(xp, self, dim, keepdim=False, *, dtype=None):
    d = canonical_dim(dim, self.ndim)
    return _prod(xp, self, d if self.ndim else None, keepdim and self.ndim > 0, dtype)


# Note [prod backward with zeros]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# d prod / d x_i is the product of the other elements. Without zeros that is result / x_i.
# With zeros torch multiplies, per slice, the exclusive products from the left and from the
# right (cumprods), which is exact: one zero gives the others' product at the zero and 0
# elsewhere, two zeros give 0 everywhere. `_prod_others` computes those products in its kernel
# (O(n) per slice); its own derivative, needed only for double backward, expands each slice to
# an n x n matrix whose diagonal is 1 and takes `_prod_others` of that. The full reduction
# without create_graph returns zeros for two or more zeros, as torch's shortcut does.
@backward_only
@defop("_prod_others", node="ProdOthersBackward0", promote=Promote.NONE, variants=(),
       saves=("self",))
def _prod_others(xp, self, dim):
    n = self.shape[dim]
    head = [slice(None)] * self.ndim
    ones_shape = list(self.shape)
    ones_shape[dim] = 1
    ones = xp.ones(ones_shape, self.dtype)
    head[dim] = slice(0, n - 1)
    left = xp.cumprod(xp.concatenate([ones, self[tuple(head)]], axis=dim), axis=dim)
    head[dim] = slice(1, n)
    tail = xp.flip(self[tuple(head)], axis=dim)
    right = xp.flip(xp.cumprod(xp.concatenate([ones, tail], axis=dim), axis=dim), axis=dim)
    return left * right


@_prod_others.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    d = ctx.dim
    n = self.shape[d]
    rng = FUNCTIONS["arange"](n)
    shape = [1] * (self.dim() + 1)
    shape[d] = n
    rows = rng.reshape(shape)
    shape[d], shape[d + 1] = 1, n
    eye = rows == rng.reshape(shape)                   # [.., i, j, ..]: i == j
    z = FUNCTIONS["where"](eye, 1.0, self.unsqueeze(d))   # row i: the slice with x_i set to 1
    grad_z = grad.unsqueeze(d + 1) * conj(_prod_others(z, d + 1))
    return FUNCTIONS["where"](eye, 0.0, grad_z).sum(d)


_prod_others.jvp(FROM_BACKWARD)   # (the products of all but two elements, as the backward)


def _prod_safe_zeros_backward(grad, input, dim):
    if input.numel() == 0:
        return grad.expand(input.shape)
    if input.shape[dim] == 1:
        return grad
    return grad * conj(_prod_others(input, dim))   # Note [Complex gradients]


def _as_grad_dtype(self, grad):
    """torch's ``self.to(grad.scalar_type())`` in prod_backward (prod with ``dtype=``: a
    complex input of a real product enters as its real part)."""
    return self if self._data.dtype == grad._data.dtype else self.to(grad.dtype)


@prod_all.backward
def _prod_all_backward(ctx, grad):
    self, result = ctx.saved_tensors
    if self.dim() == 0:
        return grad
    self = _as_grad_dtype(self, grad)
    zeros = int((self == 0).sum().item())
    if zeros == 0:
        return grad * conj(result / self)
    if zeros > 1 and not _gm._state.grad_enabled:
        return FUNCTIONS["zeros_like"](self)
    # See Note [prod backward with zeros]
    return _prod_safe_zeros_backward(grad, self.reshape(-1), 0).reshape(self.shape)


@prod_all.jvp
def _(ctx, self_t):
    self, result = ctx.saved_tensors
    partial = _prod_all_backward(ctx, result.new_ones(result.shape))
    return reduction_tangent(partial, self_t, result, None)   # torch's prod JVP


@prod_dim.backward
def _prod_dim_backward(ctx, grad):
    self, result = ctx.saved_tensors
    if self.dim() == 0:
        return grad
    self = _as_grad_dtype(self, grad)
    d = canonical_dim(ctx.dim, self.dim())
    if not ctx.keepdim:
        grad, result = grad.unsqueeze(d), result.unsqueeze(d)
    if int((self == 0).sum().item()) == 0:
        return grad * conj(result / self)
    return _prod_safe_zeros_backward(grad, self, d)   # See Note [prod backward with zeros]


@prod_dim.jvp
def _(ctx, self_t):
    self, result = ctx.saved_tensors
    partial = _prod_dim_backward(ctx, result.new_ones(result.shape))
    return reduction_tangent(partial, self_t, result, [canonical_dim(ctx.dim, self.dim())],
                             ctx.keepdim)


_PROD_SIGNATURES = ("Tensor input, *, torch.dtype dtype = None",
                    "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
                    "Tensor out = None")


def prod(input, dim=_NO_DIM, keepdim=_NO_DIM, *, dtype=None, out=None):
    """Product of all elements, or over the single dim ``dim``; integers give int64."""
    kw = _kw(dtype, out)
    dim = plain_int(dim)
    if dim is _NO_DIM or type(dim) is not int:
        if dim is not _NO_DIM or keepdim is not _NO_DIM:
            args = (input,) if dim is _NO_DIM else (input, dim)
            kws = {} if keepdim is _NO_DIM else {"keepdim": keepdim}
            raise invalid_arguments("prod", args, kws, _PROD_SIGNATURES)
        return prod_all(input, **kw)
    return prod_dim(input, dim, False if keepdim is _NO_DIM else keepdim, **kw)


# -- all, any, count_nonzero ---------------------------------------------------------------------
def _logical_reduce(xp, fn, x, dim, keepdim):
    # (an empty list of dims reduces none, where sum's reduces all: torch's all/any.dims)
    axes = () if isinstance(dim, (tuple, list)) and not dim else _dims(dim, x.ndim)
    r = fn(x, axis=axes, keepdims=keepdim)
    return dense(xp, xp.asarray(r, xp.uint8 if x.dtype == xp.uint8 else bool))  # (uint8 kept)


def _logical_variants(name):
    @defop(name, node=None, promote=Promote.NONE, variants=(), kernel_dtypes=True, scalars=())
    def reduce_all(xp, self):
        return _logical_reduce(xp, getattr(xp, name), self, None, False)

    @defop(f"{name}.dims", node=None, promote=Promote.NONE, variants=(), public=name,
           kernel_dtypes=True, scalars=())
    def reduce_dims(xp, self, dim=None, keepdim=False):
        return _logical_reduce(xp, getattr(xp, name), self, dim, keepdim)

    def public(input, dim=_NO_DIM, keepdim=False, *, out=None):
        kw = _kw(out=out)
        if dim is _NO_DIM and not keepdim:
            return reduce_all(input, **kw)
        return reduce_dims(input, None if dim is _NO_DIM else dim, keepdim, **kw)

    public.__name__ = public.__qualname__ = name
    public.__doc__ = (f"Whether {name} element{'s are' if name == 'all' else ' is'} nonzero, "
                      "over everything or over ``dim``; bool result (uint8 for uint8 input).")
    FUNCTIONS[name] = METHODS[name] = public
    return public


all = _logical_variants("all")
any = _logical_variants("any")


def _count_nonzero(xp, x, dim):
    if x.dtype.kind == "u" and x.itemsize > 1 and (dim is None or dim == () or dim == []):
        from ._unsigned import refuse   # (over given dims torch sums ``x != 0``, which works)
        raise refuse("nonzero_count_cpu", x.dtype)
    return dense(xp, xp.asarray(xp.count_nonzero(x, axis=_dims(dim, x.ndim)), xp.int64))


@defop("count_nonzero", node=None, promote=Promote.NONE, variants=(), kernel_dtypes=True,
       scalars=())
def _count_nonzero_int(xp, self, dim=None):
    return _count_nonzero(xp, self, dim)


@defop("count_nonzero.dim_IntList", node=None, promote=Promote.NONE, variants=(),
       public="count_nonzero", kernel_dtypes=True, scalars=())
def _count_nonzero_dims(xp, self, dim):
    return _count_nonzero(xp, self, dim)


def count_nonzero(input, dim=None):
    """The number of nonzero elements, over everything or over ``dim`` (int64)."""
    if isinstance(dim, (tuple, list)):
        return _count_nonzero_dims(input, dim)
    return _count_nonzero_int(input, dim)


def _count_nonzero_method(self, *args, **kwargs):
    if len(args) > 1 and not kwargs:   # x.count_nonzero(0, 1), as x.squeeze(0, 1)
        return count_nonzero(self, dims_spelled_out("count_nonzero", args))
    return count_nonzero(self, *args, **kwargs)


for _name, _fn in (("sum", sum), ("mean", mean), ("prod", prod), ("nanmean", nanmean),
                   ("count_nonzero", count_nonzero)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
METHODS["count_nonzero"] = _count_nonzero_method
