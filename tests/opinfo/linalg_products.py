"""OpInfo entries for dyngrad/ops/linalg_products.py (einsum, tensordot, kron, multi_dot,
vecdot, linalg.matmul, matrix_power)."""
from __future__ import annotations

from .core import (ALL_BUT_BOOL, ALL_DTYPES, FLOATS, OP_DB, OpInfo, SampleInput, make_array,
                   transposed)
from .linalg import MATMUL_PAIRS, _pairs, _tol
from .linalg_decomp import LAPACK, TOL, matrix


def _arr(shape, dtype, rng):
    return make_array(shape, dtype, rng, -3, 4)


EINSUM = (
    ("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)),
    ("bij,bjk->bik", (5, 2, 3), (5, 3, 4)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)), ("ii", (3, 3)), ("ii->i", (3, 3)), ("ij->", (2, 3)),
    ("ij->ji", (2, 3)), ("i,j->ij", (2,), (3,)), ("i,i", (3,), (3,)), ("i,i->i", (3,), (3,)),
    ("...ij,...jk", (5, 2, 3), (3, 4)), ("...ij->...ji", (2, 3, 4)), ("bn,anm,bm->ba", (2, 3),
                                                                      (4, 3, 5), (2, 5)),
    ("Ab,bC->AC", (2, 3), (3, 4)), ("ij,ij->ij", (1, 3), (2, 3)), ("iij->j", (2, 2, 3)),
    ("ijk,ikj->", (2, 3, 3), (2, 3, 3)), ("ij , jk -> ki", (2, 3), (3, 4)),
    ("i,j,k->ijk", (2,), (3,), (2,)), ("ik,kj->ij", (0, 3), (3, 2)), ("ij,jk", (2, 0), (0, 3)),
    ("b...,b...->b", (2, 3, 1), (2, 1, 4)), ("ij,jk", (2, 3), (4, 4)), ("ij", (2, 3, 4)),
    ("ij->ii", (2, 2)), ("ij->k", (2, 3)), ("ii", (2, 3)), ("i1", (2, 2)), ("ij,jk", (2, 3)),
)


def _einsum(dtype, rng):
    out = []
    for eq, *shapes in EINSUM:
        out.append(SampleInput(eq, *[_arr(s, dtype, rng) for s in shapes]))
    out.append(SampleInput("ij,jk->ik", transposed((3, 2), dtype, rng), _arr((3, 4), dtype, rng)))
    out.append(SampleInput("ij,jk->ik", [_arr((2, 3), dtype, rng), _arr((3, 2), dtype, rng)],
                           desc="operands as a list"))
    a, b = _arr((2, 3), dtype, rng), _arr((3, 4), dtype, rng)
    out.append(SampleInput(a, [0, 1], b, [1, 2], [0, 2], desc="sublist format"))
    out.append(SampleInput(_arr((2, 3), dtype, rng), [..., 1], desc="sublist with ellipsis"))
    if dtype != "float64":
        out.append(SampleInput("ij,jk", _arr((2, 3), dtype, rng), _arr((3, 2), "float64", rng),
                               desc="dtypes"))
    return out


def _tensordot(dtype, rng):
    def a(shape):
        return _arr(shape, dtype, rng)
    out = [SampleInput(a((2, 3, 4)), a((3, 4, 5))), SampleInput(a((2, 3)), a((3, 4)), 1),
           SampleInput(a((2, 3)), a((4, 5)), dims=0),
           SampleInput(a((2, 3, 4)), a((4, 3, 5)), dims=([1, 2], [1, 0])),
           SampleInput(a((2, 3, 4)), a((4, 5)), dims=[[2], [0]]),
           SampleInput(a((2, 1)), a((4, 5)), dims=([1], [0])),
           SampleInput(transposed((3, 2), dtype, rng), a((2, 4)), 1),
           SampleInput(a((2, 3)), a((4, 3)), dims=1), SampleInput(a((2, 3)), a((3, 4)), dims=-1),
           SampleInput(a((2, 3)), a((3, 4)), dims=3),
           SampleInput(a((2, 3)), a((3, 4)), dims=([1], [0, 1])),
           # nothing left but the contraction: torch's dot (DotBackward0)
           SampleInput(a((3, 4)), a((3, 4)), 2), SampleInput(a((4,)), a((4,)), 1),
           SampleInput(a((1, 4)), a((4,)), 1), SampleInput(a((1, 3)), a((1, 3)), 2),
           SampleInput(transposed((3, 2), dtype, rng), a((2, 3)), dims=([0, 1], [1, 0]))]
    if dtype != "float64":
        out.append(SampleInput(a((2, 3)), _arr((3, 4), "float64", rng), 1, desc="dtypes"))
    return out


def _kron(dtype, rng):
    def a(shape):
        return _arr(shape, dtype, rng)
    out = [SampleInput(a((2, 3)), a((3, 2))), SampleInput(a((2,)), a((2, 3))),
           SampleInput(a(()), a((2,))), SampleInput(a((2, 2, 2)), a((3,))),
           SampleInput(a((0, 2)), a((2, 2))),
           SampleInput(transposed((3, 2), dtype, rng), a((2, 2)), desc="non-contiguous")]
    if dtype != "float64":
        out.append(SampleInput(a((2,)), _arr((3,), "float64", rng), desc="mixed"))
    return out


def _multi_dot(dtype, rng):
    def a(shape):
        return _arr(shape, dtype, rng)
    return [SampleInput([a((2, 3)), a((3, 4))]), SampleInput([a((2, 3)), a((3, 4)), a((4, 2))]),
            SampleInput([a((5, 2)), a((2, 6)), a((6, 3))]),
            SampleInput([a((3,)), a((3, 4)), a((4,))]), SampleInput([a((3,)), a((3,))]),
            SampleInput([a((2, 3)), a((3, 5)), a((5, 1)), a((1, 4))]),
            SampleInput([a((4, 2)), a((2, 3)), a((3, 6)), a((6, 2)), a((2,))]),
            SampleInput([transposed((3, 2), dtype, rng), a((3, 4))]),
            SampleInput([a((2, 3))], desc="one tensor"),
            SampleInput([a((2, 3)), a((2, 3))], desc="shapes"),
            SampleInput([a((2, 3, 3)), a((3, 3))], desc="3-D first"),
            SampleInput([a((2, 2)), a((2,)), a((2, 2))], desc="1-D in the middle")]


def _vecdot(dtype, rng):
    def a(shape):
        return _arr(shape, dtype, rng)
    out = [SampleInput(a((3,)), a((3,))), SampleInput(a((2, 3)), a((3,))),
           SampleInput(a((2, 3)), a((2, 3)), dim=0), SampleInput(a((2, 1, 3)), a((4, 3))),
           SampleInput(transposed((3, 4), dtype, rng), a((3, 4))), SampleInput(a((0, 3)), a((3,))),
           SampleInput(a((2, 3)), a((4,)), desc="shapes")]
    if dtype != "float64":
        out.append(SampleInput(a((3,)), _arr((3,), "float64", rng), desc="dtypes"))
    return out


def _matrix_power(dtype, rng):
    out = []
    ints = dtype not in LAPACK
    for n in (2, 0, 1, 3, 4, 5, 6):
        shape = (2, 3, 3) if n == 4 else (3, 3)
        base = make_array(shape, dtype, rng, -1, 2) if ints else matrix(shape, dtype, rng) / 3
        out.append(SampleInput(base, n))
    if not ints:
        for n in (-1, -2, -3):
            out.append(SampleInput(matrix((3, 3), dtype, rng), n))
        out.append(SampleInput(transposed((3, 3), dtype, rng, low=-1, high=1), 1))
    else:
        out.append(SampleInput(make_array((3, 3), dtype, rng, -1, 2), -1, desc="not invertible"))
    out += [SampleInput(make_array((2, 3), dtype, rng), 2, desc="not square"),
            SampleInput(make_array((0, 0), dtype, rng), 3)]
    return out


OP_DB += [
    OpInfo("einsum", _einsum, ALL_BUT_BOOL, tol=_tol, gradgrad_samples=4),
    OpInfo("tensordot", _tensordot, ALL_BUT_BOOL, tol=_tol, gradgrad_samples=3),
    OpInfo("kron", _kron, ALL_DTYPES, tol=_tol, gradgrad_samples=2),
    OpInfo("linalg.multi_dot", _multi_dot, ALL_BUT_BOOL, tol=_tol, gradgrad_samples=3),
    OpInfo("linalg.vecdot", _vecdot, FLOATS + LAPACK[2:], tol=_tol, gradgrad_samples=2),
    OpInfo("linalg.matmul", _pairs(MATMUL_PAIRS[:12]), ALL_BUT_BOOL, tol=_tol,
           gradgrad_samples=3),
    OpInfo("linalg.matrix_power", _matrix_power, ALL_BUT_BOOL, tol=TOL | {"float16": (4e-3,
                                                                                      4e-3)},
           gradgrad_samples=3),
    OpInfo("matrix_power", _matrix_power, ALL_BUT_BOOL, tol=TOL | {"float16": (4e-3, 4e-3)},
           gradgrad_samples=1),
]
