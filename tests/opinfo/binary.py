"""OpInfo entries for dyngrad/ops/binary.py."""
from __future__ import annotations

import numpy as np

from .core import (ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, FLOATS, FLOATS_AND_COMPLEX, INTS,
                   NONCONTIGUOUS, OP_DB, REAL, REAL_AND_BOOL, OpInfo, SampleInput,
                   binary_samples, chain, make_array, special_values)


def _x(shape, dtype, rng, low=None, high=None, **kw):
    return make_array(shape, dtype, rng, low, high, **kw)


# -- fmod ------------------------------------------------------------------------------------------
def _fmod_edges(dtype, rng):
    """Zero divisors (NaN for floats, torch's error for integers), negative operands."""
    x = _x((3, 4), dtype, rng, -9 if dtype != "uint8" else 0, 10)
    out = [SampleInput(x, 0, desc="zero divisor"),
           SampleInput(x, np.zeros((4,), dtype), desc="zero divisor"),
           SampleInput(x, -3 if dtype != "uint8" else 3),
           SampleInput(2, x, desc="number self: not an overload")]
    if dtype in FLOATS:
        out.append(SampleInput(x, 2.5))
        out.append(SampleInput(x, np.array(np.inf, dtype)))
    return out


# -- float_power -----------------------------------------------------------------------------------
def _float_power_samples(dtype, rng):
    if dtype == "bool":
        b = _x((3, 4), dtype, rng)
        return [SampleInput(b, _x((3, 4), dtype, rng)), SampleInput(b, 2), SampleInput(2.5, b),
                SampleInput(b, _x((4,), "float32", rng))]
    low = 0 if dtype == "uint8" else -3
    if dtype in INTS:
        return [SampleInput(_x((3, 4), dtype, rng, low, 4), _x((3, 4), dtype, rng, low, 3)),
                SampleInput(_x((3, 4), dtype, rng, low, 4), -2),
                SampleInput(_x((3, 4), dtype, rng, low, 4), 0.5),
                SampleInput(2, _x((4,), dtype, rng, low, 3)),
                SampleInput(_x((3, 4), dtype, rng, low, 4), 1j)]
    out = binary_samples(0.25, 3, scalars=("int", "float", "bool"),
                         lhs_scalars=("int", "float"), partners=("float32", "int64", "float16"),
                         special=dtype in FLOATS)(dtype, rng)
    out.append(SampleInput(_x((3, 4), dtype, rng, 0.25, 3), 1.5 - 0.5j, desc="complex number"))
    out.append(SampleInput(_x((3, 4), dtype, rng, -3, 3), 0.5, desc="nan for x < 0"))
    return out


def _float_power_errors(dtype, rng):
    if dtype not in FLOATS:
        return []
    x = _x((3, 4), dtype, rng, 0.5, 2)
    return [SampleInput(x, "a"),
            SampleInput(True, 2, desc="no tensor")]


# -- atan2, hypot, fmax/fmin, nextafter, logaddexp ------------------------------------------------
def _zero_pairs(dtype, rng):
    """Both operands zero somewhere (atan2's and hypot's derivatives are special there)."""
    if dtype not in FLOATS:
        return []
    a = np.array([[0.0, 0.0, -0.0, 1.5], [0.0, 2.0, -3.0, 0.0]], dtype)
    b = np.array([[0.0, -0.0, 0.0, 0.0], [1.0, 0.0, 0.0, -2.5]], dtype)
    return [SampleInput(a, b, desc="zeros")]


def _tensor_only(low=None, high=None, **kw):
    """binary_samples with Tensor operands only (numbers: see test_binary_ops.py)."""
    gen = binary_samples(low, high, scalars=(), **kw)

    def g(dtype, rng):
        return gen(dtype, rng)
    return g


def _nan_ties(dtype, rng):
    """Ties and NaN on either side: fmax/fmin pick the non-NaN, ties go to self."""
    x = _x((3, 4), dtype, rng, -2, 2)
    y = _x((3, 4), dtype, rng, -2, 2)
    y[:, :2] = x[:, :2]
    out = [SampleInput(x, y, desc="half tied"), SampleInput(x, x[1].copy(), desc="tied row")]
    if dtype in FLOATS:
        a = np.array([[np.nan, 1.0, np.nan, 2.0], [np.inf, -np.inf, 0.0, -0.0]], dtype)
        b = np.array([[1.0, np.nan, np.nan, 2.0], [np.inf, 3.0, -0.0, 0.0]], dtype)
        out.append(SampleInput(a, b, desc="nan and ties"))
        out.append(SampleInput(b, a, desc="nan and ties"))
    return out


def _nextafter_samples(dtype, rng):
    out = binary_samples(-3, 3, scalars=())(dtype, rng)
    x = _x((3, 4), dtype, rng, -3, 3)
    y = _x((3, 4), dtype, rng, -3, 3)
    y[0] = x[0]
    out.append(SampleInput(x, y, desc="equal elements"))
    return out


def _logaddexp_edges(dtype, rng):
    if dtype not in FLOATS:
        z = _x((3, 4), dtype, rng, -3, 3)
        return [SampleInput(z, z.copy(), desc="equal"), SampleInput(z * 100, z[::-1].copy())]
    a = np.array([[np.inf, -np.inf, np.inf, 1000.0], [-1000.0, 0.0, np.nan, 3.0]], dtype)
    b = np.array([[np.inf, -np.inf, -np.inf, -1000.0], [-1000.0, 0.0, 1.0, 3.0]], dtype)
    return [SampleInput(a, b, desc="infinities, far apart, equal")]


def _logaddexp_complex(dtype, rng):
    if dtype not in COMPLEX:
        return []
    inf, nan = np.inf, np.nan
    a = np.array([complex(inf, 1), complex(-inf, 2), complex(nan, 0), complex(1, nan),
                  complex(inf, 0.5), 2 + 1j], dtype)
    b = np.array([complex(inf, 2), complex(-inf, 1), 1 + 1j, 1 + 1j, 3 + 0j,
                  complex(-inf, 0)], dtype)
    return [SampleInput(a, b, desc="complex infinities and nan")]


# -- lerp ----------------------------------------------------------------------------------------
def _lerp_samples(dtype, rng):
    def x(shape=(3, 4), low=-3, high=3):
        return _x(shape, dtype, rng, low, high)

    other = "float64" if dtype != "float64" else "float32"
    weights = (0.3, 0.7, 1, -0.5, 1.5) + ((0.25 - 0.5j,) if dtype in COMPLEX else ())
    out = [SampleInput(x(), x(), w) for w in weights]
    out += [SampleInput(x(), x((4,)), 0.5), SampleInput(x(()), x((2, 3)), 0.25),
            SampleInput(x((0, 4)), x((4,)), 0.5),
            SampleInput(x(), x(), x(low=-1, high=2)),
            SampleInput(x(), x((3, 1)), x((4,), low=0, high=1)),
            SampleInput(x(()), x(()), x(()), desc="0-dim"),
            SampleInput(x(), x(), weight=x((4,)), desc="keyword weight"),
            SampleInput(x(), x(), np.array(0.75, "float64"), desc="0-dim weight of a dtype"),
            SampleInput(x(), x(), np.array(2, "int64"), desc="0-dim integer weight"),
            SampleInput(x(), x(), np.array(True), desc="0-dim bool weight"),
            SampleInput(x(), _x((3, 4), other, rng, -3, 3), 0.5,
                        desc="end of another dtype: torch's error"),
            SampleInput(x(), x(), _x((3, 4), other, rng, 0, 1), desc="weight of another dtype"),
            ]
    for f in NONCONTIGUOUS:
        out.append(SampleInput(f((3, 4), dtype, rng, low=-3, high=3), x(), 0.4))
        out.append(SampleInput(x(), x(), f((3, 4), dtype, rng, low=0, high=1)))
    if dtype in FLOATS:
        sv = special_values(dtype)
        out.append(SampleInput(sv, sv[::-1].copy(), 0.75, desc="special values"))
        out.append(SampleInput(x(), x(), 1e300, desc="weight overflows float"))
        if dtype != "float16":   # torch: ComplexHalf, which dyngrad does not have
            out.append(SampleInput(x(), x(), np.array(0.5j, "complex64"),
                                   desc="0-dim complex weight promotes"))
    return out


# -- addcmul / addcdiv ---------------------------------------------------------------------------
def _addc_samples(divide):
    def gen(dtype, rng):
        lo, hi = (0, 6) if dtype == "uint8" else (-5, 6)

        def x(shape=(3, 4), low=lo, high=hi, **kw):
            return _x(shape, dtype, rng, low, high, **kw)

        def d(shape=(3, 4)):   # divisors away from 0
            if not divide:
                return x(shape)
            v = _x(shape, dtype, rng, 0.5, 3)
            return np.asarray(v * np.where(rng.random(shape) < 0.5, -1, 1).astype(dtype))

        values = (2, -1, 0.5, True) if dtype not in COMPLEX else (2, 0.5 - 1j)
        out = [SampleInput(x(), x(), d()), SampleInput(x(), x((4,)), d((3, 1))),
               SampleInput(x(()), x((2, 3)), d(())), SampleInput(x((0, 3)), x((3,)), d((1, 3))),
               SampleInput(x((3, 1)), x(()), d((4,)))]
        out += [SampleInput(x(), x(), d(), value=v) for v in values]
        for f in NONCONTIGUOUS:
            out.append(SampleInput(f((3, 4), dtype, rng, low=lo, high=hi), x(), d()))
            out.append(SampleInput(x(), f((3, 4), dtype, rng, low=lo, high=hi), d()))
        other = "float64" if dtype != "float64" else "int32"
        out += [SampleInput(x(), _x((3, 4), other, rng, 1, 4), d(), desc="mixed dtypes"),
                SampleInput(_x((3, 4), "int64", rng, 1, 4), x(), d(), desc="mixed dtypes"),
                SampleInput(x(), x(), np.array(2.5, other), desc="mixed dtypes, 0-dim")]
        if dtype in FLOATS:
            out += [SampleInput(x(), x(), d(), value=1e300, desc="value overflows"),
                    SampleInput(x(), x(), d(), value=1j, desc="complex value"),
                    SampleInput(x(), x(), d(), value=np.inf)]
        if dtype in INTS:
            out += [SampleInput(x(), x(), d(), value=2.7, desc="float value truncates"),
                    SampleInput(x(), x(), d(), value=300, desc="value overflows small ints"),
                    SampleInput(x(), x(), d(), value=np.inf)]
        out.append(SampleInput(x(), x(), d(), value="a", desc="str value"))
        return out
    return gen


def _addcdiv_integers(dtype, rng):
    """Integer tensor1 and tensor2 are refused whatever self's dtype."""
    if dtype != "float32":
        return []
    x = _x((3, 4), dtype, rng)
    i = _x((3, 4), "int64", rng, 1, 5)
    return [SampleInput(x, i, i.copy(), desc="integer division"),
            SampleInput(x, i > 2, i.copy(), desc="integer division"),
            SampleInput(i, x, x + 10, desc="integer self, float operands")]


# -- xlogy / xlog1py -------------------------------------------------------------------------------
def _xlog_samples(zero_at):
    def gen(dtype, rng):
        if dtype == "bool":
            b = _x((3, 4), dtype, rng)
            return [SampleInput(b, _x((3, 4), dtype, rng)), SampleInput(b, 2),
                    SampleInput(2.5, b), SampleInput(b, _x((4,), "float32", rng, 0.5, 3))]
        high = 6 if dtype in REAL else 3
        low = max(zero_at, 0) if dtype == "uint8" else zero_at
        out = binary_samples(0 if dtype == "uint8" else -3, high, rhs_low=low + 0.25,
                             rhs_high=high, scalars=("int", "float", "bool"),
                             lhs_scalars=("int", "float"), special=False)(dtype, rng)
        x = _x((2, 4), dtype, rng, -2 if dtype != "uint8" else 0, 3)
        x[:, :2] = 0
        if dtype in FLOATS:
            y = np.array([[zero_at, np.nan, zero_at - 1, 2.5], [zero_at + 1, 0.5, np.inf, 1.0]],
                         dtype)
            out += [SampleInput(x, y, desc="zeros: Note [xlogy at x = 0]"),
                    SampleInput(x, zero_at, desc="zero self, boundary number"),
                    SampleInput(x, zero_at - 1.5, desc="zero self, number below"),
                    SampleInput(0.0, y, desc="zero number self"),
                    SampleInput(special_values(dtype), y, desc="special values")]
        out.append(SampleInput(2, 3, desc="no tensor"))
        return out
    return gen


# -- copysign --------------------------------------------------------------------------------------
def _copysign_samples(dtype, rng):
    out = binary_samples(-4, 4, scalars=("int", "float", "bool"), lhs_scalars=("int",),
                         special=dtype in FLOATS)(dtype, rng)
    if dtype in FLOATS:
        a = np.array([[0.0, -0.0, 1.5, -2.0], [0.0, 3.0, -0.0, np.nan]], dtype)
        b = np.array([[1.0, -1.0, -0.0, 0.0], [-2.0, np.nan, 2.0, -1.0]], dtype)
        out += [SampleInput(a, b, desc="signed zeros"), SampleInput(a, -0.0, desc="-0.0")]
    return out


# -- ldexp -----------------------------------------------------------------------------------------
def _ldexp_samples(dtype, rng):
    lo = 0 if dtype in ("uint8", "bool") else -3

    def x(shape=(3, 4)):
        return _x(shape, dtype, rng, lo, 4)

    def e(shape=(3, 4), d="int64", low=-4, high=6):
        return _x(shape, d, rng, low, high)

    out = [SampleInput(x(), e()), SampleInput(x(), e((4,), "int32")), SampleInput(x(()), e()),
           SampleInput(x(), e((), "int8")), SampleInput(x((0, 4)), e((4,))),
           SampleInput(x(), e(d="uint8", low=0)),
           # a float32 exponent takes torch's float32 pow, whose last bit differs between its
           # AVX2 and AVX-512 kernels: integral values keep 2 ** e exact on every CPU
           SampleInput(x(), np.round(e(d="float32")), desc="integral float32 exponent"),
           SampleInput(x(), e(d="float64", low=-2, high=2)), SampleInput(x(), e((), "float64")),
           SampleInput(x(), e(d="bool"), desc="bool exponent"),
           SampleInput(x(), e((), "bool"), desc="bool exponent")]
    if dtype not in ("float16", "bool") and dtype not in COMPLEX:
        out.append(SampleInput(x(), e(d="float16", low=-2, high=2)))
    if dtype in FLOATS_AND_COMPLEX:
        out.append(SampleInput(x(), e(d=dtype, low=-2, high=2)))
    for f in NONCONTIGUOUS:
        out.append(SampleInput(f((3, 4), dtype, rng, low=lo, high=4), e()))
        out.append(SampleInput(x(), f((3, 4), "int64", rng, low=-3, high=3)))
    if dtype in FLOATS:
        big = {"float16": 20, "float32": 129, "float64": 1030}[dtype]
        tiny = np.array([[1e-3, 3.0, -2.0, 0.0], [np.inf, np.nan, 1.5, -0.0]], dtype)
        out.append(SampleInput(tiny, np.array([big, -big, 1, 5], "int64"),
                               desc="exponents beyond the dtype's range"))
        out.append(SampleInput(tiny, np.array([0.5, -1.5, 2.0, 0.0], dtype),
                               desc="fractional exponents"))
    return out


# -- isclose: torch's algorithm (Note [isclose]) -------------------------------------------------
def _isclose_edges(dtype, rng):
    out = []
    if dtype in FLOATS:
        inf, nan = np.inf, np.nan
        a = np.array([[inf, -inf, inf, nan], [1.0, 3e38 if dtype != "float16" else 6e4, 0.0,
                                              -0.0]], dtype)
        b = np.array([[inf, inf, 1.0, nan], [inf, -3e38 if dtype != "float16" else -6e4,
                                             1e-9, 0.0]], dtype)
        out += [SampleInput(a, b, atol=inf, desc="infinite atol"),
                SampleInput(a, b, rtol=0.5, equal_nan=True),
                SampleInput(a, b, 0, 0, True, desc="zero tolerances")]
    if dtype in INTS or dtype == "bool":
        lo = 0 if dtype in ("uint8", "bool") else -100
        x = _x((3, 4), dtype, rng, lo, 100)
        out += [SampleInput(x, _x((3, 4), dtype, rng, lo, 100), atol=50, rtol=0.1,
                            desc="integers compare in float"),
                SampleInput(x, x[0].copy(), atol=0.5)]
    x = _x((3, 4), dtype, rng, 0, 3)
    other = "float64" if dtype != "float64" else "float32"
    out += [SampleInput(x, _x((3, 4), other, rng, 0, 3), desc="dtypes differ: torch's error"),
            SampleInput(x, x.copy(), rtol=-1, desc="negative rtol"),
            SampleInput(x, x.copy(), atol=-0.5, desc="negative atol"),
            SampleInput(x, 1.0, desc="number other")]
    out.append(SampleInput(NONCONTIGUOUS[0]((3, 4), dtype, rng, low=0, high=3), x))
    return out


# -- aliases ---------------------------------------------------------------------------------------
def _few_binary(dtype, rng):
    x, y = _x((3, 4), dtype, rng, 1, 4), _x((4,), dtype, rng, 1, 4)
    return [SampleInput(x, y), SampleInput(x, 2), SampleInput(x[:, :1].copy(), y)]


def _alias_kwargs(**kwargs):
    def gen(dtype, rng):
        return [SampleInput(_x((3, 4), dtype, rng, 1, 4), _x((4,), dtype, rng, 1, 4), **kwargs)]
    return gen


_half = {"float16": (4e-3, 2e-3)}

OP_DB += [
    OpInfo("fmod", chain(binary_samples(nonzero_rhs=True), _fmod_edges), REAL, tol=_half),
    OpInfo("float_power", chain(_float_power_samples, _float_power_errors), ALL_DTYPES,
           gradgrad_samples=8,
           xfail={("backward_inplace", "float32"): "float_power_ needs a float64 self: torch "
                  "rejects every float32 sample"}),
    OpInfo("atan2", chain(_tensor_only(), _zero_pairs), REAL_AND_BOOL, tol=_half,
           gradgrad_samples=8),
    OpInfo("arctan2", _few_binary, REAL_AND_BOOL),
    OpInfo("hypot", chain(_tensor_only(), _zero_pairs), FLOATS, tol=_half, gradgrad_samples=8),
    OpInfo("fmax", chain(_tensor_only(), _nan_ties), REAL_AND_BOOL, gradgrad_samples=6),
    OpInfo("fmin", chain(_tensor_only(), _nan_ties), REAL_AND_BOOL, gradgrad_samples=6),
    OpInfo("nextafter", _nextafter_samples, FLOATS, gradgrad_samples=4),
    OpInfo("logaddexp", chain(_tensor_only(-3, 3), _logaddexp_edges, _logaddexp_complex),
           FLOATS_AND_COMPLEX, tol=_half, gradgrad_samples=8),
    OpInfo("logaddexp2", chain(_tensor_only(-3, 3), _logaddexp_edges), FLOATS, tol=_half,
           gradgrad_samples=8),
    OpInfo("lerp", _lerp_samples, FLOATS_AND_COMPLEX, tol=_half, gradgrad_samples=10),
    OpInfo("addcmul", _addc_samples(divide=False), ALL_BUT_BOOL, tol=_half,
           gradgrad_samples=8),
    OpInfo("addcdiv", chain(_addc_samples(divide=True), _addcdiv_integers), FLOATS_AND_COMPLEX,
           tol={"float16": (1e-2, 1e-2)}, gradgrad_samples=8),
    OpInfo("xlogy", _xlog_samples(0.0), REAL_AND_BOOL, tol=_half, gradgrad_samples=10),
    OpInfo("special.xlogy", _few_binary, REAL_AND_BOOL),
    OpInfo("special.xlog1py", _xlog_samples(-1.0), REAL_AND_BOOL, tol=_half,
           gradgrad_samples=10),
    OpInfo("copysign", _copysign_samples, REAL_AND_BOOL, gradgrad_samples=8),
    OpInfo("ldexp", _ldexp_samples, ALL_DTYPES, tol=_half, gradgrad_samples=8),
    OpInfo("isclose", _isclose_edges, ALL_DTYPES, supports_out=False, variant="edges"),
    OpInfo("subtract", chain(_few_binary, _alias_kwargs(alpha=2)), ALL_BUT_BOOL),
    OpInfo("multiply", _few_binary, ALL_DTYPES),
    OpInfo("divide", chain(_few_binary, _alias_kwargs(rounding_mode="floor")), ALL_DTYPES),
]
