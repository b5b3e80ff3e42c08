"""Shared by the tests of dyngrad/backends/blas.py (SciPy's BLAS routines): they need SciPy and
threadpoolctl, and run with one thread per BLAS library, the only setting in which the routines
run (Note [One BLAS thread pool at a time]); CI runs with the machine's default count."""
from __future__ import annotations

import pytest

pytest.importorskip("scipy.linalg")
threadpoolctl = pytest.importorskip("threadpoolctl")


@pytest.fixture(autouse=True)
def one_blas_thread():
    """Autouse in every module that imports it."""
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        yield


def counted(monkeypatch, blas, table, record):
    """Replace each routine of ``blas.<table>`` ("_routines" or "_gemms") by one that calls
    ``record(*args)`` and then the routine; returns the list `record` appends to."""
    if getattr(blas, table) is None:
        blas._load()
    routines = dict(getattr(blas, table))

    def counting(routine):
        def run(*args, **kwargs):
            record(*args, **kwargs)
            return routine(*args, **kwargs)
        return run
    monkeypatch.setattr(blas, table, {k: counting(f) for k, f in routines.items()})
