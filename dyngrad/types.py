"""torch.types: the type aliases torch's annotations use (``Number``, ``Device``, ``_dtype``,
``_size``...), for code that annotates with them. dyngrad has no symbolic shapes: the
``*LikeType`` aliases are the plain Python types and ``py_sym_types`` is empty."""
from __future__ import annotations

import os
from builtins import (  # noqa: F401
    bool as _bool,
    bytes as _bytes,
    complex as _complex,
    float as _float,
    int as _int,
    str as _str,
)
from collections.abc import Sequence
from typing import IO, Any, TypeAlias, Union

from ._device import device as _device
from ._dtypes import dtype as _dtype
from ._tensor import Tensor, layout as _layout
from ._utils import Size

__all__ = ["Number", "Device", "FileLike", "Storage"]

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_TensorOrTensorsOrGradEdge: TypeAlias = Union[Tensor, Sequence[Tensor], "GradientEdge",
                                              Sequence["GradientEdge"]]

_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int]

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
py_sym_types: tuple = ()

Number: TypeAlias = int | float | bool
_Number = (int, float, bool)

FileLike: TypeAlias = Union[str, os.PathLike[str], IO[bytes]]

Device: TypeAlias = _device | str | int | None


class Storage:
    """The methods every storage class has (an interface for annotations, as torch's)."""

    device: _device
    dtype: _dtype

    def __deepcopy__(self, memo: dict[int, Any]):
        raise NotImplementedError

    def element_size(self) -> int:
        raise NotImplementedError

    def is_shared(self) -> bool:
        raise NotImplementedError

    def share_memory_(self):
        raise NotImplementedError

    def nbytes(self) -> int:
        raise NotImplementedError

    def cpu(self):
        raise NotImplementedError

    def data_ptr(self) -> int:
        raise NotImplementedError

    def from_file(self, filename: str, shared: bool = False, nbytes: int = 0):
        raise NotImplementedError
