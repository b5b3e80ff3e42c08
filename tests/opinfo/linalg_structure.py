"""OpInfo entries for dyngrad/ops/linalg_structure.py (trace, tril/triu, diagonals, cross)."""
from __future__ import annotations

from .core import (ALL_BUT_BOOL, ALL_DTYPES, OP_DB, OpInfo, SampleInput, Strided, make_array,
                   permuted3, special_values, transposed)


def _one(shapes, *arg_sets, special=True, noncontiguous=True):
    """Samples of one tensor per shape, each with every argument set (args, kwargs)."""
    arg_sets = arg_sets or (((), {}),)

    def gen(dtype, rng):
        out = []
        for shape in shapes:
            for args, kwargs in arg_sets:
                out.append(SampleInput(make_array(shape, dtype, rng, -3, 4), *args, **kwargs))
        if noncontiguous:
            args, kwargs = arg_sets[-1]
            out.append(SampleInput(transposed((3, 4), dtype, rng, low=-3, high=4), *args,
                                   **kwargs))
        sv = special_values(dtype) if special else None
        if sv is not None:
            out.append(SampleInput(sv, desc="special values"))
        return out
    return gen


def _batched_transposed(dtype, rng):
    """A (2, 4, 3) batch of transposed matrices."""
    return Strided(make_array((24,), dtype, rng, -3, 4), (2, 4, 3), (12, 1, 4),
                   kind="batch of transposed ")


def _tri(dtype, rng):
    out = _one(((3, 4), (4, 3), (2, 3, 3), (0, 3), (2, 0, 2), (1, 1)),
               ((), {}), ((1,), {}), ((-2,), {}), ((), {"diagonal": 5}))(dtype, rng)
    out.append(SampleInput(_batched_transposed(dtype, rng), -1))
    out.append(SampleInput(permuted3(dtype, rng, low=-3, high=4), 1))
    return out


def _cross(dtype, rng):
    def m(shape):
        return make_array(shape, dtype, rng, -3, 4)
    out = [SampleInput(m((3,)), m((3,))), SampleInput(m((4, 3)), m((4, 3))),
           SampleInput(m((3, 4)), m((3, 4)), dim=0), SampleInput(m((2, 1, 3)), m((1, 4, 3))),
           SampleInput(m((0, 3)), m((0, 3))), SampleInput(m((2, 3, 2)), m((2, 3, 2)), dim=-2),
           SampleInput(transposed((3, 4), dtype, rng, low=-3, high=4), m((3, 4)), dim=0),
           SampleInput(m((2,)), m((2,)), desc="not 3-vectors"),
           SampleInput(m((3,)), m((2, 3)), desc="ranks differ")]
    if dtype != "float64":
        out.append(SampleInput(m((3,)), make_array((3,), "float64", rng), desc="mixed"))
    return out


def _torch_cross(dtype, rng):
    def m(shape):
        return make_array(shape, dtype, rng, -3, 4)
    return [SampleInput(m((4, 3)), m((4, 3)), 1), SampleInput(m((3, 4)), m((3, 4)), dim=0),
            SampleInput(m((2, 3)), m((2, 3)), -1)]


def _diag(dtype, rng):
    out = _one(((3,), (0,), (1,)), ((), {}), ((2,), {}), ((-1,), {}),
               special=False, noncontiguous=False)(dtype, rng)
    out += _one(((3, 4), (4, 3), (0, 2), (2, 2)), ((), {}), ((1,), {}), ((-2,), {}),
                ((), {"diagonal": 7}), special=False)(dtype, rng)
    out.append(SampleInput(make_array((2, 2, 2), dtype, rng), desc="3-D"))
    return out


def _diag_embed(dtype, rng):
    def m(shape):
        return make_array(shape, dtype, rng, -3, 4)
    return [SampleInput(m((3,))), SampleInput(m((2, 3))), SampleInput(m((2, 3)), 1),
            SampleInput(m((2, 3)), -2, 0, 2), SampleInput(m((2, 3)), offset=1, dim1=2, dim2=0),
            SampleInput(m((2, 0))), SampleInput(transposed((3, 4), dtype, rng), -1, 1, 0),
            SampleInput(m((2,)), 0, 0, 0, desc="identical dims")]


def _diagflat(dtype, rng):
    def m(shape):
        return make_array(shape, dtype, rng, -3, 4)
    return [SampleInput(m((3,))), SampleInput(m((2, 2)), 1), SampleInput(m(()), -1),
            SampleInput(transposed((2, 3), dtype, rng)), SampleInput(m((0,)), 2)]


def _diagonal_copy(dtype, rng):
    def m(shape):
        return make_array(shape, dtype, rng, -3, 4)
    return [SampleInput(m((3, 4))), SampleInput(m((2, 3, 4)), 1, 0, 2),
            SampleInput(m((2, 3, 4)), -1, -1, -2), SampleInput(transposed((3, 4), dtype, rng),
                                                                 1)]


def _linalg_diagonal(dtype, rng):
    def m(shape):
        return make_array(shape, dtype, rng, -3, 4)
    return [SampleInput(m((2, 3, 4))), SampleInput(m((2, 3, 4)), offset=1),
            SampleInput(m((2, 3, 4)), dim1=0, dim2=2), SampleInput(m((3, 3)), offset=-1)]


OP_DB += [
    OpInfo("trace", _one(((3, 3), (3, 4), (4, 2), (0, 3), (1, 1)), noncontiguous=True),
           ALL_BUT_BOOL, supports_out=False),
    OpInfo("tril", _tri, ALL_DTYPES),
    OpInfo("triu", _tri, ALL_DTYPES),
    OpInfo("diag", _diag, ALL_DTYPES),
    OpInfo("diag_embed", _diag_embed, ALL_DTYPES),
    OpInfo("diagflat", _diagflat, ALL_DTYPES),
    OpInfo("diagonal_copy", _diagonal_copy, ALL_DTYPES),
    OpInfo("linalg.diagonal", _linalg_diagonal, ALL_DTYPES),
    OpInfo("linalg.cross", _cross, ALL_BUT_BOOL),
    OpInfo("cross", _torch_cross, ALL_BUT_BOOL),
]
