"""``torch.profiler.profile``: the autograd profiler driven by a schedule, step by step.

A ``profile`` holds one ``dyngrad.autograd.profiler.profile`` per cycle (``prof.profiler``),
which records the events (see Note [Profiler events] in dyngrad/autograd/profiler.py); the
schedule decides when it is made, started and stopped (Note [Profiler schedule cycles] in
_schedule.py). ``tensorboard_trace_handler(dir)`` is an ``on_trace_ready`` that writes each
cycle's Chrome trace where TensorBoard's profiler plugin looks for it.

Differences from torch: only CPU activity exists (asking for a device warns and records
nothing more, as torch does on a machine without the device); ``export_memory_timeline``,
``toggle_collection_dynamic`` and execution traces are not provided, though an
``execution_trace_observer`` of one's own is started and stopped with each cycle.
"""
from __future__ import annotations

import enum
import gzip
import json
import os
import socket
import uuid
from typing import Callable
from warnings import warn

from ..autograd import profiler as _autograd_profiler
from ._schedule import ProfilerAction, _default_schedule_fn, schedule, transit

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler"]

PROFILER_STEP_NAME = "ProfilerStep"

_WARNINGS_SHOWN: set = set()


def _warn_once(msg: str, category=UserWarning, stacklevel: int = 2) -> None:
    """Warn once per process (torch.profiler's own once-only, whatever the warnings filters)."""
    if msg not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(msg)
        warn(msg, category=category, stacklevel=stacklevel)


class ProfilerActivity(enum.Enum):
    """The kinds of activity torch's profiler can record; dyngrad records CPU only."""

    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


def supported_activities() -> set:
    """The activities this build can trace: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


def _parse_activities(activities) -> tuple:
    """torch's ``_parse_activities``: the activities asked for, and any per-activity filters."""
    parsed, filters = set(), {}
    for item in activities:
        if isinstance(item, ProfilerActivity):
            if item in parsed:
                raise ValueError(f"Activity {item} specified more than once")
            parsed.add(item)
        elif isinstance(item, dict):
            for key, val in item.items():
                if key in parsed:
                    raise ValueError(f"Activity {key} specified more than once")
                parsed.add(key)
                filters[key] = set(val)
        else:
            raise TypeError(f"Expected ProfilerActivity or dict, got {type(item)}")
    return parsed, filters


_DEVICE_OF_ACTIVITY = ((ProfilerActivity.CUDA, "cuda"), (ProfilerActivity.XPU, "xpu"),
                       (ProfilerActivity.MTIA, "mtia"), (ProfilerActivity.HPU, "hpu"),
                       (ProfilerActivity.PrivateUse1, "privateuseone"))


def _check_devices(use_device, use_cpu: bool) -> None:
    """What torch's autograd profiler says of a device on a machine without it (each cycle)."""
    if use_device == "privateuseone":
        warn(f"The {use_device} is not a valid device option.", stacklevel=3)
    elif use_device in ("cuda", "xpu", "hpu"):
        name = use_device.upper()
        warn(f"{name} is not available, disabling {name} profiling", stacklevel=3)
    elif use_device == "mtia":
        raise AssertionError("Legacy MTIA profiling is not supported. Requires use_kineto=True "
                             "on MTIA devices.")
    if not use_cpu:
        raise AssertionError("No activities specified for the profiler")


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An ``on_trace_ready`` that writes each cycle's Chrome trace into `dir_name` (made if
    missing) as ``{worker_name}.{time.time_ns()}.pt.trace.json`` (``.gz`` with `use_gzip`),
    ready for ``tensorboard --logdir dir_name``. The worker name defaults to
    ``{hostname}_{pid}``.
    """
    import time

    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name),
                                 use_python_export=use_python_export)

    return handler_fn


class profile:
    """Profile the steps of a program as a schedule says (``torch.profiler.profile``).

    Args:
        activities: the activities to record (``ProfilerActivity`` members, or dicts of them
            to activity filters); dyngrad records CPU activity.
        schedule: ``step -> ProfilerAction`` (see ``schedule()``); None records every step.
        on_trace_ready: ``fn(prof)``, called when a cycle's recording ends.
        record_shapes, profile_memory, with_stack, with_flops: as the autograd profiler's.
        acc_events: keep the events of every cycle, not just the last one.
        execution_trace_observer: an object whose ``start()``/``stop()`` run with each
            recording and ``cleanup()`` at the end.
        custom_trace_id_callback: ``() -> str``, the trace id of each cycle (default: a UUID).
        with_modules, experimental_config, post_processing_timeout_s: accepted, unused.
        use_cuda: deprecated (a FutureWarning), as in torch.

    Example::

        >>> with dyngrad.profiler.profile(
        ...         schedule=dyngrad.profiler.schedule(wait=1, warmup=1, active=2),
        ...         on_trace_ready=lambda p: print(p.key_averages().table())) as prof:
        ...     for batch in loader:
        ...         train_step(batch)
        ...         prof.step()
    """

    def __init__(self, *, activities=None, schedule: Callable | None = None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False, experimental_config=None,
                 execution_trace_observer=None, acc_events: bool = False, use_cuda=None,
                 custom_trace_id_callback: Callable | None = None,
                 post_processing_timeout_s: float | None = None) -> None:
        asked = supported_activities()
        if activities is not None:
            asked = {a for a in activities if isinstance(a, ProfilerActivity)}
            asked.update(k for a in activities if isinstance(a, dict) for k in a)
        if use_cuda is not None:
            warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning,
                 stacklevel=2)
            if use_cuda:
                asked.add(ProfilerActivity.CUDA)
            else:
                asked.discard(ProfilerActivity.CUDA)
        if len(asked) == 0:
            raise AssertionError("No valid profiler activities found")
        if activities is not None:
            self.activities, self.activity_filters = _parse_activities(activities)
        else:
            self.activities, self.activity_filters = supported_activities(), {}
        self.use_device = next((dev for act, dev in _DEVICE_OF_ACTIVITY
                                if act in self.activities), None)
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.profiler = None              # this cycle's dyngrad.autograd.profiler.profile
        self.preset_metadata: dict = {}
        self._trace_metadata: dict = {}   # what add_metadata* gave during this cycle
        self._trace_id = None
        self._last_cycle = None           # the events of the last recording (for traces)
        self._earlier = None              # acc_events: the events of the cycles before it

        self.schedule = schedule if schedule else _default_schedule_fn
        self.record_steps = bool(schedule)     # ProfilerStep#N ranges around the steps
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self._action(self.step_num)

    def _action(self, step: int) -> ProfilerAction:
        action = self.schedule(step)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                             "and must not be returned by a user-provided schedule")
        return action

    # -------------------------------------------------------------------- steps and cycles
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.stop()
        if self.execution_trace_observer:
            self.execution_trace_observer.cleanup()

    def start(self) -> None:
        """Begin profiling at step ``step_num``."""
        transit(self, ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self) -> None:
        """End profiling: a cycle being recorded is saved (``on_trace_ready`` runs)."""
        self._close_step()
        transit(self, self.current_action, None)

    def step(self) -> None:
        """Signal that the next step begins (see Note [Profiler schedule cycles])."""
        self._close_step()
        before = self.current_action
        action = self._action(self.step_num + 1)
        self.step_num += 1
        self.current_action = action
        transit(self, before, action)
        self._open_step()

    def _open_step(self) -> None:
        if self.record_steps:
            self.step_rec_fn = _autograd_profiler.record_function(
                f"{PROFILER_STEP_NAME}#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _close_step(self) -> None:
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    # -------------------------------------------------------------------- the recorder
    def prepare_trace(self) -> None:
        """Make the recorder of a new cycle (it records nothing until ``start_trace``)."""
        if self.profiler is not None and not self.acc_events:
            _warn_once("Warning: Profiler clears events at the end of each cycle. Only events "
                       "from the current cycle will be reported. To keep events across cycles, "
                       "set acc_events=True.")
        if self.profiler is None or not self.acc_events:
            _check_devices(self.use_device, ProfilerActivity.CPU in self.activities)
            timeout = self.post_processing_timeout_s
            if timeout is not None and timeout < 0:
                raise ValueError("post_processing_timeout_s must be non-negative")
            self.profiler = _autograd_profiler.profile(
                record_shapes=self.record_shapes, with_flops=self.with_flops,
                profile_memory=self.profile_memory, with_stack=self.with_stack,
                acc_events=self.acc_events)
            self._last_cycle = None
            self._earlier = None
        self.profiler.entered = True
        self._trace_metadata = {}
        callback = self.custom_trace_id_callback
        self._trace_id = callback() if callback is not None else uuid.uuid4().hex.upper()

    def start_trace(self) -> None:
        """Start recording."""
        if self.execution_trace_observer:
            self.execution_trace_observer.start()
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        if _autograd_profiler._state.active:
            raise RuntimeError("Profiler is already enabled on this thread")
        if self.acc_events and self.profiler._function_events is not None:
            self._earlier = self.profiler._function_events
        self.profiler._start()
        for flag in ("profile_memory", "with_stack", "record_shapes", "with_modules",
                     "with_flops"):
            if getattr(self, flag):
                self.add_metadata_json(flag, "1")
        for key, value in self.preset_metadata.items():
            self.add_metadata_json(key, value)

    def stop_trace(self) -> None:
        """Stop recording: the cycle's events become the results."""
        if self.execution_trace_observer:
            self.execution_trace_observer.stop()
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        if _autograd_profiler._state.profiler is not self.profiler:
            return     # not recording (torch only logs that)
        self.profiler._stop()
        self._last_cycle = events = self.profiler._function_events
        if self._earlier:     # acc_events: this cycle's events, then the earlier cycles'
            self.profiler._function_events = _autograd_profiler.EventList(
                list(events) + list(self._earlier), profile_memory=self.profile_memory)

    def _recorded(self, needed: str):
        if self.profiler is None:
            raise AssertionError(f"Profiler must be initialized before {needed}")
        events = self.profiler._function_events
        if events is None:     # prepared or recording: nothing is finished yet
            return _autograd_profiler.EventList([], profile_memory=self.profile_memory)
        return events

    # -------------------------------------------------------------------- results
    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        """The events of the last cycle, one row per name (see EventList.key_averages)."""
        return self._recorded("getting key averages").key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def events(self):
        """The events of the last cycle (every cycle's, with acc_events)."""
        return self._recorded("accessing events")

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        """Write the last recording as Chrome trace-event JSON (gzipped if `path` ends in
        ``.gz``), with the metadata added while it recorded."""
        from ..autograd._profiler_table import chrome_trace
        self._recorded("exporting chrome trace")
        events = self._last_cycle if self._last_cycle is not None else []
        trace = chrome_trace(events, self.profiler._t0, self.profiler._base_epoch_ns,
                             self.profile_memory)
        trace.update(deviceProperties=[], trace_id=self._trace_id,
                     host_name=socket.gethostname(), traceName=path)
        for key, value in self._trace_metadata.items():
            trace[key] = json.loads(value)
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "wt") as f:
            json.dump(trace, f)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write one line per event with a stack, for flame graphs: its frames outermost first,
        ``;``-separated (spaces as ``_``), a space, then `metric` in whole microseconds."""
        events = self._recorded("exporting stacks")
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        metrics = ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                   "self_privateuse1_time_total"]
        if metric not in metrics:
            raise ValueError("metric should be one of: " + str(metrics))
        if metric != "self_cpu_time_total":
            metric = "self_device_time_total"
        translate = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for e in events:
                value = int(getattr(e, metric))
                if e.stack and value > 0:
                    frames = ";".join(entry.translate(translate) for entry in reversed(e.stack))
                    f.write(f"{frames} {value}\n")

    # -------------------------------------------------------------------- trace metadata
    def add_metadata(self, key: str, value: str) -> None:
        """Add ``key: "value"`` to the trace (kept only while a cycle is being recorded)."""
        self.add_metadata_json(key, '"' + value.replace('"', '\\"') + '"')

    def add_metadata_json(self, key: str, value: str) -> None:
        """Add ``key: value`` (a JSON text) to the trace, as add_metadata."""
        if self.profiler is not None and _autograd_profiler._state.profiler is self.profiler:
            self._trace_metadata[key] = value

    def preset_metadata_json(self, key: str, value: str) -> None:
        """Metadata added to the trace of every cycle when it starts recording."""
        self.preset_metadata[key] = value

    def set_custom_trace_id_callback(self, callback) -> None:
        self.custom_trace_id_callback = callback

    def get_trace_id(self):
        """The id of the current cycle's trace (None before the first)."""
        return None if self.profiler is None else self._trace_id
