"""The records that timing produces (``TaskSpec``, ``Measurement``) and small formatting helpers.

The statistics and unit choices are computed in the precisions torch's benchmark code uses
(float32 for logarithms, roundings and significant figures, float64 for quantiles and the
mean), so the numbers, and therefore the printed text, come out as torch's.
"""
import collections
import contextlib
import dataclasses
import math
import textwrap
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

import dyngrad

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # seconds: no measurement is trusted below 25 ns

# Relative interquartile ranges above which a Measurement carries a warning.
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _f32(x) -> float:
    """``x`` rounded to float32 (what ``torch.tensor(python_float)`` holds), as a Python float."""
    return float(np.float32(x))


def _log10_f32(x: float) -> float:
    """float32 log10 of float32(x), correctly rounded as torch's kernel gives it (numpy's own
    float32 log10 can be one ulp off: log10(1e-6) -> -6.0000005, which changes units)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _f32(np.log10(np.float64(np.float32(x))))


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of sorted float64 values, with torch's lerp."""
    rank = q * (len(sorted_values) - 1)
    below, above = sorted_values[math.floor(rank)], sorted_values[math.ceil(rank)]
    weight = rank - math.floor(rank)
    if weight < 0.5:
        return below + weight * (above - below)
    return above - (above - below) * (1 - weight)


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer measures (everything but its globals). Hashable: Compare and
    ``Measurement.merge`` group replicates by it."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: Optional[str] = None
    sub_label: Optional[str] = None
    description: Optional[str] = None
    env: Optional[str] = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (else the one-line stmt, else the indented stmt block), with the sub_label."""
        sub = self.sub_label
        if self.label is not None:
            head = self.label
        elif "\n" not in self.stmt:
            head = self.stmt
        else:
            return f"stmt:{f' ({sub})' if sub else ''}\n" + textwrap.indent(self.stmt, "  ")
        return head + (f": {sub}" if sub else "")

    def setup_str(self) -> str:
        """``setup: ...`` (a block when several lines), or "" for no setup."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The TaskSpec's part of a Measurement's repr: title, description, setup; a section
        of several lines is followed by a blank line."""
        sections = [s for s in (self.title, self.description or "", self.setup_str()) if s]
        return "\n".join(s + "\n" if "\n" in s else s for s in sections)


_TASKSPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """One or more timings of a TaskSpec: ``raw_times[i]`` seconds for ``number_per_run``
    executions of ``stmt``. Statistics are per single execution and computed on first use.
    TaskSpec fields (``stmt``, ``label``, ``num_threads``...) are readable as attributes."""
    number_per_run: int
    raw_times: List[float]
    task_spec: TaskSpec
    metadata: Optional[dict] = None  # free for the user

    def __post_init__(self) -> None:
        self._sorted_times: Tuple[float, ...] = ()
        self._warnings: Tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: forward the TaskSpec's fields.
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    # -- statistics ------------------------------------------------------------------------
    @property
    def times(self) -> List[float]:
        """Seconds per single execution of ``stmt``, one entry per raw time."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._compute_stats()
        return self._median

    @property
    def mean(self) -> float:
        self._compute_stats()
        return self._mean

    @property
    def iqr(self) -> float:
        self._compute_stats()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """A rough number of trustworthy digits (1 to 4), from a 90% confidence interval of the
        median estimated on the interquartile points (z = 1.645). Used by Compare's trimming."""
        self._compute_stats()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:math.ceil(_f32(3 * n / 4))]
        with np.errstate(invalid="ignore"):  # torch warns (and gives nan) for no points
            std = _f32(np.std(np.array(middle, dtype=np.float32), dtype=np.float64))
        sqrt_n = _f32(math.sqrt(len(middle)))
        interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        digits = math.floor(_log10_f32(self._median / interval))
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._compute_stats()
        return bool(self._warnings)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the interquartile range is below ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    def _compute_stats(self) -> None:
        """Sort the times, take quartiles and mean (float64), and note a wide spread."""
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        self._median = _quantile(self._sorted_times, 0.5)
        self._mean = dyngrad.tensor(self._sorted_times, dtype=dyngrad.float64).mean().item()
        self._p25 = _quantile(self._sorted_times, 0.25)
        self._p75 = _quantile(self._sorted_times, 0.75)
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            advice = "This suggests significant environmental influence."
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            advice = "This could indicate system fluctuation."
        else:
            return
        relative = self.iqr / self.median * 100
        self._warnings += (f"  WARNING: Interquartile range is {relative:.1f}% of the median "
                           f"measurement.\n           {advice}",)

    # -- naming ----------------------------------------------------------------------------
    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> Optional[str]:
        # torch's property meant to say "Unspecified env" for None, but it fails internally
        # and falls back to the TaskSpec field; what users (and Compare) see is the field.
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        """The object, the TaskSpec summary, median (and IQR for four or more replicates) in
        the unit ``select_unit`` picks, replicate counts, then any spread warning."""
        self._compute_stats()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        several = n > 1
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if several else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})")
        threads = self.num_threads
        lines.append(f"  {n} measurement{'s' if several else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if several else ','} "
                     f"{threads} thread{'s' if threads > 1 else ''}")
        lines.append("\n".join(self._warnings))
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable["Measurement"]) -> List["Measurement"]:
        """One Measurement per distinct TaskSpec (first-seen order), pooling the replicates'
        per-run times with ``number_per_run=1``; metadata is dropped."""
        pooled: "collections.OrderedDict[TaskSpec, List[float]]" = collections.OrderedDict()
        for m in measurements:
            pooled.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec, metadata=None)
                for spec, times in pooled.items()]


def select_unit(t: float) -> Tuple[str, float]:
    """("ns" | "us" | "ms" | "s", scale) for displaying ``t`` seconds: the thousands-exponent of
    t picks the unit; anything below 1 ns or from 1 s up shows in seconds."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(_log10_f32(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures, in float32 as torch does
    (3.14159, 2 -> 3.1000001430511475)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(_log10_f32(abs(_f32(x)))))
    scale = 10 ** (magnitude - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def ordered_unique(elements: Iterable[Any]) -> List[Any]:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with dyngrad's thread count at ``n``, restoring the prior count after."""
    before = dyngrad.get_num_threads()
    try:
        dyngrad.set_num_threads(n)
        yield
    finally:
        dyngrad.set_num_threads(before)
