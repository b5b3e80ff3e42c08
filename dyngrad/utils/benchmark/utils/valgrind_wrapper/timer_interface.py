"""Containers for Callgrind instruction counts, as torch's ``timer_interface`` defines them.

dyngrad does not collect the counts (``Timer.collect_callgrind`` raises NotImplementedError:
torch toggles Callgrind through client requests compiled into ``torch._C``), but the result
types are plain data with arithmetic and printing, so code that builds, loads or manipulates
them works: ``FunctionCount``, ``FunctionCounts``, ``CallgrindStats``, and ``CopyIfCallgrind``
(the wrapper marking a Timer global as serializable).
"""
import collections
import dataclasses
import enum
import re
import textwrap
from typing import Any, Callable, Dict, Iterator, NamedTuple, Optional, Tuple, Union

from .. import common

__all__ = ["FunctionCount", "FunctionCounts", "CallgrindStats", "CopyIfCallgrind"]


class FunctionCount(NamedTuple):
    count: int
    function: str


@dataclasses.dataclass(repr=False, eq=False, frozen=True)
class FunctionCounts:
    """Instruction counts per function, largest first: iterable and indexable like a tuple
    (a slice gives a FunctionCounts), combinable with ``+``/``-`` (per function), scalable with
    ``*``, and reshaped with ``filter``/``transform``/``denoise``."""
    _data: Tuple[FunctionCount, ...]
    inclusive: bool
    truncate_rows: bool = True
    _linewidth: Optional[int] = None  # None: the tensor print options' linewidth

    def __iter__(self) -> Iterator[FunctionCount]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, item: Any) -> Union[FunctionCount, "FunctionCounts"]:
        data = self._data[item]
        # As in torch, a FunctionCount is a tuple too: an integer index also gives a
        # FunctionCounts (iterating it yields the count, then the name).
        if isinstance(data, tuple):
            return FunctionCounts(data, self.inclusive, truncate_rows=False)
        return data

    def __repr__(self) -> str:
        count_width = max((len(str(c)) + int(c < 0) for c, _ in self), default=0)
        if self._linewidth:
            linewidth = self._linewidth
        else:
            import dyngrad._tensor_str
            linewidth = dyngrad._tensor_str.PRINT_OPTS.linewidth
        fn_width = max(linewidth - count_width - 4, 40)
        lines = []
        for c, fn in self:
            if len(fn) > fn_width:  # elide the middle of long names
                left = int((fn_width - 5) // 2)
                fn = fn[:left] + " ... " + fn[-(fn_width - left - 5):]
            lines.append(f"  {c:>{count_width}}  {fn}")
        if self.truncate_rows and len(lines) > 18:
            lines = lines[:9] + ["...".rjust(count_width + 2)] + lines[-9:]
        if not self.inclusive:
            lines += ["", f"Total: {self.sum()}"]
        return "\n".join([object.__repr__(self)] + lines)

    def __add__(self, other: "FunctionCounts") -> "FunctionCounts":
        return self._merge(other, 1)

    def __sub__(self, other: "FunctionCounts") -> "FunctionCounts":
        return self._merge(other, -1)

    def __mul__(self, other: Union[int, float]) -> "FunctionCounts":
        return self._from_dict({fn: int(c * other) for c, fn in self._data}, self.inclusive)

    def transform(self, map_fn: Callable[[str], str]) -> "FunctionCounts":
        """Rename every function with ``map_fn``; names that coincide have their counts added."""
        counts: Dict[str, int] = collections.defaultdict(int)
        for c, fn in self._data:
            counts[map_fn(fn)] += c
        return self._from_dict(counts, self.inclusive)

    def filter(self, filter_fn: Callable[[str], bool]) -> "FunctionCounts":
        """Keep the entries whose function name satisfies ``filter_fn``."""
        return FunctionCounts(tuple(i for i in self if filter_fn(i.function)), self.inclusive)

    def sum(self) -> int:
        return sum(c for c, _ in self)

    def denoise(self) -> "FunctionCounts":
        """Drop CPython's dict lookups by unicode key, a known source of noisy counts."""
        return self.filter(lambda fn: "dictobject.c:lookdict_unicode" not in fn)

    def _merge(self, other: "FunctionCounts", sign: int) -> "FunctionCounts":
        if self.inclusive != other.inclusive:
            raise AssertionError("Cannot merge inclusive and exclusive counts.")
        counts: Dict[str, int] = collections.defaultdict(int)
        for c, fn in self:
            counts[fn] += c
        for c, fn in other:
            counts[fn] += -c if sign < 0 else c
        return self._from_dict(counts, self.inclusive)

    @staticmethod
    def _from_dict(counts: Dict[str, int], inclusive: bool) -> "FunctionCounts":
        """Nonzero entries, sorted largest first (ties by name, descending)."""
        entries = sorted((FunctionCount(c, fn) for fn, c in counts.items() if c), reverse=True)
        return FunctionCounts(tuple(entries), inclusive)


# Path prefixes and library suffixes that ``as_standardized`` strips from function names.
_STANDARDIZE = (
    (r"^.+build/\.\./", "build/../"),
    (r"^.+/" + re.escape("build/aten/"), "build/aten/"),
    (r"^.+/" + re.escape("Python/"), "Python/"),
    (r"^.+/" + re.escape("Objects/"), "Objects/"),
    (r"\s\[.+\]$", ""),
)


@dataclasses.dataclass(repr=False, eq=False, frozen=True)
class CallgrindStats:
    """Callgrind results for a TaskSpec: the statement's and an empty baseline's counts,
    inclusive and exclusive."""
    task_spec: common.TaskSpec
    number_per_run: int
    built_with_debug_symbols: bool
    baseline_inclusive_stats: FunctionCounts
    baseline_exclusive_stats: FunctionCounts
    stmt_inclusive_stats: FunctionCounts
    stmt_exclusive_stats: FunctionCounts
    stmt_callgrind_out: Optional[str]

    def __repr__(self) -> str:
        base = self.baseline_exclusive_stats
        threads = self.task_spec.num_threads
        text = "\n".join([
            object.__repr__(self),
            self.task_spec.summarize(),
            f"  {'':>25}All{'':>10}Noisy symbols removed",
            f"    Instructions: {self.counts(denoise=False):>12}{'':>15}"
            f"{self.counts(denoise=True):>12}",
            f"    Baseline:     {base.sum():>12}{'':>15}{base.denoise().sum():>12}",
            f"{self.number_per_run} runs per measurement, {threads} thread"
            f"{'s' if threads > 1 else ''}",
        ]).strip()
        if not self.built_with_debug_symbols:
            text += ("\nWarning: PyTorch was not built with debug symbols.\n"
                     "         Source information may be limited. Rebuild with\n"
                     "         REL_WITH_DEB_INFO=1 for more detailed results.")
        return text

    def stats(self, inclusive: bool = False) -> FunctionCounts:
        """The statement's counts, inclusive of callees or not."""
        return self.stmt_inclusive_stats if inclusive else self.stmt_exclusive_stats

    def counts(self, *, denoise: bool = False) -> int:
        """Total instructions of the statement (exclusive counts summed)."""
        stats = self.stmt_exclusive_stats
        return (stats.denoise() if denoise else stats).sum()

    def delta(self, other: "CallgrindStats", inclusive: bool = False) -> FunctionCounts:
        """Per-function difference ``self - other``."""
        return self.stats(inclusive=inclusive) - other.stats(inclusive=inclusive)

    def as_standardized(self) -> "CallgrindStats":
        """A copy with build-path prefixes and library names stripped from function names, so
        profiles from different builds diff cleanly (no callgrind.out file any more)."""
        def strip(stats: FunctionCounts) -> FunctionCounts:
            for before, after in _STANDARDIZE:
                stats = stats.transform(lambda fn: re.sub(before, after, fn))
            return stats
        return dataclasses.replace(
            self,
            baseline_inclusive_stats=strip(self.baseline_inclusive_stats),
            baseline_exclusive_stats=strip(self.baseline_exclusive_stats),
            stmt_inclusive_stats=strip(self.stmt_inclusive_stats),
            stmt_exclusive_stats=strip(self.stmt_exclusive_stats),
            stmt_callgrind_out=None)


class Serialization(enum.Enum):
    PICKLE = 0
    TORCH = 1
    TORCH_JIT = 2


def _allowed_types() -> Dict[Serialization, tuple]:
    import dyngrad.nn  # late: only needed when a CopyIfCallgrind is made
    return {Serialization.PICKLE: (str, bytes, bool, int, float, complex),
            Serialization.TORCH: (dyngrad.nn.Module,)}


class CopyIfCallgrind:
    """Marks a Timer global whose value may be replaced by a deserialized copy when the
    statement runs in another process (builtins by pickle, modules by torch.save)."""

    def __init__(self, value: Any, *, setup: Optional[str] = None) -> None:
        allowed = _allowed_types()
        for method, types in allowed.items():
            if isinstance(value, types):
                self._value, self._setup, self._serialization = value, setup, method
                return
        listing = "\n".join(repr(types) for types in allowed.values())
        raise ValueError(
            f"Unsupported type: {type(value)}\n"
            "`collect_callgrind` restricts globals to the following types:\n"
            f"{textwrap.indent(listing, '  ')}")

    @property
    def value(self) -> Any:
        return self._value

    @property
    def setup(self) -> Optional[str]:
        return self._setup

    @property
    def serialization(self) -> Serialization:
        return self._serialization

    @staticmethod
    def unwrap_all(globals: Dict[str, Any]) -> Dict[str, Any]:
        """``globals`` with every CopyIfCallgrind replaced by its value."""
        return {k: v.value if isinstance(v, CopyIfCallgrind) else v for k, v in globals.items()}
