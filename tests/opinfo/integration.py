"""OpInfo entries for dyngrad/ops/integration.py: trapezoid, trapz and cumulative_trapezoid
with sample points (1-D, broadcast, full), constant spacing, every dim, empty dims, integer
inputs promoted, and the invalid calls (bool inputs, complex or positional dx, wrong x)."""
from __future__ import annotations

from .core import ALL_BUT_BOOL, OP_DB, OpInfo, SampleInput, make_array, permuted3, transposed


def _samples(name):
    def gen(dtype, rng):
        def x(*shape, dt=dtype):
            return make_array(shape, dt, rng)

        dx = 2 if name == "trapz" else 0.5
        pts = make_array((4,), "float64", rng)
        out = [
            SampleInput(x(3, 4)), SampleInput(x(3, 4), pts), SampleInput(x(3, 4), x=x(4)),
            SampleInput(x(3, 4), dx=dx), SampleInput(x(3, 4), dx=3, dim=0),
            SampleInput(x(3, 4), x(3, 1), dim=0), SampleInput(x(3, 4), x(1, 4)),
            SampleInput(x(3, 4), x(3, 4), dim=-2), SampleInput(x(2, 3, 4), x(3, 4), dim=1),
            SampleInput(transposed((3, 4), dtype, rng), pts, dim=1),
            SampleInput(permuted3(dtype, rng), dx=1.5, dim=1), SampleInput(x(5)),
            SampleInput(x(3, 1)), SampleInput(x(3, 1), x(1)), SampleInput(x(2, 0), dx=2),
            SampleInput(x(0, 3), dim=1), SampleInput(x(3, 4), x(4, dt="int64")),
            # invalid: torch's errors
            SampleInput(x(3, 4, dt="bool")), SampleInput(x(3, 4), x(4, dt="bool")),
            SampleInput(x(3, 4), x(3)), SampleInput(x(3, 4), x(3, 2)), SampleInput(x(3, 4), 2.0),
            SampleInput(x(3, 4), dx=1j), SampleInput(x(3, 4), dx=True),
            SampleInput(x(3, 4), x(4), dx=2), SampleInput(x(3, 4), dim=2), SampleInput(x()),
            SampleInput(x(3, 4), dx=None),
        ]
        if name != "trapz":
            out.append(SampleInput(x(3, 4), x=2.0))
        return out
    return gen


_GRADGRAD = 4
OP_DB += [OpInfo(name, _samples(name), ALL_BUT_BOOL, supports_out=False,
                 gradgrad_samples=_GRADGRAD)
          for name in ("trapezoid", "trapz", "cumulative_trapezoid")]
