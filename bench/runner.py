"""Interleaved timing of every workload on every system, the table, ratios and JSON."""
from __future__ import annotations

import datetime
import json
import platform
import statistics
import subprocess
import time
import tracemalloc

from . import checkpointing, mlp_kernels, optimizers, training, workloads


def _time_call(fn, inner: int) -> float:
    """Seconds per call of `fn`, over `inner` calls."""
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def _calibrate(fn, target: float = 0.02) -> int:
    """How many calls make one timing sample last about `target` seconds (after a first call,
    which may pay one-time costs: dyngrad imports SciPy's BLAS on its first ``add_`` with an
    alpha, and a sample of one call would then be timed cold).

    Each trial count is timed three times and the fastest kept: a single slow call (a
    collection of the cyclic GC, another process) once made the gradient penalty calibrate to
    2 calls per sample instead of about 75, and samples that short run with the caches the
    other systems just filled, twice as slow: that system's median doubled for the whole run
    (dyngrad's or torch's, whichever it hit; the ratio read 0.7 or 2.9 instead of 1.45)."""
    fn()
    n = 1
    while True:
        t = min(_time_call(fn, n) for _ in range(3)) * n
        if t >= target / 4 or n >= 1 << 20:
            return max(1, int(n * target / max(t, 1e-9)))
        n *= 4


def _peak_bytes(fn) -> int:
    """Peak bytes Python's allocator (NumPy arrays included) holds during one call of `fn`."""
    fn()                              # warm caches first: measure the steady state
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def run_workload(w, rounds: int) -> dict:
    systems = w.setup()               # {"dyngrad": fn, "torch": fn, "numpy": fn}
    w.check(systems)                  # raises when dyngrad's answer differs from the baseline
    if getattr(w, "memory", False):
        peaks = {name: _peak_bytes(fn) for name, fn in systems.items()}
        stats = {name: {"median": v, "min": v, "max": v} for name, v in peaks.items()}
        return {"name": w.name, "unit": w.unit, "stats": stats, "budget": w.budget}
    rounds = min(rounds, getattr(w, "rounds", rounds))
    inner = {name: _calibrate(fn) for name, fn in systems.items()}
    samples = {name: [] for name in systems}
    for _ in range(rounds):           # round-robin: each round times every system once
        for name, fn in systems.items():
            samples[name].append(_time_call(fn, inner[name]) * w.per_call_scale)
    stats = {name: {"median": statistics.median(v), "min": min(v), "max": max(v)}
             for name, v in samples.items()}
    return {"name": w.name, "unit": w.unit, "stats": stats, "budget": w.budget}


def _fmt(value: float, unit: str) -> str:
    """Seconds in µs or ms, or bytes in MB."""
    if unit == "MB":
        return f"{value / 1e6:.1f}"
    return f"{value * 1e6:.2f}" if unit == "us" else f"{value * 1e3:.3f}"


def table(results) -> str:
    lines = ["| workload | dyngrad | torch | numpy | dyngrad/torch | dyngrad/numpy | budget |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        s, u = r["stats"], r["unit"]
        cells = []
        for name in ("dyngrad", "torch", "numpy"):
            if name in s:
                m = s[name]
                cells.append(f"{_fmt(m['median'], u)} {u} ({_fmt(m['min'], u)}–"
                             f"{_fmt(m['max'], u)})")
            else:
                cells.append("—")
        d = s["dyngrad"]["median"]
        rt = f"{d / s['torch']['median']:.2f}" if "torch" in s else "—"
        rn = f"{d / s['numpy']['median']:.2f}" if "numpy" in s else "—"
        lines.append(f"| {r['name']} | {' | '.join(cells)} | {rt} | {rn} | {r['budget']} |")
    return "\n".join(lines)


def machine() -> str:
    import numpy
    import torch
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{cpu}; Python {platform.python_version()}; numpy {numpy.__version__} "
            f"({_numpy_blas()}); axpy and gemm+bias {_scipy_blas()}; torch {torch.__version__}; "
            f"threads {torch.get_num_threads()}")


def _numpy_blas() -> str:
    """NumPy's BLAS and the kernels it runs on this CPU (threadpoolctl), e.g. "openblas
    0.3.31 SkylakeX"."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "BLAS unknown: threadpoolctl is not installed"
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    # NumPy's own (a wheel bundles it under numpy.libs), else the first BLAS loaded
    pools.sort(key=lambda p: "numpy" not in p.get("filepath", ""))
    if not pools:
        return "BLAS unknown"
    pool = pools[0]
    return f"{pool['internal_api']} {pool['version']} {pool.get('architecture', '')}"


def _scipy_blas() -> str:
    """Where dyngrad's two SciPy BLAS calls run (``add_(g, alpha=)``'s axpy and addmm's gemm
    onto the bias): SciPy's BLAS (its version and kernels) while every BLAS library runs one
    thread, else NumPy (Note [One BLAS thread pool at a time] in dyngrad/backends/blas.py)."""
    from dyngrad.backends import blas
    if not blas._load():
        return "NumPy (no SciPy or threadpoolctl)"
    if not blas.single_threaded():
        return "NumPy (more than one BLAS thread)"
    import scipy
    from threadpoolctl import threadpool_info
    pools = [p for p in threadpool_info()
             if p.get("user_api") == "blas" and "scipy" in p.get("filepath", "")]
    kernel = f" ({pools[0]['internal_api']} {pools[0].get('architecture', '')})" if pools else ""
    return f"scipy {scipy.__version__}{kernel}"


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_all(args) -> int:
    import torch
    torch.set_num_threads(args.threads)
    results = []
    for w in workloads.ALL + training.ALL + mlp_kernels.ALL + optimizers.ALL + \
            checkpointing.ALL:
        if args.only and args.only not in w.name:
            continue
        print(f"running {w.name} …", flush=True)
        results.append(run_workload(w, args.rounds))
    header = (f"{datetime.date.today()} · commit {commit()} · {machine()} · "
              f"{args.rounds} interleaved rounds · medians (min–max)")
    text = header + "\n\n" + table(results)
    print("\n" + text)
    with open(args.json, "w") as f:
        json.dump({"header": header, "results": results}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("# Benchmark results\n\nLatest run of `make bench` (`python -m bench`).\n\n"
                    + text + "\n")
    return 0
