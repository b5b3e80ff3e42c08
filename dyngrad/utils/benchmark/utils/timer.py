"""``Timer``: ``timeit.Timer`` with replicates, a fixed thread count and labelled results.

The statement runs in a namespace made of the user's ``globals`` plus ``torch`` bound to dyngrad
(unless the user binds ``torch`` themselves), so ``Timer("torch.mm(x, x)", ...)`` times dyngrad.
"""
import enum
import textwrap
import timeit
from typing import Any, Callable, Dict, List, Optional, Union

import dyngrad
from . import common
from .valgrind_wrapper import timer_interface

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The default clock. (torch synchronizes an accelerator first; dyngrad runs on the CPU
    only, so this is ``timeit.default_timer``.)"""
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


_CPP_REFUSAL = (
    "Timer(language={!r}): C++ statements are compiled against libtorch and timed in C++; "
    "dyngrad is pure Python on NumPy and has no C++ API, so only language='python' "
    "(Language.PYTHON) is supported.")

_CALLGRIND_REFUSAL = (
    "Timer.collect_callgrind is not supported by dyngrad: torch runs the statement under "
    "valgrind and switches instruction counting on and off around it through Callgrind "
    "client requests compiled into torch._C, and dyngrad (pure Python) has no such compiled "
    "bindings. Use blocked_autorange() or adaptive_autorange() for wall times.")


class Timer:
    """Time a Python statement, ``timeit`` style, and return ``Measurement`` objects.

    Unlike ``timeit``: a warmup runs first; the statement runs with dyngrad's thread count set
    to ``num_threads`` (restored after); ``blocked_autorange`` / ``adaptive_autorange`` pick a
    block size so the clock's overhead is negligible and collect many replicates; ``label``,
    ``sub_label``, ``description`` and ``env`` name the result for printing and ``Compare``.

    Args:
        stmt: code to time (a string; dedented, leading newline and trailing space removed).
        setup: code run once before timing, in the same namespace.
        global_setup: C++ only; must be empty for Python.
        timer: the clock (seconds, as a float).
        globals: the namespace for ``stmt`` and ``setup`` (copied); ``torch`` defaults to dyngrad.
        label, sub_label, description, env: names carried into the Measurement's TaskSpec.
        num_threads: dyngrad's thread count while timing.
        language: ``"python"`` (or ``"py"``, Language.PYTHON). ``"c++"`` / ``"cpp"`` raise
            NotImplementedError: dyngrad has no C++ API to compile against.
    """

    _timer_cls = timeit.Timer

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = timer, globals: Optional[Dict[str, Any]] = None,
                 label: Optional[str] = None, sub_label: Optional[str] = None,
                 description: Optional[str] = None, env: Optional[str] = None,
                 num_threads: int = 1, language: Union[Language, str] = Language.PYTHON) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        # A copy, so that exec's additions (``__builtins__``) do not leak into the caller's dict.
        self._globals = dict(globals or {})

        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", dyngrad)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(
                    f"global_setup is C++ only, got `{global_setup}`. Most likely this code "
                    "can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            shown = language.name if isinstance(language, Language) else language
            raise NotImplementedError(_CPP_REFUSAL.format(shown))
        else:
            raise ValueError(f"Invalid language `{language}`.")

        stmt, setup = _tidy(stmt), _tidy(setup)
        self._timer = self._timer_cls(
            stmt=stmt, setup=setup, timer=timer,
            globals=timer_interface.CopyIfCallgrind.unwrap_all(self._globals))
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads)

    # -- single measurements ---------------------------------------------------------------
    def _timeit(self, number: int) -> float:
        # No real statement takes under a nanosecond; the floor also avoids dividing by zero.
        return max(self._timer.timeit(number), 1e-9)

    def _measurement(self, number: int, times: List[float]) -> common.Measurement:
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Run ``stmt`` ``number`` times (after a warmup of ``number // 100``, at least 2): one
        replicate, as ``timeit.Timer.timeit``."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return self._measurement(number, [self._timeit(number=number)])

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Optional[Callable[[int, float], Any]] = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    # -- replicated measurements -----------------------------------------------------------
    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of statements per block whose time makes the clock's own
        overhead at most 1e-4 of it (and at least ``min_run_time / 1000``), or exceeds
        ``min_run_time``. Doubles as the warmup."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = common._f32(sorted(self._timeit(0) for _ in range(5))[2])  # float32
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _measure_blocks(self, number: int, stop: Callable[[List[float]], bool],
                        min_run_time: float, max_run_time: Optional[float] = None,
                        callback: Optional[Callable[[int, float], Any]] = None) -> List[float]:
        """Time blocks of ``number`` statements until ``min_run_time`` has been spent and
        ``stop(times)`` agrees, or ``max_run_time`` is passed."""
        times: List[float] = []
        total, can_stop = 0.0, False
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def blocked_autorange(self, callback: Optional[Callable[[int, float], Any]] = None,
                          min_run_time: float = 0.2) -> common.Measurement:
        """Replicates of one block size (see ``_estimate_block_size``) until ``min_run_time``
        seconds of blocks have run. ``callback(number, seconds)`` is called after each block."""
        number = self._estimate_block_size(min_run_time)
        times = self._measure_blocks(number, lambda times: True, min_run_time,
                                     callback=callback)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0,
                           callback: Optional[Callable[[int, float], Any]] = None
                           ) -> common.Measurement:
        """Like ``blocked_autorange``, but keep measuring until there are more than 3
        replicates whose IQR is below ``threshold`` times their median (after
        ``min_run_time``), or ``max_run_time`` seconds of blocks have run."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times: List[float]) -> bool:
            return len(times) > 3 and self._measurement(number, times).meets_confidence(
                threshold=threshold)

        times = self._measure_blocks(number, stop, min_run_time, max_run_time, callback)
        return self._measurement(number, times)

    def collect_callgrind(self, number: int = 100, *, repeats: Optional[int] = None,
                          collect_baseline: bool = True, retain_out_file: bool = False) -> Any:
        """Not supported: raises NotImplementedError (after checking the arguments and that
        the statement runs, as torch does before starting valgrind)."""
        if not isinstance(self._task_spec.stmt, str):
            raise ValueError("`collect_callgrind` currently only supports string `stmt`")
        if repeats is not None and repeats < 1:
            raise ValueError("If specified, `repeats` must be >= 1")
        self._timeit(1)
        raise NotImplementedError(_CALLGRIND_REFUSAL)


def _tidy(code: str) -> str:
    """Dedent, drop one leading newline (from triple-quoted blocks) and trailing whitespace."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()
