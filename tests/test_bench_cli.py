"""`python -m bench` lets NumPy's OpenBLAS run this CPU's own kernels: it drops the
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE overrides some machines set, in its own process only, and
names the kernel that ran in the table's header (``--keep-openblas-env`` keeps them)."""
import json
import os
import pathlib
import platform
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                                reason="OPENBLAS_CORETYPE=Haswell names an x86-64 kernel")


def _bench(tmp_path, *flags):
    """Run the bench with no workload selected (only its set-up and header) under a forced
    Haswell kernel; returns (stdout, header)."""
    env = dict(os.environ, OPENBLAS_CORETYPE="Haswell", OPENBLAS_L2_SIZE="512")
    out = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "--only", "no workload has this name",
                           "--json", str(out), *flags], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True, timeout=300)
    return proc.stdout, json.loads(out.read_text())["header"]


def test_bench_drops_the_openblas_overrides_in_its_own_process(tmp_path):
    stdout, header = _bench(tmp_path)
    assert "without OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512" in stdout
    assert "openblas" in header   # NumPy's BLAS and kernel, named by threadpoolctl


def test_keep_openblas_env_keeps_the_forced_kernel(tmp_path):
    stdout, header = _bench(tmp_path, "--keep-openblas-env")
    assert "without OPENBLAS" not in stdout
    assert "Haswell" in header


def test_calibration_skips_a_slow_first_call():
    """A one-time cost in the first call (dyngrad imports SciPy's BLAS on its first ``add_``
    with an alpha) must not make each timing sample a single cold call."""
    sys.path.insert(0, str(ROOT))
    try:
        from bench.runner import _calibrate
    finally:
        sys.path.remove(str(ROOT))
    import time
    calls = []

    def fn():
        if not calls:
            time.sleep(0.05)
        calls.append(1)
    assert _calibrate(fn) > 100


def test_header_names_where_the_scipy_blas_calls_run(tmp_path):
    _, header = _bench(tmp_path)
    assert "axpy and gemm+bias scipy" in header or "axpy and gemm+bias NumPy (" in header
