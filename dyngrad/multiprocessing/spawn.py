"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes and wait for them,
raising the first failure in the parent (torch.multiprocessing.spawn, the same semantics and
messages).

Each process writes the traceback of an exception ``fn`` raised to a file of its own and exits
with status 1; ``ProcessContext.join`` waits for any process to end, and on the first failure
terminates the others and raises ``ProcessRaisedException`` (with that traceback) or, for a
process that died otherwise, ``ProcessExitedException`` (its exit code or signal).
"""
from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"

log = logging.getLogger(__name__)

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "SpawnContext", "start_processes"]


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """Exception raised when a process failed due to an exception raised by the code."""


class ProcessExitedException(ProcessException):
    """Exception raised when a process failed due to signal or exited with a specific code."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                             self.signal_name))


def _prctl_pr_set_pdeathsig(sig) -> None:
    """Have the kernel send `sig` to this process when its parent dies (Linux's prctl; torch's
    C helper of the same name), so children do not outlive a parent that was killed."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(sig), 0, 0, 0)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):   # pragma: no cover
        pass


def _wrap(fn, i, args, error_file):
    _prctl_pr_set_pdeathsig(signal.SIGINT)
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass   # SIGINT: killed by the parent, do nothing
    except Exception:
        import traceback
        with open(error_file, "wb") as fh:   # the parent raises it with this traceback
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes`` started, and their error files."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def _join_procs_with_timeout(self, timeout: float):
        """Attempt to join all processes with a shared timeout."""
        end = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0, end - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None):
        """Join one or more processes: True once all have ended well, False while some still
        run after ``timeout``. On the first process that failed, terminate the others (after
        ``grace_period``, SIGTERM then SIGKILL) and raise its error."""
        if len(self.sentinels) == 0:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return len(self.sentinels) == 0
        if grace_period is not None:
            self._join_procs_with_timeout(grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", process.pid)
                process.terminate()
        self._join_procs_with_timeout(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting via "
                            "SIGKILL", process.pid)
                process.kill()
            process.join()
        failed_process = self.processes[error_index]
        if not os.access(self.error_files[error_index], os.R_OK):   # it did not raise
            exitcode = failed_process.exitcode
            if exitcode < 0:
                try:
                    name = signal.Signals(-exitcode).name
                except ValueError:
                    name = f"<Unknown signal {-exitcode}>"
                raise ProcessExitedException(
                    f"process {error_index:d} terminated with signal {name}",
                    error_index=error_index, error_pid=failed_process.pid, exit_code=exitcode,
                    signal_name=name)
            raise ProcessExitedException(
                f"process {error_index:d} terminated with exit code {exitcode:d}",
                error_index=error_index, error_pid=failed_process.pid, exit_code=exitcode)
        with open(self.error_files[error_index], "rb") as fh:
            original_trace = pickle.load(fh)
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n"
        msg += original_trace
        raise ProcessRaisedException(msg, error_index, failed_process.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` for i in range(nprocs), each in a process started by
    ``start_method``; wait for them all (``join``) or return their ProcessContext. With
    ``start_method='forkserver'`` and TORCH_MP_PARALLEL_START=1 the processes start in
    parallel, as torch's do."""
    start_parallel = (start_method == "forkserver"
                      and os.environ.get(ENV_VAR_PARALLEL_START, "0") == "1")
    if start_parallel:
        log.info("Starting processes in parallel.")
    mp = multiprocessing.get_context(start_method)
    error_files = [None] * nprocs
    processes = [None] * nprocs

    def start_process(i):
        # a file of its own for the traceback; its existence tells that the process raised
        tf = tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle",
                                         delete=False)
        tf.close()
        os.unlink(tf.name)
        process = mp.Process(target=_wrap, args=(fn, i, args, tf.name), daemon=daemon)
        process.start()
        return i, process, tf.name

    if not start_parallel:
        for i in range(nprocs):
            idx, process, tf_name = start_process(i)
            error_files[idx] = tf_name
            processes[idx] = process
    else:
        from concurrent.futures import ThreadPoolExecutor, as_completed
        with ThreadPoolExecutor(max_workers=nprocs) as executor:
            futures = [executor.submit(start_process, i) for i in range(nprocs)]
            for fut in as_completed(futures):
                idx, process, tf_name = fut.result()
                error_files[idx] = tf_name
                processes[idx] = process
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    r"""Spawns ``nprocs`` processes that run ``fn`` with ``args``.

    ``fn`` (defined at the top level of a module, so that it can be pickled) is called as
    ``fn(i, *args)``, ``i`` being the process index. If one of the processes exits with a
    non-zero status, the others are killed and an exception is raised with the cause; an
    exception raised in a process is forwarded with its traceback. Returns None if ``join``,
    else the :class:`ProcessContext`. ``start_method`` is deprecated: it is always 'spawn'
    (use ``start_processes`` for another).
    """
    if start_method != "spawn":
        msg = (f"This method only supports start_method=spawn (got: {start_method}).\n"
               "To use a different start_method use:\n\t\t"
               " torch.multiprocessing.start_processes(...)")
        warnings.warn(msg, FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
