"""ChannelShuffle (torch.nn.modules.channelshuffle)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    r"""(N, C, *) with its C channels split into `groups` groups and interleaved: viewed as
    (N, groups, C / groups, *), the two channel dims swapped, viewed back."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
