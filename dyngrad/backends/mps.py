"""``torch.backends.mps``: Apple's Metal backend, which dyngrad does not have (device
selection code such as ``"mps" if torch.backends.mps.is_available() else "cpu"`` picks cpu)."""
from __future__ import annotations


def is_built() -> bool:
    """Whether dyngrad is built with MPS support: it is not."""
    return False


def is_available() -> bool:
    """Whether MPS can be used: never in dyngrad."""
    return False


def is_macos_or_newer(major: int, minor: int) -> bool:
    """Whether MPS runs on macOS `major`.`minor` or newer: a question torch refuses without
    its MPS backend, as here."""
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def is_macos13_or_newer(minor: int = 0) -> bool:
    return is_macos_or_newer(13, minor)
