"""Norms: linalg.vector_norm (the primitive), linalg.matrix_norm, linalg.norm and torch.norm.

As in torch, ``torch.norm``, ``Tensor.norm``, ``linalg.norm`` and the Frobenius matrix norm all
end in ``linalg_vector_norm`` (``LinalgVectorNormBackward0``); the matrix 1 / inf norms are an
``amax`` / ``amin`` over a vector 1-norm. The nuclear norm and the spectral norms (ord 2 / -2)
sum or pick singular values: they call ``linalg.svdvals`` from the linear-algebra ops and raise
NotImplementedError while that does not exist.

torch's gradient conventions (norm_backward): the 2-norm's gradient is 0 (not NaN) where the
norm is 0; the inf-norm's gradient is shared evenly by the elements of largest magnitude; the
0-"norm" has no gradient.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import canonical_dim
from ..backends import numpy_backend as _npb
from . import _registry
from ._arg_parser import check_binding
from ._autograd_utils import arrays_only, from_array, reduction_tangent
from ._registry import FUNCTIONS, METHODS, OPS, defop
from ._signatures import SIGNATURES
from .reduction import _dims, dense, reduced_axes, unsqueeze_multiple, write_out


def _ord_str(ord) -> str:
    """An order as torch's C++ prints a Scalar (-2, -0.5, inf)."""
    if isinstance(ord, float):
        return f"{ord:g}"
    return str(ord)


def _check_floating(x, name, low_precision=True):
    if x.dtype.kind not in "fcV":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{D.from_np(x.dtype)._legacy}")
    if not low_precision and x.dtype == D.float16.np:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got Half")


def _check_dtype(dtype, x_dtype, name):
    """torch's check_linalg_norm_dtype."""
    if dtype is None:
        return
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{dtype._legacy}")
    if dtype.is_complex != x_dtype.is_complex:
        kind = "complex" if x_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got "
                           f"{dtype._legacy}")
    from .._promotion import promote_types
    if promote_types(x_dtype, dtype) != dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({x_dtype._legacy}) should be "
                           "convertible without narrowing to the specified dtype "
                           f"({dtype._legacy})")


# -- linalg.vector_norm --------------------------------------------------------------------------
# Note [Norms accumulate as torch's do]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's CPU norm kernels sum in the input's own real type (float16 and bfloat16 in float32,
# their opmath type): a float32 tensor's squares and sums stay float32. So an entry past
# sqrt(float32's largest) makes the 2-norm inf, and entries below sqrt(its smallest) square to
# 0, as in torch (clip_grad_norm_'s error_if_nonfinite sees that inf). dyngrad computes in that
# type too. A whole contiguous tensor's 2-norm is one BLAS dot of its elements with
# themselves, at torch's speed (a (256, 784) gradient, one thread: 16 us, torch 18; summing
# squares cast to float64, as dyngrad did before, took 1 ms); its rounding is closer to the
# exact norm than torch's own (on 10^6 normal entries within 9 float32 ulps, torch 160), as
# is NumPy's pairwise sum of the squares over some of the dims (within 1 ulp).
_VECTOR_NORM = SIGNATURES["linalg_vector_norm"]   # (the binding's parser: vector_norm below)


@defop("linalg_vector_norm", node="LinalgVectorNormBackward0", promote=Promote.NONE,
       variants=(), saves=("self", "result"), kernel_dtypes=True, scalars=())
def _vector_norm(xp, self, ord=2, dim=None, keepdim=False, *, dtype=None):
    if ord == 2 and dtype is None and self.dtype.kind in "fV" and self.size:
        # the commonest call, the Euclidean norm of a real tensor: what the code below computes,
        # without its checks (none can fail here); Note [Norms accumulate as torch's do]
        axes = reduced_axes(dim, self.ndim)
        for a in axes:
            if self.shape[a] != 1:   # (else |x| exactly, below)
                x = self if self.itemsize >= 4 else self.astype(xp.float32)
                # (the error state: a thread keeps NumPy's warnings on, where the squares of
                # large entries would warn of their overflow; torch's does not)
                with xp.errstate(over="ignore", invalid="ignore"):
                    if len(axes) == x.ndim and x.flags.c_contiguous:
                        flat = x.reshape(-1)
                        r = xp.sqrt(_npb.dot(flat, flat))
                        if keepdim:
                            r = r.reshape((1,) * x.ndim)
                    else:
                        r = xp.sqrt(xp.add.reduce(x * x, axis=axes, keepdims=keepdim))
                return xp.asarray(r, self.dtype, order="C")
    name = "linalg.vector_norm"
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    _check_floating(self, name)
    if not self.size and (ord < 0 or ord == math.inf):
        if _dims(dim, self.ndim) is None:
            raise RuntimeError(f"{name} cannot compute the {_ord_str(ord)} norm on an empty "
                               "tensor because the operation does not have an identity")
        for d in ((dim,) if isinstance(dim, int) else dim):
            if self.shape[d] == 0:
                raise RuntimeError(f"{name} cannot compute the {_ord_str(ord)} norm on the "
                                   f"dimension {d}because this dimension is empty and the "
                                   "operation does not have an identity")
    _check_dtype(dtype, D.from_np(self.dtype), name)
    x = self if dtype is None else self.astype(dtype.np)
    real = x.real.dtype
    axes = reduced_axes(dim, x.ndim)
    if all(x.shape[a] == 1 for a in axes):   # nothing to add up: |x| exactly, as torch
        r = (x != 0) if ord == 0 else xp.abs(x)
        r = r.reshape(tuple(s for i, s in enumerate(x.shape) if keepdim or i not in axes))
        return dense(xp, r.astype(real))
    a = xp.abs(x)
    if a.itemsize < 4:   # (float16, bfloat16: their opmath type)
        a = a.astype(xp.float32)
    with xp.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if ord == 0:
            r = xp.sum(a != 0, axis=axes, keepdims=keepdim)
        elif ord == math.inf:
            r = xp.max(a, axis=axes, keepdims=keepdim)
        elif ord == -math.inf:
            r = xp.min(a, axis=axes, keepdims=keepdim)
        elif ord == 2:
            r = xp.sqrt(xp.sum(a * a, axis=axes, keepdims=keepdim))
        elif ord == 1:
            r = xp.sum(a, axis=axes, keepdims=keepdim)
        else:
            r = xp.sum(a ** ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    return xp.asarray(r, real, order="C")


def _two_norm_grad(grad, self, norm, dim, keepdim):
    """norm_backward's 2-norm gradient below in its array form (Note [Array formulas]), the
    same NumPy calls as the ops': ``grad * (self / norm)``, 0 where the norm is 0."""
    x, g, n = self._data, grad._data, norm._data
    if not keepdim:   # (the unsqueezes: the reduced dims back, of size 1)
        axes = _dims(dim, x.ndim)
        kept = tuple(1 if axes is None or i in axes else s for i, s in enumerate(x.shape))
        g = g.reshape(kept)
        n = n.reshape(kept)
    scaled = x / n
    if not n.all():   # (a zero norm: its 0/0 entries become 0, as masked_fill_ makes them)
        _npb.xp.copyto(scaled, 0, where=n == 0)
    _npb.xp.multiply(g, scaled, out=scaled)   # (the product, into the quotient's fresh array)
    return from_array(scaled)


def norm_backward(grad, self, p, norm, dim, keepdim):
    """torch's norm_backward (p-norm over `dim`, [] meaning every dim)."""
    if p == 2 and arrays_only(grad, self, norm) and self._data.ndim \
            and self._data.flags.c_contiguous:
        return _two_norm_grad(grad, self, norm, dim, keepdim)
    ndim = self.dim()
    if not keepdim and ndim != 0:
        grad = unsqueeze_multiple(grad, dim, ndim)
        norm = unsqueeze_multiple(norm, dim, ndim)
    p = float(p)
    if p == 0.0:
        return None
    if p == 1.0:
        return self.sgn() * grad
    if p == 2.0:   # 0 (not NaN) at a zero norm
        return grad * (self / norm).masked_fill_(norm == 0, 0)
    if math.isinf(p):
        # the gradient of amax(|x|), shared by the maxima (or the NaNs)
        self_abs = self.abs()
        mask = (self_abs == norm) | (self_abs != self_abs)
        return self.sgn() * ((grad / mask.sum(list(dim), True)) * mask)
    # (a zero entry, or a zero norm, gets 0 rather than NaN: masked in place, as torch does)
    if p < 1.0:
        self_scaled = self.sgn() * (self.abs() ** (p - 1)).masked_fill_(self == 0, 0)
        return self_scaled * grad * norm ** (1 - p)
    if p < 2.0:
        self_scaled = self.sgn() * self.abs() ** (p - 1)
    else:
        self_scaled = self * self.abs() ** (p - 2)
    return self_scaled * (grad / norm ** (p - 1)).masked_fill_(norm == 0, 0)


@_vector_norm.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    dim = ctx.dim
    dim = [] if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    return norm_backward(grad, self, ctx.ord, result, dim, ctx.keepdim)


def norm_jvp(self_t, self, p, result, dim, keepdim):
    """The norm's tangent: the backward formula with a unit gradient, through
    reduction_tangent (torch's norm_jvp)."""
    partial = norm_backward(result.new_ones(result.shape), self, p, result, dim, keepdim)
    if partial is None:
        return result.new_zeros(result.shape)
    return reduction_tangent(partial, self_t, result, dim, keepdim)


@_vector_norm.jvp
def _(ctx, self_t):
    self, result = ctx.saved_tensors
    dim = ctx.dim
    dim = [] if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    return norm_jvp(self_t, self, ctx.ord, result, dim, ctx.keepdim)


# -- at::norm(self, p, dim, keepdim): NormBackward1 ---------------------------------------------
# torch.norm (Python) goes through linalg.vector_norm; torch's C++ ops that call at::norm
# (pairwise_distance, hence triplet_margin_loss) record NormBackward1, whose saved names are
# p/dim/keepdim. The same kernel and formulas; not published (torch exposes no such function).
@defop("norm.ScalarOpt_dim", node="NormBackward1", promote=Promote.NONE, variants=(),
       saves=("self", "result"), kernel_dtypes=True, scalars=())
def norm_p_dim(xp, self, p, dim, keepdim=False):
    return _vector_norm.kernel(xp, self, p, dim, keepdim)


@norm_p_dim.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return norm_backward(grad, self, ctx.p, result, list(ctx.dim), ctx.keepdim)


@norm_p_dim.jvp
def _(ctx, self_t):
    self, result = ctx.saved_tensors
    return norm_jvp(self_t, self, ctx.p, result, list(ctx.dim), ctx.keepdim)


del OPS[norm_p_dim.name]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ``ord``-norm over ``dim`` (every dim by default): sum(|x|**ord)**(1/ord), with
    ord 0 (count of nonzeros), inf (max |x|) and -inf (min |x|). Real result."""
    kw = {} if dtype is None else {"dtype": dtype}
    if out is not None:
        kw["out"] = out
    if type(ord) is not int and type(ord) is not float or type(keepdim) is not bool or not (
            dim is None or type(dim) is int or type(dim) in (list, tuple)
            and all(type(d) is int for d in dim)):
        # the binding's parser (torch.norm hands its arguments on by position; a call of
        # linalg.vector_norm itself has them reworded as given, by its published wrapper)
        check_binding(_VECTOR_NORM, (x, ord, dim, keepdim), kw)
        ord = ord.item() if isinstance(ord, _registry._Tensor) else ord
        ord = int(ord) if type(ord) is bool else ord   # (a Scalar: True is the 1-norm)
    return _vector_norm(x, ord, dim, keepdim, **kw)


# -- linalg.matrix_norm --------------------------------------------------------------------------
def _svdvals(A):
    svdvals = FUNCTIONS.get("linalg.svdvals")
    if svdvals is None:
        raise NotImplementedError("linalg.matrix_norm: the nuclear and spectral norms (ord 'nuc', "
                                  "2, -2) need linalg.svdvals, which dyngrad does not have yet")
    return svdvals(A)


def _backshift(dim0, dim1, ndim):
    return [i for i in range(ndim) if i not in (dim0, dim1)] + [dim0, dim1]


def _inverse(perm):
    return [i for i, _ in sorted(enumerate(perm), key=lambda p: p[1])]


def _singular_values(A, dim, keepdim, dtype, reduce):
    """`reduce` (sum or amax/amin over the last dim) of the singular values of A's matrices."""
    if dtype is not None:
        A = A.to(dtype)
    perm = _backshift(dim[0], dim[1], A.dim())
    result = reduce(_svdvals(A.permute(perm)))
    if keepdim:
        result = result.unsqueeze(-1).permute(_inverse(perm))
    return result


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The matrix norm over the two dims ``dim``: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.

    Differences from torch: 'nuc', 2 and -2 need ``linalg.svdvals`` (see the module note).
    """
    name = "linalg.matrix_norm"
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{name}: Order {ord} not supported.")
        low_precision = ord != "nuc"
    else:
        if abs(ord) not in (1, 2, math.inf):
            raise RuntimeError(f"{name}: Order {_ord_str(ord)} not supported.")
        low_precision = abs(ord) != 2
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _check_floating(A._data, name, low_precision)
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    dim = tuple(canonical_dim(d, A.dim()) for d in dim)
    if dim[0] == dim[1]:
        raise RuntimeError(f"{name}: dims must be different. Got ({dim[0]}, {dim[1]})")
    _check_dtype(dtype, A.dtype, name)
    if ord == "fro":
        result = vector_norm(A, 2, dim, keepdim, dtype=dtype)
    elif ord == "nuc":
        result = _singular_values(A, dim, keepdim, dtype, lambda s: s.sum(-1, keepdim))
    else:
        reduce = FUNCTIONS["amax"] if ord > 0 else FUNCTIONS["amin"]

        def max_min(t, d):
            if t.shape[d] == 0 and ord > 0:   # the max of no (non-negative) norms: 0
                size = list(t.shape)
                if keepdim:
                    size[d] = 1
                else:
                    del size[d]
                return FUNCTIONS["zeros"](size, dtype=t.dtype)
            return reduce(t, d, keepdim)

        if abs(ord) == 2:
            result = _singular_values(A, dim, keepdim, dtype, lambda s: max_min(s, -1))
        else:
            dim0, dim1 = dim
            if abs(ord) == math.inf:
                dim0, dim1 = dim1, dim0
            if not keepdim and dim0 < dim1:
                dim1 -= 1
            result = max_min(vector_norm(A, 1.0, dim0, keepdim, dtype=dtype), dim1)
    return result if out is None else write_out("linalg_matrix_norm", out, result)


# -- linalg.norm, torch.norm ---------------------------------------------------------------------
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """A vector norm, or a matrix norm when ``ord`` is given and there are two dims (``dim``
    of length 2, or a 2-D input without ``dim``); ord None is the 2-norm of everything."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got {list(dim)}")
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.dim()}D.")
    if isinstance(ord, str) or (ord is not None and (
            (dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2))):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype,
                           out=out)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: a vector norm of ``input`` (over ``dim``, or everything), or with p 'nuc' (or
    'fro' over more than two dims) a matrix norm. Prefer linalg.vector_norm / matrix_norm."""
    _ = input.layout   # (torch/functional.py's first read: a non-tensor's AttributeError)
    dims = None if dim is None else ([dim] if isinstance(dim, int) else dim)
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dims, keepdim, dtype=dtype, out=out)
        if dims is None:
            dims = list(range(input.dim()))
        return matrix_norm(input, p, dims, keepdim, dtype=dtype, out=out)
    return vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype, out=out)


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


FUNCTIONS["norm"] = norm
METHODS["norm"] = _norm_method
FUNCTIONS["linalg.vector_norm"] = vector_norm
FUNCTIONS["linalg.matrix_norm"] = matrix_norm
FUNCTIONS["linalg.norm"] = linalg_norm
