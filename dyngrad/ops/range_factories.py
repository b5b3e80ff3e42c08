"""arange, linspace and logspace: torch's sizes, dtypes, errors and values.

Note [Range factory values]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch computes these element by element in C++ (RangeFactories*.cpp), and the rounding of each
element depends on exactly how, so dyngrad follows the oracle's CPU kernels (torch 2.13 built
for AVX2, one thread). On that machine the values agree bit for bit; elsewhere torch itself
may differ by an ulp.

* arange: the length is ``ceil((end - start) / step)`` in double (int64: integer arithmetic on
  the bounds truncated to int64). An element is ``start + step * i`` in the accumulate type
  (double for float32/float64, float for half, int64 for integers), contracted to a fused
  multiply-add, except inside the vectorised loop: it fills two AVX2 vectors (32 bytes each)
  per iteration, starting each vector at ``base = start + step * k`` rounded to the output
  dtype and giving lane j the value ``base + j * step``. Elements after the last full pair of
  vectors take the scalar formula.
* linspace: ``step = (end - start) / (steps - 1)`` in the output dtype (double for integer
  dtypes); the first half of the elements is ``start + step * i``, the second half
  ``end - step * (steps - 1 - i)`` (fused), so both ends are exact.
* logspace: the exponents as linspace's but in double and unfused, then ``pow(base, x)`` in
  double, converted to the output dtype.

FMA is emulated with Dekker's two-product (``_fma``, ``_fma32``), exact up to the rare ties
it recomputes with fractions.
"""
from __future__ import annotations

import math
import operator

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from .creation import (FACTORY_KW, _is_int, invalid_combination, _tensor_cls, _type_name, alloc,
                       cast_array, checked_scalar, factory_device, fill_array, finish, fresh,
                       number, out_dtype, check_pin_memory)

xp = _npb.xp
_f64 = xp.float64


def _two_prod(a, b):
    p = a * b
    split = 134217729.0          # 2**27 + 1 (Veltkamp)
    t = split * a
    ah = t - (t - a)
    al = a - ah
    t = split * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma(a, b, c, residual=False):
    """a * b + c with one rounding (double arrays), as a contracted C++ expression.

    a*b + c = s + t + e exactly (two-product, two-sum); the rounded r = s + z (z = t + e)
    is right unless the part lost in z moves the sum across a rounding midpoint: those rare
    elements are recomputed exactly. With `residual`, also returns the sign-exact remainder
    (a*b + c) - r, which ``_fma32`` needs.
    """
    a, b, c = xp.asarray(a, _f64), xp.asarray(b, _f64), xp.asarray(c, _f64)
    p, e = _two_prod(a, b)
    s, t = _two_sum(p, c)
    z, w = _two_sum(t, e)
    r, q = _two_sum(s, z)
    rest = q + w
    # the midpoint on q's side of r (below a power of two the gap is half the one above)
    half = xp.abs(xp.nextafter(r, xp.where(q < 0, -xp.inf, xp.inf)) - r) / 2
    close = (w != 0) & (xp.abs(xp.abs(q) - half) <= xp.abs(w))
    bad = ~xp.isfinite(r)
    if bad.any():                # the split overflowed: plain arithmetic is as good here
        r = xp.where(bad, a * b + c, r)
        rest = xp.where(bad, 0.0, rest)
    if close.any():
        from fractions import Fraction
        a, b, c = xp.broadcast_arrays(a, b, c)
        r = xp.array(xp.broadcast_to(r, a.shape), copy=True)
        rest = xp.array(xp.broadcast_to(rest, a.shape), copy=True)
        for i in zip(*xp.nonzero(xp.broadcast_to(close, a.shape))):
            exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
            r[i] = float(exact)
            rest[i] = float(exact - Fraction(float(r[i])))
    return (r, rest) if residual else r


def _lowest_bit(x: float) -> int:
    """The exponent of the lowest set bit of a finite non-zero double."""
    m, e = math.frexp(x)
    mant = int(abs(m) * 2 ** 53)
    return e - 53 + (mant & -mant).bit_length() - 1


def _exact_progression(start: float, step: float, n: int) -> bool:
    """True when every ``start + step * i`` (0 <= i < n), and every partial sum the kernels
    form, is exact in double: then plain arithmetic equals the fused one."""
    if not (math.isfinite(start) and math.isfinite(step)):
        return False
    nonzero = [v for v in (start, step) if v != 0]
    if not nonzero:
        return True
    q = min(_lowest_bit(v) for v in nonzero)
    return abs(start) + abs(step) * n < 2.0 ** (52 + q)


def _fma_plain(a, b, c, residual=False):
    return a * xp.asarray(b, _f64) + c


def _fma32_plain(a, b, c):
    return (a * xp.asarray(b, _f64) + c).astype(xp.float32)


def _fma32(a, b, c):
    """fmaf: a * b + c rounded once to float32 (the double result, with ties broken by the
    sign of what the double rounding dropped)."""
    r, rest = _fma(a, b, c, residual=True)
    f = r.astype(xp.float32)
    f64 = f.astype(_f64)
    other = xp.nextafter(f, xp.where(r > f64, xp.float32(xp.inf), xp.float32(-xp.inf)))
    tie = (f64 != r) & ((f64 + other.astype(_f64)) / 2 == r) & (rest != 0)
    if tie.any():
        up = xp.where(rest > 0, xp.maximum(f, other), xp.minimum(f, other))
        f = xp.where(tie, up, f)
    return f


def _fmt(x: float) -> str:
    """A double as C++'s ostream prints it (6 significant digits)."""
    return f"{x:g}"


def _not_implemented(fname, d):
    return NotImplementedError(f"\"{fname}\" not implemented for '{d._legacy}'")


# ---------------------------------------------------------------------------------------------
# arange
# ---------------------------------------------------------------------------------------------
def _arange_size(d, s, e, st, vals):
    """torch's element count (and the int64 start/step used for integer values)."""
    if d is D.int64:
        xs, xe, xst = (checked_scalar(v, D.int64) for v in vals)
        if xst == 0:
            raise ValueError("step must be nonzero")
        sgn = 1 if xst > 0 else -1
        num = xe - xs + xst - sgn
        n = abs(num) // abs(xst)
        if (num < 0) != (xst < 0):
            n = -n
        size_d = float(n)
    else:
        size_d = math.ceil((e - s) / st)
    if not (0 <= size_d <= float(2 ** 63 - 1)):
        raise RuntimeError("invalid size, possible overflow?")
    return int(size_d)


def _vector_values(start, step, n, np_dtype, acc32=False):
    """The floating arange values of the AVX2 kernel. See Note [Range factory values]."""
    exact = _exact_progression(start, step, n)
    fma, fma32 = (_fma_plain, _fma32_plain) if exact else (_fma, _fma32)
    lanes = 32 // np_dtype.itemsize
    i = xp.arange(n)
    nfull = (n // (2 * lanes)) * (2 * lanes)
    k = xp.where(i < nfull, i - i % lanes, i)
    j = (i - k).astype(_f64)
    k = k.astype(_f64)
    if acc32:                    # half accumulates in float
        base = fma32(step, k, start).astype(np_dtype)
        return fma32(j, step, base.astype(_f64)).astype(np_dtype)
    if exact and np_dtype.itemsize == 8:
        return start + step * xp.arange(n, dtype=_f64)
    base = fma(step, k, start).astype(np_dtype).astype(_f64)
    return fma(j, step, base).astype(np_dtype)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Values from `start` to `end` (exclusive) by `step`: int64 when every bound is an
    integer, the default dtype otherwise. The length is torch's (computed in double)."""
    check_pin_memory(pin_memory)
    if end is None:
        start, end = 0, start
        names = (("end", 1, end),)
        if type(end) is int and dtype is None and out is None and device is None \
                and not requires_grad and 0 <= end < 2 ** 63:
            return finish(fresh(xp.arange(end, dtype=xp.int64)), False,   # arange(n): the
                          factory_device(None))                     # common case
    else:
        names = (("start", 1, start), ("end", 2, end), ("step", 3, step))
    for name, pos, v in names:
        number(v, "arange", name, pos)
    vals = [number(v) for v in (start, end, step)]
    floating = any(isinstance(v, (float, complex)) for v in vals)
    d = out_dtype(dtype, out, D.get_default_dtype() if floating else D.int64)
    if d is D.bool_ or d.category == D.COMPLEX or d in D.LIMITED_UNSIGNED:
        raise _not_implemented("arange_cpu", d)
    s, e, st = (float(checked_scalar(v, D.float64)) for v in vals)
    if st == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(s) and math.isfinite(e)):
        raise RuntimeError(f"unsupported range: {_fmt(s)} -> {_fmt(e)}")
    if not ((st > 0 and e >= s) or (st < 0 and e <= s)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = _arange_size(d, s, e, st, vals)
    if d.category == D.INT:
        xs, xst = checked_scalar(vals[0], D.int64), checked_scalar(vals[2], D.int64)
        arr = (xp.int64(xs) + xp.int64(xst) * xp.arange(n, dtype=xp.int64)).astype(d.np)
    elif d is D.float16:
        s32, st32 = (float(xp.float32(checked_scalar(v, D.float32))) for v in (vals[0], vals[2]))
        arr = _vector_values(s32, st32, n, d.np, acc32=True)
    else:
        arr = _vector_values(s, st, n, d.np)
    if out is not None and out.numel() not in (0, n):   # (the other factories resize silently)
        from ._selection import warn_at_caller
        warn_at_caller(f"The number of elements in the out tensor of shape {list(out.shape)} is "
                       f"{out.numel()} which does not match the computed number of elements {n}. "
                       "Note that this may occur as a result of rounding error. The out tensor "
                       f"will be resized to a tensor of shape ({n},). (Triggered internally at "
                       "/__w/pytorch/pytorch/aten/src/ATen/native/RangeFactories.cpp:199.)")
    return finish_range(arr, requires_grad, device, out)


# ---------------------------------------------------------------------------------------------
# linspace / logspace
# ---------------------------------------------------------------------------------------------
def finish_range(arr, requires_grad, device, out):
    """``finish`` for the range factories, whose ``out=`` keeps its shape and strides when it
    has as many elements as the range (its values written in out's order); it is resized
    otherwise, as every factory's."""
    if out is not None:
        out._check_writeable()   # (an expanded out=: Note [out= and memory overlap])
        if out.numel() == arr.size and tuple(out.shape) != arr.shape:
            arr = arr.reshape(tuple(out.shape))
    return finish(fresh(arr), requires_grad, factory_device(device), out)


def _endpoints(fname, start, end):
    """(start, end) as Python numbers; torch's error for a tensor of more dims, worded by its
    overload: the tensors among start and end, each with its dims."""
    tensor = _tensor_cls()
    given = [(name, v.ndim) for name, v in (("start", start), ("end", end))
             if isinstance(v, tensor)]
    if any(ndim for _, ndim in given):
        dims = " and ".join(f"{name} with {ndim} dimension(s)" for name, ndim in given)
        raise RuntimeError(f"{fname} only supports 0-dimensional start and end tensors, but got "
                           f"{dims}.")
    return number(start, fname, "start", 1), number(end, fname, "end", 2)


def _steps(fname, start, end, steps, base=None) -> int:
    if type(steps) is bool or not _is_int(steps):
        extra = "float base = 10.0, " if fname == "logspace" else ""
        sigs = [f"{a} start, {b} end, int steps, {extra}*, Tensor out = None, {FACTORY_KW}"
                for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                             ("Number", "Number"))]
        args = (start, end, steps) if base is None else (start, end, steps, base)
        raise invalid_combination(fname, args, sigs)
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return steps


def _range_dtype(dtype, out, start, end):
    cplx = isinstance(start, complex) or isinstance(end, complex)
    return out_dtype(dtype, out, D.get_default_complex_dtype() if cplx
                     else D.get_default_dtype())


def _in_dtype(value, d: D.dtype):
    """``Scalar::to<T>()``: checked, then the value the dtype holds (ints wrap, floats round)."""
    v = checked_scalar(value, d)
    if d.category == D.INT:
        return int(fill_array(v, d))
    return fill_array(v, d)[()]


def _linspace_values(s, e, n, d):
    i = xp.arange(n)
    first = i < n // 2
    back = (n - 1 - i)
    if d.category == D.INT:
        step = (float(e) - float(s)) / (n - 1)
        v = xp.where(first, _fma(step, i, float(s)), _fma(-step, back, float(e)))
        return v.astype(d.np)
    if d is D.float16 or d is D.bfloat16:   # (each step rounded to the dtype, as torch's)
        h = d.np.type
        step = h(h(e - s) / h(n - 1))
        return xp.where(first, h(s) + step * i.astype(h), h(e) - step * back.astype(h)).astype(h)
    if d.category == D.COMPLEX:
        step = (e - s) / d.np.type(n - 1)
        return xp.where(first, s + step * i.astype(d.np), e - step * back.astype(d.np))
    step = (e - s) / d.np.type(n - 1)
    exact = _exact_progression(float(s), float(step), n) and \
        _exact_progression(float(e), float(step), n)
    if exact:
        fma = _fma32_plain if d is D.float32 else _fma_plain
    else:
        fma = _fma32 if d is D.float32 else _fma
    return xp.where(first, fma(step, i, s), fma(-step, back, e)).astype(d.np)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """`steps` evenly spaced values from `start` to `end` inclusive (computed from both ends,
    as torch does)."""
    s, e = _endpoints("linspace", start, end)
    n = _steps("linspace", start, end, steps)
    check_pin_memory(pin_memory)
    d = _range_dtype(dtype, out, s, e)
    if d is D.bool_:
        raise _not_implemented("linspace_cpu", d)
    if n == 0:
        arr = alloc((0,), d.np)
    elif n == 1:                 # torch: result.fill_(start)
        arr = alloc((1,), d.np, fill=fill_array(checked_scalar(s, d), d))
    elif d in D.LIMITED_UNSIGNED:   # (no kernel: Note [Limited unsigned dtypes])
        raise _not_implemented("linspace_cpu", d)
    else:
        arr = _linspace_values(_in_dtype(s, d), _in_dtype(e, d), n, d)
    return finish_range(arr, requires_grad, device, out)


def _logspace_values(s, e, n, base: float, d):
    i = xp.arange(n)
    first = i < n // 2
    back = n - 1 - i
    if d.category == D.COMPLEX:
        s, e = complex(s), complex(e)
        step = (e - s) / (n - 1)
        return xp.power(base, xp.where(first, s + step * i, e - step * back)).astype(d.np)
    if d.category == D.INT:
        base = float(xp.float32(base))          # torch: float scalar_base for integers
        step = float(e - s) / (n - 1)
        x = xp.where(first, float(s) + step * i, float(e) - step * back)
        return xp.power(base, x).astype(d.np)
    step = float(e - s) / (n - 1)              # the difference in the dtype, then double
    idx = i.astype(d.np).astype(_f64)          # torch counts in the output dtype
    x = xp.where(first, float(s) + step * idx, float(e) - step * back)
    return cast_array(xp.power(base, x), d.np)


def logspace(start, end, steps, base=None, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """`steps` values from ``base ** start`` to ``base ** end``, evenly spaced in the exponent."""
    s, e = _endpoints("logspace", start, end)
    n = _steps("logspace", start, end, steps, base)
    check_pin_memory(pin_memory)
    base = number(10.0 if base is None else base, "logspace", "base", 4)
    if isinstance(base, complex):
        raise TypeError(f"logspace(): argument 'base' (position 4) must be float, not "
                        f"{_type_name(base)}")
    base = float(base)
    d = _range_dtype(dtype, out, s, e)
    if d is D.bool_:
        raise _not_implemented("logspace_cpu", d)
    if n == 0:
        arr = alloc((0,), d.np)
    elif n == 1:                 # torch: result.fill_(pow(base, start)) with start in double
        if d.category == D.COMPLEX:
            value = complex(xp.power(complex(base), complex(s)))
        else:
            value = float(xp.power(base, float(checked_scalar(s, D.float64))))
        arr = alloc((1,), d.np, fill=fill_array(checked_scalar(value, d), d))
    elif d in D.LIMITED_UNSIGNED:
        raise _not_implemented("logspace_cpu", d)
    else:
        arr = _logspace_values(_in_dtype(s, d), _in_dtype(e, d), n, base, d)
    return finish_range(arr, requires_grad, device, out)


from ._registry import FUNCTIONS  # noqa: E402

for _fn in (arange, linspace, logspace):
    FUNCTIONS[_fn.__name__] = _fn
