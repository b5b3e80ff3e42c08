"""Distances as torch composes them: ``cosine_similarity``, ``pairwise_distance`` and
``triplet_margin_loss`` (published in ``torch`` and ``nn.functional``).
"""
from __future__ import annotations

from ._registry import FUNCTIONS
from ._arg_parser import check_tensors
from .loss import add_scalar, apply_reduction, clamp_min, reduction_code


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim``, inputs broadcast.

    Note [cosine_similarity's clamp]: torch clamps the norms in place under no_grad, so the
    clamp is invisible to autograd (the norm's gradient passes as if unclamped). Here the clamp
    is added as a constant offset, ``n + (clamp(n) - n).detach()``: same values, same gradient.
    """
    from .. import broadcast_tensors, linalg, promote_types
    common = promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{common._legacy}")
    x1, x2 = x1.to(common), x2.to(common)
    if x1.shape != x2.shape:
        x1, x2 = broadcast_tensors(x1, x2)
    n1 = linalg.vector_norm(x1, 2, dim, True)
    n2 = linalg.vector_norm(x2, 2, dim, True)
    n1 = n1 + (n1.detach().clamp(min=eps) - n1.detach())
    n2 = n2 + (n2.detach().clamp(min=eps) - n2.detach())
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of ``x1 - x2 + eps`` over the last dim."""
    from .norms import norm_p_dim   # at::norm: NormBackward1, as torch records
    dim = max(x1.dim(), x2.dim())
    diff = add_scalar(x1 - x2, eps)
    return norm_p_dim(diff, float(p), (dim - 1,) if dim else (), keepdim)


def _triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                         reduction=1):
    from .. import minimum
    a, pos, neg = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pos == neg):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pos}D, "
                           f"and negative {neg}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return apply_reduction(clamp_min(add_scalar(d_pos, margin) - d_neg, 0), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with pairwise distances, reduced."""
    code = reduction_code(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    check_tensors("triplet_margin_loss", ("anchor", anchor), ("positive", positive),
                  ("negative", negative))
    return _triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, code)


FUNCTIONS["cosine_similarity"] = FUNCTIONS["nn.functional.cosine_similarity"] = cosine_similarity
FUNCTIONS["pairwise_distance"] = FUNCTIONS["nn.functional.pairwise_distance"] = pairwise_distance
FUNCTIONS["triplet_margin_loss"] = _triplet_margin_loss
FUNCTIONS["nn.functional.triplet_margin_loss"] = triplet_margin_loss
