"""softmax and log_softmax (torch's ``_softmax`` / ``_log_softmax`` primitives), softmin, and
their public forms: ``torch.softmax``, ``Tensor.softmax``, ``special.softmax``,
``nn.functional.softmax / log_softmax / softmin``.

The kernels subtract each slice's maximum before exponentiating, so inputs of +-1000 neither
overflow nor lose the result; a slice holding +inf or only -inf gives NaN, as torch does.
``dtype=`` casts the input first (a ``ToCopyBackward0`` below the softmax node, as in torch).
"""
from __future__ import annotations

import math
import warnings

from ..backends import numpy_backend as _npb
from .._promotion import Promote
from .._utils import canonical_dim
from ..autograd.forward_ad import FROM_BACKWARD
from ._registry import FUNCTIONS, METHODS, OPS, defop
from .pointwise import _not_implemented
from .reduction import dense, reduce_rows, write_out
from ._autograd_utils import backward_op


def _prepare(xp, self, dim, kernel):
    """(float array to compute with, axis), after torch's checks (dim first, then dtype)."""
    d = canonical_dim(dim, self.ndim)
    if self.dtype.kind not in "fV":
        last = self.ndim == 0 or d == self.ndim - 1
        raise _not_implemented(f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl",
                               self.dtype)
    x = self.astype(xp.float32) if self.dtype in _npb.LOW else self   # float opmath for half
    return x, (d if self.ndim else None)


# Note [Few NumPy calls for a classifier's loss]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# In a training step, the loss runs right after the matrix products of the layers, which have
# filled the CPU's caches with weights: NumPy's and Python's code for the loss is read back from
# memory, and each further call costs several times its warm time (on the bench's Intel Xeon,
# log_softmax's kernel on (32, 10) logits took 9 us warm and 40 us after 1 MB of other traffic).
# So the common case takes as few calls as it can: no ``errstate`` block (the process ignores
# floating-point errors already, numpy_backend.py; the block matters only in a thread, whose
# error state is NumPy's default, and only where inf - inf or log(0) can occur, which finite
# row maxima rule out), no dim or dtype helpers. Same numbers as the general path; the MLP
# step's loss 12 us faster (118 -> 106, side by side in one process).
_isfinite = math.isfinite


def _shifted(xp, x, axis):
    """x minus its maximum along `axis` (exp of it cannot overflow). (The kernels here reduce
    with ``reduce_rows``, the ufuncs' own ``reduce`` rather than ``xp.max``/``xp.sum``: no
    Python-level wrapper, and a fast path for a classifier's many rows of a few logits.)"""
    return x - reduce_rows(xp, xp.maximum, x, axis, keepdims=True)


@defop("_softmax", node="SoftmaxBackward0", promote=Promote.NONE, variants=(),
       saves=("result",), scalars=())
def _softmax(xp, self, dim, half_to_float=False):
    x, axis = _prepare(xp, self, dim, "softmax")
    if not x.size:
        return self.copy()
    with xp.errstate(invalid="ignore"):
        e = xp.exp(_shifted(xp, x, axis))
        if x is not self and axis is not None and axis != self.ndim - 1:
            # torch's kernel for other dims keeps the exponentials in the half/bfloat16 output
            # before it sums them in float32 and divides
            e = e.astype(self.dtype).astype(x.dtype)
        e /= reduce_rows(xp, xp.add, e, axis, keepdims=True)   # (e is this kernel's own array)
    return dense(xp, e.astype(self.dtype, copy=False))


@_softmax.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return backward_op(_softmax_backward_data, grad, result, ctx.dim)


@_softmax.jvp
def _(ctx, self_t):   # y * (t - sum(y t))
    result, = ctx.saved_tensors
    return result * (self_t - (result * self_t).sum(ctx.dim, True))


@defop("_log_softmax", node="LogSoftmaxBackward0", promote=Promote.NONE, variants=(),
       saves=("result",), scalars=())
def _log_softmax(xp, self, dim, half_to_float=False):
    nd = self.ndim
    if (dim == -1 or dim == nd - 1) and nd and self.dtype.kind == "f" and self.itemsize >= 4 \
            and self.size and self.flags.c_contiguous:
        # Note [Few NumPy calls for a classifier's loss]: a classifier's logits, the rows'
        # maxima finite (no inf - inf, no row of -inf), with no error state to set
        m = reduce_rows(xp, xp.maximum, self, -1, keepdims=True)
        if _isfinite(xp.add.reduce(m, None)):
            s = self - m
            s -= xp.log(reduce_rows(xp, xp.add, xp.exp(s), -1, keepdims=True))
            return s
    x, axis = _prepare(xp, self, dim, "log_softmax")
    if not x.size:
        return self.copy()
    with xp.errstate(invalid="ignore", divide="ignore"):
        s = _shifted(xp, x, axis)
        total = reduce_rows(xp, xp.add, xp.exp(s), axis, keepdims=True)
        if x is not self and axis == self.ndim - 1:
            # torch's last-dim kernel for half/bfloat16 keeps each row's sum, and its log, in
            # the input's dtype (a buffer of scalar_t): two roundings before the subtraction
            low = self.dtype
            s -= xp.log(total.astype(low).astype(x.dtype)).astype(low).astype(x.dtype)
        else:
            s -= xp.log(total)   # (s is its own)
    return dense(xp, s.astype(self.dtype, copy=False))


@_log_softmax.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return backward_op(_log_softmax_backward_data, grad, result, ctx.dim)


@_log_softmax.jvp
def _(ctx, self_t):   # t - sum(softmax * t)
    result, = ctx.saved_tensors
    return self_t - (result.exp() * self_t).sum(ctx.dim, True)


# -- the backward primitives -----------------------------------------------------------------------
# Note [softmax's backward is an op]: as in torch, SoftmaxBackward0 / LogSoftmaxBackward0 call one
# primitive each (``_softmax_backward_data``, ``_log_softmax_backward_data``) instead of four
# pointwise ops and a sum: one dispatch per backward, and a double backward whose graph has
# torch's nodes (``SoftmaxBackwardDataBackward0``...). Their own derivatives are written with
# dyngrad ops, so third derivatives work too.
def _backward_axis(xp, output, dim):
    axis = canonical_dim(dim, output.ndim) if output.ndim else None
    return axis


def _opmath(xp, grad_output, output):
    """The two arrays to compute with: float16 ones in float32 (torch's opmath)."""
    if grad_output.dtype not in _npb.LOW and output.dtype not in _npb.LOW:
        return grad_output, output
    return tuple(a.astype(xp.float32) if a.dtype in _npb.LOW else a
                 for a in (grad_output, output))


@defop("_softmax_backward_data", node="SoftmaxBackwardDataBackward0", promote=Promote.NONE,
       variants=(), inputs=("grad_output", "output"), saves=("grad_output", "output"),
       scalars=())
def _softmax_backward_data(xp, grad_output, output, dim):
    """d softmax: ``output * (grad - sum(grad * output))`` along ``dim``."""
    axis = _backward_axis(xp, output, dim)
    g, y = _opmath(xp, grad_output, output)
    r = y * (g - reduce_rows(xp, xp.add, g * y, axis, keepdims=True))
    return dense(xp, r.astype(output.dtype, copy=False))


@_softmax_backward_data.backward
def _(ctx, grad):
    grad_output, output = ctx.saved_tensors
    need_grad, need_output = ctx.needs_input_grad
    d = ctx.dim
    return (_softmax_backward_data(grad, output, d) if need_grad else None,
            grad_output * grad - (output * grad_output).sum(d, True) * grad
            - grad_output * (output * grad).sum(d, True) if need_output else None)


@defop("_log_softmax_backward_data", node="LogSoftmaxBackwardDataBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "output"),
       saves=("grad_output", "output"), scalars=())
def _log_softmax_backward_data(xp, grad_output, output, dim):
    """d log_softmax: ``grad - exp(output) * sum(grad)`` along ``dim``."""
    axis = _backward_axis(xp, output, dim)
    g, y = _opmath(xp, grad_output, output)
    r = g - xp.exp(y) * reduce_rows(xp, xp.add, g, axis, keepdims=True)
    return dense(xp, r.astype(output.dtype, copy=False))


@_log_softmax_backward_data.backward
def _(ctx, grad):
    grad_output, output = ctx.saved_tensors
    need_grad, need_output = ctx.needs_input_grad
    d = ctx.dim
    return (grad - (grad * output.exp()).sum(d, True) if need_grad else None,
            -grad_output.sum(d, True) * output.exp() * grad if need_output else None)


for _spec in (_softmax_backward_data, _log_softmax_backward_data):   # backward-only primitives
    if OPS.get(_spec.name) is _spec:
        del OPS[_spec.name]
    _spec.jvp(FROM_BACKWARD)   # (forward over reverse through softmax, as torch)



_NO_DIM = object()


def _public(name, spec):
    def public(input, dim=_NO_DIM, dtype=None, *, out=None):
        if dim is _NO_DIM:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        if dtype is not None:
            input = input.to(dtype)
        if out is not None:   # (an expanded out=: Note [out= and memory overlap] in _dispatch)
            out._check_writeable()
        result = spec(input, dim, False)
        return result if out is None else write_out(name, out, result)

    public.__name__ = public.__qualname__ = name
    formula = "exp(x) / sum(exp(x))" if name == "softmax" else "x - logsumexp(x)"
    public.__doc__ = f"{name} over ``dim``: {formula}, stable; ``dtype`` casts the input first."
    return public


softmax = _public("softmax", _softmax)
log_softmax = _public("log_softmax", _log_softmax)


def _implicit_dim(name: str, ndim: int) -> int:
    """F.softmax's deprecated choice of dim when none is given (torch's _get_softmax_dim)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax_functional(input, dim=None, _stacklevel=3, dtype=None):
    """nn.functional.softmax: as torch.softmax; ``dim=None`` picks a dim with torch's warning."""
    if dim is None:
        dim = _implicit_dim("softmax", input.dim())
    return softmax(input, dim, dtype)


def log_softmax_functional(input, dim=None, _stacklevel=3, dtype=None):
    """nn.functional.log_softmax: as torch.log_softmax; ``dim=None`` warns as torch."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim())
    return log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """nn.functional.softmin: softmax of ``-input``."""
    if dim is None:
        dim = _implicit_dim("softmin", input.dim())
    return softmax(-input, dim, dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """nn.functional.gumbel_softmax: ``softmax((logits + g) / tau)`` with g ~ Gumbel(0, 1)
    drawn as ``-log(Exponential(1))`` from the generator (torch's draws, so seeded samples
    are torch's). ``hard=True`` returns the one-hot of the argmax with the soft sample's
    gradient (the straight-through estimator: ``y_hard - y_soft.detach() + y_soft``)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    from .creation import empty_like, zeros_like
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _method(fn):
    def method(self, dim=_NO_DIM, dtype=None):   # (without dim: fn raises torch's message)
        return fn(self, dim, dtype)
    method.__name__ = method.__qualname__ = fn.__name__
    return method


for _name, _fn in (("softmax", softmax), ("log_softmax", log_softmax)):
    FUNCTIONS[_name] = FUNCTIONS[f"special.{_name}"] = _fn
    METHODS[_name] = _method(_fn)
FUNCTIONS["nn.functional.softmax"] = softmax_functional
FUNCTIONS["nn.functional.log_softmax"] = log_softmax_functional
FUNCTIONS["nn.functional.softmin"] = softmin
FUNCTIONS["nn.functional.gumbel_softmax"] = gumbel_softmax
