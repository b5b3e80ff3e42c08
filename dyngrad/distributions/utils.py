"""Helpers shared by the distributions (torch.distributions.utils): argument broadcasting,
probs <-> logits, the lazily computed parameter descriptor."""
from __future__ import annotations

from functools import update_wrapper
from numbers import Number

import dyngrad as torch
from dyngrad.nn import functional as F

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060   # Euler-Mascheroni constant


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers become tensors of the first tensor's
    dtype (or the default dtype)."""
    if not all(isinstance(v, (torch.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, torch.Tensor) for v in values):
        kw = {"dtype": torch.get_default_dtype()}
        for v in values:
            if isinstance(v, torch.Tensor):
                kw = {"dtype": v.dtype, "device": v.device}
                break
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, **kw) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """N(0, 1) draws of `shape` (torch's normal_ fill, so the same stream as torch)."""
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim: int):
    """Sum out the `dim` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    """sigmoid for binary logits, else softmax over the last dimension."""
    if is_binary:
        return torch.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp into [eps, 1 - eps] of the dtype (keeps log and log1p finite)."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    """log(p) (categorical) or log(p) - log1p(-p) (binary), on clamped probabilities."""
    p = clamp_probs(probs)
    if is_binary:
        return torch.log(p) - torch.log1p(-p)
    return torch.log(p)


class lazy_property:
    """A property computed once per instance (under enable_grad) and then stored as an
    attribute; on the class it is a property, so constraint lookups can see it."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag: int = 0):
    """The lower triangle (below diagonal `diag`) of the last two dims, row by row."""
    n = mat.shape[-1]
    arange = torch.arange(n, device=mat.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec, diag: int = 0):
    """Inverse of tril_matrix_to_vec."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1))
         ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n.item()) if isinstance(n, torch.Tensor) else round(n)
    mat = vec.new_zeros(vec.shape[:-1] + torch.Size((n, n)))
    arange = torch.arange(n, device=vec.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat
