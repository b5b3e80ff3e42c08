"""The profiler's outputs: torch's summary table and the Chrome trace-event JSON.

The table follows torch's ``_build_table`` (torch/autograd/profiler_util.py) column for column,
so a reader who knows torch's output reads ours the same way: Name, Self CPU %, Self CPU,
CPU total %, CPU total, CPU time avg, [CPU Mem, Self CPU Mem], # of Calls, [Input Shapes],
[Source Location]; 12-character columns two spaces apart, the name column as wide as the
longest name plus 4 (at most 55), and the footer "Self CPU time total: …".
"""
from __future__ import annotations

import os
import threading

from .profiler import _format_memory, _format_time, _format_time_share

_COLUMN = 12
_SPACING = 2


def _time_str(time_us: float, time_unit) -> str:
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


def build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                max_name_column_width=55, max_shapes_column_width=80, profile_memory=False,
                top_level_events_only=False, time_unit=None) -> str:
    """torch's table for a list of FunctionEvent or FunctionEventAvg."""
    if len(events) == 0:
        return ""
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    stacks = [e.stack for e in events if e.stack]

    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    src_width = None
    if stacks:
        src_width = max(len(entry) for stack in stacks for entry in stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [(name_width, ">")] + [(_COLUMN, ">")] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_width, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_width, "<"))
    row_format = "".join("{: " + align + str(w) + "}" + " " * _SPACING for w, align in widths)
    separator = "".join("-" * w + " " * _SPACING for w, _ in widths)
    line_length = sum(w + _SPACING for w, _ in widths) - _SPACING

    total_self = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]

    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name,
               _format_time_share(e.self_cpu_time_total, total_self),
               _time_str(e.self_cpu_time_total, time_unit),
               _format_time_share(e.cpu_time_total, total_self),
               _time_str(e.cpu_time_total, time_unit),
               _time_str(e.cpu_time, time_unit)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            row.append(_trim_path(e.stack[0], src_width) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [_trim_path(entry, src_width)])))
            lines.append(row_format.format(*(blank + [""])))
    lines.append(separator)
    lines.append(f"Self CPU time total: {_time_str(total_self, time_unit)}")
    return "".join(line + "\n" for line in lines)


def _trim_path(path: str, width: int) -> str:
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def chrome_trace(events, t0_ns: int = 0, base_epoch_ns: int = 0,
                 profile_memory: bool = False) -> dict:
    """The events as Chrome trace-event JSON: one complete event (``"ph": "X"``) per range.

    ``ts`` and ``dur`` are microseconds on the monotonic clock (``t0_ns`` is the profiler's
    start on it), as in torch's traces; ``baseTimeNanoseconds`` gives the start on the wall
    clock. Metadata events name the process and each thread. Children lie inside their
    parent's interval on the same ``tid``.
    """
    pid = os.getpid()
    base_us = t0_ns / 1e3
    out = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": base_us,
            "args": {"name": "python"}}]
    for tid in sorted({e.thread for e in events}):
        name = "MainThread" if tid == threading.main_thread().native_id else f"thread {tid}"
        out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": base_us,
                    "args": {"name": f"{name} (python)"}})
    for e in events:
        args = {"External id": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
        if e.stack:
            args["Call stack"] = ";".join(reversed(e.stack))
        if profile_memory:
            args["Allocated bytes"] = e.cpu_memory_usage
        out.append({"ph": "X", "cat": e.category, "name": e.trace_name, "pid": pid,
                    "tid": e.thread, "ts": base_us + e.start_ns / 1e3,
                    "dur": (e.end_ns - e.start_ns) / 1e3, "args": args})
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "baseTimeNanoseconds": base_epoch_ns,
            "traceName": "dyngrad", "traceEvents": out}
