"""Top-level constants: ``dyngrad.e``, ``pi``, ``inf``, ``nan`` are math's floats (the same
objects torch re-exports from ``math``) and ``newaxis`` is ``None``, as in torch."""
from __future__ import annotations

from math import e, inf, nan, pi  # noqa: F401

newaxis: None = None

__all__ = ["e", "inf", "nan", "newaxis", "pi"]
