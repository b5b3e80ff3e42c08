"""Device objects, as ``torch.device``."""
from __future__ import annotations


class device:
    """Where a tensor's storage lives: ``device('cpu')``, ``device('cuda', 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int):
            type, index = "cuda", type
        if ":" in type:
            type, _, idx = type.partition(":")
            if index is not None or not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "meta"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type "
                f"at start of device string: {type}")
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")
