"""Flatten and Unflatten (torch.nn.modules.flatten)."""
from __future__ import annotations

from ..._tensor import Tensor
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    r"""Flatten dims `start_dim` .. `end_dim` into one (by default all but the batch dim).

    Args:
        start_dim (int): Default: 1. end_dim (int): Default: -1
    """

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    r"""Expand dim `dim` into the shape `unflattened_size` (a tuple or list of ints).

    Args:
        dim (int): the dim to expand.
        unflattened_size (tuple of int): its new shape.
    """

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError("unflattened_size must be tuple of ints, but found element "
                                    f"of type {type(elem).__name__} at pos {idx}")
            return
        raise TypeError("unflattened_size must be a tuple of ints, but found type "
                        f"{type(input).__name__}")

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
