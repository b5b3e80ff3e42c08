"""dyngrad.nn: neural-network building blocks (``functional`` for now)."""
from . import functional  # noqa: F401
