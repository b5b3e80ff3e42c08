"""The autograd profiler (torch.autograd.profiler): what ran, for how long, with which shapes.

Inside ``with profile() as prof:`` every op the dispatcher runs becomes an event named as
torch names it (``aten::mul``, ``aten::add_``), and every node the engine runs in backward
becomes two nested events, as in torch: ``autograd::engine::evaluate_function: MulBackward0``
around ``MulBackward0``, which holds the ops its formula calls. ``record_function(name)`` adds
a range of the user's own. Afterwards ``prof.key_averages().table(sort_by=...)`` prints
torch's table, and ``prof.export_chrome_trace(path)`` writes a Chrome trace-event file that
Perfetto and chrome://tracing open.

Note [Profiler events]
~~~~~~~~~~~~~~~~~~~~~~
Each thread keeps a stack of open events. Opening an event records its start time
(``time.perf_counter_ns``) and makes it a child of the event on top of the stack; closing it
records its end. So an event's *total* time spans its children, and its *self* time is the
total minus its children's totals: the self times of all events add up to the time spent
inside top-level events, which is the table's "Self CPU time total".

With ``profile_memory=True`` an op's event counts the bytes of the new tensors it returns
(views and in-place results allocate nothing); any other event counts what its children
allocated, and "Self CPU Mem" is what an event allocated outside its children.
Differences from torch: NumPy's own temporaries and frees are not seen, so memory columns are
never negative; ops torch decomposes (``matmul`` -> ``mm``) show only the primitives dyngrad
dispatches; only CPU activity exists (``use_cuda`` records nothing more).

Zero cost when off: the dispatcher tests one module flag per op (``_dispatch._profiling``) and
the engine one flag per ``backward()``.
"""
from __future__ import annotations

import functools
import itertools
import os
import sys
import threading
import time
from collections import defaultdict

__all__ = ["profile", "record_function", "emit_nvtx", "EventList", "FunctionEvent",
           "FunctionEventAvg"]


class _ProfilerState:
    """Whether a profiler records (read by the engine once per backward)."""

    __slots__ = ("active", "profiler")

    def __init__(self) -> None:
        self.active = False
        self.profiler = None


_state = _ProfilerState()
_tls = threading.local()          # .stack: this thread's open events


class _Clock:
    t0 = 0                        # perf_counter_ns() when the active profiler started


_clock = _Clock()
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


# ---------------------------------------------------------------------------------------------
# Formatting, as torch's profiler_util does
# ---------------------------------------------------------------------------------------------
def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_us: float) -> str:
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _format_memory(nbytes: int) -> str:
    kb = 1024
    mb, gb = kb * kb, kb * kb * kb
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} KB"
    return f"{nbytes} B"


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------
class FunctionEvent:
    """One recorded range: an op, a backward node or a ``record_function`` block.

    Times are in microseconds, as torch's. ``cpu_children`` / ``cpu_parent`` give the nesting.
    """

    __slots__ = ("id", "name", "trace_name", "thread", "start_ns", "end_ns", "input_shapes",
                 "cpu_children", "cpu_parent", "_own_memory", "category", "stack", "sequence_nr",
                 "_memory")

    is_async = False
    is_remote = False
    is_legacy = False
    node_id = -1
    overload_name = ""
    use_device = None
    device_time_total = 0
    self_device_time_total = 0
    device_memory_usage = 0
    self_device_memory_usage = 0
    flops = 0
    count = 1
    scope = 0

    def __init__(self, id, name, thread, start_ns, input_shapes, category, stack, sequence_nr):
        self.id = id
        # as torch: the steps' "ProfilerStep#N" ranges share one name (one row in tables), and
        # the Chrome trace keeps each one's own
        self.trace_name = name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.start_ns = start_ns
        self.end_ns = start_ns
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_children = []
        self.cpu_parent = None
        self._own_memory = None          # bytes an op allocated; None: sum of the children
        self._memory = None
        self.category = category
        self.stack = stack if stack is not None else []
        self.sequence_nr = sequence_nr

    @property
    def key(self) -> str:
        return self.name

    @property
    def device_type(self):
        return "CPU"

    @property
    def is_user_annotation(self) -> bool:
        return self.category == "user_annotation"

    @property
    def time_range(self):
        return _Interval(self.start_ns / 1e3, self.end_ns / 1e3)

    @property
    def cpu_time_total(self) -> float:
        return (self.end_ns - self.start_ns) / 1e3

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    @property
    def cpu_memory_usage(self) -> int:
        if self._memory is None:   # computed once the profile is over (children are final)
            if self._own_memory is not None:
                self._memory = self._own_memory
            else:
                self._memory = sum(c.cpu_memory_usage for c in self.cpu_children)
        return self._memory

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time={self.cpu_time_str} start_us={self.start_ns / 1e3:.3f} "
                f"end_us={self.end_ns / 1e3:.3f} cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class _Interval:
    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FunctionEventAvg:
    """Totals over the events that share a key (torch's FunctionEventAvg)."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.is_user_annotation = False
        self.use_device = None
        self.device_type = "CPU"
        self.overload_name = ""
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0
        self.self_device_time_total = 0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.cpu_parent = None
        self.cpu_children = None
        self.flops = 0

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_user_annotation = other.is_user_annotation
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        return self

    __iadd__ = add

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events with torch's summaries: ``key_averages``, ``table``, traces."""

    def __init__(self, events=(), profile_memory: bool = False) -> None:
        super().__init__(events)
        self._profile_memory = profile_memory

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """One FunctionEventAvg per event name (and input shapes / top stack frames)."""
        stats = defaultdict(FunctionEventAvg)
        for e in self:
            key = (e.key, e.is_user_annotation)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            stats[key].add(e)
        out = EventList(stats.values(), profile_memory=self._profile_memory)
        for avg in out:
            avg.stack = (avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return out

    def total_average(self) -> FunctionEventAvg:
        """Everything summed into one FunctionEventAvg keyed "Total"."""
        total = FunctionEventAvg()
        for e in self:
            total.key = None
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80,
              header=None, top_level_events_only: bool = False, time_unit=None) -> str:
        """torch's summary table: same columns, order, widths and footer."""
        from ._profiler_table import build_table
        return build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                           max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           profile_memory=self._profile_memory,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        from ._profiler_table import chrome_trace
        import json
        with open(path, "w") as f:
            json.dump(chrome_trace(self, profile_memory=self._profile_memory), f)


# ---------------------------------------------------------------------------------------------
# Recording (called by the dispatcher and the engine while a profiler is active)
# ---------------------------------------------------------------------------------------------
def _open(name, shapes, category, seq=-1):
    prof = _state.profiler
    stack = getattr(_tls, "stack", None)
    if stack is None:
        stack = _tls.stack = []
    where = _user_stack() if prof.with_stack else None
    ev = FunctionEvent(next(prof._ids), name, threading.get_native_id(), 0, shapes, category,
                       where, seq)
    if stack:
        ev.cpu_parent = stack[-1]
        stack[-1].cpu_children.append(ev)
    prof._events.append(ev)
    stack.append(ev)
    ev.start_ns = time.perf_counter_ns() - _clock.t0
    return ev


def _close(ev) -> None:
    ev.end_ns = time.perf_counter_ns() - _clock.t0
    stack = _tls.stack
    if stack and stack[-1] is ev:
        stack.pop()
    elif ev in stack:   # an inner range left open by an error: close it with its parent
        while stack.pop() is not ev:
            pass


def _user_stack() -> list:
    """``file(line): function`` for each frame of the user's code, innermost first."""
    frame = sys._getframe(2)
    out = []
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(_PACKAGE_DIR):
            out.append(f"{code.co_filename}({frame.f_lineno}): {code.co_name}")
        frame = frame.f_back
    return out


def _shapes(spec, args, kwargs) -> list:
    """torch's input_shapes: one entry per argument of the op's schema, a tensor's shape or
    ``[]`` for anything else (arguments left to their defaults included, as torch lists them).
    """
    from .._tensor import Tensor
    n = len(_schema_names(spec))
    shapes = [list(a._data.shape) if isinstance(a, Tensor) else [] for a in args]
    if len(shapes) < n:
        kwargs = kwargs or {}
        for name in _schema_names(spec)[len(shapes):]:
            v = kwargs.get(name)
            shapes.append(list(v._data.shape) if isinstance(v, Tensor) else [])
    return shapes


_SCHEMAS: dict = {}


def _schema_names(spec) -> tuple:
    """The op's argument names in order (a view kernel's geometry stands for ``self``)."""
    names = _SCHEMAS.get(spec)
    if names is None:
        params = [p for p in spec.signature.parameters.values()
                  if p.kind is not p.VAR_POSITIONAL and p.kind is not p.VAR_KEYWORD
                  and p.name != "out" and not p.name.startswith("_")]
        names = tuple(p.name for p in params)
        if spec.view:
            names = ("self",) + names
        _SCHEMAS[spec] = names
    return names


_NAMES: dict = {}


def _op_name(spec, inplace: bool) -> str:
    name = _NAMES.get((spec, inplace))
    if name is None:
        base = spec.base
        if inplace and not base.endswith("_"):
            base += "_"
        name = _NAMES[(spec, inplace)] = "aten::" + base
    return name


def _new_bytes(out, inputs) -> int:
    """Bytes of the new tensors an op returned (views and in-place results count nothing)."""
    from .._tensor import Tensor
    outs = out if isinstance(out, (tuple, list)) else (out,)
    seen = {id(a) for a in inputs}
    total = 0
    for t in outs:
        if isinstance(t, Tensor) and id(t) not in seen and t._base is None:
            total += t._data.nbytes
    return total


def record_op(spec, run, args, kwargs, inplace_target, inplace):
    """Run one dispatcher call inside an ``aten::`` event (the dispatcher's profiled path)."""
    prof = _state.profiler
    if prof is None:
        return run(spec, args, kwargs, inplace_target, inplace)
    ev = _open(_op_name(spec, inplace), _shapes(spec, args, kwargs) if prof.record_shapes else None,
               "cpu_op")
    out = None
    try:
        out = run(spec, args, kwargs, inplace_target, inplace)
        return out
    finally:
        _close(ev)
        if prof.profile_memory:
            ev._own_memory = 0 if inplace or (kwargs and "out" in kwargs) \
                else _new_bytes(out, args)


def begin_node(name, grads):
    """The engine starts node `name`: torch's two nested events."""
    prof = _state.profiler
    if prof is None:
        return None
    outer = _open("autograd::engine::evaluate_function: " + name, None, "cpu_op")
    shapes = [list(g._data.shape) if g is not None else [] for g in grads] \
        if prof.record_shapes else None
    inner = _open(name, shapes, "cpu_op")
    return outer, inner


def end_node(pair, outputs) -> None:
    outer, inner = pair
    _close(inner)
    _close(outer)


# ---------------------------------------------------------------------------------------------
# The public API
# ---------------------------------------------------------------------------------------------
class profile:
    """Record the ops and backward nodes run inside the block (torch.autograd.profiler.profile).

    Args:
        enabled: False makes the context manager do nothing.
        record_shapes: record each op's input shapes.
        profile_memory: record the bytes each op allocates (see Note [Profiler events]).
        with_stack: record the user's Python stack for each event.
        use_cuda, use_device, with_flops, with_modules, use_kineto, use_cpu,
        experimental_config, acc_events, custom_trace_id_callback: accepted for torch's
        signature; dyngrad records CPU time only.

    Example::

        >>> with dyngrad.autograd.profiler.profile(record_shapes=True) as prof:
        ...     (x * w).sum().backward()
        >>> print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None, **ignored) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.entered = False
        self._events = []
        self._ids = itertools.count(1)
        self._t0 = 0
        self._base_epoch_ns = 0
        self._function_events = None

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if _state.active:
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        self._start()
        return self

    def __exit__(self, *exc) -> None:
        if not self.enabled:
            return
        self._stop()

    def _start(self) -> None:
        from ..ops import _dispatch
        self._events = []
        self._function_events = None
        self._base_epoch_ns = time.time_ns()
        self._t0 = _clock.t0 = time.perf_counter_ns()
        _tls.stack = []
        _state.profiler = self
        _state.active = True
        _dispatch.set_profiling(True)

    def _stop(self) -> None:
        from ..ops import _dispatch
        _dispatch.set_profiling(False)
        _state.active = False
        _state.profiler = None
        self._function_events = EventList(sorted(self._events, key=lambda e: e.start_ns),
                                          profile_memory=self.profile_memory)

    def _check_finish(self) -> EventList:
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self._function_events

    @property
    def function_events(self) -> EventList:
        return self._check_finish()

    def events(self) -> EventList:
        return self._check_finish()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._check_finish().key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self) -> FunctionEventAvg:
        return self._check_finish().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._check_finish().self_cpu_time_total

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80,
              header=None, top_level_events_only: bool = False, time_unit=None) -> str:
        return self._check_finish().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as Chrome trace-event JSON (opens in Perfetto)."""
        from ._profiler_table import chrome_trace
        import json
        with open(path, "w") as f:
            json.dump(chrome_trace(self._check_finish(), self._t0, self._base_epoch_ns,
                                   self.profile_memory), f)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """A named range of the user's own in the profile (context manager and decorator).

    Outside a profiler it does nothing.
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._event = None

    def __enter__(self) -> record_function:
        if _state.active:
            self._event = _open(self.name, None, "user_annotation")
        return self

    def __exit__(self, *exc) -> None:
        if self._event is not None:
            _close(self._event)
            self._event = None

    def __call__(self, func):
        name, args = self.name, self.args

        @functools.wraps(func)
        def wrapper(*a, **kw):
            with record_function(name, args):
                return func(*a, **kw)
        return wrapper


class emit_nvtx:
    """NVTX ranges for nvprof: there is no GPU profiler to feed, so this does nothing."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self) -> emit_nvtx:
        return self

    def __exit__(self, *exc) -> None:
        pass
