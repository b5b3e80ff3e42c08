"""``Compare``: many Measurements as text tables, one per label, laid out as torch lays them out.

Rows are (num_threads, env, sub_label-or-stmt), grouped under a ``N threads: ----`` separator per
thread count; columns are descriptions. Each column has one number format, chosen from its
cells; optional trimming to significant figures, ANSI colours and spread markers.
"""
import collections
import enum
import math
from typing import List, Optional

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(value: float) -> int:
    return int(math.ceil(common._log10_f32(value)))


class _ColumnFormat:
    """How the cells of one column print: a common width and number of decimals; with
    highlighting, a ``" (! NN%)"`` spread marker right-aligned in 7 more characters."""

    def __init__(self, cells: List[Optional[common.Measurement]], time_scale: float,
                 trim: bool, highlight: bool) -> None:
        present = [m for m in cells if m is not None]
        self.trim = trim
        self.highlight = highlight and any(m.has_warnings for m in present)
        digits = [_leading_digits(m.median / time_scale) for m in present]
        decimals = (min(max(m.significant_figures - d, 0) for m, d in zip(present, digits))
                    if trim else 1)
        width = max(digits) + decimals + (1 if decimals else 0)
        self.template = f"{{:>{width}.{decimals}f}}{{:>{7 if self.highlight else 0}}}"

    def cell(self, value: Optional[float], sigfigs: int, spread: Optional[float]) -> str:
        """One cell's text; ``value`` None gives blanks as wide as a number would be."""
        if value is None:
            return " " * len(self.cell(1, sigfigs, None))
        if self.trim:
            value = common.trim_sigfig(value, sigfigs)
        marker = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return self.template.format(value, marker)


def _color(text: str, value: float, best: float) -> str:
    """Wrap a cell in ANSI colours by its ratio to the best value of its row or column."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Table:
    """The table of one label's (merged) Measurements."""

    def __init__(self, results: List[common.Measurement], colorize: Colorize, trim: bool,
                 highlight: bool) -> None:
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self.label = results[0].label
        self.colorize = colorize
        self.highlight = highlight
        self.unit, self.scale = common.select_unit(min(r.median for r in results))

        row_keys = common.ordered_unique(self._row_key(r) for r in results)
        row_keys.sort(key=lambda k: k[:2])  # by (threads, env); stable, so stmt order stays
        self.row_keys = row_keys
        self.column_keys = common.ordered_unique(r.description for r in results)
        rows = {k: i for i, k in enumerate(row_keys)}
        cols = {k: j for j, k in enumerate(self.column_keys)}
        self.grid: List[List[Optional[common.Measurement]]] = [
            [None] * len(self.column_keys) for _ in row_keys]
        for r in results:
            self.grid[rows[self._row_key(r)]][cols[r.description]] = r

        # Rows sharing a thread count form a group; COLUMNWISE colours compare within it.
        self.group_of: List[int] = []
        group = -1
        for i, (threads, _, _) in enumerate(row_keys):
            if i == 0 or threads != row_keys[i - 1][0]:
                group += 1
            self.group_of.append(group)
        self.formats = [
            _ColumnFormat([row[j] for row in self.grid], self.scale, trim, highlight)
            for j in range(len(self.column_keys))]

    @staticmethod
    def _row_key(m: common.Measurement):
        return m.num_threads, m.env, m.as_row_name

    def _row_strings(self) -> List[List[str]]:
        """Unpadded cell texts of every row, the row name first (env-prefixed when envs differ,
        on the first row of each env within a thread group)."""
        envs = {r.env for r in self.results}
        show_env = len(envs) > 1
        env_width = max(len(e) for e in envs) if show_env else 0
        out = []
        for i, ((threads, env, _), row) in enumerate(zip(self.row_keys, self.grid)):
            first = [m for m in row if m is not None][0]
            group_start = i == 0 or self.row_keys[i - 1][0] != threads
            prior_env = "" if group_start else self.row_keys[i - 1][1]
            tag = f"({first.env})" if show_env and env != prior_env else ""
            cells = ["  " + tag.ljust(env_width + 4) + first.as_row_name]
            for m, fmt in zip(row, self.formats):
                if m is None:
                    cells.append(fmt.cell(None, 1, None))
                else:
                    spread = m.iqr / m.median if m.has_warnings else None
                    cells.append(fmt.cell(m.median / self.scale, m.significant_figures, spread))
            out.append(cells)
        return out

    def _best_values(self, i: int) -> list:
        """Per column, the median a row's cells are coloured against (-1: no colouring)."""
        row = self.grid[i]
        if self.colorize == Colorize.ROWWISE:
            best = min(m.median for m in row if m is not None)
            return [best] * len(row)
        if self.colorize == Colorize.COLUMNWISE:
            group = [r for r, g in zip(self.grid, self.group_of) if g == self.group_of[i]]
            medians = ([r[j].median for r in group if r[j] is not None] for j in range(len(row)))
            return [min(ms) if ms else None for ms in medians]
        return [-1] * len(row)

    def render(self) -> str:
        header = [""] + self.column_keys
        body = self._row_strings()
        ncols = max(len(r) for r in [header] + body)
        rows = [r + [""] * (ncols - len(r)) for r in [header] + body]
        widths = [max(len(c) for c in col) for col in zip(*rows)]

        lines = ["  |  ".join(c.center(w) for c, w in zip(rows[0], widths))]
        full_width = len(lines[0])
        for i, cells in enumerate(rows[1:]):
            threads = self.row_keys[i][0]
            if i == 0 or self.row_keys[i - 1][0] != threads:
                lines.append(f"{threads} threads: ".ljust(full_width, "-"))
            parts = [cells[0].ljust(widths[0])]
            for text, width, m, best in zip(cells[1:], widths[1:], self.grid[i],
                                            self._best_values(i)):
                text = text.center(width)
                if self.colorize != Colorize.NONE and m is not None and best is not None:
                    text = _color(text, m.median, best)
                parts.append(text)
            lines.append("  |  ".join(parts))

        title = (" " + (self.label or "") + " ").center(full_width - 2, "-")
        legend = ""
        if self.highlight and any(r.has_warnings for r in self.results):
            legend = ("(! XX%) Measurement has high variance, where XX is the IQR / median "
                      "* 100.\n")
        return (f"[{title}]\n" + "\n".join(lines) + "\n\n"
                f"Times are in {common.unit_to_english(self.unit)}s ({self.unit}).\n" + legend)


class Compare:
    """Text tables comparing Measurements: one table per label, a row per sub_label (or stmt)
    and thread count, a column per description. Replicates of the same TaskSpec are merged.

    ``print()`` or ``str()`` renders; ``trim_significant_figures()``, ``colorize()`` and
    ``highlight_warnings()`` switch on options for later renders.
    """

    def __init__(self, results: List[common.Measurement]) -> None:
        self._results: List[common.Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        """Add Measurements to those already held (all checked before any is added)."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Print each column only to the digits its measurements support."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False) -> None:
        """Colour cells against the best of their column (within a thread group), or of their
        row with ``rowwise=True``."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark cells whose measurement has a wide spread with ``(! NN%)``."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> List[str]:
        by_label: "collections.OrderedDict" = collections.OrderedDict()
        for m in common.Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [_Table(group, self._colorize, self._trim_significant_figures,
                       self._highlight_warnings).render()
                for group in by_label.values()]
