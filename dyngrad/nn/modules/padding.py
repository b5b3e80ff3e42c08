"""Padding modules (torch.nn.modules.padding): constant, zero, reflection, replication and
circular padding in 1, 2 and 3 dims, all over ``F.pad``. `padding` is an int (every side) or
a tuple in F.pad's order (last dim first: left, right, top, bottom, front, back)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d",
           "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    """`padding` normalised to 2 * dims ints; the repr shows it alone."""

    __constants__ = ["padding"]
    _dims = 0
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(2 * self._dims)(padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        n = self._dims + 1
        if input.dim() != n and input.dim() != n + 1:
            raise ValueError(f"expected {n}D or {n + 1}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    r"""Wrap-around padding of the last dim."""
    _dims = 1


class CircularPad2d(_CircularPadNd):
    r"""Wrap-around padding of the last 2 dims."""
    _dims = 2


class CircularPad3d(_CircularPadNd):
    r"""Wrap-around padding of the last 3 dims."""
    _dims = 3


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    r"""Pad the last dim with `value`."""
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    r"""Pad the last 2 dims with `value`."""
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    r"""Pad the last 3 dims with `value`."""
    _dims = 3


class ZeroPad1d(ConstantPad1d):
    r"""Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    r"""Pad the last 2 dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    r"""Pad the last 3 dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    r"""Mirror padding of the last dim (the edge is not repeated)."""
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    r"""Mirror padding of the last 2 dims."""
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    r"""Mirror padding of the last 3 dims."""
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    r"""Edge-repeating padding of the last dim."""
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    r"""Edge-repeating padding of the last 2 dims."""
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    r"""Edge-repeating padding of the last 3 dims."""
    _dims, _mode = 3, "replicate"
