"""OpInfo entries for dyngrad/ops/linalg_ldl.py (linalg.ldl_factor, ldl_factor_ex, ldl_solve).

Samples include matrices with a zero first diagonal entry, which force 2x2 pivots (see Note
[Bunch-Kaufman pivoting]); pivots and LD are compared exactly as torch returns them. torch
records a "NotImplemented" grad_fn for these ops, whose backward raises."""
from __future__ import annotations

import numpy as np
import torch

from .core import OP_DB, OpInfo, SampleInput, make_array
from .linalg_decomp import LAPACK, TOL, transposed_matrix


def _sym(shape, dtype, rng, zero_corner=False):
    a = make_array(shape, dtype, rng, -2, 2)
    a = a + np.swapaxes(a, -1, -2)
    if zero_corner:
        a[..., 0, 0] = 0
    return np.ascontiguousarray(a.astype(dtype))


def _factor(dtype, rng):
    out = [SampleInput(_sym(s, dtype, rng)) for s in ((3, 3), (5, 5), (2, 4, 4), (1, 1),
                                                     (0, 0))]
    out += [SampleInput(_sym((4, 4), dtype, rng, True)),
            SampleInput(_sym((2, 5, 5), dtype, rng, True), hermitian=True),
            SampleInput(make_array((4, 4), dtype, rng, -2, 2), hermitian=True,
                        desc="lower triangle read"),
            SampleInput(transposed_matrix((3, 3), dtype, rng)),
            SampleInput(make_array((2, 3), dtype, rng), desc="not square"),
            SampleInput(make_array((3,), dtype, rng), desc="1-D")]
    return out


def _factor_ex(dtype, rng):
    return _factor(dtype, rng) + [SampleInput(np.zeros((3, 3), dtype), desc="singular"),
                                  SampleInput(_sym((3, 3), dtype, rng), check_errors=True)]


def _solve(dtype, rng):
    wide = "complex128" if dtype.startswith("complex") else "float64"

    def factored(shape, hermitian=False, zero_corner=False):
        # factored in double precision (torch factors no integer matrix), then cast: the
        # unsupported dtypes' samples must still reach ldl_solve's own checks
        a = torch.from_numpy(_sym(shape, wide, rng, zero_corner))
        LD, piv = torch.linalg.ldl_factor(a, hermitian=hermitian)
        return np.asfortranarray(LD.numpy().astype(dtype)), piv.numpy()

    def b(shape):
        return make_array(shape, dtype, rng, -2, 2)
    out = [SampleInput(*factored((3, 3)), b((3, 2))),
           SampleInput(*factored((4, 4), zero_corner=True), b((4, 1))),
           SampleInput(*factored((2, 4, 4), True, True), b((2, 4, 3)), hermitian=True),
           SampleInput(*factored((3, 3)), b((2, 3, 2)), desc="broadcast B"),
           SampleInput(*factored((3, 3)), b((3,)), desc="1-D B"),
           SampleInput(*factored((3, 3)), b((4, 2)), desc="sizes")]
    LD, piv = factored((3, 3))
    out.append(SampleInput(LD, piv[:2], b((3, 2)), desc="pivots shape"))
    out.append(SampleInput(LD, piv.astype(np.int64), b((3, 2)), desc="int64 pivots"))
    return out


OP_DB += [
    OpInfo("linalg.ldl_factor", _factor, LAPACK, tol=TOL, supports_gradgrad=False),
    OpInfo("linalg.ldl_factor_ex", _factor_ex, LAPACK, tol=TOL, supports_gradgrad=False),
    OpInfo("linalg.ldl_solve", _solve, LAPACK, tol=TOL, supports_gradgrad=False),
]
