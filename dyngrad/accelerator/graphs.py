"""torch.accelerator.graphs: capture and replay of accelerator work (raises: no accelerator)."""
from __future__ import annotations

from ._utils import no_accelerator as _no_accelerator


class Graph:
    """An accelerator graph (torch.accelerator.Graph). Making one needs an accelerator; dyngrad
    has none, so the constructor raises torch's error."""

    def __new__(cls, keep_graph: bool = False, *, pool=None, capture_error_mode="default"):
        raise _no_accelerator()
