"""Multi-process tests: worker scripts run under `mpiexec -n 2` and `-n 4` (oversubscribed on
a 2-core machine). Each worker makes many checks and prints how many passed; a failing check
raises, which aborts every rank (so the mpiexec exit status is non-zero)."""
from __future__ import annotations

import re

import pytest

from .mpi_helpers import run_workers


def _passed(proc, name: str, n: int) -> list:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    # (?<!_): "collectives" must not match inside "autograd_collectives"; no line anchors,
    # since mpiexec may join two ranks' lines ("…checks OKautograd_collectives rank 0/4…")
    counts = [int(c) for c in re.findall(rf"(?<!_){name} rank \d+/{n}: (\d+) checks OK", out)]
    assert len(counts) == n, out
    return counts


_SUITE = {}


def suite(n: int):
    """workers/suite.py on n ranks, run once per n for the tests below."""
    if n not in _SUITE:
        _SUITE[n] = run_workers(n, "suite.py")
    return _SUITE[n]


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_against_numpy(n):
    counts = _passed(suite(n), "collectives", n)
    assert min(counts) > 150


@pytest.mark.parametrize("n", [2, 4])
def test_autograd_collectives_finite_differences_and_one_process(n):
    counts = _passed(suite(n), "autograd_collectives", n)
    assert min(counts) > 100


def test_a_rank_that_raises_stops_the_others():
    proc = run_workers(3, "failing.py", "raise", timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0             # (run_workers fails the test on a hang)
    assert "ValueError: rank 1 failed on purpose" in out
    assert "rank 1 raised ValueError; aborting all 3 ranks (MPI_Abort)" in out
    assert "should not get here" not in out


def test_a_rank_that_leaves_makes_the_others_time_out():
    proc = run_workers(3, "failing.py", "leave", timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "all_reduce: timed out after 3000ms waiting for the other ranks" in out
    assert "should not get here" not in out


@pytest.mark.parametrize("n", [2, 4])
def test_ddp_matches_one_process_training(n):
    counts = _passed(suite(n), "ddp", n)
    assert min(counts) > 60


def test_launcher_sets_torchrun_variables():
    import subprocess
    import sys

    from .mpi_helpers import ROOT, WORKERS, mpiexec
    mpiexec()
    proc = subprocess.run([sys.executable, "-m", "dyngrad.distributed.run", "-n", "2",
                           str(WORKERS / "launched.py"), "--flag", "value"],
                          capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert sorted(re.findall(r"launched rank (\d)/2: sum 1", out)) == ["0", "1"], out


def _launch(n: int, *args: str):
    import subprocess
    import sys

    from .mpi_helpers import ROOT, mpiexec
    mpiexec()
    proc = subprocess.run([sys.executable, "-m", "dyngrad.distributed.run", "-n", str(n),
                           *args], capture_output=True, text=True, timeout=240, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_ddp_example_reaches_the_same_accuracy_on_1_and_2_processes(capsys, monkeypatch):
    import runpy

    from .mpi_helpers import ROOT
    args = ["--epochs", "2", "--train", "128"]
    monkeypatch.setattr("sys.argv", ["ddp_train.py", *args])
    runpy.run_path(str(ROOT / "examples" / "ddp_train.py"), run_name="__main__")  # loopback
    alone = capsys.readouterr().out
    two = _launch(2, "examples/ddp_train.py", *args)
    lines = [[re.sub(r"\(.*\)", "", line) for line in out.splitlines()
              if line.startswith("epoch")] for out in (alone, two)]
    assert len(lines[0]) == 2 and lines[0] == lines[1], (alone, two)


def test_mixture_of_experts_example_trains_through_all_to_all():
    out = _launch(2, "examples/moe_all_to_all.py", "--steps", "100", "--check")
    assert "with 2 experts" in out
