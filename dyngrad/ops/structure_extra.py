"""Tensor-structure ops torch has beside the common ones: ``inner``, ``tril_indices`` /
``triu_indices``, ``vander`` / ``linalg.vander``, ``chain_matmul``, ``renorm`` and
``narrow_copy``.

Composites (torch shows the nodes of the ops they call):

* inner: ``self * other`` when either is 0-dim, else ``tensordot(self, other, [-1], [-1])``;
  tensordot contracts through ``mm`` of the permuted, reshaped operands, or through ``dot``
  when neither keeps a free element (both reshape to vectors), the result viewed back.
* vander: ATen fills a ``(len(x), N)`` tensor of the promoted type of x and int64 with ones,
  copies x into columns 1.. (CopySlices), replaces them by their cumprod (CopySlices over
  CumprodBackward0 over SliceBackward0), and flips it unless ``increasing``.
* linalg.vander: ``cat([ones, cumprod(x.unsqueeze(-1).expand(..., N - 1), -1)], -1)``.
* chain_matmul: the deprecated spelling of ``linalg.multi_dot`` (one matrix: a clone).

Primitives (a node of their own): ``renorm`` (RenormBackward0) and ``narrow_copy``
(NarrowCopyBackward0). tril_indices / triu_indices are factories (no graph).
"""
from __future__ import annotations


from .. import _dtypes as D
from .._promotion import Promote, promote_types
from .._utils import canonical_dim, shape_str
from ..autograd.forward_ad import AUTO_LINEAR
from ..backends import numpy_backend as _npb
from . import _registry
from . import view_backward as _vb
from ._geometry import _numel
from ._registry import FUNCTIONS, INPLACE, METHODS, OPS, defop
from ._selection import contiguous, resize_output, structured_out_check
from .creation import check_pin_memory, dtype_arg, factory_device, finish, fresh
from .join import int_arg
from .linalg_products import _tensordot
from .norms import _vector_norm, norm_backward, norm_jvp
from .pointwise import _not_implemented, _warn_once
from ._arg_parser import type_name as _tp_name


def _copy_out(result, out):
    """torch's ``resize_output(out, ...)`` then ``out.copy_(result)``: out keeps a contiguous
    layout and, when result requires grad, records CopyBackwards."""
    resize_output(out, result.shape)
    return out.copy_(result)


def _tensor_arg(fname, name, value, pos):
    if not isinstance(value, _registry._Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{_tp_name(value)}")


# ---------------------------------------------------------------------------------------------
# inner
# ---------------------------------------------------------------------------------------------
def _inner(input, other, out, pos):
    _tensor_arg("inner", "input" if pos == 1 else "self", input, 1)
    _tensor_arg("inner", "other", other, pos + 1)
    if input.dim() == 0 or other.dim() == 0:
        return FUNCTIONS["mul"](input, other) if out is None else \
            FUNCTIONS["mul"](input, other, out=out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got "
                           f"shapes {shape_str(input.shape)} and {shape_str(other.shape)}")
    if input.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if out is not None and out.dtype is not input.dtype:
        raise RuntimeError("tensordot: Expected the output tensor to have dtype "
                           f"{input.dtype._legacy}, but got an output tensor with dtype "
                           f"{out.dtype._legacy}")
    free1, free2 = input.shape[:-1], other.shape[:-1]
    if _numel(free1) == 1 and _numel(free2) == 1:
        # no free element on either side: torch contracts two vectors through dot, each
        # permuted (the contracted dim named -1, as torch saves it) and flattened (no node
        # for one already 1-D), and views the result to its shape
        a = METHODS["flatten"](METHODS["permute"](input, list(range(input.dim() - 1)) + [-1]))
        b = METHODS["flatten"](METHODS["permute"](other, [-1] + list(range(other.dim() - 1))))
        result = METHODS["view"](FUNCTIONS["dot"](a, b), list(free1) + list(free2))
    else:
        result = _tensordot(input, other, [-1], [-1])
    return result if out is None else _copy_out(result, out)


def inner(input, other, *, out=None):
    """The dot product over the last dim of ``input`` and ``other`` (a product when either is
    0-dim): ``result[i..., j...] = sum(input[i..., :] * other[j..., :])``."""
    return _inner(input, other, out, 1)


def _inner_method(self, other):
    return _inner(self, other, None, 0)


FUNCTIONS["inner"] = inner
METHODS["inner"] = _inner_method


# ---------------------------------------------------------------------------------------------
# tril_indices / triu_indices
# ---------------------------------------------------------------------------------------------
_MISSING = object()


def _indices(name, lower, row, col, offset, dtype, layout, device, pin_memory, requires_grad):
    if col is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "col"')
    row = int_arg(name, "row", row, 1)
    col = int_arg(name, "col", col, 2)
    offset = int_arg(name, "offset", offset, 3)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    check_pin_memory(pin_memory)
    d = dtype_arg(dtype, name) or D.int64
    if d not in (D.int64, D.int32):
        raise _not_implemented(name, d.np)
    xp = _npb.xp
    pick = xp.tril_indices if lower else xp.triu_indices
    rows, cols = pick(row, offset, col)
    arr = fresh(xp.stack([rows, cols]).astype(d.np))
    return finish(arr, requires_grad, factory_device(device))


def tril_indices(row, col=_MISSING, offset=0, *, dtype=None, layout=None, device=None,
                 pin_memory=False, requires_grad=False):
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix (elements
    with ``column - row <= offset``), row by row, as a 2 x N tensor."""
    return _indices("tril_indices", True, row, col, offset, dtype, layout, device, pin_memory,
                    requires_grad)


def triu_indices(row, col=_MISSING, offset=0, *, dtype=None, layout=None, device=None,
                 pin_memory=False, requires_grad=False):
    """The (row, column) indices of the upper triangle (``column - row >= offset``)."""
    return _indices("triu_indices", False, row, col, offset, dtype, layout, device, pin_memory,
                    requires_grad)


FUNCTIONS["tril_indices"] = tril_indices
FUNCTIONS["triu_indices"] = triu_indices


# ---------------------------------------------------------------------------------------------
# vander / linalg.vander
# ---------------------------------------------------------------------------------------------
def _slice(t, dim, start, end=None):
    return OPS["slice.Tensor"](t, dim, start, end, 1)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: column j holds ``x ** (N - 1 - j)``
    (``increasing``: ``x ** j``); integer and bool ``x`` give int64."""
    _tensor_arg("vander", "x", x, 1)
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is not None:
        n = int_arg("vander", "N", N, 2)
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    result = FUNCTIONS["empty"]((x.shape[0], n), dtype=promote_types(x.dtype, D.int64))
    if n > 0:
        result.fill_(1)
        if n > 1:
            _slice(result, 1, 1).copy_(x.unsqueeze(1))
            _slice(result, 1, 1).copy_(FUNCTIONS["cumprod"](_slice(result, 1, 1), 1))
    if not increasing:
        return FUNCTIONS["flip"](result, [1])
    return result


def linalg_vander(x, *, N=None):
    """The Vandermonde matrices of the vectors in the last dim of ``x`` (increasing powers, N
    columns, N > 1)."""
    _tensor_arg("linalg_vander", "x", x, 1)
    d = x.dtype
    if not (d in (D.float32, D.float64, D.complex64, D.complex128) or d.category == D.INT):
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {d._legacy}")
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    shape = list(x_.shape)
    if N is not None and (isinstance(N, bool) or not hasattr(N, "__index__")):
        raise TypeError("linalg_vander(): argument 'N' must be int, not "
                        f"{type(N).__name__}")
    n = shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    result = FUNCTIONS["cumprod"](x_.unsqueeze(-1).expand(shape + [n - 1]), -1)
    ones = result.new_ones(shape + [1])
    return FUNCTIONS["cat"]([ones, result], -1)


FUNCTIONS["vander"] = vander
FUNCTIONS["linalg.vander"] = linalg_vander


# ---------------------------------------------------------------------------------------------
# chain_matmul
# ---------------------------------------------------------------------------------------------
_CHAIN_DEPRECATED = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
    "multiple parameters. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "LinearAlgebra.cpp:1102.)")


def chain_matmul(*matrices, out=None):
    """Deprecated: :func:`linalg.multi_dot` of the matrices given as arguments (a clone of a
    single one). Warns once per process, as torch."""
    for i, m in enumerate(matrices):
        if not isinstance(m, _registry._Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{_tp_name(m)}")
    _warn_once(_CHAIN_DEPRECATED)
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone() if out is None else _copy_out(matrices[0], out)
    return FUNCTIONS["linalg.multi_dot"](list(matrices), out=out)


FUNCTIONS["chain_matmul"] = chain_matmul


# ---------------------------------------------------------------------------------------------
# renorm
# ---------------------------------------------------------------------------------------------
def _acc_dtype(d):
    """at::toAccumulateType(d, is_cuda=true) for the floating dtypes: half -> float."""
    return D.float32 if d is D.float16 or d is D.bfloat16 else d


@defop("renorm", node="RenormBackward0", promote=Promote.NONE, variants=(), saves=("self",),
       scalars=())
def _renorm(xp, self, p, dim, maxnorm):
    d = canonical_dim(dim, self.ndim)
    reduce = [i for i in range(self.ndim) if i != d]
    dtype = D.from_np(self.dtype)
    acc = _acc_dtype(dtype)
    norm = _vector_norm.kernel(xp, self, p, reduce, True,
                               dtype=None if acc is dtype else acc)
    real = norm.dtype.type
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        m = real(maxnorm)
        factor = xp.where(norm > m, m / (norm + real(1e-7)), real(1))
    return contiguous(self * factor.astype(self.dtype))


@_renorm.backward
def _(ctx, grad):
    # torch's renorm_backward: d(x * maxnorm / (norm + eps)) where the norm exceeds maxnorm
    (self,) = ctx.saved_tensors
    p, maxnorm = ctx.p, ctx.maxnorm
    d = canonical_dim(ctx.dim, self.dim())
    reduce = [i for i in range(self.dim()) if i != d]
    acc = _acc_dtype(self.dtype)
    real_acc = acc.to_real() if acc.is_complex else acc
    norm = _vector_norm(self, p, reduce, True, dtype=acc)
    if real_acc is not acc:   # real(conj(self) * grad), spelled without conj
        grad_output = self.real * grad.real + self.imag * grad.imag
    else:
        grad_output = self * grad
    grad_output = grad_output.sum(reduce, True, dtype=real_acc)
    nb = norm_backward(grad_output, self, p, norm, reduce, True)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * maxnorm
    return FUNCTIONS["where"](norm > maxnorm, factor * grad - (factor * invnorm) * nb, grad)


@_renorm.jvp
def _(ctx, self_t):
    # torch's renorm_jvp: the tangent of x * maxnorm / (norm + eps) where the norm exceeds it
    (self,) = ctx.saved_tensors
    p, maxnorm = ctx.p, float(ctx.maxnorm)
    d = canonical_dim(ctx.dim, self.dim())
    reduce = [i for i in range(self.dim()) if i != d]
    acc = _acc_dtype(self.dtype)
    norm = _vector_norm(self, p, reduce, True, dtype=acc)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * maxnorm
    tangent = norm_jvp(self_t, self, p, norm, reduce, True)
    return FUNCTIONS["where"](norm > maxnorm, factor * (self_t - self * invnorm * tangent),
                             self_t)


def _renorm_checks(self, p, dim, maxnorm, fname="renorm", pos=2):
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if not float(p) > 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if not float(maxnorm) >= 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if self.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.dim()} "
                           "dimensions")
    return (float(p) if isinstance(p, bool) else p), int_arg(fname, "dim", dim, pos + 1)


def renorm(input, p, dim, maxnorm, *, out=None):
    """``input`` with each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled
    down to norm ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``)."""
    _tensor_arg("renorm", "input", input, 1)
    p, dim = _renorm_checks(input, p, dim, maxnorm)
    if out is not None:
        structured_out_check(input.dtype, out)
        return _renorm(input, p, dim, maxnorm, out=out)
    return _renorm(input, p, dim, maxnorm)


def _renorm_method(self, p, dim, maxnorm):
    p, dim = _renorm_checks(self, p, dim, maxnorm, pos=1)
    return _renorm(self, p, dim, maxnorm)


def renorm_(self, p, dim, maxnorm):
    """In-place :func:`renorm`."""
    p, dim = _renorm_checks(self, p, dim, maxnorm, "renorm_", 1)
    return _renorm.call_inplace(self, p, dim, maxnorm)


FUNCTIONS["renorm"] = renorm
METHODS["renorm"] = _renorm_method
METHODS["renorm_"] = INPLACE["renorm_"] = renorm_


# ---------------------------------------------------------------------------------------------
# narrow_copy
# ---------------------------------------------------------------------------------------------
@defop("narrow_copy", node="NarrowCopyBackward0", promote=Promote.NONE, variants=(),
       scalars=())
def _narrow_copy(xp, self, dim, start, length):
    d = canonical_dim(dim, self.ndim)
    s = start + self.shape[d] if start < 0 else start
    index = (slice(None),) * d + (slice(s, s + length),)
    out = xp.empty(self[index].shape, self.dtype)
    out[...] = self[index]
    return out


_narrow_copy.jvp(AUTO_LINEAR)
_narrow_copy.node_cls._saved_self_sym_sizes = property(lambda node: tuple(node.self_shape))


@_narrow_copy.backward
def _(ctx, grad):
    shape = tuple(ctx.self_shape)
    d = canonical_dim(ctx.dim, len(shape))
    start = ctx.start + shape[d] if ctx.start < 0 else ctx.start
    return _vb.slice_backward(grad, shape, d, start, start + ctx.length, 1)


def _narrow_copy_checks(self, dim, start, length, pos):
    dim = int_arg("narrow_copy", "dim", dim, pos)
    if isinstance(start, _registry._Tensor):
        start = start.item()
    start = int_arg("narrow_copy", "start", start, pos + 1)
    length = int_arg("narrow_copy", "length", length, pos + 2)
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= nd:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    n = self.shape[canonical_dim(dim, nd)]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    s = start + n if start < 0 else start
    if length < 0 or s > n - length:
        raise RuntimeError(f"start ({s}) + length ({length}) exceeds dimension size ({n}).")
    return dim, start, length


def narrow_copy(input, dim, start, length, *, out=None):
    """A contiguous copy of :func:`narrow`'s view: ``length`` elements of ``dim`` from
    ``start``."""
    _tensor_arg("narrow_copy", "input", input, 1)
    args = _narrow_copy_checks(input, dim, start, length, 2)
    if out is not None:
        if out.dtype is not input.dtype:
            raise RuntimeError("Expected self.dtype() == output.dtype() to be true, but got "
                               "false.  (Could this error message be improved?  If so, please "
                               "report an enhancement request to PyTorch.)")
        return _narrow_copy(input, *args, out=out)
    return _narrow_copy(input, *args)


def _narrow_copy_method(self, dim, start, length):
    return _narrow_copy(self, *_narrow_copy_checks(self, dim, start, length, 1))


FUNCTIONS["narrow_copy"] = narrow_copy
METHODS["narrow_copy"] = _narrow_copy_method
