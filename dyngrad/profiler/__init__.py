"""dyngrad.profiler: torch.profiler over the autograd profiler.

``profile(schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=...)`` with
``prof.step()`` at the end of each training step records the steps the schedule says, cycle
by cycle, and hands each cycle to ``on_trace_ready`` (Note [Profiler schedule cycles] in
_schedule.py); without a schedule it records everything, as ``dyngrad.autograd.profiler``
does. The events, ``key_averages()`` tables and Chrome traces are the autograd profiler's (Note
[Profiler events] in dyngrad/autograd/profiler.py). ``tensorboard_trace_handler(dir)`` writes
each cycle's trace for TensorBoard. Only CPU activity exists; ``ExecutionTraceObserver``,
``kineto_available`` and ``DeviceType`` are not provided.
"""
from ..autograd.profiler import record_function
from . import itt
from ._schedule import ProfilerAction, schedule
from .profiler import (ProfilerActivity, profile, supported_activities,
                       tensorboard_trace_handler)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "record_function"]
