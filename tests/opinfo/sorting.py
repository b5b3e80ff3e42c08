"""OpInfo entries for dyngrad/ops/sorting.py, unique.py and bucketization.py.

Indices are compared exactly, so ties appear only where torch's order of equal elements is
deterministic: stable sorts, topk, kthvalue, median, mode, and unstable sorts of the dtypes
torch sorts with std::sort. Unstable sorts of int32/int64/float32/float64 (x86-simd-sort in
torch: the order of ties depends on the CPU) get values without ties; tests/test_sorting.py
compares their values only.
"""
from __future__ import annotations

import numpy as np

from .core import (OP_DB, REAL, REAL_AND_BOOL, OpInfo, SampleInput, Strided, make_array,
                   special_values)

XSS = ("int32", "int64", "float32", "float64")
NAN, INF = float("nan"), float("inf")


def distinct(shape, dtype, rng):
    """Values without ties (bool cannot avoid them; its sort is replayed exactly)."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return make_array(shape, dtype, rng)
    perm = rng.permutation(n)
    if dtype != "uint8":
        perm = perm - n // 2
    values = perm / 4 if dtype.startswith("float") else perm
    return np.asarray(values, dtype=dtype).reshape(shape)


def tied(shape, dtype, rng):
    return make_array(shape, dtype, rng, 0, 3)


def noncontiguous(dtype, rng, values=distinct):
    """Transposed, sliced, expanded and permuted views over tie-free (by default) values."""
    return [Strided(values((12,), dtype, rng), (3, 4), (1, 3), kind="transposed "),
            Strided(values((25,), dtype, rng), (3, 4), (8, 2), 1, kind="sliced "),
            Strided(values((4,), dtype, rng), (3, 4), (0, 1), kind="expanded "),
            Strided(values((24,), dtype, rng), (4, 2, 3), (1, 12, 4), kind="permuted ")]


def _special(dtype):
    if dtype not in ("float16", "float32", "float64"):
        return []
    return [np.array([[NAN, 1.0, NAN, -0.0, 0.0, INF, -INF, 1.0],
                      [2.0, -0.0, NAN, 0.0, 2.0, -INF, 1.0, NAN]], dtype)]


# -- sort / argsort / msort --------------------------------------------------------------------
def _sort_samples(with_stable=True):
    def gen(dtype, rng):
        m = distinct((3, 4), dtype, rng)
        t, s, e, p = noncontiguous(dtype, rng)
        out = [SampleInput(m), SampleInput(m, 0), SampleInput(m, -1, True),
               SampleInput(m, dim=0, descending=True),
               SampleInput(distinct((2, 3, 4), dtype, rng), 1),
               SampleInput(distinct((), dtype, rng)), SampleInput(distinct((), dtype, rng), 0),
               SampleInput(make_array((0,), dtype, rng)), SampleInput(make_array((2, 0, 3), dtype,
                                                                                rng), 1),
               SampleInput(t, 0), SampleInput(s, 1, True), SampleInput(e, 0), SampleInput(e, 1),
               SampleInput(p, 2), SampleInput(m, 2), SampleInput(distinct((), dtype, rng), 1)]
        if dtype not in XSS:   # torch's std::sort: ties replayed exactly
            ties = tied((3, 40), dtype, rng)
            out += [SampleInput(ties, desc="unstable ties"), SampleInput(ties, 1, True),
                    SampleInput(tied((4, 6), dtype, rng), 0)]
        if with_stable:
            ties = tied((3, 40), dtype, rng)
            out += [SampleInput(ties, stable=True),
                    SampleInput(ties, dim=1, descending=True, stable=True),
                    SampleInput(tied((5, 3), dtype, rng), stable=True, dim=0),
                    SampleInput(m, stable=False), SampleInput(m, dim=0, stable=True),
                    SampleInput(noncontiguous(dtype, rng, tied)[0], stable=True, dim=0)]
            out += [SampleInput(v, stable=True, descending=d) for v in _special(dtype)
                    for d in (False, True)]
        sv = special_values(dtype)
        if sv is not None:
            out += [SampleInput(sv), SampleInput(sv, 0, True)]
        return out
    return gen


def _msort_samples(dtype, rng):
    t, s, e, p = noncontiguous(dtype, rng)
    out = [SampleInput(distinct((4, 3), dtype, rng)), SampleInput(distinct((5,), dtype, rng)),
           SampleInput(distinct((), dtype, rng)), SampleInput(make_array((0, 2), dtype, rng)),
           SampleInput(t), SampleInput(s), SampleInput(e), SampleInput(p)]
    if dtype not in XSS:
        out.append(SampleInput(tied((40, 2), dtype, rng), desc="unstable ties"))
    return out


# -- topk ----------------------------------------------------------------------------------------
def _topk_samples(dtype, rng):
    m = make_array((3, 4), dtype, rng)
    t, s, e, p = noncontiguous(dtype, rng, make_array)
    ties, wide = tied((4, 10), dtype, rng), tied((2, 130), dtype, rng)
    out = [SampleInput(m, 2), SampleInput(m, 1, 0), SampleInput(m, 3, -1, False),
           SampleInput(m, k=4, dim=1, largest=True, sorted=False), SampleInput(m, 0),
           SampleInput(ties, 5), SampleInput(ties, 5, largest=False),
           SampleInput(ties, 6, sorted=False, desc="nth_element order"),
           SampleInput(ties, 3, 0, False, False), SampleInput(ties, 10, 1),
           SampleInput(wide, 2, desc="partial_sort"), SampleInput(wide, 1, largest=False),
           SampleInput(wide, 2, sorted=False),
           SampleInput(make_array((), dtype, rng), 1), SampleInput(make_array((), dtype, rng), 0),
           SampleInput(make_array((2, 0), dtype, rng), 0), SampleInput(make_array((0, 3), dtype,
                                                                              rng), 2),
           SampleInput(t, 2, 0), SampleInput(s, 3), SampleInput(e, 2, 0), SampleInput(p, 2, 1),
           SampleInput(m, 5), SampleInput(m, -1), SampleInput(make_array((), dtype, rng), 2),
           SampleInput(m, 1, 2)]
    for v in _special(dtype):
        out += [SampleInput(v, 3), SampleInput(v, 3, largest=False), SampleInput(v, 4,
                                                                                 sorted=False)]
    return out


# -- kthvalue / median / nanmedian / mode --------------------------------------------------------
def _kthvalue_samples(dtype, rng):
    m = make_array((3, 4), dtype, rng)
    t, s, e, p = noncontiguous(dtype, rng, make_array)
    ties = tied((4, 20), dtype, rng)
    out = [SampleInput(m, 2), SampleInput(m, 1, 0), SampleInput(m, 4, -1, True),
           SampleInput(m, k=3, dim=0, keepdim=True), SampleInput(ties, 7), SampleInput(ties, 1),
           SampleInput(ties, 20), SampleInput(tied((9, 3), dtype, rng), 5, 0),
           SampleInput(make_array((), dtype, rng), 1), SampleInput(make_array((), dtype, rng), 1,
                                                                   0, True),
           SampleInput(make_array((2, 0), dtype, rng), 1, 0), SampleInput(t, 2, 0),
           SampleInput(s, 3), SampleInput(e, 2, 0), SampleInput(p, 2, 1, True),
           SampleInput(m, 0), SampleInput(m, 5), SampleInput(make_array((), dtype, rng), 2),
           SampleInput(make_array((2, 0), dtype, rng), 1, 1), SampleInput(m, 1, 2)]
    for v in _special(dtype):
        out += [SampleInput(v, 1), SampleInput(v, 3), SampleInput(v, 7), SampleInput(v, 1, 0)]
    return out


def _median_samples(nan_all_lane=False):
    # (no expanded lane along the reduced dim: torch's median(dim) reads a stride-0 lane as if
    # it were dense, past the tensor's memory)
    def gen(dtype, rng):
        m = make_array((3, 4), dtype, rng)
        t, s, e, p = noncontiguous(dtype, rng, make_array)
        ties = tied((4, 9), dtype, rng)
        out = [SampleInput(m), SampleInput(m, 1), SampleInput(m, 0, True),
               SampleInput(m, dim=-1, keepdim=False), SampleInput(ties, 1), SampleInput(ties),
               SampleInput(tied((8, 3), dtype, rng), 0), SampleInput(make_array((5,), dtype, rng)),
               SampleInput(make_array((), dtype, rng)), SampleInput(make_array((), dtype, rng), 0),
               SampleInput(make_array((), dtype, rng), -1, True),
               SampleInput(make_array((0,), dtype, rng)),
               SampleInput(make_array((2, 0), dtype, rng), 0), SampleInput(t, 0), SampleInput(s),
               SampleInput(s, 1), SampleInput(e, 1), SampleInput(p, 2, True),
               SampleInput(make_array((2, 0), dtype, rng), 1), SampleInput(m, 2)]
        for v in _special(dtype):
            out += [SampleInput(v), SampleInput(v, 1), SampleInput(v, 0)]
            if nan_all_lane:
                lanes = np.full((3, 7), NAN, dtype)
                lanes[1, ::2] = [1, 2, 2, 3]
                out += [SampleInput(lanes, 1, desc="all-NaN lanes"), SampleInput(lanes)]
        return out
    return gen


def _mode_samples(dtype, rng):
    m = make_array((3, 4), dtype, rng, 0, 3)
    t, s, e, p = noncontiguous(dtype, rng, tied)
    out = [SampleInput(m), SampleInput(m, 0), SampleInput(m, -1, True),
           SampleInput(m, dim=0, keepdim=True), SampleInput(tied((4, 40), dtype, rng), 1),
           SampleInput(distinct((3, 30), dtype, rng), 1, desc="all distinct"),
           SampleInput(make_array((), dtype, rng)), SampleInput(make_array((), dtype, rng), 0),
           SampleInput(make_array((2, 0), dtype, rng), 0), SampleInput(t, 0), SampleInput(s),
           SampleInput(e, 0), SampleInput(p, 1, True),
           SampleInput(make_array((2, 0), dtype, rng), 1), SampleInput(m, 2)]
    for v in _special(dtype):
        out += [SampleInput(v), SampleInput(v, 0), SampleInput(np.tile(v, (1, 3)), 1)]
    return out


# -- unique / unique_consecutive ---------------------------------------------------------------
def _unique_samples(consecutive=False):
    def gen(dtype, rng):
        m = tied((3, 4), dtype, rng)
        flat_kw = [{}, {"return_inverse": True}, {"return_counts": True},
                   {"return_inverse": True, "return_counts": True}]
        if not consecutive:
            flat_kw.append({"sorted": False, "return_inverse": True})
        out = [SampleInput(m, **kw) for kw in flat_kw]
        rows = np.repeat(tied((3, 2), dtype, rng), 2, axis=0)[[0, 2, 1, 3, 4, 5]]
        out += [SampleInput(rows, dim=0, return_inverse=True, return_counts=True),
                SampleInput(rows.T.copy(), dim=1, return_inverse=True),
                SampleInput(rows, dim=-2, return_counts=True),
                SampleInput(tied((2, 3, 4), dtype, rng), dim=1),
                SampleInput(tied((40,), dtype, rng), return_inverse=True, return_counts=True),
                SampleInput(tied((20, 2), dtype, rng), dim=0, return_inverse=True),
                SampleInput(make_array((), dtype, rng), return_inverse=True, return_counts=True),
                SampleInput(make_array((0, 3), dtype, rng), return_inverse=True,
                            return_counts=True),
                SampleInput(make_array((0, 3), dtype, rng), dim=0, return_inverse=True),
                SampleInput(noncontiguous(dtype, rng, tied)[0], return_inverse=True),
                SampleInput(noncontiguous(dtype, rng, tied)[3], dim=2, return_counts=True),
                SampleInput(make_array((0, 3), dtype, rng), dim=1),
                SampleInput(make_array((), dtype, rng), dim=0), SampleInput(m, dim=2)]
        for v in _special(dtype):
            out += [SampleInput(v, return_inverse=True, return_counts=True),
                    SampleInput(v, dim=1, return_inverse=True)]
        return out
    return gen


# -- searchsorted / bucketize --------------------------------------------------------------------
def _sorted(shape, dtype, rng, **kw):
    return np.sort(make_array(shape, dtype, rng, **kw), axis=-1)


def _searchsorted_samples(dtype, rng):
    seq = _sorted((6,), dtype, rng, low=0, high=6)
    vals = make_array((2, 3), dtype, rng, low=-1, high=8)
    rows = _sorted((2, 5), dtype, rng)
    other = "float64" if dtype != "float64" else "int32"
    out = [SampleInput(seq, vals), SampleInput(seq, vals, right=True),
           SampleInput(seq, vals, side="right"), SampleInput(seq, vals, side="left"),
           SampleInput(seq, vals, out_int32=True), SampleInput(seq, 3),
           SampleInput(seq, make_array((), dtype, rng)), SampleInput(rows, make_array(
               (2, 4), dtype, rng)), SampleInput(rows, make_array((2, 1), dtype, rng),
                                                 right=True),
           SampleInput(seq, make_array((0,), dtype, rng)),
           SampleInput(make_array((0,), dtype, rng), vals),
           SampleInput(seq, make_array((3,), other, rng)),
           SampleInput(make_array((5,), dtype, rng), make_array((4,), dtype, rng),
                       sorter=rng.permutation(5)),
           SampleInput(make_array((2, 5), dtype, rng), make_array((2, 3), dtype, rng),
                       sorter=np.argsort(rng.random((2, 5)), axis=1)),
           SampleInput(Strided(seq, (3,), (2,)), Strided(vals.reshape(-1), (3, 2), (1, 3))),
           SampleInput(seq, vals, right=True, side="left"), SampleInput(seq, vals, side="mid"),
           SampleInput(rows, make_array((3, 4), dtype, rng)), SampleInput(rows, 2),
           SampleInput(make_array((), dtype, rng), vals),
           SampleInput(seq, vals, sorter=np.arange(5)),
           SampleInput(seq, vals, sorter=np.arange(6, dtype=np.int32)),
           SampleInput(seq, vals, sorter=np.arange(1, 7))]
    if dtype in ("float16", "float32", "float64"):
        out.append(SampleInput(np.array([1, 2, 2, 3, NAN], dtype),
                               np.array([[0, 2, 2.5], [3, NAN, 4]], dtype)))
    return out


def _bucketize_samples(dtype, rng):
    seq = _sorted((6,), dtype, rng, low=0, high=6)
    vals = make_array((2, 3), dtype, rng, low=-1, high=8)
    other = "float64" if dtype != "float64" else "int32"
    out = [SampleInput(vals, seq), SampleInput(vals, seq, right=True),
           SampleInput(vals, seq, out_int32=True), SampleInput(make_array((), dtype, rng), seq),
           SampleInput(make_array((0, 2), dtype, rng), seq), SampleInput(vals, seq[:0]),
           SampleInput(make_array((4,), other, rng), seq),
           SampleInput(Strided(vals.reshape(-1), (3, 2), (1, 3)), seq),
           SampleInput(vals, _sorted((2, 3), dtype, rng)),
           SampleInput(vals, make_array((), dtype, rng))]
    if dtype in ("float16", "float32", "float64"):
        out.append(SampleInput(np.array([[0, 2, 2.5], [3, NAN, 4]], dtype),
                               np.array([1, 2, 2, 3, NAN], dtype)))
    return out


OP_DB += [
    OpInfo("sort", _sort_samples(), REAL_AND_BOOL, gradgrad_samples=3),
    OpInfo("argsort", _sort_samples(), REAL_AND_BOOL),   # (stable=None: sort only, below)
    OpInfo("msort", _msort_samples, REAL_AND_BOOL, gradgrad_samples=2),
    OpInfo("topk", _topk_samples, REAL, gradgrad_samples=3),
    OpInfo("kthvalue", _kthvalue_samples, REAL, gradgrad_samples=3),
    OpInfo("median", _median_samples(), REAL, gradgrad_samples=4),
    OpInfo("nanmedian", _median_samples(nan_all_lane=True), REAL, gradgrad_samples=4),
    OpInfo("mode", _mode_samples, REAL_AND_BOOL, gradgrad_samples=3),
    OpInfo("unique", _unique_samples(), REAL_AND_BOOL, supports_out=False, gradgrad_samples=2),
    OpInfo("unique_consecutive", _unique_samples(consecutive=True), REAL_AND_BOOL,
           supports_out=False, gradgrad_samples=2),
    OpInfo("searchsorted", _searchsorted_samples, REAL),
    OpInfo("bucketize", _bucketize_samples, REAL),
]
