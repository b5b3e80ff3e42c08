"""The argument checks torch.accelerator's functions make before reaching a device."""
from __future__ import annotations

from .. import _device as _dev


def no_accelerator() -> RuntimeError:
    return RuntimeError(_dev._NO_ACCELERATOR)


def device_index(device, optional: bool = False) -> int:
    """The device index `device` names, as torch's ``_get_device_index``: an int as it is; a
    device or device string must be the accelerator's (there is none: "Accelerator expected");
    None only where `optional`, meaning the current device (there is none either)."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _dev.device(device)
    if isinstance(device, _dev.device):
        raise RuntimeError("Accelerator expected")   # (current_accelerator() is None)
    if not optional:
        raise ValueError("Expected a torch.device with a specified index or an integer, but "
                         f"got:{device}")
    raise no_accelerator()   # (current_device_index())
