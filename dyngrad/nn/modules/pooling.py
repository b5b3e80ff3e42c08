"""Pooling modules (torch.nn.modules.pooling): MaxPool1d/2d/3d, AvgPool1d/2d/3d, adaptive
average and max pooling in 1, 2 and 3 dims, max unpooling and power-average (LP) pooling. The
fractional variants live in fractional_pool.py."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "MaxPool3d", "AvgPool3d",
           "AdaptiveMaxPool3d", "AdaptiveAvgPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "LPPool1d", "LPPool2d", "LPPool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input: Tensor):
        return self._functional(input, self.kernel_size, self.stride, self.padding,
                                self.dilation, ceil_mode=self.ceil_mode,
                                return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    r"""Max over sliding windows of (N, C, L) or (C, L).

    Args:
        kernel_size: window size. stride: step (default: `kernel_size`). padding: implicit
            -inf padding on both sides. dilation: spacing inside the window.
        return_indices (bool): also return the argmax indices. ceil_mode (bool): round the
            output size up.
    """

    _functional = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    r"""Max over sliding windows of (N, C, H, W) or (C, H, W); see :class:`MaxPool1d`."""

    _functional = staticmethod(F.max_pool2d)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    r"""Average over sliding windows of (N, C, L) or (C, L).

    Args:
        kernel_size, stride (default: `kernel_size`), padding: ints or 1-tuples.
        ceil_mode (bool): round the output size up. count_include_pad (bool): count the zero
            padding in the divisor. Default: ``True``
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    r"""Average over sliding windows of (N, C, H, W) or (C, H, W); see :class:`AvgPool1d`.
    ``divisor_override`` replaces the window size as the divisor."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    r"""Max pooling to a fixed output length (windows chosen to fit)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    r"""Max pooling to a fixed (H, W) (None keeps that input size)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    r"""Average pooling to a fixed output length."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    r"""Average pooling to a fixed (H, W) (None keeps that input size)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


# -- 3-d pooling (dyngrad/ops/pooling3d.py) -----------------------------------------------------
class MaxPool3d(_MaxPoolNd):
    r"""Max over sliding windows of (N, C, D, H, W) or (C, D, H, W); see :class:`MaxPool1d`.
    Keeps a channels_last_3d layout."""

    _functional = staticmethod(F.max_pool3d)


class AvgPool3d(_AvgPoolNd):
    r"""Average over sliding windows of (N, C, D, H, W) or (C, D, H, W); see
    :class:`AvgPool2d`."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    r"""Max pooling to a fixed (D, H, W) (None keeps that input size)."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    r"""Average pooling to a fixed (D, H, W) (None keeps that input size)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


# -- max unpooling (dyngrad/ops/unpool.py) ------------------------------------------------------
class _MaxUnpoolNd(Module):
    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = self._expand(kernel_size)
        self.stride = self._expand(stride if stride is not None else kernel_size)
        self.padding = self._expand(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return self._functional(input, indices, self.kernel_size, self.stride, self.padding,
                                output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    r"""Partial inverse of :class:`MaxPool1d`: each value written at its pooling index, zeros
    elsewhere. ``output_size`` in ``forward`` picks among the sizes the pool could have come
    from."""

    _expand = staticmethod(_single)
    _functional = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    r"""Partial inverse of :class:`MaxPool2d`; see :class:`MaxUnpool1d`."""

    _expand = staticmethod(_pair)
    _functional = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    r"""Partial inverse of :class:`MaxPool3d`; see :class:`MaxUnpool1d`."""

    _expand = staticmethod(_triple)
    _functional = staticmethod(F.max_unpool3d)


# -- power-average pooling (dyngrad/ops/lp_pool.py) ---------------------------------------------
class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input: Tensor) -> Tensor:
        return self._functional(input, float(self.norm_type), self.kernel_size, self.stride,
                                self.ceil_mode)


class LPPool1d(_LPPoolNd):
    r"""Power-average pooling over (N, C, L) or (C, L): (sum of x ** p over a window) ** (1/p)
    (p = inf is max pooling of |x|)."""

    _functional = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    r"""Power-average pooling over (N, C, H, W) or (C, H, W); see :class:`LPPool1d`."""

    _functional = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    r"""Power-average pooling over (N, C, D, H, W) or (C, D, H, W); see :class:`LPPool1d`."""

    _functional = staticmethod(F.lp_pool3d)
