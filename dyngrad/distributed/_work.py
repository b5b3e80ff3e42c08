"""``Work``: the handle a collective returns, and the one loop that waits for MPI requests.

Note [Waiting with a deadline]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every collective, blocking or not, is posted as an MPI non-blocking call (``Iallreduce``,
``Ibcast`` …) and completed by ``Work.wait``. Blocking calls are just ``post(...).wait()``. The
wait polls each request's ``Test`` instead of calling ``MPI_Waitall`` so that it can give up: when
another rank died, exited early or is stuck in a different collective, MPI would block forever,
while we raise a RuntimeError naming the collective once the process group's timeout has passed
(torch's ``timeout=`` argument of ``init_process_group``; 30 minutes by default, as torch).
Every few polls the loop yields the CPU (``time.sleep(0)``): with more ranks than cores
(``mpiexec -n 4`` on 2 cores) a busy spin steals the time the other ranks need to make the
progress we are waiting for, while yielding after every poll slows large messages, which need
many progress steps. Measured on a loaded 2-core machine (all-reduce, 30 rounds, per call):

=====================  ===========  ===========  ============  ============
                       3 floats,    800 KB,      3 floats,     800 KB,
                       2 ranks      2 ranks      4 ranks       4 ranks
=====================  ===========  ===========  ============  ============
MPI blocking           3.6 ms       7.2 ms       6.1 ms        21 ms
Test, yield each poll  0.31 ms      2.1 ms       0.90 ms       11 ms
Test x10, then yield   0.12 ms      1.9 ms       0.81 ms       5.8 ms
Test x100, then yield  0.14 ms      3.2 ms       1.5 ms        11 ms
=====================  ===========  ===========  ============  ============
"""
from __future__ import annotations

import time
from datetime import timedelta

from ..futures import Future as _Future


_POLLS_PER_YIELD = 10   # see Note [Waiting with a deadline]


class Work:
    """A pending (or finished) collective, as ``torch.distributed.Work``.

    ``wait()`` blocks until the operation finished (then its results are in the output tensors)
    and returns True; ``is_completed()`` asks without blocking. ``result()`` lists the output
    tensors. A ``recv``'s ``source_rank()`` says who sent the message.

    ``get_future()`` gives a ``torch.futures.Future`` of ``result()`` (Note [Futures that
    wait on MPI]).
    """

    def __init__(self, name: str, requests=(), finalize=None, outputs=(), timeout=None,
                 source=None):
        self._name = name
        self._requests = list(requests)   # MPI requests (empty: already complete)
        self._finalize = finalize         # runs once, after the requests completed
        self._outputs = list(outputs)
        self._timeout = timeout           # a timedelta (or None: wait forever)
        self._source = source             # recv: a callable giving the sender's rank
        self._done = False
        self._exception = None
        if not self._requests:
            self._complete()

    def _complete(self) -> None:
        if self._done:
            return
        self._done = True
        if self._finalize is not None:
            finalize, self._finalize = self._finalize, None
            try:
                finalize()
            except BaseException as e:   # kept for exception(), raised to the waiter
                self._exception = e
                raise

    def _test(self) -> bool:
        if not self._done:
            # a finished request becomes MPI_REQUEST_NULL, whose Test() is True
            if all([r.Test() for r in self._requests]):
                self._complete()
        return self._done

    def is_completed(self) -> bool:
        """True when the operation has finished (never blocks)."""
        return self._test()

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until the operation finished; raise RuntimeError after ``timeout``.

        See Note [Waiting with a deadline].
        """
        if self._done:
            if self._exception is not None:
                raise self._exception
            return True
        limit = timeout if timeout is not None else self._timeout
        deadline = None if limit is None else time.monotonic() + limit.total_seconds()
        polls = 0
        while not self._test():
            polls += 1
            if polls % _POLLS_PER_YIELD == 0:
                time.sleep(0)
            if deadline is not None and time.monotonic() > deadline:
                ms = int(limit.total_seconds() * 1000)
                self._exception = RuntimeError(
                    f"{self._name}: timed out after {ms}ms waiting for the other ranks. A rank "
                    "may have exited or failed, or the ranks called different collectives "
                    "(see the other ranks' output).")
                raise self._exception
        return True

    def is_success(self) -> bool:
        """True when the operation completed without error (deprecated in torch, kept)."""
        return self._test() and self._exception is None

    def exception(self):
        return self._exception

    def result(self) -> list:
        """The output tensors of the operation (after ``wait()``)."""
        return list(self._outputs)

    def get_future(self):
        """A Future completed with ``result()`` once the operation has finished (with its
        exception if it failed). See Note [Futures that wait on MPI]."""
        return _WorkFuture(self)

    def source_rank(self) -> int:
        """The rank a ``recv``/``irecv`` received from."""
        if self._source is None:
            raise RuntimeError("source_rank() is only available on a recv/irecv Work")
        self.wait()
        return self._source()

    def synchronize(self) -> None:
        """A no-op on CPU (torch synchronizes CUDA streams here)."""

    def __repr__(self) -> str:
        state = "completed" if self._done else "pending"
        return f"<dyngrad.distributed.Work {self._name} ({state})>"


def completed_work(name: str, outputs=()) -> Work:
    """A Work for an operation that has already finished (single-process backend)."""
    return Work(name, outputs=outputs)


# Note [Futures that wait on MPI]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's backends complete a Work's future from their own threads, which run its callbacks. An
# MPI request completes only when someone tests or waits on it, and dyngrad runs no thread to do
# that: a Work's future moves its requests on whenever it, or a future made from it (``then``,
# ``collect_all``), is asked whether it is done or waited on. Its callbacks then run in the
# thread that asked. A collective that finished when it was posted (a blocking call, a world of
# one) gives a future that is complete from the start.
class _WorkFuture(_Future):
    """The Future of a Work: completed from the Work's requests, when polled or waited on."""

    def __init__(self, work: Work):
        super().__init__()
        self._work = work
        self._poll()

    def _settle(self) -> None:
        with self._cond:
            if self._done:
                return
        work = self._work
        try:
            if work.exception() is not None:
                self._complete(None, work.exception())
            else:
                self._complete(work.result(), None)
        except RuntimeError:
            if not self._done:   # (else another thread settled it first)
                raise

    def _poll(self) -> None:
        try:
            finished = self._work.is_completed()
        except Exception:   # noqa: BLE001  (the Work keeps it: _settle hands it on)
            finished = True
        if finished:
            self._settle()

    def _block(self) -> None:
        try:
            self._work.wait()
        except Exception:   # noqa: BLE001  (the Work keeps it: _settle hands it on)
            pass
        self._settle()
