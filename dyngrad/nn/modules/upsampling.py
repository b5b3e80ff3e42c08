"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d (torch.nn.modules.upsampling)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    r"""Resize to `size` or by `scale_factor` with ``F.interpolate``.

    Args:
        size (int or tuple, optional): the output spatial size.
        scale_factor (float or tuple, optional): the multiplier (stored as floats).
        mode (str): 'nearest', 'linear', 'bilinear', 'bicubic', 'trilinear' ... (those
            ``F.interpolate`` supports). Default: 'nearest'
        align_corners (bool, optional), recompute_scale_factor (bool, optional): as
            ``F.interpolate``.
    """

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name",
                     "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def __setstate__(self, state: dict) -> None:
        if "recompute_scale_factor" not in state:
            state["recompute_scale_factor"] = True
        super().__setstate__(state)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    r"""Nearest-neighbour 2-d upsampling (torch keeps it for compatibility; prefer
    ``Upsample``)."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    r"""Bilinear 2-d upsampling with ``align_corners=True`` (prefer ``Upsample``)."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
