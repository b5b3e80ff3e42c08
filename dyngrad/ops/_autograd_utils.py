"""Helpers that backward formulas share, written with dyngrad ops so they are differentiable.

Note [Complex gradients]
~~~~~~~~~~~~~~~~~~~~~~~~
dyngrad follows torch's convention for complex autograd (Wirtinger calculus): the gradient a
complex tensor ``z = x + iy`` receives from a real loss ``L`` is the conjugate Wirtinger
derivative ``dL/dx + i dL/dy``, and a backward formula maps the gradient of an output to that of
an input by the *conjugate* of the chain rule's factor. For a holomorphic ``f`` this is
``grad * f'(z).conj()`` (exp: ``grad * result.conj()``; mul: ``grad * other.conj()``; mm:
``grad @ mat2.mH``); for a non-holomorphic one (abs, sgn, angle, real, imag) the formula is
written out (``abs``: ``grad * self.sgn()``). ``conj`` below returns a real tensor itself, so
these formulas build the same graph as before for real dtypes.

Where a real input meets a complex one (``real_tensor * complex_tensor``, ``x + 1j``), its
gradient is the real part of the formula's complex value: torch's ``handle_r_to_c``, which
torch applies inside the formulas of add, sub, rsub, mul, div, addcmul, addcdiv and pow (and a
few others). Ops without it (``where``, ``masked_fill``, ``logaddexp``) leave the complex
gradient for the engine, which raises torch's "Expected isFloatingType(grad.scalar_type())…"
error, as torch does.
"""
from __future__ import annotations

from .._utils import shape_str
from ._registry import METHODS


def conj(value):
    """``value.conj()`` for a complex tensor or number; a real one is returned itself.

    See Note [Complex gradients]: formulas call this on every backward, so for real tensors it
    costs one dtype check and no op."""
    try:
        if value._data.dtype.kind != "c":
            return value
    except AttributeError:   # a Python number (a saved scalar argument)
        return value.conjugate() if type(value) is complex else value
    return value.conj()


def handle_r_to_c(ctx, i, grad):
    """torch's handle_r_to_c: the real part of a complex gradient for the node's real input `i`
    (its i-th edge). See Note [Complex gradients]."""
    if grad is None or grad._data.dtype.kind != "c":
        return grad
    meta = ctx._meta[i]
    if meta is not None and meta[1].kind != "c":
        return grad.real
    return grad


def expandable(size, shape) -> bool:
    """Whether `size` broadcasts to `shape` (so a gradient of `shape` sums down to `size`)."""
    lead = len(shape) - len(size)
    return lead >= 0 and all(s == 1 or s == g for s, g in zip(size, shape[lead:]))


def sum_to_size(grad, *size):
    """Sum `grad` down to `size` (torch's Tensor.sum_to_size / at::sum_to).

    Leading dims are summed away; dims where `size` has 1 are summed with keepdim.
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(size)
    gshape = tuple(grad.shape)
    if gshape == size:
        return grad
    if not expandable(size, gshape):
        raise RuntimeError(f"size {shape_str(size)} is not expandable to size "
                           f"{shape_str(gshape)}.")
    lead = len(gshape) - len(size)
    dims = list(range(lead)) + [lead + d for d, s in enumerate(size)
                                if s == 1 and gshape[lead + d] != 1]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(size)
    return grad


METHODS["sum_to_size"] = sum_to_size
