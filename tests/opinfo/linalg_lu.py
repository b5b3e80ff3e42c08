"""OpInfo entries for dyngrad/ops/linalg_lu.py (linalg.lu_factor / lu_factor_ex, linalg.lu,
lu_unpack, linalg.lu_solve, torch.lu).

Square, wide and tall matrices; square ones are built well conditioned (tests/opinfo/
linalg_decomp.py's ``matrix``) so that gradients and second derivatives compare closely.
Packed factors for ``lu_unpack`` / ``lu_solve`` come from torch's own ``lu_factor``.
"""
from __future__ import annotations

import numpy as np
import torch

from .core import OP_DB, OpInfo, SampleInput, make_array
from .linalg_decomp import LAPACK, TOL, matrix, transposed_matrix

SHAPES = ((3, 3), (2, 4, 4), (3, 5), (5, 3), (2, 2, 4), (1, 1), (0, 0), (2, 0, 3))


def _factor_samples(kwargs=None):
    kwargs = kwargs or {}

    def gen(dtype, rng):
        out = []
        for shape in SHAPES:
            if shape[-1] == shape[-2]:
                out.append(SampleInput(matrix(shape, dtype, rng), **kwargs))
            else:
                out.append(SampleInput(make_array(shape, dtype, rng, -1, 1), **kwargs))
        out.append(SampleInput(transposed_matrix((3, 3), dtype, rng), **kwargs))
        out.append(SampleInput(make_array((3,), dtype, rng), desc="1-D", **kwargs))
        out.append(SampleInput(matrix((3, 3), dtype, rng), pivot=False, desc="no pivoting"))
        return out
    return gen


def _singular(dtype):
    return np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], dtype=dtype)


def _packed(a):
    LU, pivots, _ = torch.linalg.lu_factor_ex(torch.from_numpy(np.ascontiguousarray(a)))
    return LU.numpy().copy(), pivots.numpy().copy()


def _unpack_samples(dtype, rng):
    out = []
    for shape in ((3, 3), (2, 4, 4), (3, 5), (5, 3), (2, 0, 3)):
        a = matrix(shape, dtype, rng) if shape[-1] == shape[-2] else \
            make_array(shape, dtype, rng, -1, 1)
        LU, pivots = _packed(a)
        out.append(SampleInput(LU, pivots))
    LU, pivots = _packed(matrix((3, 3), dtype, rng))
    out += [SampleInput(LU, pivots, False), SampleInput(LU, pivots, True, False),
            SampleInput(LU, pivots.astype(np.int64), desc="int64 pivots"),
            SampleInput(LU, pivots[:2], desc="too few pivots"),
            SampleInput(LU, np.array([0, 1, 1], np.int32), desc="zero pivot"),
            SampleInput(LU, np.array([4, 3, 3], np.int32), desc="pivot too large"),
            SampleInput(LU[0], pivots, desc="1-D")]
    return out


def _solve_samples(dtype, rng):
    def b(shape):
        return make_array(shape, dtype, rng, -2, 2)
    LU, piv = _packed(matrix((3, 3), dtype, rng))
    LUb, pivb = _packed(matrix((2, 3, 3), dtype, rng))
    out = [SampleInput(LU, piv, b((3, 2))), SampleInput(LU, piv, b((3, 2)), adjoint=True),
           SampleInput(LU, piv, b((2, 3)), left=False),
           SampleInput(LU, piv, b((2, 3)), left=False, adjoint=True),
           SampleInput(LUb, pivb, b((2, 3, 1))), SampleInput(LU, piv, b((2, 3, 2))),
           SampleInput(LUb, pivb, b((4, 1, 3, 2)), adjoint=True),
           SampleInput(*_packed(np.zeros((0, 0), dtype)), b((0, 2))),
           SampleInput(LU, piv, b((3,)), desc="1-D B"),
           SampleInput(LU, piv, b((2, 2)), desc="shapes"),
           SampleInput(LU, piv, b((3, 2)), left=False, desc="shapes (left=False)"),
           SampleInput(LU, piv.astype(np.int64), b((3, 2)), desc="int64 pivots"),
           SampleInput(LU, piv[:2], b((3, 2)), desc="pivot count"),
           SampleInput(LUb, piv, b((3, 2)), desc="pivot batch"),
           SampleInput(LU, np.zeros(3, np.int32), b((3, 2)), desc="zero pivot"),
           SampleInput(LU, np.full(3, 4, np.int32), b((3, 2)), desc="pivot too large"),
           SampleInput(LU[:2], piv[:2], b((2, 2)), desc="not square"),
           SampleInput(LU[0], piv, b((3, 2)), desc="1-D LU")]
    if dtype != "float64":
        out.append(SampleInput(LU, piv, make_array((3, 2), "float64", rng), desc="dtypes"))
    return out


def _legacy_solve_samples(dtype, rng):
    """``torch.lu_solve(B, LU, pivots)``: linalg.lu_solve's samples (left, not adjoint)."""
    return [SampleInput(s.args[1], s.input, s.args[0], desc=s.desc)
            for s in _solve_samples(dtype, rng) if not s.kwargs]


def _unpack_dtypes():
    return ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
            "complex64", "complex128")


def _int_unpack(gen):
    """Samples of other dtypes: float64's, cast (lu_unpack takes any dtype)."""
    def wrapped(dtype, rng):
        if dtype in LAPACK:
            return gen(dtype, rng)
        def cast(a):
            return a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
        return [SampleInput(cast(s.input), *map(cast, s.args), desc=s.desc, **s.kwargs)
                for s in gen("float64", rng)]
    return wrapped


def _singular_only(kwargs=None):
    def gen(dtype, rng):
        return [SampleInput(_singular(dtype), desc="singular", **(kwargs or {})),
                SampleInput(np.ones((2, 3, 4), dtype), desc="rank one", **(kwargs or {})),
                SampleInput(np.eye(3, dtype=dtype) + np.eye(3, k=1, dtype=dtype),
                            **(kwargs or {}))]
    return gen


OP_DB += [
    OpInfo("linalg.lu_factor", _factor_samples(), LAPACK, tol=TOL, gradgrad_samples=4),
    OpInfo("linalg.lu_factor_ex", _factor_samples(), LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("linalg.lu_factor_ex", _factor_samples({"check_errors": True}), LAPACK, tol=TOL,
           gradgrad_samples=1, variant="check_errors"),
    OpInfo("linalg.lu", _factor_samples(), LAPACK, tol=TOL, gradgrad_samples=4),
    OpInfo("lu_unpack", _int_unpack(_unpack_samples), _unpack_dtypes(), tol=TOL,
           gradgrad_samples=3),
    OpInfo("linalg.lu_solve", _int_unpack(_solve_samples), LAPACK, tol=TOL, gradgrad_samples=4),
    OpInfo("lu_solve", _int_unpack(_legacy_solve_samples), LAPACK, tol=TOL,
           gradgrad_samples=2),
    OpInfo("lu", _factor_samples(), LAPACK, tol=TOL, gradgrad_samples=1, supports_out=False),
]
# singular inputs: values and errors only (their gradients are infinite)
OP_DB += [OpInfo(name, _singular_only(kwargs), LAPACK, supports_autograd=False,
                 variant="singular" + ("_check_errors" if kwargs else ""), supports_out=out)
          for name, kwargs, out in (("linalg.lu_factor", None, True),
                                    ("linalg.lu_factor_ex", None, True),
                                    ("linalg.lu_factor_ex", {"check_errors": True}, True),
                                    ("linalg.lu", None, True), ("lu", None, False),
                                    ("lu", {"get_infos": True}, False))]
