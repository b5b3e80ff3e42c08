"""torch.special's orthogonal polynomials of x with degree n: ``chebyshev_polynomial_t/u/v/w``,
``shifted_chebyshev_polynomial_t/u/v/w`` (of 2x - 1), ``hermite_polynomial_h`` (physicists'),
``hermite_polynomial_he`` (probabilists'), ``laguerre_polynomial_l`` and
``legendre_polynomial_p``.

Each has torch's three overloads (Tensor x with Tensor n, Number x, Number n), with ``out=``;
x and n promote together (integers to the default float dtype); float16 and complex raise
torch's "<name>_cpu" error. torch gives them no derivative: results never require grad.

Note [Polynomial kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~
As torch: n is truncated to an integer (NaN, inf and values beyond int64 become int64's
minimum, as the C cast does on x86), negative n gives 0, then the special cases at the ends of
the interval (|x| = 1, or x = 0 and 1 for the shifted ones), the closed forms
cos(n acos x), sin((n+1) theta) / sin(theta), ... for the Chebyshev kinds once n passes a small
threshold with x inside (-1, 1), and otherwise the three-term recurrence from P_0 = 1 and P_1,
run in the result dtype so that float32 rounds as torch's kernel does. The recurrence runs
elementwise up to each element's own n, on the elements still going only.
"""
from __future__ import annotations

from .._promotion import Promote
from ._registry import FUNCTIONS, defop
from .binary import _resolve
from .pointwise import _call, _dtype, _not_implemented

_INT64_MIN = -(2 ** 63)


def _degree(xp, n):
    """n as int64, as torch's C cast truncates it (See Note [Polynomial kernels])."""
    if n.dtype.kind in "iub":
        return n.astype(xp.int64)
    ok = xp.isfinite(n) & (xp.abs(n) < 2.0 ** 63)
    return xp.where(ok, xp.trunc(xp.where(ok, n, 0.0)), _INT64_MIN).astype(xp.int64)


def _recurrence(xp, x, n, first, step):
    """P_n(x) from P_0 = 1, P_1 = first(x) and P_k = step(k, x, P_{k-1}, P_{k-2}), elementwise
    up to each n (>= 2); 1-d arrays."""
    out = xp.empty_like(x)
    live = xp.arange(x.shape[0])
    p = xp.ones_like(x)
    q = first(x)
    k = 1
    while live.shape[0]:
        k += 1
        r = step(x.dtype.type(k), x, q, p)
        done = n == k
        out[live[done]] = r[done]
        keep = ~done
        live, x, n, p, q = live[keep], x[keep], n[keep], q[keep], r[keep]
    return out


def _evaluate(xp, x, n, cases, first, step):
    """The polynomial: `cases(xp, x, n)` gives (mask, value) pairs tried in order (torch's special
    cases), then n = 0, n = 1 and the recurrence."""
    one = x.dtype.type(1)
    x, n = xp.broadcast_arrays(x, n)
    shape = x.shape
    x, n = x.reshape(-1), n.reshape(-1)
    out = xp.where(n == 0, one, first(x))
    settled = n < 2
    for mask, value in reversed(cases(xp, x, n)):
        out = xp.where(mask, value, out)
        settled = settled | mask
    out = xp.where(n < 0, x.dtype.type(0), out)
    settled = settled | (n < 0)
    rest = ~settled
    if rest.any():
        out[rest] = _recurrence(xp, x[rest], n[rest], first, step)
    return out.reshape(shape)


def _fused(a, b, c):
    """a * b - c rounded once for float32 (torch's compiled kernel fuses the product into an
    FMA; float64's exact product of two floats emulates it), plainly for float64."""
    if a.dtype.itemsize == 4:
        return (a.astype("float64") * b.astype("float64") - c).astype(a.dtype)
    return a * b - c


def _rounded(fn, v):
    """fn(v) correctly rounded to float32 (as the C library's acosf, cosf, sinf are), by way of
    float64; NumPy's own float32 versions are a few ulps off."""
    if v.dtype.itemsize == 4:
        return fn(v.astype("float64")).astype(v.dtype)
    return fn(v)


def _signed(xp, n, positive, value):
    """value where `positive` or n is even, -value elsewhere."""
    return xp.where(positive | (n % 2 == 0), value, -value)


def _chebyshev_kind(kind, shifted):
    """T, U, V or W (of 2x - 1 when `shifted`); See Note [Polynomial kernels]."""
    def arg(x):
        return x + x - 1 if shifted else x

    def first(x):
        y = arg(x)
        return {"t": y, "u": y + y, "v": y + y - 1, "w": y + y + 1}[kind]

    def step(k, x, q, p):
        y = arg(x)
        return _fused(y + y, q, p)

    threshold = {"t": 6, "u": 8, "v": 8, "w": 8}[kind] if not shifted else \
        {"t": 6, "u": 6, "v": 6, "w": 4}[kind]

    def cases(xp, x, n):
        dt = x.dtype.type
        nf = n.astype(x.dtype)
        if shifted:
            top, bottom = x == 1, x == 0
        else:
            top, bottom = x == 1, x == -1
        edge = {"t": (dt(1), _signed(xp, n, False, dt(1))),
                "u": (nf + 1, _signed(xp, n, False, nf + 1)),
                "v": (dt(1), _signed(xp, n, False, nf + nf + 1)),
                "w": (nf + nf + 1, _signed(xp, n, False, dt(1)))}[kind]
        y = arg(x)
        inside = (n > threshold) & (xp.abs(y) < 1)
        with _quiet(xp):
            theta = _rounded(xp.arccos, y)
            if kind == "t":
                closed = _rounded(xp.cos, nf * theta)
            elif kind == "u":
                closed = _rounded(xp.sin, (nf + 1) * theta) / _rounded(xp.sin, theta)
            elif kind == "v":
                closed = _rounded(xp.cos, (nf + dt(0.5)) * theta) / _rounded(xp.cos, theta / 2)
            else:
                closed = _rounded(xp.sin, (nf + dt(0.5)) * theta) / _rounded(xp.sin, theta / 2)
        return [(top & (n >= 0), edge[0]), (bottom & (n >= 0), edge[1]), (inside, closed)]
    return cases, first, step


def _quiet(xp):
    return xp.errstate(all="ignore")


def _hermite(physicists):
    def first(x):
        return x + x if physicists else x

    def step(k, x, q, p):
        if physicists:
            return _fused(x + x, q, (k + k - 2) * p)
        return _fused(x, q, (k - 1) * p)

    return (lambda xp, x, n: []), first, step


def _laguerre():
    def first(x):
        return 1 - x

    def step(k, x, q, p):
        j = k - 1
        return _fused((j + (j + 1)) - x, q, j * p) / (j + 1)

    def cases(xp, x, n):
        return [(x == 0, xp.ones_like(x))]
    return cases, first, step


def _legendre():
    def first(x):
        return x

    def step(k, x, q, p):
        j = k - 1
        return _fused((j + j + 1) * x, q, j * p) / (j + 1)

    def cases(xp, x, n):
        one = x.dtype.type(1)
        return [((xp.abs(x) == 1) & (n >= 0), _signed(xp, n, x > 0, one))]
    return cases, first, step


_FAMILIES = {
    **{f"{'shifted_' if s else ''}chebyshev_polynomial_{k}": _chebyshev_kind(k, s)
       for s in (False, True) for k in "tuvw"},
    "hermite_polynomial_h": _hermite(True),
    "hermite_polynomial_he": _hermite(False),
    "laguerre_polynomial_l": _laguerre(),
    "legendre_polynomial_p": _legendre(),
}


def _declare(name):
    cases, first, step = _FAMILIES[name]

    def kernel(xp, x, n):
        dt = _dtype(x, n)
        if dt.kind not in "fV" or dt.itemsize == 2:
            raise _not_implemented(f"{name}_cpu", dt)
        x, n = (v if hasattr(v, "dtype") else xp.asarray(v, dtype=dt) for v in (x, n))
        with _quiet(xp):
            return _evaluate(xp, x.astype(dt), _degree(xp, n), cases, first, step)
    kernel.__name__ = name

    common = dict(node=None, promote=Promote.INT_TO_FLOAT, inputs=("x", "n"), variants=(),
                  public=f"special.{name}", pointwise=True)
    tensor = defop(f"special_{name}", scalars=(), **common)(kernel)
    x_scalar = defop(f"special_{name}.x_scalar", scalars=("x",), **common)(kernel)
    n_scalar = defop(f"special_{name}.n_scalar", scalars=("n",), **common)(kernel)
    overloads = ((("Tensor", "x"), ("Tensor", "n")), (("Number", "x"), ("Tensor", "n")),
                 (("Tensor", "x"), ("Number", "n")))

    def function(x, n, *, out=None):
        spec = _resolve(f"special_{name}", x, n, tensor, n_scalar, x_scalar, overloads)
        return _call(spec, (x, n), out)
    function.__name__ = name
    function.__doc__ = f"``torch.special.{name}(x, n)`` (See Note [Polynomial kernels])."
    FUNCTIONS[f"special.{name}"] = function
    return function


for _name in _FAMILIES:
    globals()[_name] = _declare(_name)
