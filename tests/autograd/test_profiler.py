"""The autograd profiler against live torch: the events recorded for one program (forward ops,
backward nodes, record_function ranges and how they nest), the summary table's columns and
order, sorting and row limits, the self-time bookkeeping, and the Chrome trace JSON."""
import json
import re

import pytest
import torch

import dyngrad
from dyngrad.ops import _dispatch


def program(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = lib.full((2, 3), 2.0, requires_grad=True)
    with lib.autograd.profiler.record_function("outer"):
        with lib.autograd.profiler.record_function("inner"):
            z = x * y
        w = (z + x).sum()
    w.backward()
    return x, y


def profiled(lib, **kw):
    with lib.autograd.profiler.profile(**kw) as prof:
        program(lib)
    return prof


def _within_program(events):
    """Events from ``outer`` on (torch also records the ``ones``/``full`` factories)."""
    names = [e.name for e in events]
    return events[names.index("outer"):]


def _parent(e):
    return e.cpu_parent.name if e.cpu_parent is not None else None


def _torch_only(name):
    """Events torch records inside its C++ kernels, below what dyngrad dispatches."""
    return name in {"aten::as_strided", "aten::fill_", "aten::ones_like", "aten::empty_like",
                    "aten::empty_strided", "aten::detach", "detach", "aten::to",
                    "aten::_to_copy", "aten::copy_", "aten::empty", "aten::resolve_conj"}


def test_events_and_nesting_like_torch():
    """Forward ops, record_function ranges and backward nodes, with their parents."""
    def structure(lib):
        prof = profiled(lib, record_shapes=True)
        return [(e.name, _parent(e), e.input_shapes)
                for e in _within_program(prof.function_events)
                if not _torch_only(e.name) and not (e.name == "aten::add" and _parent(e) in (
                    None, "autograd::engine::evaluate_function: MulBackward0"))]
    # (torch sums the two gradients of x inside MulBackward0's evaluate_function, dyngrad's
    # engine between nodes: that one add is left out of the comparison)
    got, want = structure(dyngrad), structure(torch)
    assert got == want
    names = [g[0] for g in got]
    for name in ("aten::mul", "aten::add", "aten::sum", "MulBackward0", "AddBackward0",
                 "SumBackward0", "autograd::engine::evaluate_function: MulBackward0",
                 "torch::autograd::AccumulateGrad"):
        assert name in names


def test_record_function_ranges_nest():
    with dyngrad.autograd.profiler.profile() as prof:
        @dyngrad.autograd.profiler.record_function("decorated")
        def f(t):
            with dyngrad.autograd.profiler.record_function("block"):
                return t * 2
        f(dyngrad.ones(3))
    by_name = {e.name: e for e in prof.function_events}
    assert _parent(by_name["block"]) == "decorated"
    assert _parent(by_name["aten::mul"]) == "block"
    assert by_name["decorated"].cpu_parent is None
    outer, inner = by_name["decorated"], by_name["block"]
    assert outer.start_ns <= inner.start_ns <= inner.end_ns <= outer.end_ns


def test_memory_like_torch():
    def mem(lib):
        with lib.autograd.profiler.profile(profile_memory=True) as prof:
            a = lib.ones(4, 2)
            b = lib.ones(4, 2)
            with lib.autograd.profiler.record_function("block"):
                c = a * b            # one new float32 [4, 2]: 32 bytes
                c.add_(1)           # in place: nothing new
                c.view(8)           # a view: nothing new
        return {e.name: (e.cpu_memory_usage, e.self_cpu_memory_usage)
                for e in prof.function_events if e.name in ("aten::mul", "aten::add_", "block")}
    want, got = mem(torch), mem(dyngrad)
    assert got["aten::mul"] == want["aten::mul"] == (32, 32)
    assert got["aten::add_"] == (0, 0) and want["aten::add_"][0] == 0
    assert got["block"] == (32, 0)


def _header(table):
    return re.split(r"\s{2,}", table.split("\n")[1].strip())


@pytest.mark.parametrize("kw,avg", [
    ({}, {}),
    ({"profile_memory": True}, {}),
    ({"record_shapes": True}, {"group_by_input_shape": True}),
    ({"record_shapes": True}, None),        # prof.table(): the raw events
])
def test_table_columns_like_torch(kw, avg):
    def table(lib):
        prof = profiled(lib, **kw)
        events = prof.key_averages(**avg) if avg is not None else prof
        return events.table(sort_by="self_cpu_time_total", row_limit=4)
    want, got = table(torch), table(dyngrad)
    assert _header(got) == _header(want)
    w_lines, g_lines = want.split("\n"), got.split("\n")
    # the same separator layout: name column of (longest name + 4, at most 55), 12-wide ones
    # (the shapes column is as wide as the longest shapes, and torch lists more arguments)
    n = 7 + (2 if kw.get("profile_memory") else 0)
    assert [len(c) for c in g_lines[0].split()][1:n] == [len(c) for c in w_lines[0].split()][1:n]
    assert [len(c) for c in g_lines[0].split()][1:n] == [12] * (n - 1)
    assert len(g_lines) == len(w_lines)   # 3 header lines, 4 rows, separator, footer, ""
    assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", g_lines[-2])
    assert w_lines[-2].startswith("Self CPU time total: ")


def _row_names(table):
    """The Name cell of each row (the name column is the first dash block wide)."""
    lines = table.split("\n")
    width = len(lines[0].split()[0])
    return [line[:width].strip() for line in lines[3:]
            if line and not line.startswith(("-", "Self"))]


def _shown(name):
    return name[:52] + "..." if len(name) >= 52 else name


@pytest.mark.parametrize("sort_by", ["self_cpu_time_total", "cpu_time_total", "count"])
def test_table_sorted_and_limited(sort_by):
    prof = profiled(dyngrad)
    avgs = prof.key_averages()
    want = sorted(avgs, key=lambda e: getattr(e, sort_by), reverse=True)
    for limit in (1, 3, 100):
        rows = _row_names(avgs.table(sort_by=sort_by, row_limit=limit))
        assert len(rows) == min(limit, len(avgs))
        assert rows == [_shown(e.key) for e in want[:limit]]


def test_self_times_add_up():
    prof = profiled(dyngrad)
    events = prof.function_events
    top = [e for e in events if e.cpu_parent is None]
    total_self = sum(e.self_cpu_time_total for e in events)
    assert total_self == pytest.approx(sum(e.cpu_time_total for e in top), rel=1e-9)
    assert prof.self_cpu_time_total == pytest.approx(total_self, rel=1e-9)
    total = prof.total_average()
    assert total.key == "Total" and total.count == len(events)
    assert total.self_cpu_time_total == pytest.approx(total_self, rel=1e-9)
    avgs = prof.key_averages()
    assert sum(a.count for a in avgs) == len(events)
    assert sum(a.self_cpu_time_total for a in avgs) == pytest.approx(total_self, rel=1e-9)
    for e in events:
        assert e.self_cpu_time_total >= 0
        assert e.cpu_time_total >= sum(c.cpu_time_total for c in e.cpu_children)


def test_key_averages_group_by_input_shape_like_torch():
    def groups(lib):
        with lib.autograd.profiler.profile(record_shapes=True) as prof:
            a, b = lib.zeros(2, 3), lib.zeros(4)
            a * a, a * a, b * b
        return sorted((e.key, e.count, str(e.input_shapes))
                      for e in prof.key_averages(group_by_input_shape=True)
                      if e.key == "aten::mul")
    assert groups(dyngrad) == groups(torch) == [
        ("aten::mul", 1, "[[4], [4]]"), ("aten::mul", 2, "[[2, 3], [2, 3]]")]


def test_chrome_trace_schema_and_nesting(tmp_path):
    prof = profiled(dyngrad, record_shapes=True, profile_memory=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert isinstance(trace["traceEvents"], list)
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == len(prof.function_events)
    for e in trace["traceEvents"]:
        assert e["ph"] in ("X", "M")
        assert isinstance(e["name"], str) and isinstance(e["pid"], int)
        assert isinstance(e["tid"], int) and isinstance(e["ts"], (int, float))
        assert isinstance(e["args"], dict)
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0
            assert isinstance(e["cat"], str)
    # nesting: on one thread, any two ranges are disjoint or one holds the other, and each
    # event lies inside its profiler parent's interval
    eps = 1e-3
    by_id = {e["args"]["External id"]: e for e in spans}
    for ev in prof.function_events:
        if ev.cpu_parent is not None:
            child, parent = by_id[ev.id], by_id[ev.cpu_parent.id]
            assert parent["ts"] - eps <= child["ts"]
            assert child["ts"] + child["dur"] <= parent["ts"] + parent["dur"] + eps
    spans.sort(key=lambda e: (e["ts"], -e["dur"]))
    for i, a in enumerate(spans):
        for b in spans[i + 1:]:
            if b["ts"] >= a["ts"] + a["dur"] - eps:
                break
            assert b["ts"] + b["dur"] <= a["ts"] + a["dur"] + eps, (a["name"], b["name"])
    names = {e["name"] for e in spans}
    assert {"aten::mul", "MulBackward0", "outer", "inner"} <= names
    mul = next(e for e in spans if e["name"] == "aten::mul")
    assert mul["args"]["Input Dims"] == [[2, 3], [2, 3]]


def test_with_stack_names_the_users_line():
    with dyngrad.autograd.profiler.profile(with_stack=True) as prof:
        dyngrad.ones(2) * 3
    mul = next(e for e in prof.function_events if e.name == "aten::mul")
    assert mul.stack[0].startswith(f"{__file__}(") and mul.stack[0].endswith(
        ": test_with_stack_names_the_users_line")
    table = prof.table()
    assert _header(table)[-1] == "Source Location"


def test_profiler_off_records_nothing():
    prof = dyngrad.autograd.profiler.profile()
    assert not _dispatch._profiling
    with prof:
        assert _dispatch._profiling
        dyngrad.ones(2) + 1
    assert not _dispatch._profiling
    n = len(prof.function_events)
    (dyngrad.ones(2, requires_grad=True) * 2).sum().backward()
    with dyngrad.autograd.profiler.record_function("ignored"):
        dyngrad.ones(2) + 1
    assert len(prof.function_events) == n
    with dyngrad.autograd.profiler.profile(enabled=False) as off:
        dyngrad.ones(2) + 1
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        off.function_events


def test_emit_nvtx_is_a_no_op():
    with dyngrad.autograd.profiler.emit_nvtx():
        y = dyngrad.ones(2) * 2
    assert y.tolist() == [2.0, 2.0]


def test_torch_profiler_facade():
    from dyngrad.profiler import ProfilerActivity, profile, record_function
    assert ProfilerActivity.CPU.name == torch.profiler.ProfilerActivity.CPU.name
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("step"):
            (dyngrad.ones(2, requires_grad=True) * 2).sum().backward()
    names = [e.key for e in prof.key_averages()]
    assert "step" in names and "MulBackward0" in names
    assert _header(prof.key_averages().table(row_limit=2))[0] == "Name"
