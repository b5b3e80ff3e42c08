"""histc, histogram, histogramdd and bincount (``torch.histc``, ``torch.histogram``,
``torch.histogramdd``, ``torch.bincount``).

None has a derivative: histc's result never requires grad; the others give their results
torch's ``NotImplemented`` node (backward through it raises), linked to the inputs that
require grad.

Note [Finding a value's bin]: torch's kernel runs in the input's dtype (float16 included, each
step rounded). Values outside [first edge, last edge] and NaNs are skipped. With evenly spaced
edges (histc, histogram with a bin count) the bin is ``trunc((x - first) * bins / (last -
first))``; histogram then corrects it by an upper_bound over the edges at bin - 1 .. bin + 1
(histc does not). With edges given as a tensor the bin is an upper_bound over all of them (a
bisection, whose result for unsorted edges we reproduce). A value equal to the last edge goes
in the last bin. Counts (and weights) are added one value at a time, in order: torch's sums
with one thread (with more, it adds per-thread partial histograms, so weighted results may
differ in the last bit). ``density`` divides by the total, whose summation order is NumPy's,
not torch's (last-bit differences again), then by the bin widths.
"""
from __future__ import annotations

import math

from ._arg_parser import type_name as _tp_name
from .. import _dtypes as D
from .._promotion import Promote
from .._utils import plain_int, scalar_value
from ..backends import numpy_backend as _npb
from ..return_types import histogram as _histogram_type, histogram_out as _histogram_out_type
from ..return_types import histogramdd as _histogramdd_type
from . import _registry
from ._registry import FUNCTIONS, METHODS, defop
from ._selection import resize_output, wrap_plain
from .arithmetic import _no_derivative
from .bucketization import _binary_search
from .linalg import cpp_type_name
from .pointwise import _not_implemented
from .reduction import invalid_arguments
from .creation import _COMPLEX_WARNING, _warn_once

_xp = _npb.xp
_HALF_AND_FLOATS = ("float16", "float32", "float64")


def _is_tensor(value) -> bool:
    return isinstance(value, _registry._Tensor)


def _fmt(value: float) -> str:
    """A double as C++'s ostream prints it (``%g``; glibc's ``-nan``)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:g}"


def _type_error(fname, name, value, pos, want) -> TypeError:
    where = f" (position {pos})" if pos else ""
    return TypeError(f"{fname}(): argument '{name}'{where} must be {want}, not "
                     f"{type(value).__name__}")


def _int(fname, name, value, pos=None) -> int:
    value = plain_int(value)   # (a NumPy integer, a 0-dim integer tensor)
    if type(value) is bool or not isinstance(value, int):
        raise _type_error(fname, name, value, pos, "int")
    return int(value)


def _number(fname, name, value, pos=None) -> float:
    """A Scalar argument read as a double (Scalar.to<double>())."""
    value = scalar_value(value)   # (a 0-dim tensor: its value)
    if isinstance(value, complex):
        if value.imag:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return value.real
    if not isinstance(value, (int, float)):
        raise _type_error(fname, name, value, pos, "Number")
    return float(value)


# -- the counting kernel (Note [Finding a value's bin]) ------------------------------------------
def _positions(xp, x, edges, search, n):
    """(kept values' mask, their bins) for the flat array `x` among `n` edges (`edges` holds
    them all, or only the outer two for search="linear")."""
    left, right = edges[0], edges[-1]
    with xp.errstate(invalid="ignore"):
        keep = (x >= left) & (x <= right)
    v = x[keep]
    if search == "all":
        found = _binary_search(edges.reshape(1, -1), v.reshape(1, -1), True, None)
        pos = found.reshape(-1) - 1
    else:
        with xp.errstate(over="ignore", invalid="ignore", divide="ignore"):
            pos = ((v - left) * v.dtype.type(n - 1) / (right - left)).astype(xp.int64)
        if search == "local":   # upper_bound over edges[pos - 1 : pos + 2]
            lo = xp.maximum(pos - 1, 0)
            hi = xp.minimum(pos + 2, n)
            count = xp.zeros(pos.shape, xp.int64)
            for k in range(3):
                at = lo + k
                count += (at < hi) & (edges[xp.minimum(at, n - 1)] <= v)
            pos = lo + count - 1
    pos = xp.where(pos == n - 1, pos - 1, pos)
    return keep, pos


# -- histc -----------------------------------------------------------------------------------------
def _histc(input, bins, min, max, out):
    dtype = input.dtype
    if out is not None and out.dtype is not dtype:
        raise RuntimeError("torch.histogram: input tensor and hist tensor should have the same "
                           f"dtype, but got input {cpp_type_name(dtype)} and hist "
                           f"{cpp_type_name(out.dtype)}")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = min, max
    x = input._data.reshape(-1)
    if lo == hi and x.size:
        if dtype.is_complex or dtype in D.LIMITED_UNSIGNED:
            raise _not_implemented("aminmax_cpu", x.dtype)
        lo, hi = float(x.min()), float(x.max())
        if math.isnan(lo) or math.isnan(hi):   # (the reduction's NaN has its sign bit set)
            lo = hi = -math.nan
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if dtype is D.bool_ or dtype in D.LIMITED_UNSIGNED:
        raise _not_implemented("linspace_cpu", x.dtype)   # (its bin edges come from linspace)
    if dtype.name not in _HALF_AND_FLOATS:
        raise _not_implemented("histogram_cpu", x.dtype)
    # only the outer edges matter: histc's bins come from interpolation alone
    edges = _xp.asarray([lo, hi], x.dtype)
    hist = _dd_count(_xp, x.reshape(-1, 1), [edges], None, "linear", False, bins)
    if out is None:
        return wrap_plain(hist)
    resize_output(out, (bins,))
    out._data[...] = hist
    out._bump_version()
    return out


def _bind(fname, names, defaults, args, kwargs, first):
    """{name: (value, position or None)}: torch names a position only for an argument given
    positionally (`first` is the position of ``names[0]``: 2 for a function, 1 for a
    method, whose ``self`` is not counted)."""
    taken = first - 1
    if len(args) > len(names):
        raise TypeError(f"{fname}() takes from {taken} to {len(names) + taken} positional "
                        f"arguments but {len(args) + taken} were given")
    bound = {n: (d, None) for n, d in zip(names, defaults)}
    for k, (n, v) in enumerate(zip(names, args)):
        bound[n] = (v, first + k)
    for n, v in kwargs.items():
        if n in names[:len(args)]:
            raise TypeError(f"{fname}() got multiple values for argument '{n}'")
        if n not in names:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{n}'")
        bound[n] = (v, None)
    return bound


def _histc_args(args, kwargs, first):
    b = _bind("histc", ("bins", "min", "max"), (100, 0, 0), args, kwargs, first)
    return (_int("histc", "bins", *b["bins"]), _number("histc", "min", *b["min"]),
            _number("histc", "max", *b["max"]))


def histc(input, *args, out=None, **kwargs):
    """Counts of ``input``'s values in ``bins`` equal bins between ``min`` and ``max`` (the
    data's own extremes when both are equal); values outside are ignored. No gradient."""
    if not _is_tensor(input):
        raise _type_error("histc", "input", input, 1, "Tensor")
    return _histc(input, *_histc_args(args, kwargs, 2), out)


def _histc_method(self, *args, **kwargs):
    return _histc(self, *_histc_args(args, kwargs, 1), None)


FUNCTIONS["histc"] = histc
METHODS["histc"] = _histc_method


# -- histogram -----------------------------------------------------------------------------------
@defop("histogram.bins_tensor", node="NotImplemented", promote=Promote.NONE,
       inputs=("self", "bins", "weight"), variants=(), public="histogram", kernel_dtypes=True,
       scalars=())
def _histogram_op(xp, self, bins, weight=None, search="all", density=False):
    """The histogram of all of ``self`` over the edges ``bins`` (``search``: see Note [Finding
    a value's bin])."""
    x = self.reshape(-1)
    return _dd_count(xp, x.reshape(-1, 1), [bins], weight, search, density), bins.copy()


_histogram_op.backward(_no_derivative("histogram"))

_SIGNATURES = ("Tensor input, Tensor bins, *, Tensor weight = None, bool density = False{}",
               "Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = "
               "None, bool density = False{}")


def _check_inputs(input, edges, weight):
    """ATen's histogramdd_check_inputs for ``input`` viewed as (numel, 1)."""
    n = input.numel()
    _dd_check(input._data.reshape(n, 1), [edges._data],
              None if weight is None else weight._data,
              ((n, 1), None if weight is None else (weight.numel(),)))


def _prepare_out(input, bin_ct, out):
    """ATen's histogramdd_prepare_out checks: the out tensors' dtypes, then the bin count."""
    if out is not None:
        for what, t in zip(("hist", "bin_edges"), out):
            if t.dtype is not input.dtype:
                tail = " for dimension 0" if what == "bin_edges" else ""
                raise RuntimeError(f"torch.histogram: input tensor and {what} tensor should have "
                                   f"the same dtype, but got input {cpp_type_name(input.dtype)} "
                                   f"and {what} {cpp_type_name(t.dtype)}{tail}")
    if bin_ct <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bin_ct} for "
                           "dimension 0")


def _outer_edges(input, range):
    """ATen's select_outer_bin_edges: the range, else the data's extremes, else [0, 1]."""
    if range is not None:
        if len(range) != 2:
            raise RuntimeError("torch.histogramdd: for a 1-dimensional histogram range should "
                               f"have 2 elements, but got {len(range)}")
        lo, hi = float(range[0]), float(range[1])
    elif input.numel():
        if input.dtype not in (D.float32, D.float64):
            raise _not_implemented("histogramdd", input._data.dtype)
        x = input._data
        lo, hi = float(x.min()), float(x.max())
    else:
        lo, hi = 0.0, 1.0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{_fmt(lo)}, {_fmt(hi)}] is "
                           "not finite")
    if lo > hi:
        raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                           f"{_fmt(lo)} max {_fmt(hi)} for dimension 0")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _parse_histogram(method, input, args, kwargs):
    """torch's parser for the two overloads: (bins, range, weight, density, out)."""
    Tensor = _registry._Tensor
    allowed = ("bins", "range", "weight", "density") + (() if method else ("out",))
    bad = len(args) > 1 or any(k not in allowed or (k == "bins" and args) for k in kwargs) \
        or not _is_tensor(input)
    opts = dict(kwargs)
    if args:
        opts["bins"] = args[0]
    bins = opts.get("bins", 100)
    range = opts.get("range")
    weight = opts.get("weight")
    density = opts.get("density", False)
    out = opts.get("out")
    number = (int, float)
    bad = bad or not (isinstance(bins, Tensor) or (isinstance(bins, int)
                                                    and not isinstance(bins, bool))) \
        or (range is not None and (isinstance(bins, Tensor) or not isinstance(range, (tuple, list))
                                   or not all(isinstance(v, number) for v in range))) \
        or not (weight is None or isinstance(weight, Tensor)) or not isinstance(density, bool) \
        or not (out is None or (isinstance(out, (tuple, list)) and len(out) == 2
                                and all(isinstance(t, Tensor) for t in out)))
    if bad:
        tail = "" if method else ", tuple of Tensors out = None"
        sigs = tuple(s.format(tail) for s in _SIGNATURES)
        if method:
            sigs = tuple(s.replace("Tensor input, ", "") for s in sigs)
        got = args if method else (input,) + args
        raise invalid_arguments("histogram", got, kwargs, sigs)
    return bins, range, weight, density, out


def _histogram(method, input, args, kwargs):
    bins, range, weight, density, out = _parse_histogram(method, input, args, kwargs)
    if _is_tensor(bins):
        _check_inputs(input, bins, weight)
        _prepare_out(input, bins.numel() - 1, out)
        edges, search = bins, "all"
    else:
        _prepare_out(input, bins, out)
        lo, hi = _outer_edges(input, range)
        edges = FUNCTIONS["linspace"](lo, hi, bins + 1, dtype=input.dtype)
        _check_inputs(input, edges, weight)
        search = "local"
    hist, bin_edges = _histogram_op(input, edges, weight, search=search, density=density)
    if out is None:
        return _histogram_type((hist, bin_edges))
    from ._selection import check_no_grad_out
    check_no_grad_out("histogram", input, edges, weight)
    for target, value in ((out[1], bin_edges), (out[0], hist)):
        resize_output(target, tuple(value.shape))
        target._data[...] = value._data
        target._bump_version()
    return _histogram_out_type(tuple(out))


def histogram(input, *args, **kwargs):
    """The histogram of ``input``'s values: ``bins`` equal bins over ``range`` (the data's
    extremes by default), or the bins between the sorted edges of a ``bins`` tensor; with
    ``weight``, each value counts its weight; ``density`` divides by the total and the bin
    widths. Returns (hist, bin_edges)."""
    return _histogram(False, input, args, kwargs)


def _histogram_method(self, *args, **kwargs):
    return _histogram(True, self, args, kwargs)


FUNCTIONS["histogram"] = histogram
METHODS["histogram"] = _histogram_method


# -- bincount ------------------------------------------------------------------------------------


@defop("bincount", node="NotImplemented", promote=Promote.NONE, inputs=("self", "weights"),
       variants=(), kernel_dtypes=True, scalars=())
def _bincount_op(xp, self, weights=None, minlength=0):
    """ATen's _bincount_cpu: int64 counts, or sums of float / double weights (any other weight
    dtype is cast to double first)."""
    if self.dtype.kind not in "iu":
        raise _not_implemented("bincount_cpu", self.dtype)
    if weights is not None and weights.dtype not in (xp.float32, xp.float64):
        if weights.dtype.kind == "c":
            _warn_once(_COMPLEX_WARNING)   # (torch's cast to double warns as any copy does)
            weights = weights.real
        weights = weights.astype(xp.float64)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.ndim == 1 and self.size == 0:
        return xp.zeros(minlength, xp.int64)
    if self.ndim != 1 or self.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != self.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    nbins = max(int(self.max()) + 1, minlength)
    if weights is None:
        return xp.bincount(self.astype(xp.int64), minlength=nbins).astype(xp.int64)
    result = xp.zeros(nbins, weights.dtype)
    xp.add.at(result, self.astype(xp.int64), weights)   # one at a time, in order
    return result


_bincount_op.backward(_no_derivative("bincount"))


def _bincount(input, args, kwargs, first):
    if not _is_tensor(input):
        raise _type_error("bincount", "input", input, 1, "Tensor")
    b = _bind("bincount", ("weights", "minlength"), (None, 0), args, kwargs, first)
    weights, pos = b["weights"]
    if weights is not None and not _is_tensor(weights):
        raise _type_error("bincount", "weights", weights, pos, "Tensor")
    minlength = _int("bincount", "minlength", *b["minlength"])
    return _bincount_op(input, weights, minlength=minlength)


def bincount(input, *args, **kwargs):
    """How often each non-negative integer occurs in the 1-D ``input`` (or the sum of its
    ``weights``: float and double weights keep their dtype, others become double), over at
    least ``minlength`` bins."""
    return _bincount(input, args, kwargs, 2)


def _bincount_method(self, *args, **kwargs):
    return _bincount(self, args, kwargs, 1)


FUNCTIONS["bincount"] = bincount
METHODS["bincount"] = _bincount_method



# -- histogramdd ---------------------------------------------------------------------------------
# Note [histogramdd's ops]: torch composes histogramdd from _histogramdd_bin_edges (the edges,
# one NotImplemented node for them all) and _histogramdd_from_bin_cts (the counts, another), or
# from _histogramdd_from_bin_tensors alone, which returns the given edge tensors themselves. Each
# takes its tensors here as one list, [self, *bins, weight], so that its node links those that
# require grad in torch's order.
def _dd_input(xp, tensors, has_weight, n_bins=0):
    """(input as (rows, n) array, edge arrays, flat weight or None) from the packed list."""
    x = tensors[0]
    if x.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    flat = x.reshape(-1, x.shape[-1])
    weight = tensors[-1] if has_weight else None
    return flat, list(tensors[1:1 + n_bins]), weight


def _dd_outer_edges(x, ranges):
    """select_outer_bin_edges for the (rows, n) array `x`: per-dim lows and highs."""
    n = x.shape[1]
    lows, highs = [0.0] * n, [1.0] * n
    if ranges is not None:
        if len(ranges) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should "
                               f"have {2 * n} elements, but got {len(ranges)}")
        lows = [float(v) for v in ranges[0::2]]
        highs = [float(v) for v in ranges[1::2]]
    elif x.size:
        if x.dtype.name not in ("float32", "float64"):
            raise _not_implemented("histogramdd", x.dtype)
        lows = [float(v) for v in x.min(axis=0)]
        highs = [float(v) for v in x.max(axis=0)]
    for d in range(n):
        lo, hi = lows[d], highs[d]
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_fmt(lo)}, "
                               f"{_fmt(hi)}] is not finite")
        if lo > hi:
            raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                               f"{_fmt(lo)} max {_fmt(hi)} for dimension {d}")
        if lo == hi:
            lows[d], highs[d] = lo - 0.5, hi + 0.5
    return lows, highs


def _dd_linspace(lows, highs, bins, np_dtype):
    dtype = D.from_np(np_dtype)
    return [FUNCTIONS["linspace"](lo, hi, b + 1, dtype=dtype)._data
            for lo, hi, b in zip(lows, highs, bins)]


def _dd_check(x, edges, weight, weight_shape):
    """histogramdd_check_inputs on arrays (x: the input viewed as (rows, n))."""
    n = x.shape[1]
    if len(edges) != n:
        raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-"
                           f"dimensional histogram but got {len(edges)}")
    name = D.from_np(x.dtype)
    for d, e in enumerate(edges):
        if e.dtype != x.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the "
                               f"same dtype, but got input with dtype {cpp_type_name(name)} and "
                               f"bins for dimension {d} with dtype "
                               f"{cpp_type_name(D.from_np(e.dtype))}")
        if e.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{e.ndim} dimensions in the bins tensor for dimension {d}")
        if e.size == 0:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, "
                               f"but got 0 elements in the bins tensor for dimension {d}")
    if weight is not None:
        if weight.dtype != x.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and "
                               f"weight tensor should have the same dtype, but got input("
                               f"{cpp_type_name(name)}), and weight("
                               f"{cpp_type_name(D.from_np(weight.dtype))})")
        in_shape, w_shape = weight_shape
        if tuple(w_shape) != tuple(in_shape[:-1]):
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have "
                               "the same shape as the input tensor excluding its innermost "
                               f"dimension, but got input with shape {list(in_shape)} and "
                               f"weight with shape {list(w_shape)}")


def _dd_count(xp, x, edges, weight, search, density, bins=None):
    """The histogram of the points (rows) of `x` over each dim's `edges` (for histc, the two
    outer edges of `bins` even bins), in x's dtype: a point counts when it lies within every
    dim's edges."""
    if x.dtype.name not in _HALF_AND_FLOATS:
        raise _not_implemented("histogram_cpu", x.dtype)
    shape = tuple(e.shape[0] - 1 for e in edges) if bins is None else (bins,)
    keep = xp.ones(x.shape[0], bool)
    index = xp.zeros(x.shape[0], xp.int64)
    for d, e in enumerate(edges):
        kept, pos = _positions(xp, x[:, d], e, search, shape[d] + 1)
        full = xp.zeros(x.shape[0], xp.int64)
        full[kept] = pos
        keep &= kept
        index = index * shape[d] + full
    hist = xp.zeros(shape, x.dtype)
    w = xp.ones(int(keep.sum()), x.dtype) if weight is None else weight.reshape(-1)[keep]
    xp.add.at(hist.reshape(-1), index[keep], w)
    if density:
        total = float(hist.sum(dtype=xp.float64 if x.dtype == xp.float64 else xp.float32))
        with xp.errstate(invalid="ignore", divide="ignore"):
            if x.dtype == xp.float16:
                hist = (hist.astype(xp.float32) / xp.float32(total)).astype(x.dtype)
            else:
                hist = hist / x.dtype.type(total)
            for d, e in enumerate(edges):
                view = [1] * len(edges)
                view[d] = e.shape[0] - 1
                hist = hist / (e[1:] - e[:-1]).reshape(view)
    return hist


_DD = dict(node="NotImplemented", promote=Promote.NONE, inputs=("tensors[]",), variants=(),
           kernel_dtypes=True, scalars=())


@defop("_histogramdd_bin_edges", **_DD)
def _dd_bin_edges(xp, tensors, has_weight=False, bins=(), range=None, density=False):
    x, _, _ = _dd_input(xp, tensors, has_weight)
    lows, highs = _dd_outer_edges(x, range)
    if len(bins) != x.shape[1]:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    return tuple(_dd_linspace(lows, highs, bins, x.dtype))


@defop("_histogramdd_from_bin_cts", **_DD)
def _dd_from_bin_cts(xp, tensors, has_weight=False, bins=(), range=None, density=False,
                     weight_shape=None):
    x, _, weight = _dd_input(xp, tensors, has_weight)
    for d, b in enumerate(bins):
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension "
                               f"{d}")
    lows, highs = _dd_outer_edges(x, range)
    edges = _dd_linspace(lows, highs, bins, x.dtype)
    _dd_check(x, edges, weight, weight_shape)
    return _dd_count(xp, x, edges, weight, "local", density)


@defop("_histogramdd_from_bin_tensors", **_DD)
def _dd_from_bin_tensors(xp, tensors, has_weight=False, n_bins=0, density=False,
                         weight_shape=None):
    x, edges, weight = _dd_input(xp, tensors, has_weight, n_bins)
    _dd_check(x, edges, weight, weight_shape)
    for d, e in enumerate(edges):
        if e.shape[0] - 1 <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {e.shape[0] - 1} "
                               f"for dimension {d}")
    return _dd_count(xp, x, edges, weight, "all", density)


for _op, _name in ((_dd_bin_edges, "_histogramdd_bin_edges"),
                   (_dd_from_bin_cts, "_histogramdd_from_bin_cts"),
                   (_dd_from_bin_tensors, "_histogramdd_from_bin_tensors")):
    _op.backward(_no_derivative(_name))

_DD_SIGNATURES = tuple(f"Tensor input, {kind} bins, tuple of floats range = None, Tensor weight "
                       "= None, bool density = False"
                       for kind in ("int", "tuple of ints", "tuple of Tensors"))


def histogramdd(input, *args, **kwargs):
    """The n-dimensional histogram of the rows of ``input`` (its innermost dim holds each
    point's coordinates): ``bins`` an int (every dim), ints per dim, or edge tensors per dim;
    ``range`` (low, high) per dim; ``weight`` per point; ``density``. Returns (hist,
    bin_edges)."""
    names = ("bins", "range", "weight", "density")
    opts = dict(zip(names, args))
    bad = len(args) > 4 or not _is_tensor(input) or "bins" not in opts and "bins" not in kwargs \
        or any(k not in names or k in opts for k in kwargs)
    opts.update(kwargs)
    bins, ranges = opts.get("bins"), opts.get("range")
    weight, density = opts.get("weight"), opts.get("density", False)
    is_seq = isinstance(bins, (tuple, list))
    ints = is_seq and all(type(b) is int for b in bins)   # (an empty list too)
    if not bad and is_seq and not ints and not all(_is_tensor(b) for b in bins):
        k = next(i for i, b in enumerate(bins) if not _is_tensor(b))
        raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                        f"{_tp_name(bins[k])}")
    numbers = isinstance(ranges, (tuple, list)) and all(isinstance(v, (int, float))
                                                        for v in ranges)
    bad = bad or not (type(bins) is int or is_seq) or not (ranges is None or numbers) \
        or not (weight is None or _is_tensor(weight)) or not isinstance(density, bool)
    if bad:
        raise invalid_arguments("histogramdd", (input,) + args, kwargs, _DD_SIGNATURES)
    tensors = [input]
    if is_seq and not ints:
        tensors += list(bins)
    if weight is not None:
        tensors.append(weight)
    shapes = (tuple(input.shape), None if weight is None else tuple(weight.shape))
    if is_seq and not ints:
        hist = _dd_from_bin_tensors(tensors, weight is not None, n_bins=len(bins),
                                    density=density, weight_shape=shapes)
        return _histogramdd_type((hist, tuple(bins)))
    if not is_seq:
        if input.dim() == 0:
            raise IndexError("Dimension specified as -1 but tensor has no dimensions")
        bins = [bins] * input.size(-1)
    bins = tuple(bins)
    edges = _dd_bin_edges(tensors, weight is not None, bins=bins, range=ranges, density=density)
    hist = _dd_from_bin_cts(tensors, weight is not None, bins=bins, range=ranges,
                            density=density, weight_shape=shapes)
    return _histogramdd_type((hist, tuple(edges)))


FUNCTIONS["histogramdd"] = histogramdd
