"""dyngrad.profiler: torch.profiler's entry points over the autograd profiler.

``profile(activities=[ProfilerActivity.CPU], record_shapes=..., ...)`` records the same events
as ``dyngrad.autograd.profiler.profile`` (see Note [Profiler events] there), and has the same
``key_averages()``, ``events()``, ``export_chrome_trace()``. ``schedule`` and
``on_trace_ready`` follow torch's basic contract: ``on_trace_ready(prof)`` is called once when
the profile ends. Differences from torch: only CPU activity exists; schedules are not cycled
(``step()`` only counts steps).
"""
from __future__ import annotations

import enum

from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import record_function  # noqa: F401

__all__ = ["ProfilerActivity", "profile", "record_function", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """The kinds of activity torch's profiler can record; dyngrad has CPU only."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities() -> set:
    return {ProfilerActivity.CPU}


class profile(_autograd_profiler.profile):
    """``torch.profiler.profile``: the autograd profiler with torch.profiler's arguments."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None,
                 **ignored) -> None:
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops)
        self.activities = set(activities) if activities else supported_activities()
        self.on_trace_ready = on_trace_ready
        self.step_num = 0

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def step(self) -> None:
        """Mark the end of one training step (counted only)."""
        self.step_num += 1
