"""``dyngrad.utils.dlpack`` (``torch.utils.dlpack``): DLPack capsules in and out."""
from ..ops.interop_buffers import DLDeviceType, from_dlpack, to_dlpack  # noqa: F401

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
