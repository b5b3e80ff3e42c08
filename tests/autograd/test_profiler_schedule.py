"""torch.profiler's schedule machinery against live torch: ``schedule()``'s actions step by step,
which steps call ``on_trace_ready`` and which events each saved cycle holds (``ProfilerStep#N``
ranges included), the warnings of odd schedules, ``acc_events``, ``start()``/``stop()``, the
Chrome trace and ``tensorboard_trace_handler``'s files, and the optimizer's step ranges.

Each test runs one snippet on ``torch`` and on ``dyngrad`` and compares what it saw. Custom
schedules that go from RECORD to WARMUP are left out: torch 2.13 crashes (SIGSEGV) on them.
"""
import gzip
import json
import os
import re
import socket
import warnings

import pytest
import torch
import torch.profiler.profiler

import dyngrad
import dyngrad.profiler.profiler

# the events both libraries record for the loop below (torch also records its factories' ops)
KEPT = ("it", "ProfilerStep", "aten::mul", "Optimizer.")


@pytest.fixture(autouse=True)
def _fresh_warn_once():
    """Both libraries give "Profiler clears events..." once per process: forget that."""
    torch.profiler.profiler._WARNINGS_SHOWN.clear()
    dyngrad.profiler.profiler._WARNINGS_SHOWN.clear()
    yield
    torch.profiler.profiler._WARNINGS_SHOWN.clear()
    dyngrad.profiler.profiler._WARNINGS_SHOWN.clear()


def outcome(fn, lib):
    """(what fn(lib) returned or ``raised Type: message``, [(category, message)] warned)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(lib)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            result = f"raised {type(e).__name__}: {e}"
    return result, [(w.category.__name__, str(w.message)) for w in caught
                    if not issubclass(w.category, ResourceWarning)]


def same_outcome(fn):
    want, got = outcome(fn, torch), outcome(fn, dyngrad)
    assert got == want
    return got


def _parent(e):
    return e.cpu_parent.name if e.cpu_parent is not None else None


def events_of(prof):
    """The kept events of prof.events() in order, with their parents (or the error)."""
    try:
        events = prof.events()
    except Exception as e:   # noqa: BLE001
        return f"raised {type(e).__name__}: {e}"
    return [(e.name, _parent(e)) for e in events if e.name.startswith(KEPT)]


def averages_of(prof):
    try:
        avgs = prof.key_averages()
    except Exception as e:   # noqa: BLE001
        return f"raised {type(e).__name__}: {e}"
    return sorted((e.key, e.count) for e in avgs if e.key.startswith(KEPT))


def train(lib, prof, steps, start=0):
    """A loop of `steps` steps, each a ``it{i}`` range holding one ``aten::mul``."""
    x, y = lib.ones(2), lib.full((2,), 3.0)
    for i in range(start, start + steps):
        with lib.profiler.record_function(f"it{i}"):
            x.mul(y)
        prof.step()


def cycles(lib, schedule, steps, **kw):
    """on_trace_ready's calls (step_num, events, averages), and the state after the profile."""
    calls = []
    handler = lambda p: calls.append((p.step_num, events_of(p), averages_of(p)))   # noqa: E731
    sched = schedule(lib) if callable(schedule) else lib.profiler.schedule(**schedule)
    with lib.profiler.profile(schedule=sched, on_trace_ready=handler, **kw) as prof:
        train(lib, prof, steps)
    return calls, prof.step_num, prof.current_action.name, events_of(prof), averages_of(prof)


# ---------------------------------------------------------------------------------------------
# schedule()
# ---------------------------------------------------------------------------------------------
SCHEDULES = [
    dict(wait=1, warmup=1, active=2),
    dict(wait=0, warmup=0, active=1),
    dict(wait=0, warmup=1, active=1),
    dict(wait=2, warmup=1, active=3, repeat=2),
    dict(wait=1, warmup=1, active=2, repeat=1, skip_first=2),
    dict(wait=3, warmup=2, active=1, skip_first=2, skip_first_wait=1),
    dict(wait=4, warmup=0, active=2, repeat=3, skip_first_wait=1),
    dict(wait=0, warmup=2, active=3, repeat=3),
    dict(wait=5, warmup=1, active=1, skip_first=7),
]


@pytest.mark.parametrize("kw", SCHEDULES, ids=str)
def test_schedule_actions_like_torch(kw):
    same_outcome(lambda lib: [lib.profiler.schedule(**kw)(step).name for step in range(40)])


@pytest.mark.parametrize("kw", [
    dict(wait=-1, warmup=1, active=1), dict(wait=1, warmup=-1, active=1),
    dict(wait=1, warmup=1, active=0), dict(wait=1, warmup=1, active=1, repeat=-2),
    dict(wait=1, warmup=1, active=1, skip_first=-1), dict(wait=1, warmup=0, active=-1),
    dict(wait=1, active=1), dict(wait=1, warmup=1, active=1, skip=1),
], ids=str)
def test_schedule_argument_errors_like_torch(kw):
    result, _ = same_outcome(lambda lib: lib.profiler.schedule(**kw))
    assert result.startswith("raised ")


def test_schedule_rejects_positional_and_negative_steps_like_torch():
    same_outcome(lambda lib: lib.profiler.schedule(1, 1, 1))
    result, _ = same_outcome(lambda lib: lib.profiler.schedule(wait=1, warmup=1, active=1)(-1))
    assert result == "raised AssertionError: Step must be non-negative. Got -1."


def test_profiler_action_like_torch():
    def members(lib):
        A = lib.profiler.ProfilerAction
        return ([repr(a) for a in A], str(A.RECORD), A(3).name,
                lib.profiler.profiler.ProfilerAction is A)
    same_outcome(members)


def test_profiler_activity_like_torch():
    def members(lib):
        A = lib.profiler.ProfilerActivity
        return ({name: int(a.value) if hasattr(a, "value") else int(a)
                 for name, a in A.__members__.items()},
                repr(A.CPU), str(A.CUDA),
                sorted(a.name for a in lib.profiler.supported_activities()))
    same_outcome(members)


# ---------------------------------------------------------------------------------------------
# Cycles: what each on_trace_ready call sees
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("steps", range(8))
def test_cycles_stopping_at_each_step_like_torch(steps):
    """Stopped in NONE (no call), WARMUP (no call, nothing kept), RECORD (a call) or after."""
    (calls, *_), _ = same_outcome(lambda lib: cycles(lib, dict(wait=1, warmup=1, active=2), steps))
    # steps 0-3: NONE WARMUP RECORD RECORD_AND_SAVE, then 4-7 again; stopped in step 6 or 7,
    # the second cycle is saved; the first one's on_trace_ready sees step_num 4 (the next step)
    assert [c[0] for c in calls] == [[], [], [2], [3], [4], [4], [4, 6], [4, 7]][steps]


@pytest.mark.parametrize("kw,steps", [
    (dict(wait=0, warmup=0, active=1), 4),
    (dict(wait=0, warmup=1, active=1, repeat=2), 7),
    (dict(wait=2, warmup=1, active=3, repeat=2), 16),
    (dict(wait=1, warmup=1, active=2, repeat=1, skip_first=2), 12),
    (dict(wait=3, warmup=2, active=1, skip_first=2, skip_first_wait=1), 14),
    (dict(wait=0, warmup=2, active=3, repeat=3), 20),
], ids=str)
def test_cycles_like_torch(kw, steps):
    (calls, *_), _ = same_outcome(lambda lib: cycles(lib, kw, steps))
    assert calls


def test_each_cycle_holds_its_steps_only():
    (calls, *_), _ = same_outcome(lambda lib: cycles(lib, dict(wait=1, warmup=1, active=2), 9))
    assert [c[0] for c in calls] == [4, 8]
    assert calls[0][1] == [("ProfilerStep*", None), ("it2", "ProfilerStep*"), ("aten::mul", "it2"),
                           ("ProfilerStep*", None), ("it3", "ProfilerStep*"), ("aten::mul", "it3")]
    assert calls[1][2] == [("ProfilerStep*", 2), ("aten::mul", 2), ("it6", 1), ("it7", 1)]


def test_no_schedule_records_everything_like_torch():
    def run(lib):
        calls = []
        with lib.profiler.profile(on_trace_ready=lambda p: calls.append(
                (p.step_num, events_of(p)))) as prof:
            train(lib, prof, 3)
        return calls, prof.record_steps, prof.current_action.name, averages_of(prof)
    (calls, record_steps, *_), _ = same_outcome(run)
    assert len(calls) == 1 and calls[0][0] == 3 and record_steps is False


SEQUENCES = [
    "WARMUP,NONE,NONE",
    "RECORD,NONE,RECORD,NONE",
    "NONE,RECORD,RECORD_AND_SAVE,RECORD_AND_SAVE,WARMUP,RECORD",
    "WARMUP,RECORD_AND_SAVE,NONE,WARMUP",
    "RECORD_AND_SAVE,RECORD_AND_SAVE,RECORD_AND_SAVE",
    "RECORD,RECORD,RECORD",
]


@pytest.mark.parametrize("names", SEQUENCES)
def test_custom_schedules_and_their_warnings_like_torch(names):
    def schedule(lib):
        actions = [getattr(lib.profiler.ProfilerAction, n) for n in names.split(",")]
        return lambda step: actions[step]
    same_outcome(lambda lib: cycles(lib, schedule, len(names.split(",")) - 1))


def test_record_then_warmup_restarts_the_recorder():
    """RECORD -> WARMUP crashes torch 2.13 at its next start; dyngrad warns as torch does, then
    records the next RECORD steps afresh."""
    A = dyngrad.profiler.ProfilerAction
    actions = [A.RECORD, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE, A.NONE]
    (calls, step_num, action, final, _), warned = outcome(
        lambda lib: cycles(lib, lambda _: lambda step: actions[step], 4), dyngrad)
    assert warned == [("UserWarning", "Incorrect schedule: RECORD followed by WARMUP")]
    steps = [("ProfilerStep*", None), ("it2", "ProfilerStep*"), ("aten::mul", "it2"),
             ("ProfilerStep*", None), ("it3", "ProfilerStep*"), ("aten::mul", "it3")]
    assert [c[:2] for c in calls] == [(4, steps)]
    assert (step_num, action, final) == (4, "NONE", steps)


def test_device_stopped_is_refused_like_torch():
    def at_init(lib):
        return lib.profiler.profile(schedule=lambda s: lib.profiler.ProfilerAction.DEVICE_STOPPED)

    def at_step(lib):
        A = lib.profiler.ProfilerAction
        p = lib.profiler.profile(schedule=lambda s: A.RECORD if s == 0 else A.DEVICE_STOPPED)
        with p:
            try:
                p.step()
            except ValueError as e:
                return str(e), p.step_num, p.current_action.name
    result, _ = same_outcome(at_init)
    assert result.startswith("raised ValueError: ProfilerAction.DEVICE_STOPPED")
    same_outcome(at_step)


def test_clears_events_warning_once_per_process_like_torch():
    def two_profiles(lib):
        one = cycles(lib, dict(wait=0, warmup=1, active=1), 6)
        return one, cycles(lib, dict(wait=0, warmup=1, active=1), 6)
    _, warned = same_outcome(two_profiles)
    assert [m for _, m in warned] == ["Warning: Profiler clears events at the end of each cycle. "
                                      "Only events from the current cycle will be reported. To "
                                      "keep events across cycles, set acc_events=True."]


def test_acc_events_like_torch():
    (calls, _, _, final, _), warned = same_outcome(
        lambda lib: cycles(lib, dict(wait=1, warmup=1, active=1), 7, acc_events=True))
    assert warned == [] and len(calls) == 2
    assert [n for n, _ in final if n.startswith("it")] == ["it5", "it2"]


def test_start_stop_and_restart_like_torch():
    def run(lib):
        calls = []
        p = lib.profiler.profile(schedule=lib.profiler.schedule(wait=0, warmup=1, active=1),
                                 on_trace_ready=lambda p: calls.append((p.step_num, events_of(p))))
        p.start()
        train(lib, p, 3)
        p.stop()
        first = (list(calls), p.step_num, p.current_action.name, events_of(p))
        p.start()
        train(lib, p, 3, start=3)
        p.stop()
        return first, calls, p.step_num, p.current_action.name, events_of(p)
    same_outcome(run)


def test_results_before_and_during_profiling_like_torch(tmp_path):
    def run(lib):
        p = lib.profiler.profile(with_stack=False)
        before = [outcome(f, lib)[0] for f in (
            lambda _: p.key_averages(), lambda _: p.events(),
            lambda _: p.export_chrome_trace(str(tmp_path / "t.json")),
            lambda _: p.export_stacks(str(tmp_path / "s.txt")))]
        with p:
            lib.ones(2).mul(2)
            during = len(p.key_averages()), len(p.events())
        return before, during, outcome(lambda _: p.export_stacks(str(tmp_path / "s.txt")), lib)
    same_outcome(run)


def test_step_or_stop_before_start_like_torch():
    def step_first(lib):
        p = lib.profiler.profile(schedule=lib.profiler.schedule(wait=0, warmup=1, active=1))
        return outcome(lambda _: p.step(), lib), p.step_num, p.current_action.name

    def stop_first(lib):
        p = lib.profiler.profile()
        return outcome(lambda _: p.stop(), lib), p.step_num
    same_outcome(step_first)
    same_outcome(stop_first)


@pytest.mark.parametrize("kw", [
    dict(activities=[]), dict(activities=["cpu"]), dict(use_cuda=False), dict(use_cuda=True),
    dict(activities=["CPU", "cpu"]), dict(activities=["CPU", "CPU"]), dict(activities=["CUDA"]),
    dict(activities=["CPU", "CUDA"]), dict(activities=["XPU"]), dict(activities=["HPU"]),
    dict(activities=["MTIA"]), dict(activities=["PrivateUse1"]), dict(activities=["CUDA"],
                                                                      use_cuda=False),
    dict(activities=[{"CPU": []}]), dict(unknown=1),
], ids=str)
def test_activities_like_torch(kw):
    def run(lib):
        kw2 = dict(kw)
        if "activities" in kw2:
            A = lib.profiler.ProfilerActivity
            kw2["activities"] = [
                {getattr(A, k): v for k, v in a.items()} if isinstance(a, dict)
                else getattr(A, a, a) for a in kw2["activities"]]
        p = lib.profiler.profile(**kw2)
        with p:
            lib.ones(2).mul(2)
        return sorted(a.name for a in p.activities), p.use_device, averages_of(p)
    same_outcome(run)


# ---------------------------------------------------------------------------------------------
# Traces
# ---------------------------------------------------------------------------------------------
def _trace_names(trace):
    return [(e["name"], e["cat"]) for e in trace["traceEvents"]
            if e.get("ph") == "X" and e["name"].startswith(KEPT)]


def test_chrome_trace_of_each_cycle_like_torch(tmp_path):
    def run(lib):
        traces = []

        def handler(p):
            path = tmp_path / f"{lib.__name__}_{p.step_num}.json"
            p.export_chrome_trace(str(path))
            traces.append((p.step_num, sorted(_trace_names(json.loads(path.read_text())))))
        with lib.profiler.profile(schedule=lib.profiler.schedule(wait=1, warmup=1, active=2),
                                  on_trace_ready=handler) as prof:
            train(lib, prof, 9)
        return traces
    traces, _ = same_outcome(run)
    assert ("ProfilerStep#6", "user_annotation") in traces[1][1]


def test_chrome_trace_metadata_like_torch(tmp_path):
    def run(lib):
        p = lib.profiler.profile(record_shapes=True, profile_memory=True)
        p.add_metadata("before", "skipped")
        with p:
            p.add_metadata("k1", "v1")
            p.add_metadata_json("k2", '{"a": [1, 2]}')
        p.add_metadata("after", "skipped")
        path = tmp_path / f"{lib.__name__}.json"
        p.export_chrome_trace(str(path))
        trace = json.loads(path.read_text())
        keys = ("before", "k1", "k2", "after", "record_shapes", "profile_memory", "with_stack",
                "deviceProperties", "host_name")
        return ({k: trace[k] for k in keys if k in trace}, sorted(trace),
                re.fullmatch("[0-9A-F]{32}", trace["trace_id"]) is not None,
                trace["traceName"] == str(path))
    same_outcome(run)


def test_trace_id_like_torch():
    def run(lib):
        p = lib.profiler.profile()
        before = p.get_trace_id()
        with p:
            pass
        q = lib.profiler.profile(custom_trace_id_callback=lambda: "mine")
        with q:
            pass
        return before, re.fullmatch("[0-9A-F]{32}", p.get_trace_id()) is not None, q.get_trace_id()
    same_outcome(run)


def test_record_function_named_profiler_step_like_torch(tmp_path):
    def run(lib):
        with lib.autograd.profiler.profile() as p:
            with lib.autograd.profiler.record_function("ProfilerStep#5"):
                pass
            with lib.autograd.profiler.record_function("ProfilerStep#x"):
                pass
        return [(e.name, e.trace_name) for e in p.function_events], averages_of(p)
    same_outcome(run)


def _trace_files(lib, directory, **kw):
    handler = lib.profiler.tensorboard_trace_handler(str(directory), **kw)
    with lib.profiler.profile(schedule=lib.profiler.schedule(wait=0, warmup=1, active=1, repeat=2),
                              on_trace_ready=handler) as prof:
        train(lib, prof, 6)
    files = sorted(os.listdir(directory), key=lambda f: int(f.split(".")[1]))
    out = []
    for f in files:
        m = re.fullmatch(r"(.+)\.(\d+)\.pt\.trace\.json(\.gz)?", f)
        opener = gzip.open if f.endswith(".gz") else open
        with opener(directory / f, "rt") as fh:
            trace = json.load(fh)
        out.append((m and m.group(1), m and bool(m.group(3)), sorted(_trace_names(trace))))
    return out


@pytest.mark.parametrize("kw", [{}, {"use_gzip": True}, {"worker_name": "worker0"}], ids=str)
def test_tensorboard_trace_handler_like_torch(tmp_path, kw):
    got, _ = same_outcome(lambda lib: _trace_files(lib, tmp_path / lib.__name__ / "a" / "b", **kw))
    assert len(got) == 2
    worker = kw.get("worker_name", f"{socket.gethostname()}_{os.getpid()}")
    assert {g[0] for g in got} == {worker} and {g[1] for g in got} == {"use_gzip" in kw}
    assert ("ProfilerStep#3", "user_annotation") in got[1][2]


def test_tensorboard_trace_handler_errors_like_torch(tmp_path):
    (tmp_path / "a_file").write_text("")

    def run(lib):
        handler = lib.profiler.tensorboard_trace_handler(str(tmp_path / "a_file"))
        try:
            with lib.profiler.profile(on_trace_ready=handler):
                pass
        except RuntimeError as e:
            return str(e), type(e.__cause__).__name__
    result, _ = same_outcome(run)
    assert result[0] == f"Can't create directory: {tmp_path / 'a_file'}"


def test_export_stacks(tmp_path):
    """torch 2.13 keeps no stacks on its ops (its Python tracer records frames as events), so
    its file is empty; dyngrad writes its ops' stacks in torch's format: frames outermost first,
    ``;``-separated, spaces turned to ``_``, then the metric in whole microseconds."""
    def run(lib, path, metric="self_cpu_time_total"):
        with lib.profiler.profile(with_stack=True) as p:
            for _ in range(20):
                lib.ones(200, 200).mul(3)
        return outcome(lambda _: p.export_stacks(str(path), metric), lib)
    for metric in ("self_cuda_time_total", "cpu_time_total"):
        assert run(dyngrad, os.devnull, metric) == run(torch, os.devnull, metric)
    run(dyngrad, tmp_path / "stacks.txt")
    lines = (tmp_path / "stacks.txt").read_text().splitlines()
    assert lines and all(re.fullmatch(r"\S+ [1-9]\d*", line) for line in lines)
    assert any(line.split(" ")[0].endswith(":_run") for line in lines)


# ---------------------------------------------------------------------------------------------
# Ranges of the optimizer and of itt
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_optimizer_step_ranges_like_torch(name):
    def run(lib):
        w = lib.ones(3, requires_grad=True)
        opt = getattr(lib.optim, name)([w], lr=0.1)
        (w * w).sum().backward()
        with lib.profiler.profile() as p:
            opt.step()
            opt.zero_grad()
        return [(n, parent) for n, parent in events_of(p) if n.startswith("Optimizer.")]
    got, _ = same_outcome(run)
    assert got == [(f"Optimizer.step#{name}.step", None),
                   (f"Optimizer.zero_grad#{name}.zero_grad", None)]


def test_optimizer_step_holds_its_ops_like_torch():
    def run(lib):
        w = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        (w * w).sum().backward()
        with lib.profiler.profile() as p:
            opt.step()
        return [(e.name, _parent(e)) for e in p.events()]
    same_outcome(run)


def test_itt_module():
    """torch's ITT calls run as no-ops (dyngrad has no VTune to talk to): ``is_available()`` is
    False, as in torch builds without ITT, while range_push/range_pop/mark return None, as in
    torch's ITT builds, rather than raising."""
    assert dyngrad.profiler.itt.__all__ == torch.profiler.itt.__all__
    assert dyngrad.profiler.itt.is_available() is False
    itt = dyngrad.profiler.itt
    assert (itt.range_push("a"), itt.mark("m"), itt.range_pop()) == (None, None, None)
    with itt.range("step {}", 1):
        pass
