"""torch.utils.benchmark against live torch: Measurement reprs and Compare tables built from the
same fixed raw_times (byte for byte, but for the object address), helpers, the Fuzzer's draws,
and the structure of real (short) Timer measurements."""
import dataclasses
import io
import pickle
import re
from contextlib import redirect_stdout

import numpy as np
import pytest
import torch
import torch.utils.benchmark as tb

import dyngrad
import dyngrad.utils.benchmark as db

LIBS = [(tb, "torch"), (db, "dyngrad")]

_ADDRESS = re.compile(r" object at 0x[0-9a-f]+>")


def norm(text, prefix):
    """`text` with object addresses and the library's module prefix made neutral."""
    text = _ADDRESS.sub(" object at ADDR>", text)
    return text.replace(f"<{prefix}.utils.benchmark.", "<LIB.utils.benchmark.")


def outcome(fn):
    """(result, None) or (None, (exception type name, message))."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (compared with torch's)
        return None, (type(e).__name__, str(e))


# -- Fixed measurements -------------------------------------------------------------------------

_TIGHT = [1.00, 1.01, 0.99, 1.02, 1.00, 0.98, 1.01, 1.00]
_NOISY = [1.0, 1.3, 0.8, 1.5, 1.1, 0.9, 1.7, 1.0]
_MILD = [1.0, 1.12, 0.95, 1.05, 1.1, 0.97, 1.0, 1.08]

MEASUREMENTS = [
    # (number_per_run, raw_times, TaskSpec kwargs)
    (100, [t * 5.73e-4 for t in _TIGHT], dict(stmt="x + y", setup="pass")),
    (10, [t * 2.5e-5 for t in _NOISY], dict(stmt="x + y", setup="x = 1", label="Add")),
    (1, [t * 0.31 for t in _MILD], dict(stmt="f(x)", setup="import math\nx = 2",
                                        label="F", sub_label="float", description="n=4")),
    (1000, [t * 4.2e-6 for t in _TIGHT], dict(stmt="a = 1\nb = a * 2", setup="",
                                              sub_label="two lines", num_threads=4)),
    (1, [12.5], dict(stmt="sleep()", setup="pass", description="once")),
    (7, [3e-7, 3.3e-7], dict(stmt="pass", setup="pass", label="Empty", num_threads=2)),
    (3, [2e-3, 2.4e-3, 2.1e-3], dict(stmt="g()", setup="pass", sub_label="three")),
    (50, [t * 9.99e-6 for t in _MILD], dict(stmt="h()", setup="pass", env="A/B")),
    (2, [t * 1.5e-8 for t in _NOISY], dict(stmt="tiny()", setup="pass", label="Tiny")),
]


def measurement(lib, i):
    number, raw, spec = MEASUREMENTS[i]
    return lib.Measurement(number, list(raw), lib.TaskSpec(**spec))


@pytest.mark.parametrize("i", range(len(MEASUREMENTS)))
def test_measurement_repr(i):
    reprs = [norm(repr(measurement(lib, i)), p) for lib, p in LIBS]
    assert reprs[1] == reprs[0]


@pytest.mark.parametrize("i", range(len(MEASUREMENTS)))
def test_measurement_statistics(i):
    def stats(lib):
        m = measurement(lib, i)
        return (m.times, m.median, m.iqr, m.significant_figures, m.has_warnings,
                m.meets_confidence(), m.meets_confidence(0.5), m.title, m.env, m.as_row_name,
                m.stmt, m.label, m.num_threads, m.number_per_run, m.metadata)
    assert stats(db) == stats(tb)
    # the mean is a float64 sum whose order of additions dyngrad's kernel does not share with
    # torch's vectorized one: equal up to rounding
    assert measurement(db, i).mean == pytest.approx(measurement(tb, i).mean, rel=1e-14)


def test_measurement_edge_cases():
    def run(lib):
        spec = lib.TaskSpec("x", "pass")
        empty = lib.Measurement(1, [], spec)
        return [outcome(lambda: repr(empty)), outcome(lambda: empty.median),
                outcome(lambda: lib.Measurement(1, [1e-6], spec).significant_figures),
                outcome(lambda: empty.foo)]
    got, want = run(db), run(tb)
    assert got[:3] == want[:3]
    assert got[3][1][0] == want[3][1][0] == "AttributeError"


def test_measurement_pickle_and_eq():
    m = measurement(db, 2)
    m.metadata = {"k": 1}
    m2 = pickle.loads(pickle.dumps(m))
    assert m2 == m and m2.metadata == {"k": 1}
    assert repr(m2).splitlines()[1:] == repr(m).splitlines()[1:]
    assert m != measurement(db, 1)
    assert dataclasses.asdict(m.task_spec) == dataclasses.asdict(measurement(tb, 2).task_spec)


def test_merge():
    def run(lib):
        ms = [measurement(lib, 0), measurement(lib, 1), measurement(lib, 0), measurement(lib, 4)]
        ms[2].raw_times = [t * 2 for t in ms[2].raw_times]
        return [(m.number_per_run, m.raw_times, m.metadata, dataclasses.astuple(m.task_spec))
                for m in lib.Measurement.merge(ms)]
    assert run(db) == run(tb)


@pytest.mark.parametrize("spec", [
    dict(stmt="x", setup="pass"), dict(stmt="x", setup="", label="L", sub_label="s"),
    dict(stmt="a\nb", setup="c\nd", sub_label="s", description="D"),
    dict(stmt="a\nb", setup="c", description="multi\nline"),
])
def test_taskspec(spec):
    def run(lib):
        t = lib.TaskSpec(**spec)
        return t.title, t.setup_str(), t.summarize(), hash(t) == hash(lib.TaskSpec(**spec))
    assert run(db) == run(tb)


@pytest.mark.parametrize("value", [0.0, 1e-10, 1e-9, 9.99e-7, 1e-6, 4.2e-4, 1e-3, 0.5, 1.0,
                                   5000.0, -1.0, float("inf")])
def test_select_unit(value):
    assert outcome(lambda: db.select_unit(value)) == outcome(lambda: tb.select_unit(value))


@pytest.mark.parametrize("x,n", [(3.14159, 2), (123456.0, 2), (0.000123456, 3), (0.0, 2),
                                 (-2.5, 1), (1000.0, 1), (57.3, 4), (1.0, 2.5)])
def test_trim_sigfig(x, n):
    assert outcome(lambda: db.trim_sigfig(x, n)) == outcome(lambda: tb.trim_sigfig(x, n))


def test_small_helpers():
    for u in ("ns", "us", "ms", "s"):
        assert db.unit_to_english(u) == tb.unit_to_english(u)
    assert outcome(lambda: db.unit_to_english("x")) == outcome(lambda: tb.unit_to_english("x"))
    assert db.ordered_unique([3, 1, 3, 2, 1, "a"]) == tb.ordered_unique([3, 1, 3, 2, 1, "a"])
    assert [c.value for c in db.Colorize] == [c.value for c in tb.Colorize]
    assert [(c.name, c.value) for c in db.Language] == [(c.name, c.value) for c in tb.Language]
    before = dyngrad.get_num_threads()
    with db.set_torch_threads(3):
        assert dyngrad.get_num_threads() == 3
    assert dyngrad.get_num_threads() == before


def test_public_names():
    names = {n for n in dir(tb) if not n.startswith("_")} - {"Number", "math", "torch", "utils"}
    assert names <= set(dir(db))


# -- Compare --------------------------------------------------------------------------------------

def grid(lib):
    """A table: two labels, rows over sub_labels and thread counts, columns over descriptions,
    one missing cell, one env, noisy and tight cells."""
    out = []
    shapes = {"tight": _TIGHT, "noisy": _NOISY, "mild": _MILD}
    for threads in (1, 4):
        for k, (sub, raw) in enumerate(shapes.items()):
            for j, desc in enumerate(("n=1", "n=64", "n=1024")):
                if (sub, desc, threads) == ("noisy", "n=1024", 4):
                    continue
                scale = (j + 1) ** 2 * 3.3e-6 * (k + 1) / threads
                spec = lib.TaskSpec(stmt="x.add(y)", setup="pass", label="add", sub_label=sub,
                                    description=desc, num_threads=threads)
                out.append(lib.Measurement(10 * (j + 1), [t * scale * 10 * (j + 1) for t in raw],
                                           spec))
    for desc, scale in (("n=1", 1.7e-3), ("n=64", 0.11)):
        out.append(lib.Measurement(1, [t * scale for t in _MILD],
                                   lib.TaskSpec("mm()", "pass", label="matmul", description=desc,
                                                env="old")))
        out.append(lib.Measurement(1, [t * scale * 1.05 for t in _TIGHT],
                                   lib.TaskSpec("mm()", "pass", label="matmul", sub_label="T",
                                                description=desc, env="new")))
    return out


def render(lib, results, *options):
    c = lib.Compare(results)
    for name, *args in options:
        getattr(c, name)(*args)
    buf = io.StringIO()
    with redirect_stdout(buf):
        c.print()
    assert buf.getvalue() == str(c) + "\n"
    return buf.getvalue()


@pytest.mark.parametrize("options", [
    (), (("trim_significant_figures",),), (("colorize",),), (("colorize", True),),
    (("highlight_warnings",),),
    (("trim_significant_figures",), ("colorize",), ("highlight_warnings",)),
    (("trim_significant_figures",), ("colorize", True), ("highlight_warnings",)),
])
def test_compare_table(options):
    assert render(db, grid(db), *options) == render(tb, grid(tb), *options)


@pytest.mark.parametrize("i", range(len(MEASUREMENTS)))
def test_compare_single(i):
    """One-cell tables; torch cannot render a table without a description (TypeError)."""
    opts = (("trim_significant_figures",), ("highlight_warnings",))
    assert (outcome(lambda: render(db, [measurement(db, i)], *opts))
            == outcome(lambda: render(tb, [measurement(tb, i)], *opts)))


def test_compare_env_quirks():
    """torch fails (TypeError) when envs mix None and strings; dyngrad fails the same way."""
    def run(lib, threads):
        ms = [lib.Measurement(1, [1e-6, 1.1e-6, 1.2e-6, 1.3e-6],
                              lib.TaskSpec("x", "pass", description="d", env=env,
                                           sub_label=env, num_threads=n))
              for env, n in ((None, 1), ("e", threads))]
        return outcome(lambda: str(lib.Compare(ms)))
    for threads in (1, 2):
        assert run(db, threads) == run(tb, threads)


def test_compare_extend_and_errors():
    def run(lib):
        c = lib.Compare([measurement(lib, 0)])
        c.extend_results([measurement(lib, 0), measurement(lib, 7)])
        err = outcome(lambda: c.extend_results([measurement(lib, 1), 3]))
        c.extend_results(m for m in grid(lib)[:4])
        # measurement 7 has an env, 0 has none: torch's row sort fails (TypeError)
        return outcome(lambda: str(c)), err, str(lib.Compare([])), len(c._results)
    assert run(db) == run(tb)


# -- Fuzzer ---------------------------------------------------------------------------------------

def fuzzer(lib, L, seed=0):
    return lib.Fuzzer(
        parameters=[
            lib.FuzzedParameter("k0", 4, 64, distribution="loguniform"),
            lib.FuzzedParameter("k1", 2, 9, distribution="uniform"),
            lib.FuzzedParameter("scale", 0.5, 2.0, distribution="uniform"),
            [lib.FuzzedParameter("dim", 1, 2, distribution="uniform", strict=True)],
            lib.FuzzedParameter("k2", 1, 70, distribution="loguniform"),
            lib.FuzzedParameter("step", 1, 2, distribution="uniform"),
        ],
        tensors=[
            lib.FuzzedTensor("x", size=("k0", "k1"), steps=("step", 1), dim_parameter="dim",
                             probability_contiguous=0.5, max_elements=400),
            [lib.FuzzedTensor("y", size=("k2", "k1"), min_elements=8),
             lib.FuzzedTensor("z", size=(3, "k1"), dtype=L.int64)],
        ],
        constraints=[lambda p: (p["k0"] + p["k1"]) % 5 != 0],
        seed=seed,
    )


def draws(lib, L, n=12):
    f = fuzzer(lib, L)
    out = []
    for tensors, props, params in f.take(n):
        out.append((
            params,
            {k: (tuple(v.shape), v.stride(), str(v.dtype), v.is_contiguous(), v.numpy().tolist())
             for k, v in tensors.items()},
            {k: {kk: (vv.tolist() if isinstance(vv, np.ndarray) else vv) for kk, vv in v.items()}
             for k, v in props.items()},
        ))
    return out, f.rejection_rate


def test_fuzzer_draws_match_torch():
    assert draws(db, dyngrad) == draws(tb, torch)


def test_fuzzer_errors():
    def run(lib):
        return [
            outcome(lambda: lib.FuzzedParameter("a", 1, 2, distribution="normal")),
            type(lib.FuzzedParameter("a", distribution={1: 0.5, 2: 0.4})).__name__,
            # torch 2.13 refuses normalized dicts and numpy refuses the others
            outcome(lambda: lib.FuzzedParameter("a", distribution={1: 0.5, 2: 0.5})),
            outcome(lambda: lib.FuzzedParameter("a", distribution={1: -0.5, 2: 1.5})),
            outcome(lambda: lib.FuzzedParameter("a", 1, distribution={1: 0.9})),
            outcome(lambda: next(lib.Fuzzer([lib.FuzzedParameter(
                "a", distribution={1: 0.5, 2: 0.4})], [], seed=1).take(1))),
            outcome(lambda: lib.Fuzzer([lib.FuzzedParameter("x", 1, 2, "uniform")],
                                       [lib.FuzzedTensor("x", size=(1,))])),
            outcome(lambda: next(lib.Fuzzer([lib.FuzzedParameter("a", 1, 3, "uniform")],
                                            [], constraints=[lambda p: False], seed=1).take(1))),
            lib.Fuzzer._resolve_aliases({"a": lib.ParameterAlias("b"),
                                         "b": lib.ParameterAlias("c"), "c": 3}),
            repr(lib.ParameterAlias("k")),
        ]
    assert run(db) == run(tb)
    cycle = {"a": db.ParameterAlias("b"), "b": db.ParameterAlias("a")}
    with pytest.raises(ValueError, match="ParameterAlias cycle detected"):
        db.Fuzzer._resolve_aliases(cycle)


@pytest.mark.parametrize("name", ["unary.UnaryOpFuzzer", "binary.BinaryOpFuzzer",
                                  "spectral.SpectralOpFuzzer"])
def test_op_fuzzers(name):
    import importlib

    def run(prefix):
        mod, cls = name.split(".")
        F = getattr(importlib.import_module(f"{prefix}.utils.benchmark.op_fuzzers.{mod}"), cls)
        out = []
        for tensors, props, params in F(seed=3).take(3):
            out.append((params, {k: (tuple(v.shape), v.stride()) for k, v in tensors.items()},
                        {k: v["numel"] for k, v in props.items()}))
        return out
    # torch 2.13's op fuzzers all use normalized dict distributions, which it refuses
    assert outcome(lambda: run("dyngrad")) == outcome(lambda: run("torch"))


# -- Timer (real, short timings) ----------------------------------------------------------------

def test_timer_measurements_structure():
    x = dyngrad.ones(8)
    t = db.Timer("x + x", globals={"x": x}, label="add", sub_label="f32", description="n=8")
    ms = [t.timeit(20), t.blocked_autorange(min_run_time=0.005),
          t.adaptive_autorange(min_run_time=0.005, max_run_time=0.05)]
    spec = tb.Timer("x + x", globals={"x": torch.ones(8)}, label="add", sub_label="f32",
                    description="n=8")._task_spec
    for m in ms:
        assert type(m) is db.Measurement and m.metadata is None
        assert isinstance(m.number_per_run, int) and m.number_per_run >= 1
        assert m.raw_times and all(isinstance(v, float) and v > 0 for v in m.raw_times)
        assert dataclasses.asdict(m.task_spec) == dataclasses.asdict(spec)
        assert m.median > 0 and "Median" in repr(m) or len(m.raw_times) == 1
    assert ms[0].number_per_run == 20 and len(ms[0].raw_times) == 1
    assert sum(ms[1].raw_times) >= 0.005


def test_timer_injects_dyngrad_and_threads():
    seen = []
    t = db.Timer("seen.append((torch, torch.get_num_threads()))", globals={"seen": seen},
                 num_threads=3)
    before = dyngrad.get_num_threads()
    t.timeit(2)
    assert seen and all(s == (dyngrad, 3) for s in seen)
    assert dyngrad.get_num_threads() == before
    mine = []
    db.Timer("mine.append(torch)", globals={"mine": mine, "torch": "user's"}).timeit(2)
    assert set(mine) == {"user's"}


def test_timer_setup_and_dedent():
    def run(lib):
        t = lib.Timer("""
            y = x * 2
            z = y + 1
        """, setup="""
            x = 3
        """, label="L")
        m = t.timeit(3)
        return dataclasses.astuple(m.task_spec), m.number_per_run, len(m.raw_times)
    assert run(db) == run(tb)


def test_timer_callback():
    def run(lib):
        calls = []
        m = lib.Timer("pass").blocked_autorange(
            callback=lambda n, s: calls.append((n, s)), min_run_time=0.002)
        assert all(n == m.number_per_run for n, _ in calls)
        return [s for _, s in calls] == m.raw_times
    assert run(db) is run(tb) is True


def test_timer_errors():
    def run(lib):
        T = lib.Timer
        return [
            outcome(lambda: T(stmt=lambda: 1)),
            outcome(lambda: T("x", global_setup="#include <x>")),
            outcome(lambda: T("x", language="rust")),
            outcome(lambda: T("pass").repeat()),
            outcome(lambda: T("pass").autorange()),
            outcome(lambda: T("undefined_name").timeit(1)),
            outcome(lambda: T("pass", setup="1/0").timeit(1)),
            outcome(lambda: T("pass").collect_callgrind(repeats=0)),
        ]
    assert run(db) == run(tb)


def test_timer_cpp_refused():
    for language in ("c++", "cpp", db.Language.CPP):
        with pytest.raises(NotImplementedError, match="language="):
            db.Timer("auto x = 1;", language=language)
    with pytest.raises(NotImplementedError, match="collect_callgrind"):
        db.Timer("pass").collect_callgrind()


def test_function_counts_and_callgrind_stats():
    def run(lib, prefix):
        fc = lib.FunctionCount
        a = lib.FunctionCounts((fc(900, "Objects/dictobject.c:lookdict_unicode"),
                                fc(500, "/build/aten/src/add.cpp:add [libtorch.so]"),
                                fc(-7, "x" * 120)), inclusive=False, _linewidth=60)
        b = lib.FunctionCounts((fc(200, "/build/aten/src/add.cpp:add [libtorch.so]"),), False)
        many = lib.FunctionCounts(tuple(fc(i, f"f{i}") for i in range(25)), True, _linewidth=60)
        stats = lib.CallgrindStats(lib.TaskSpec("x", "pass", label="L"), 100, False, b, b, a, a,
                                   None)
        shown = [a, a - b, a + b, a * 2.5, a.denoise(), a[:2], many, stats,
                 stats.as_standardized().stats(), stats.delta(stats.as_standardized())]
        return [norm(repr(v), prefix) for v in shown] + [
            tuple(a[0]), len(a), a.sum(), stats.counts(), stats.counts(denoise=True),
            a.transform(lambda s: s[:3]).sum(), outcome(lambda: a + many)]
    assert run(db, "dyngrad") == run(tb, "torch")


def test_random_measurements_match():
    """A seeded sweep over scales (1 ns .. 10 s), spreads and replicate counts: reprs,
    significant figures and trimmed, highlighted one-row tables equal torch's."""
    rng = np.random.default_rng(1)

    def case(lib, raw, number):
        m = lib.Measurement(number, raw, lib.TaskSpec("x", "pass", description="d"))
        c = lib.Compare([m, lib.Measurement(number, raw[::-1] * 2, lib.TaskSpec(
            "y", "pass", description="e"))])
        c.trim_significant_figures()
        c.highlight_warnings()
        return outcome(lambda: (norm(repr(m), lib.__name__.split(".")[0]),
                                m.significant_figures, str(c)))
    for _ in range(150):
        base, spread = 10 ** rng.uniform(-9, 1), rng.uniform(0, 0.6)
        raw = [abs(float(base * (1 + spread * rng.standard_normal())))
               for _ in range(int(rng.integers(1, 30)))]
        number = int(rng.integers(1, 1000))
        assert case(db, raw, number) == case(tb, raw, number)
    for _ in range(300):
        x = float(10 ** rng.uniform(-12, 6)) * float(rng.choice([1, -1]))
        n = int(rng.integers(1, 5))
        assert db.trim_sigfig(x, n) == tb.trim_sigfig(x, n)
        assert db.select_unit(abs(x)) == tb.select_unit(abs(x))
