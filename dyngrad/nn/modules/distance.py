"""PairwiseDistance and CosineSimilarity (torch.nn.modules.distance)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    r"""The p-norm of ``x1 - x2 + eps`` along the last dim.

    Args:
        p (float): the norm degree. Default: 2. eps (float): Default: 1e-6.
        keepdim (bool): keep the reduced dim. Default: ``False``
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    r"""Cosine of the angle between `x1` and `x2` along `dim`.

    Args:
        dim (int): Default: 1. eps (float): lower bound of the norms. Default: 1e-8
    """

    __constants__ = ["dim", "eps"]

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
