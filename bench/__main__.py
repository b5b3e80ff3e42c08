"""Run the benchmarks: ``python -m bench [--rounds N] [--threads T] [--only NAME]``.

Thread pools are pinned *before* NumPy or torch load (1 thread for the headline run; DESIGN.md
§8), every workload is timed for every system in interleaved rounds (round-robin, so machine
noise hits all systems alike), and each workload first checks that dyngrad's results equal the
baseline's: a wrong fast result is a failure, not a win.
"""
import argparse
import os
import sys


def _pin_threads(n: int) -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


# Set on some machines for older OpenBLAS builds, which compute wrong results or crash on newer
# CPUs; they make a current NumPy's OpenBLAS run older kernels (Haswell's AVX2 on an AVX-512
# CPU: the MLP batch-32 step's GEMMs take a quarter longer). torch's own BLAS ignores them.
_OPENBLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def _native_openblas() -> list:
    """Let NumPy's OpenBLAS choose the kernels for this CPU: drop both overrides, together, in
    this process only (before NumPy loads), so that NumPy is measured as a user would run it.
    Each workload's gradient check still compares NumPy's results with torch's. The table's
    header names the kernel that ran. Returns the overrides dropped."""
    dropped = [f"{v}={os.environ.pop(v)}" for v in _OPENBLAS_OVERRIDES if v in os.environ]
    return dropped


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--only", default=None, help="run only workloads whose name contains this")
    p.add_argument("--json", default="bench/results.json")
    p.add_argument("--markdown", default=None, help="also write the table to this file")
    p.add_argument("--keep-openblas-env", action="store_true",
                   help="keep OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (dropped by default)")
    args = p.parse_args(argv)
    _pin_threads(args.threads)
    if not args.keep_openblas_env:
        dropped = _native_openblas()
        if dropped:
            print(f"bench: running NumPy's OpenBLAS without {' '.join(dropped)} "
                  "(--keep-openblas-env keeps them)", flush=True)
    from .runner import run_all  # imports numpy/torch only after pinning
    return run_all(args)


if __name__ == "__main__":
    sys.exit(main())
