"""torch's CPU samplers: how its kernels turn the generator's 32-bit words into numbers.

Every function takes a ``Generator`` (random.py) and returns a NumPy-backend array; together
with torch's Mersenne Twister they give torch's numbers for the same seed:

- uniform (``rand``, ``uniform_``): one word per element, its low 24 bits / 2**24, scaled as
  ``u * (to - from) + from`` in float32 with one rounding (float16 too, then a value rounded
  up to ``to`` becomes ``from``); float64 takes 53 bits of a 64-bit draw (two words, the
  first high). Complex tensors fill their real view.
- integers (``randint``, ``random_``): ``word % range + from``, with a 64-bit draw when the
  range reaches 2**32 (int64 and floating dtypes); the full int64 range is the raw 64 bits.
- normal (``randn``, ``normal_``): a contiguous tensor of 16+ elements is filled with uniforms
  first, then Box-Muller turns each block of 16 into 8 cosines and 8 sines; a tail shorter
  than 16 redraws the last 16 uniforms and recomputes that block (float16 is filled as
  float32, drawing uniforms for the whole blocks only). Smaller or strided tensors draw one
  double-precision pair per two samples and keep the second (torch's cached normal).
- ``randperm``: a Fisher-Yates shuffle with ``word % (n - i)``; ``bernoulli``: ``u < p``
  (24-bit u for a float32 p, 53-bit for float64 or a number); ``exponential_``,
  ``geometric_``, ``cauchy_``: double-precision transforms of a 53-bit u; ``log_normal_``: the
  element-by-element normal; ``multinomial``: torch's exponential trick without replacement,
  a search of the cumulative sums with replacement.

Samples go into memory in the order torch's TensorIterator visits them (the strides'
order), so in-place fills of strided views match too.

Differences from torch: the float32 Box-Muller path uses vectorised log/sin/cos in torch, so a
few percent of its samples differ in the last bit (float64, through libm: about 1 in 400);
and on Intel CPUs torch's MKL builds draw ``bernoulli_(p)`` with a float ``p`` (so dropout)
from MKL's own stream, which is not reproduced: dyngrad follows torch's kernel for other CPUs
(one 53-bit uniform per element, ``u < p``).
"""
from __future__ import annotations

import math

from ..backends import numpy_backend as _npb

xp = _npb.xp
_M24 = 2 ** 24 - 1
_M53 = 2 ** 53 - 1


def iteration_order(shape, strides):
    """The axis order in which TensorIterator walks a tensor: largest stride outermost."""
    if strides is None:
        return tuple(range(len(shape)))
    return tuple(sorted(range(len(shape)), key=lambda i: -abs(strides[i]) if shape[i] > 1 else 0))


def place(flat, shape, strides=None):
    """The samples `flat` (in draw order) as an array of `shape`, laid out as torch fills a
    tensor with `strides` (None: C order)."""
    perm = iteration_order(shape, strides)
    arr = flat.reshape([shape[i] for i in perm])
    inv = [0] * len(perm)
    for k, i in enumerate(perm):
        inv[i] = k
    return arr.transpose(inv)


def _work_dtype(np_dtype):
    """(real dtype, number of real values per element) for a float or complex dtype."""
    if np_dtype.kind == "c":
        return xp.dtype(f"f{np_dtype.itemsize // 2}"), 2
    return np_dtype, 1


def _complex(flat, np_dtype):
    return flat if np_dtype.kind != "c" else flat.view(np_dtype)


def uniform01_float(g, n):
    """`n` floats on [0, 1) from 24 bits of one word each (as float64 values)."""
    return (g.words(n) & xp.uint64(_M24)).astype(xp.float64) * 2.0 ** -24


def uniform01_double(g, n):
    """`n` doubles on [0, 1) from 53 bits of one 64-bit draw each."""
    return (g.words64(n) & xp.uint64(_M53)).astype(xp.float64) * 2.0 ** -53


def _fma(a, b: float, c: float):
    """``a * b + c`` rounded once (as torch's compiled ``x * range + from``), by the
    error-free product (Dekker) and sum (Knuth) of double-double arithmetic."""
    p = a * b
    split = 134217729.0                                 # 2**27 + 1
    ah = a * split - (a * split - a)
    bh = b * split - (b * split - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl   # a * b == p + e exactly
    s = p + c
    z = s - p
    t = (p - (s - z)) + (c - z)                         # p + c == s + t exactly
    return s + (t + e)


def uniform(g, n, np_dtype, low=0.0, high=1.0):
    """`n` samples of U[low, high) of `np_dtype` (floating or complex), torch's draws."""
    rdt, k = _work_dtype(np_dtype)
    m = n * k
    if rdt.itemsize == 8:
        u = uniform01_double(g, m)
        if (low != 0.0 or high != 1.0) and abs(high - low) < 1e300:
            u = _fma(u, high - low, low)
        elif low != 0.0 or high != 1.0:          # a huge range: scaled by 2**-600, exactly
            u = _fma(u, (high - low) * 2.0 ** -600, low * 2.0 ** -600) * 2.0 ** 600
        return _complex(u.astype(rdt), np_dtype)
    # float32 and float16: from, to and the arithmetic in float32
    lo, hi = xp.float32(low), xp.float32(high)
    u = uniform01_float(g, m)
    if low != 0.0 or high != 1.0:
        u = u * float(xp.float32(hi - lo)) + float(lo)  # exact product, one rounding below
    r = u.astype(xp.float32).astype(rdt)
    if rdt.itemsize < 4:
        top = r == rdt.type(high)                       # a half rounds up to `to`: give `from`
        if top.any():
            r = xp.where(top, rdt.type(low), r)
    return _complex(r, np_dtype)


def _box_muller_blocks(u, out_dtype):
    """torch's normal_fill_16 over consecutive blocks of 16 uniforms (float64 values in
    `u`): 1 - u[j] gives the radius, u[j + 8] the angle; cosines first."""
    b = u.reshape(-1, 16)
    if out_dtype == xp.float64:
        r = xp.sqrt(-2.0 * xp.log(1.0 - b[:, :8]))
        th = 2.0 * math.pi * b[:, 8:]
        return xp.concatenate([r * xp.cos(th), r * xp.sin(th)], axis=1).ravel()
    f = xp.float32
    u1 = (f(1) - b[:, :8].astype(f)).astype(xp.float64)
    r = xp.sqrt(f(-2) * xp.log(u1).astype(f))
    th = f(2 * math.pi) * b[:, 8:].astype(f)
    return xp.concatenate([r * xp.cos(th), r * xp.sin(th)], axis=1).ravel().astype(xp.float64)


def _normal_fill(g, n, rdt, mean, std):
    """torch's normal_fill: uniforms for all `n` (float16: for the whole blocks), Box-Muller
    per block of 16, then the last 16 redrawn and recomputed when a tail is left."""
    draw = uniform01_double if rdt.itemsize == 8 else uniform01_float
    full = n // 16 * 16
    u = draw(g, full if rdt.itemsize < 4 else n)      # float16 draws whole blocks only
    out = xp.empty(n, xp.float64)
    work = rdt if rdt.itemsize == 8 else xp.dtype(xp.float32)   # float16: a float32 fill
    out[:full] = _box_muller_blocks(u[:full], work)
    if n % 16:
        out[n - 16:] = _box_muller_blocks(draw(g, 16), work)
    return out * std + mean


def _normal_scalar(g, n, mean, std):
    """torch's at::normal_distribution<double>, element by element: a pair of 53-bit
    uniforms gives r*cos (returned) and r*sin (cached for the next sample)."""
    out = xp.empty(n, xp.float64)
    i = 0
    if n and g.next_double_normal is not None:
        out[0] = g.next_double_normal
        g.next_double_normal = None
        i = 1
    m = n - i
    if m:
        pairs = (m + 1) // 2
        u = uniform01_double(g, 2 * pairs)
        if pairs <= 8:   # a few samples (randn(3)): Python's math beats a dozen array calls
            z = []
            for j in range(0, 2 * pairs, 2):
                r = math.sqrt(-2.0 * math.log1p(-float(u[j + 1])))
                th = 2.0 * math.pi * float(u[j])
                z += (r * math.cos(th), r * math.sin(th))
        else:
            u = u.reshape(pairs, 2)
            r = xp.sqrt(-2.0 * xp.log1p(-u[:, 1]))
            th = 2.0 * math.pi * u[:, 0]
            z = xp.stack([r * xp.cos(th), r * xp.sin(th)], axis=1).ravel()
        out[i:] = z[:m]
        if m % 2:
            g.next_double_normal = float(z[-1])
    return out * std + mean


def normal(g, n, np_dtype, mean=0.0, std=1.0, contiguous=True):
    """`n` samples of N(mean, std**2) of `np_dtype` in draw order (complex: the real view,
    each part with std / sqrt(2))."""
    rdt, k = _work_dtype(np_dtype)
    if k == 2:
        std = std / math.sqrt(2)
    m = n * k
    if m >= 16 and contiguous:
        z = _normal_fill(g, m, rdt, mean, std)
    else:
        z = _normal_scalar(g, m, mean, std)
    return _complex(z.astype(rdt), np_dtype)


def integers(g, n, np_dtype, low, high_inclusive):
    """`n` integers of [low, high_inclusive] (torch's random_from_to): ``word % range +
    low``, 64-bit draws for ranges of 2**32 or more."""
    span = high_inclusive - low + 1
    if span >= 2 ** 64:
        v = g.words64(n)
    else:
        w = g.words64(n) if span >= 2 ** 32 else g.words(n)
        v = w % xp.uint64(span) + xp.uint64(low & (2 ** 64 - 1))
    v = v.view(xp.int64)
    if np_dtype.kind == "b":
        return v.astype(bool)
    return v.astype(np_dtype)


def randperm(g, n):
    """torch's randperm_cpu: Fisher-Yates with ``word % (n - i)``."""
    out = list(range(n))
    if n < (2 ** 32 - 1) // 20:
        w = g.words(max(n - 1, 0)).tolist()
        for i in range(n - 1):
            z = w[i] % (n - i) + i
            out[i], out[z] = out[z], out[i]
    else:                                           # the inside-out variant with 64-bit draws
        w = g.words64(n).tolist()
        for i in range(n):
            z = w[i] % (i + 1)
            out[i] = out[z]
            out[z] = i
    return xp.array(out, dtype=xp.int64)


def bernoulli_uniforms(g, n, p_dtype):
    """The uniforms ``bernoulli`` compares with p: 53-bit for float64 p, else 24-bit."""
    if p_dtype == xp.float64:
        return uniform01_double(g, n)
    return uniform01_float(g, n).astype(xp.float32)


def exponential(g, n, np_dtype, lambd):
    """`n` samples of Exp(lambd): ``-1 / lambd * log1p(-u)`` in double precision on 53-bit
    uniforms, whatever the dtype (as torch's CPU kernel)."""
    return ((-1.0 / lambd) * xp.log1p(-uniform01_double(g, n))).astype(np_dtype)
