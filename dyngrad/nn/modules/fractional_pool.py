"""Fractional max pooling modules (torch.nn.FractionalMaxPool2d / FractionalMaxPool3d).

Each forward draws fresh window strides (``torch.rand`` per batch and channel) unless the
module was built with ``_random_samples``, which it keeps as a buffer (so it lands in the
state_dict only when given, as torch's ``register_buffer(name, None)`` does)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _pair, _triple

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        super().__init__()
        expand = self._expand
        self.kernel_size = expand(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = expand(output_size) if output_size is not None else None
        self.output_ratio = expand(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, "
                             f"or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < r < 1 for r in self.output_ratio[:self._dims]):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return self._functional(input, self.kernel_size, self.output_size, self.output_ratio,
                                self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    r"""2-d fractional max pooling of (N, C, H, W) or (C, H, W) (Graham, 2014): kH x kW windows
    at random fractional strides that give ``output_size`` or ``output_ratio`` x the input.

    Args:
        kernel_size: window size (int or (kH, kW)).
        output_size: target (oH, oW) (an int for both). output_ratio: the output as a fraction
            of the input, in (0, 1). Exactly one of the two.
        return_indices (bool): also return the flat indices (for :class:`MaxUnpool2d`).
    """

    _dims = 2
    _expand = staticmethod(_pair)
    _functional = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    r"""3-d fractional max pooling of (N, C, T, H, W) or (C, T, H, W); see
    :class:`FractionalMaxPool2d`. ``kernel_size`` must be greater than 0."""

    _dims = 3
    _expand = staticmethod(_triple)
    _functional = staticmethod(F.fractional_max_pool3d)

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)
