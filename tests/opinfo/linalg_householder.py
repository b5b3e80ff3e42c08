"""OpInfo entries for dyngrad/ops/linalg_householder.py (geqrf, linalg.householder_product,
orgqr, ormqr). The reflectors' inputs need not come from geqrf: any (input, tau) defines a
product of reflectors, and small taus keep it well conditioned."""
from __future__ import annotations

from .core import OP_DB, OpInfo, SampleInput, make_array
from .linalg_decomp import LAPACK, TOL, transposed_matrix


def _arr(shape, dtype, rng, low=-2, high=2):
    return make_array(shape, dtype, rng, low, high)


def _geqrf(dtype, rng):
    out = [SampleInput(_arr(s, dtype, rng)) for s in ((4, 3), (3, 4), (3, 3), (2, 4, 2), (1, 1),
                                                      (0, 3), (3, 0))]
    out += [SampleInput(transposed_matrix((3, 3), dtype, rng)),
            SampleInput(_arr((3,), dtype, rng), desc="1-D")]
    return out


def _householder(dtype, rng):
    def pair(shape, k):
        return _arr(shape, dtype, rng), _arr(shape[:-2] + (k,), dtype, rng, -1, 1)
    out = [SampleInput(*pair(s, k)) for s, k in (((4, 3), 3), ((4, 3), 2), ((3, 3), 3),
                                                 ((2, 4, 2), 2), ((1, 1), 1), ((3, 2), 0))]
    out += [SampleInput(transposed_matrix((3, 3), dtype, rng), _arr((3,), dtype, rng, -1, 1)),
            SampleInput(*pair((3, 4), 3), desc="wide"),
            SampleInput(*pair((4, 3), 4), desc="tau too long"),
            SampleInput(_arr((4, 3), dtype, rng), _arr((2, 2), dtype, rng), desc="tau ndim"),
            SampleInput(_arr((2, 4, 3), dtype, rng), _arr((3, 2), dtype, rng), desc="batch")]
    return out


def _ormqr(dtype, rng):
    def args(shape, other, *flags, **kw):
        k = min(shape[-2:])
        return SampleInput(_arr(shape, dtype, rng), _arr(shape[:-2] + (k,), dtype, rng, -1, 1),
                           _arr(other, dtype, rng), *flags, **kw)
    return [args((4, 3), (4, 2)), args((4, 3), (2, 4), left=False),
            args((4, 3), (4, 2), transpose=True), args((4, 3), (3, 4), False, True),
            args((3, 4), (3, 2)), args((2, 3, 3), (2, 3, 3)),
            args((2, 4, 2), (2, 2, 4), left=False, transpose=True),
            args((4, 3), (3, 2), desc="other rows"), args((4, 3), (4, 2), left=False,
                                                         desc="other cols")]


OP_DB += [
    OpInfo("geqrf", _geqrf, LAPACK, tol=TOL, gradgrad_samples=1,
           supports_complex_autograd=False),
    OpInfo("linalg.householder_product", _householder, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("orgqr", _householder, LAPACK, tol=TOL, gradgrad_samples=1, supports_out=False),
    OpInfo("ormqr", _ormqr, LAPACK, tol=TOL, gradgrad_samples=2),
]
