"""torch.profiler.itt: ranges and marks for Intel VTune's ITT API.

dyngrad has no ITT collector to send them to: ``is_available()`` is False, and the other
functions do nothing and return None (as torch's do when no VTune is attached), so that code
written for torch's ITT builds runs unchanged.
"""
from contextlib import contextmanager

__all__ = ["is_available", "range_push", "range_pop", "mark", "range"]


def is_available() -> bool:
    """Whether ITT is available: never, in dyngrad."""
    return False


def range_push(msg) -> None:
    """Open a nested ITT range named `msg` (a no-op)."""


def range_pop() -> None:
    """Close the innermost ITT range (a no-op)."""


def mark(msg) -> None:
    """Mark an instant named `msg` (a no-op)."""


@contextmanager
def range(msg, *args, **kwargs):
    """``range_push(msg.format(*args, **kwargs))`` for the block, then ``range_pop()``."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
