"""torch.profiler's schedules: which steps a ``profile`` records, and what it does between them.

Note [Profiler schedule cycles]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A schedule maps each step number (0, 1, 2, ... as ``prof.step()`` counts them) to an action:

* ``NONE``: nothing is recorded;
* ``WARMUP``: a fresh recorder is made ready but records nothing (torch warms its tracer up
  here, so that the recorded steps do not pay for it: the warmup steps' events are never kept);
* ``RECORD``: the step's events are recorded;
* ``RECORD_AND_SAVE``: the last recorded step of a cycle. When the step after it begins, the
  cycle's recording stops and ``on_trace_ready(prof)`` is called: ``prof.key_averages()``,
  ``prof.events()`` and ``prof.export_chrome_trace()`` then show that cycle only (with
  ``acc_events=True``, every cycle so far, newest first).

``schedule(wait=1, warmup=1, active=2, repeat=1)`` gives NONE, WARMUP, RECORD,
RECORD_AND_SAVE, then NONE for ever. What the profile does at each step boundary depends only on
the action before and after it, torch's ``action_map`` (``_TRANSITIONS`` below): going from
NONE or RECORD_AND_SAVE into WARMUP or RECORD *prepares* a new recorder (forgetting the last
cycle's events, with the one-time warning "Profiler clears events..."), entering RECORD
*starts* it, and leaving RECORD_AND_SAVE *stops* it and calls ``on_trace_ready``.
``prof.step_num`` is already the new step's number when ``on_trace_ready`` runs.

Entering the profile is the boundary from NONE to the action of step 0; leaving it is the
boundary from the current action to "the end" (``None``): a profile that ends in RECORD or
RECORD_AND_SAVE saves its partial cycle; one that ends in WARMUP starts and stops its recorder
at once (so it holds no events, and ``on_trace_ready`` is not called); one that ends in NONE
still shows the last saved cycle.

With a schedule, each step is also a ``record_function("ProfilerStep#N")`` range, opened after
the boundary's actions and closed before the next ones, so only recorded steps appear; the
events are named ``ProfilerStep*`` (``key_averages`` gathers them in one row) and the Chrome
trace keeps ``ProfilerStep#N``. Without a schedule every step is RECORD: everything between
``start()`` and ``stop()`` is one cycle, saved at ``stop()``, with no step ranges.

Odd custom schedules warn as torch does ("Incorrect schedule: RECORD followed by NONE"). From
RECORD to WARMUP torch stops the recorder and later restarts the same one, which crashes torch
2.13; dyngrad restarts it, recording afresh.
"""
from __future__ import annotations

from enum import Enum
from typing import Callable
from warnings import warn

__all__ = ["ProfilerAction", "schedule"]


class ProfilerAction(Enum):
    """What the profiler does during one step (see Note [Profiler schedule cycles]).

    ``DEVICE_STOPPED`` is torch's internal state for a device tracer that stopped early; a
    schedule may not return it, and dyngrad, which traces no device, never enters it.
    """

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable:
    """A profiler schedule: skip ``skip_first`` steps, then cycle ``wait`` steps of NONE,
    ``warmup`` steps of WARMUP and ``active`` recorded steps (the last RECORD_AND_SAVE),
    ``repeat`` times (0: until profiling ends). ``skip_first_wait`` nonzero skips the first
    cycle's wait.

    Example::

        >>> s = dyngrad.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
        >>> [s(i).name for i in range(5)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:     # start the first cycle at its warmup
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        in_cycle = step % cycle
        if in_cycle < wait:
            return ProfilerAction.NONE
        if in_cycle < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if in_cycle < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    """No schedule: record every step."""
    return ProfilerAction.RECORD


def _incorrect(before: str, after: str):
    def warn_incorrect(prof) -> None:
        warn(f"Incorrect schedule: {before} followed by {after}")
    return warn_incorrect


_NONE, _WARMUP = ProfilerAction.NONE, ProfilerAction.WARMUP
_RECORD, _SAVE = ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
_prepare = "prepare_trace"
_start = "start_trace"
_stop = "stop_trace"
_ready = "_trace_ready"

# (action before, action after) -> what the profile does at that step boundary, in order: the
# name of one of its methods, or a function of the profile (a warning). ``None`` after: the end.
_TRANSITIONS = {
    (_NONE, _NONE): (),
    (_NONE, _WARMUP): (_prepare,),
    (_NONE, _RECORD): (_prepare, _start),
    (_NONE, _SAVE): (_prepare, _start),
    (_WARMUP, _NONE): (_incorrect("WARMUP", "NONE"), _start, _stop),
    (_WARMUP, _WARMUP): (),
    (_WARMUP, _RECORD): (_start,),
    (_WARMUP, _SAVE): (_start,),
    (_RECORD, _NONE): (_incorrect("RECORD", "NONE"), _stop),
    (_RECORD, _WARMUP): (_incorrect("RECORD", "WARMUP"), _stop),
    (_RECORD, _RECORD): (),
    (_RECORD, _SAVE): (),
    (_SAVE, _NONE): (_stop, _ready),
    (_SAVE, _WARMUP): (_stop, _ready, _prepare),
    (_SAVE, _RECORD): (_stop, _ready, _prepare, _start),
    (_SAVE, _SAVE): (_stop, _ready, _prepare, _start),
    (_WARMUP, None): (_start, _stop),
    (_RECORD, None): (_stop, _ready),
    (_SAVE, None): (_stop, _ready),
}


def transit(prof, before, after) -> None:
    """Do what ``prof`` does between a step of action `before` and one of `after`."""
    for action in _TRANSITIONS.get((before, after), ()):
        if isinstance(action, str):
            getattr(prof, action)()
        else:
            action(prof)
