"""Grad modes: thread-local switches read by the dispatcher (torch/autograd/grad_mode.py).

Each context manager also works as a decorator, as in torch.
"""
from __future__ import annotations

import functools
import inspect
import threading
import warnings


class _State(threading.local):
    grad_enabled = True   # whether ops are recorded (what the dispatcher reads)
    inference = False
    grad_mode = True      # grad mode as set, which inference mode keeps from recording


_state = _State()

# Note [Grad mode inside inference mode]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Inside ``inference_mode`` nothing is recorded, even where ``enable_grad`` (or
# ``set_grad_enabled(True)``) turns grad mode back on: torch's inference mode keeps autograd
# out of the dispatch, and grad mode is only the flag that ``is_grad_enabled()`` reports. So
# the managers set two flags: ``grad_mode``, the mode as set, and ``grad_enabled``, which the
# dispatcher reads, true only outside inference mode. ``is_grad_enabled()`` reports
# ``grad_mode`` there, ``grad_enabled`` elsewhere (the engine and a custom Function's apply
# switch that one alone).


def _set_grad_mode(mode: bool) -> None:
    _state.grad_mode = mode
    _state.grad_enabled = mode and not _state.inference

# Note [Open inference blocks]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Reading a thread-local flag costs ~40 ns, a sizeable part of a tiny op's fast path
# (ops/_dispatch.py, Note [Hot path]). So instead of reading ``_state.inference`` on every op,
# the fast paths step aside while any ``inference_mode`` block is open in any thread, and the
# general path, which reads the flag, serves those calls. This counts the open blocks and tells
# the dispatcher through ``on_mode_change`` (which forward_ad.py calls too, when a forward-AD level
# is entered or left: the fast paths step aside then as well).
_open_inference_blocks = 0
_blocks_lock = threading.Lock()
on_mode_change = None   # set by ops/_dispatch.py


def _count_inference_block(delta: int) -> None:
    global _open_inference_blocks
    with _blocks_lock:   # (the dispatcher too: it must see the counts in order)
        _open_inference_blocks += delta
        if on_mode_change is not None:
            on_mode_change()


def is_grad_enabled() -> bool:
    """True when grad mode is on in this thread: operations are recorded for autograd, but
    inside inference mode (Note [Grad mode inside inference mode])."""
    return _state.grad_enabled or _state.inference and _state.grad_mode


def is_inference_mode_enabled() -> bool:
    return _state.inference


_CLASS_DECORATED = (
    "Decorating classes is deprecated and will be disabled in future versions. You should "
    "only decorate functions or methods. To preserve the current behavior of class "
    "decoration, you can directly decorate the `__init__` method and nothing else.")


class _DecoratorContextManager:
    """Base for the grad-mode managers: usable as ``with`` and as ``@decorator``.

    A decorated function runs inside a fresh copy of the manager (``clone``), so one decorator
    serves any number of calls, nested or in other threads. A decorated generator function
    gets the mode around each of its steps, not around the call that only creates the
    generator (which runs none of its body): see ``_each_step_in``. A decorated class is
    called through a plain function, with torch's FutureWarning."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(_CLASS_DECORATED, FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)   # noqa: E731
        if inspect.isgeneratorfunction(func):
            return _each_step_in(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


def _each_step_in(make_context, genfunc):
    """`genfunc` with every resumption of its generators (the first ``next``, each ``send``,
    ``throw`` and ``close``) run inside a new ``make_context()``, and the caller's own mode in
    between: a generator that yields inside ``no_grad`` leaves its consumer's grad mode alone."""
    @functools.wraps(genfunc)
    def generator(*args, **kwargs):
        inner = genfunc(*args, **kwargs)
        try:
            with make_context():
                value = inner.send(None)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with make_context():
                        inner.close()
                    raise
                except BaseException as error:   # (thrown in by the consumer: passed on)
                    with make_context():
                        value = inner.throw(error)
                else:
                    with make_context():
                        value = inner.send(sent)
        except StopIteration as done:
            return done.value
    return generator


class _NoArgumentDecorator(_DecoratorContextManager):
    """A manager that also decorates without parentheses (``@torch.no_grad``)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoArgumentDecorator):
    """Disable gradient recording inside the block."""

    def __enter__(self) -> None:
        self.prev = (_state.grad_enabled, _state.grad_mode)
        _state.grad_enabled = _state.grad_mode = False

    def __exit__(self, *exc) -> None:
        _state.grad_enabled, _state.grad_mode = self.prev


class enable_grad(_NoArgumentDecorator):
    """Enable gradient recording inside the block (inside ``no_grad`` too; inside
    ``inference_mode``, grad mode alone: Note [Grad mode inside inference mode])."""

    def __enter__(self) -> None:
        self.prev = (_state.grad_enabled, _state.grad_mode)
        _set_grad_mode(True)

    def __exit__(self, *exc) -> None:
        _state.grad_enabled, _state.grad_mode = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode; takes effect at once (as a function) or for a block (as a manager)."""

    def __init__(self, mode: bool) -> None:
        self.prev = (_state.grad_enabled, _state.grad_mode)
        self.mode = bool(mode)
        _set_grad_mode(self.mode)

    def __call__(self, func):
        # used as a decorator: undo the switch __init__ made (torch does the same)
        _state.grad_enabled, _state.grad_mode = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        _set_grad_mode(self.mode)

    def __exit__(self, *exc) -> None:
        _state.grad_enabled, _state.grad_mode = self.prev

    def clone(self):
        return self.__class__(self.mode)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


_multithreading = [True]   # torch's engine flag (process-wide here; dyngrad's engine always
                           # runs backward on the calling thread, so it changes nothing else)


def is_multithreading_enabled() -> bool:
    """Whether multithreaded backward is enabled (stored only: see set_multithreading_enabled)."""
    return _multithreading[0]


class set_multithreading_enabled(_DecoratorContextManager):
    """torch's switch for running backward on per-device worker threads. dyngrad's engine runs
    backward on the calling thread either way; the flag is kept so code that sets and reads it
    runs, and, as torch's, it takes effect at construction and is restored on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _multithreading[0]
        _multithreading[0] = bool(mode)
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _multithreading[0] = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """No-grad mode whose tensors are marked as inference tensors (torch.inference_mode)."""

    def __new__(cls, mode_or_fn=True):
        if isinstance(mode_or_fn, bool):
            return super().__new__(cls)
        return cls()(mode_or_fn)   # (``@torch.inference_mode``, without parentheses)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = (_state.grad_enabled, _state.inference, _state.grad_mode)
        # inference_mode(False) turns inference off and grad mode on, as torch's guard does
        _state.grad_enabled = _state.grad_mode = not self.mode
        _state.inference = bool(self.mode)
        _count_inference_block(1)

    def __exit__(self, *exc) -> None:
        _state.grad_enabled, _state.inference, _state.grad_mode = self.prev
        _count_inference_block(-1)

    def clone(self):
        return self.__class__(self.mode)
