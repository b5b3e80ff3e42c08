"""Start worker scripts under mpiexec (the mpich wheel's, next to the test Python)."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

WORKERS = pathlib.Path(__file__).parent / "workers"
ROOT = pathlib.Path(__file__).resolve().parents[2]


def mpiexec() -> str:
    pytest.importorskip("mpi4py")
    path = pathlib.Path(sys.executable).parent / "mpiexec"
    if not path.exists():
        pytest.fail("mpi4py is installed but the mpich wheel's mpiexec is not next to Python "
                    f"({path}); install the 'distributed' extra")
    return str(path)


def run_workers(n: int, script: str, *args: str, timeout: float = 240.0):
    """Run workers/<script> on n ranks; a hang fails the test after `timeout` seconds."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(WORKERS), str(ROOT)]),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    cmd = [mpiexec(), "-n", str(n), sys.executable, str(WORKERS / script), *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=str(WORKERS))
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{script} on {n} ranks hung for {timeout} s:\n{e.stdout}\n{e.stderr}")
    return proc
