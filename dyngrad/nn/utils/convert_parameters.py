"""parameters_to_vector / vector_to_parameters (torch.nn.utils.convert_parameters)."""
from __future__ import annotations

from typing import Iterable

from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All `parameters` flattened and concatenated into one 1-d tensor (differentiable)."""
    from ... import cat
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Point each of `parameters`' ``.data`` at its slice of `vec` (shared, not copied)."""
    if not isinstance(vec, Tensor):
        from ..modules.module import _typename
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
