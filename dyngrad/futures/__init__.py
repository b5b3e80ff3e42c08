"""torch.futures: a value that will be set later, and callbacks that run once it is.

A Future is completed once, with ``set_result`` or ``set_exception``; ``wait()`` blocks until
then and returns the value (or raises the exception); ``then(callback)`` returns a new Future
for ``callback(this_future)``, run when this one completes (at once if it has); and
``add_done_callback`` runs a callback without making a future of its result. torch's ops
that return futures here are ``torch.jit.fork`` (which runs the function at once: TorchScript
is off) and a collective's ``Work.get_future()``, whose MPI requests complete while someone
waits on the future or asks whether it is done (Note [Futures that wait on MPI] in
distributed/_work.py).
"""
from __future__ import annotations

import threading
import traceback
from typing import Generic, TypeVar

T = TypeVar("T")

__all__ = ["Future", "collect_all", "wait_all"]

_NOT_COMPLETED = ('completed() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
                  'core/ivalue_inl.h":1016, please report a bug to PyTorch. ')
_TWICE = ("Attempting to mark a completed Future as complete again. Note that a Future can only "
          "be marked completed once.")


class Future(Generic[T]):
    """A placeholder for a result that a computation sets later (torch.futures.Future;
    ``Future[Tensor]`` names a future of a tensor, as in annotations of DDP hooks)."""

    def __init__(self, *, devices=None):
        for d in devices or ():
            from .. import _device
            d = _device.device(d)
            if d.index is None:
                raise ValueError(f"Expected devices to have indices, got {d}")
            if d.type != "cpu":
                from ..ops.creation import check_device
                check_device(d)
        self._cond = threading.Condition()
        self._done = False
        self._value = None
        self._error = None
        self._callbacks = []
        self._parents = ()   # the futures whose completion completes this one (then, collect_all)

    # -- completion ------------------------------------------------------------------------------
    def _poll(self) -> None:
        """Move the work this future waits on forward without blocking: the futures it was made
        from (a Work's future tests its MPI requests instead)."""
        for parent in self._parents:
            parent._poll()

    def _block(self) -> None:
        """Wait until completed, driving the futures it was made from first."""
        for parent in self._parents:
            parent._block()
        with self._cond:
            while not self._done:
                self._cond.wait()

    def done(self) -> bool:
        """Whether the future has a result or an exception (never blocks)."""
        self._poll()
        return self._done

    def wait(self):
        """Block until the future completes; its value, or its exception raised."""
        self._block()
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        """The value of a completed future (its exception raised); never blocks."""
        self._poll()
        if not self._done:
            raise RuntimeError(_NOT_COMPLETED)
        if self._error is not None:
            raise self._error
        return self._value

    def set_result(self, result) -> None:
        """Complete the future with `result` and run its callbacks."""
        self._complete(result, None)

    def set_exception(self, result) -> None:
        """Complete the future with the exception `result` (raised by ``wait``/``value``)."""
        if not isinstance(result, Exception):   # (torch asserts it)
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    def _complete(self, value, error) -> None:
        with self._cond:
            if self._done:
                raise RuntimeError(_TWICE)
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for callback in callbacks:
            callback(self)

    # -- callbacks -------------------------------------------------------------------------------
    def then(self, callback) -> Future:
        """A new future for ``callback(self)``, run once this one completes; an exception in the
        callback completes the new future with torch's RuntimeError naming it."""
        child = Future()
        child._parents = (self,)

        def run(parent):
            try:
                result = callback(parent)
            except Exception as e:   # noqa: BLE001  (handed to whoever waits on the child)
                trace = "".join(traceback.format_tb(e.__traceback__))
                child.set_exception(RuntimeError(
                    "Got the following error when running the callback: "
                    f"{type(e).__name__}: {e}\n\nAt:\n{trace}"))
                return
            child.set_result(result)
        self._add_callback(run)
        return child

    def add_done_callback(self, callback) -> None:
        """Run ``callback(self)`` once the future completes (at once if it has)."""
        self._add_callback(callback)

    def _add_callback(self, callback) -> None:
        self._poll()
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)


def collect_all(futures) -> Future:
    """A future completed, with the list of `futures`, once all of them are."""
    futures = list(futures)
    combined = Future()
    combined._parents = tuple(futures)
    if not futures:
        combined.set_result([])
        return combined
    left = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            combined.set_result(futures)
    for fut in futures:
        fut.add_done_callback(one_done)
    return combined


def wait_all(futures) -> list:
    """Wait for every future; their values, in order (the first exception is raised)."""
    return [fut.wait() for fut in futures]
