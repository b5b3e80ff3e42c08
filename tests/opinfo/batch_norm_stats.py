"""OpInfo entries for dyngrad/ops/batch_norm_stats.py: batch_norm_update_stats (the one torch
implements on CPU; a NotImplemented node). The running statistics it updates in place are left
out here (the generic tests require inputs left unmutated): tests/test_misc_functions.py
compares those updates with torch."""
from __future__ import annotations

from .core import FLOATS, OP_DB, OpInfo, SampleInput, make_array, permuted3, sliced, transposed


def _update_stats(dtype, rng):
    x = lambda *shape, **kw: make_array(shape, dtype, rng, **kw)   # noqa: E731
    return [SampleInput(x(4, 3), None, None, 0.1), SampleInput(x(2, 3, 5), None, None, 0.5),
            SampleInput(x(2, 3, 4, 5), None, None, 1.0),
            SampleInput(x(1, 3), None, None, 0.1, desc="one sample per channel"),
            SampleInput(transposed((4, 3), dtype, rng), None, None, 0.1),
            SampleInput(sliced((4, 3), dtype, rng), None, None, 0.2),
            SampleInput(permuted3(dtype, rng), None, None, 0.3),
            SampleInput(x(4, 3), None, None, momentum=0.25),
            SampleInput(x(3), None, None, 0.1, desc="1-dim"),
            SampleInput(x(), None, None, 0.1, desc="0-dim"),
            SampleInput(x(0, 3), None, None, 0.1, desc="empty")]


OP_DB += [
    OpInfo("batch_norm_update_stats", _update_stats, FLOATS, supports_out=False,
           tol={"float16": (1e-2, 1e-2)}),
]
