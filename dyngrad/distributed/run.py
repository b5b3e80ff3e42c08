"""``python -m dyngrad.distributed.run -n 4 script.py [args]``: start N ranks of a script.

A thin wrapper over the ``mpiexec`` that ships with the ``mpich`` wheel (found next to the
Python interpreter, else on PATH): it runs

    mpiexec -n 4 [-f hostfile] [-hosts a,b] [-ppn k] python -m dyngrad.distributed.run \
        --worker script.py [args]

and each worker sets torchrun's environment variables before running the script as
``__main__``: ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``,
``MASTER_PORT`` (informational: MPI does the rendezvous), read from the PMI variables mpiexec
gives every process. ``mpiexec`` itself spans machines: see docs/distributed.md.

A worker whose script raises (or exits with a non-zero status) after MPI started calls
``MPI_Abort``, so ``mpiexec`` stops the other ranks instead of leaving them waiting
(Note [A failing rank stops the job] in _mpi.py).
"""
from __future__ import annotations

import argparse
import os
import runpy
import shlex
import shutil
import socket
import sys
import traceback


def find_mpiexec() -> str:
    """The mpiexec next to this Python (the mpich wheel's), else the first on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("mpiexec not found: install the MPI extra "
                           "(pip install -e '.[distributed]', which brings mpi4py and "
                           "the mpich wheel)")
    return found


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m dyngrad.distributed.run",
        description="Run a script on N processes over MPI (a wrapper over mpiexec).")
    p.add_argument("-n", "--np", "--nproc-per-node", "--nproc_per_node", dest="n", type=int,
                   default=1, help="number of processes in all (mpiexec -n)")
    p.add_argument("-f", "--hostfile", help="mpiexec host file: one 'host[:slots]' per line")
    p.add_argument("--hosts", help="comma-separated host names (mpiexec -hosts)")
    p.add_argument("--ppn", type=int, help="processes per host (mpiexec -ppn)")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("--mpiexec-args", default="", help="more mpiexec options, one string")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the target as a module (python -m), like torchrun -m")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("script", help="the script (or module with -m) to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def launch_command(opts) -> list:
    """The mpiexec command line the launcher runs."""
    cmd = [find_mpiexec(), "-n", str(opts.n)]
    if opts.hostfile:
        cmd += ["-f", opts.hostfile]
    if opts.hosts:
        cmd += ["-hosts", opts.hosts]
    if opts.ppn:
        cmd += ["-ppn", str(opts.ppn)]
    cmd += ["-genv", "MASTER_ADDR", socket.gethostname(),
            "-genv", "MASTER_PORT", str(opts.master_port)]
    cmd += shlex.split(opts.mpiexec_args)
    cmd += [sys.executable, "-m", "dyngrad.distributed.run", "--worker"]
    if opts.module:
        cmd.append("-m")
    return cmd + [opts.script] + list(opts.args)


def worker_environment(env) -> dict:
    """torchrun's variables from the ones mpiexec sets (MPICH's PMI_*, Open MPI's OMPI_*)."""
    rank = env.get("PMI_RANK", env.get("OMPI_COMM_WORLD_RANK", "0"))
    size = env.get("PMI_SIZE", env.get("OMPI_COMM_WORLD_SIZE", "1"))
    local = env.get("MPI_LOCALRANKID", env.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
    local_size = env.get("MPI_LOCALNRANKS", env.get("OMPI_COMM_WORLD_LOCAL_SIZE", size))
    return {"RANK": rank, "WORLD_SIZE": size, "LOCAL_RANK": local,
            "LOCAL_WORLD_SIZE": local_size, "GROUP_RANK": "0",
            "MASTER_ADDR": env.get("MASTER_ADDR", "localhost"),
            "MASTER_PORT": env.get("MASTER_PORT", "29500")}


def _abort(code: int) -> None:
    """Stop every rank when MPI is running; otherwise just leave with `code`."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized() \
            and mpi.COMM_WORLD.Get_size() > 1:
        sys.stderr.write(f"dyngrad.distributed.run: rank {os.environ.get('RANK')} failed; "
                         f"aborting all {mpi.COMM_WORLD.Get_size()} ranks (MPI_Abort)\n")
        sys.stderr.flush()
        mpi.COMM_WORLD.Abort(code)
    os._exit(code)


def run_worker(opts) -> None:
    os.environ.update(worker_environment(os.environ))
    sys.argv = [opts.script] + list(opts.args)
    try:
        if opts.module:
            runpy.run_module(opts.script, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(opts.script)))
            runpy.run_path(opts.script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code != 0:
            if not isinstance(e.code, int) and e.code is not None:
                sys.stderr.write(f"{e.code}\n")
            _abort(code)
        raise
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        _abort(1)


def main(argv=None) -> int:
    opts = _parser().parse_args(argv)
    if opts.worker:
        run_worker(opts)
        return 0
    import subprocess
    return subprocess.call(launch_command(opts))


if __name__ == "__main__":
    sys.exit(main())
