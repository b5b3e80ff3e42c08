"""OpInfo entries for dyngrad/ops/covariance.py: cov (with fweights, aweights and correction)
and corrcoef, over every dtype but bool, 0-, 1- and 2-D inputs, strided inputs, too few
observations (the degrees-of-freedom warning), and the invalid calls whose errors must be
torch's."""
from __future__ import annotations

import numpy as np

from .core import ALL_BUT_BOOL, OP_DB, OpInfo, SampleInput, make_array, sliced, transposed


def _cov_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    fw = np.array([1, 2, 0, 3, 1])
    aw = rng.integers(1, 9, 5) / 8   # exact in float16: sums do not depend on the order
    m = x((3, 5))
    return [
        SampleInput(m), SampleInput(m, correction=0), SampleInput(m, correction=2),
        SampleInput(m, correction=-1), SampleInput(m, fweights=fw),
        SampleInput(m, fweights=fw.astype("int8"), correction=0),
        SampleInput(m, aweights=aw), SampleInput(m, aweights=aw.astype("float32"), correction=0),
        SampleInput(m, aweights=aw, correction=3),
        SampleInput(m, fweights=fw, aweights=aw.astype("float16")),
        SampleInput(m, fweights=fw, aweights=aw, correction=0),
        SampleInput(x((5,))), SampleInput(x((5,)), fweights=fw), SampleInput(x(())),
        SampleInput(x((3, 1)), desc="one observation: dof 0"),
        SampleInput(x((3, 1)), fweights=np.array([2])), SampleInput(x((1, 4))),
        SampleInput(x((0, 4)), desc="no variables"),
        SampleInput(transposed((4, 3), dtype, rng)), SampleInput(sliced((3, 4), dtype, rng),
                                                                 aweights=aw[:4]),
        # invalid: torch's errors
        SampleInput(x((2, 2, 2))), SampleInput(m, fweights=fw.reshape(1, 5)),
        SampleInput(m, fweights=aw), SampleInput(m, fweights=fw[:4]),
        SampleInput(m, fweights=np.array([1, -1, 1, 1, 1])),
        SampleInput(m, fweights=np.ones(5, bool)), SampleInput(m, aweights=aw.reshape(1, 5)),
        SampleInput(m, aweights=fw), SampleInput(m, aweights=aw[:4]),
        SampleInput(m, aweights=np.array([1.0, -1, 1, 1, 1])),
        SampleInput(m, aweights=aw.astype("complex64")),
        SampleInput(m, fweights=np.zeros(5, np.int64)), SampleInput(m, aweights=np.zeros(5)),
        SampleInput(x((3, 0)), fweights=np.zeros(0, np.int64)), SampleInput(m, correction=1.5),
        SampleInput(m, fweights=[1, 1, 1, 1, 1]), SampleInput(m, 1),
    ]


def _corrcoef_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    return [SampleInput(x((3, 5))), SampleInput(x((4, 6))), SampleInput(x((6,))),
            SampleInput(x(())), SampleInput(x((3, 1))), SampleInput(x((1, 4))),
            SampleInput(transposed((4, 3), dtype, rng)), SampleInput(sliced((3, 4), dtype, rng)),
            SampleInput(x((2, 2, 2))), SampleInput(x((3, 5)), 1)]


# float32/float16 aweights are summed in their own dtype (ATen's w.sum()); torch's float32 sum and
# NumPy's pairwise one round differently by an ulp, which a float64 result then shows at ~1e-7
_MIXED_WEIGHTS = {"float64": (1e-6, 1e-7)}

OP_DB += [OpInfo("cov", _cov_samples, ALL_BUT_BOOL, supports_out=False, gradgrad_samples=6,
                 tol=_MIXED_WEIGHTS),
          OpInfo("corrcoef", _corrcoef_samples, ALL_BUT_BOOL, supports_out=False,
                 gradgrad_samples=4)]
