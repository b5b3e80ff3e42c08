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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--only", default=None, help="run only workloads whose name contains this")
    p.add_argument("--json", default="bench/results.json")
    p.add_argument("--markdown", default=None, help="also write the table to this file")
    args = p.parse_args(argv)
    _pin_threads(args.threads)
    from .runner import run_all  # imports numpy/torch only after pinning
    return run_all(args)


if __name__ == "__main__":
    sys.exit(main())
