"""OpInfo entries for dyngrad/ops/softmax.py: softmax, log_softmax and their functional forms."""
from __future__ import annotations

import numpy as np

from .core import (FLOATS, DType, OP_DB, OpInfo, SampleInput, make_array, permuted3,
                   special_values, transposed)


def _softmax_samples(dtype, rng, functional=False):
    def x(shape):
        return make_array(shape, dtype, rng)

    m = x((3, 4))
    out = [SampleInput(m, 1), SampleInput(m, 0), SampleInput(m, -1), SampleInput(x(()), 0),
           SampleInput(x((5,)), 0), SampleInput(x((2, 3, 4)), 1), SampleInput(x((0, 3)), 1),
           SampleInput(x((0, 3)), 0), SampleInput(transposed((3, 4), dtype, rng), 1),
           SampleInput(permuted3(dtype, rng), 2), SampleInput(m, 1, dtype=DType("float64")),
           SampleInput(m, 2, desc="dim out of range")]
    if dtype in FLOATS:
        scale = 10.0 if dtype == "float16" else 1000.0
        big = np.array([[1.0, 1.0, -1.0], [-1.0, -1.0, -0.999]], dtype) * scale
        inf = np.array([[-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0],
                        [-np.inf, 0.0, 1.0]], dtype)
        out += [SampleInput(big, 1, desc="+-1000"), SampleInput(big, 0, desc="+-1000"),
                SampleInput(inf, 1, desc="infinite rows"), SampleInput(special_values(dtype), 0)]
    else:
        out.append(SampleInput(m, 0, dtype=DType("float32"), desc="integers cast by dtype="))
    if functional:
        out += [SampleInput(m, desc="implicit dim (warns)"), SampleInput(x((2, 3, 4))),
                SampleInput(x((5,)), dim=None), SampleInput(m, dim=0, dtype=DType("float64"))]
    return out


def _functional(dtype, rng):
    return _softmax_samples(dtype, rng, functional=True)


def _alias(dtype, rng):
    """special.softmax / special.log_softmax are torch.softmax / log_softmax: a few samples."""
    m = make_array((3, 4), dtype, rng)
    return [SampleInput(m, 1), SampleInput(m, 0, dtype=DType("float64")),
            SampleInput(make_array((), dtype, rng), 0)]


OP_DB += [
    OpInfo("softmax", _softmax_samples, FLOATS, gradgrad_samples=6),
    OpInfo("log_softmax", _softmax_samples, FLOATS, gradgrad_samples=6),
    OpInfo("special.softmax", _alias, FLOATS, gradgrad_samples=1),
    OpInfo("special.log_softmax", _alias, FLOATS, gradgrad_samples=1),
    OpInfo("nn.functional.softmax", _functional, FLOATS, gradgrad_samples=4),
    OpInfo("nn.functional.log_softmax", _functional, FLOATS, gradgrad_samples=4),
    OpInfo("nn.functional.softmin", _functional, FLOATS, gradgrad_samples=4),
]
