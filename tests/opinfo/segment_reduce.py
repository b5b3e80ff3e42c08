"""OpInfo entries for dyngrad/ops/segment_reduce.py: torch.segment_reduce.

One entry per reduction. Samples: lengths and offsets (int64 and int32), empty segments with
and without ``initial``, trailing dims, ties and NaN (max/min gradients are shared among tied
positive gradients, as ATen), zeros (prod's exclusive products), batched 2-d lengths along
axis 1, a negative axis, ``unsafe``, and invalid calls (unknown reduction, no lengths, lengths
not summing to the axis, negative lengths, a wrong axis, float lengths, indices).
"""
from __future__ import annotations

import numpy as np

from .core import FLOATS, OP_DB, OpInfo, SampleInput, make_array


def _gen(reduce):
    def gen(dtype, rng):
        x = make_array((7, 3), dtype, rng)
        ties = np.round(make_array((8,), dtype, rng, low=-2, high=2))
        if ties.dtype.kind == "f":
            ties[[1, 5]] = np.nan if reduce in ("max", "min", "amax") else 0
            ties[6] = 0
        batched = make_array((2, 6, 2), dtype, rng)
        lengths = np.array([2, 0, 4, 1], np.int64)
        offsets = np.array([0, 3, 3, 7], np.int64)
        return [SampleInput(x, reduce, lengths=lengths),
                SampleInput(x, reduce, lengths=lengths, initial=1.5),
                SampleInput(x, reduce, offsets=offsets),
                SampleInput(x, reduce, offsets=offsets.astype(np.int32), initial=-0.5),
                SampleInput(ties, reduce, lengths=np.array([3, 3, 2], np.int64)),
                SampleInput(ties, reduce, lengths=np.array([2, 0, 6], np.int64), initial=2.0),
                SampleInput(batched, reduce, lengths=np.array([[2, 4], [6, 0]]), axis=1),
                SampleInput(x, reduce, lengths=lengths.astype(np.int32), axis=-2),
                SampleInput(x, reduce, lengths=np.array([2, 3], np.int64), unsafe=True),
                SampleInput(x[:0], reduce, lengths=np.array([0, 0], np.int64)),
                # invalid
                SampleInput(x, "median", lengths=lengths),
                SampleInput(x, reduce),
                SampleInput(x, reduce, lengths=np.array([2, 3], np.int64)),
                SampleInput(x, reduce, lengths=np.array([9, -2], np.int64)),
                SampleInput(x, reduce, lengths=lengths, axis=1),
                SampleInput(x, reduce, lengths=lengths.astype(dtype)),
                SampleInput(x, reduce, indices=np.zeros(7, np.int64))]
    return gen


SEG = dict(supports_out=False, method=False, inplace=False)

OP_DB += [OpInfo("segment_reduce", _gen(r), FLOATS, variant=r, **SEG)
          for r in ("sum", "mean", "prod", "max", "min", "amax")]
