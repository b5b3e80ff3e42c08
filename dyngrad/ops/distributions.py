"""Sampling: the random factories (rand, randn, randint, randperm, normal, bernoulli,
multinomial, the ``_like`` ones) and the in-place samplers (uniform_, normal_, bernoulli_,
random_, exponential_, geometric_, cauchy_, log_normal_), all taking ``generator=``.

Shapes, dtypes, value ranges, layouts, autograd nodes and error messages are torch's, and so
are the numbers: the generator is torch's Mersenne Twister (random.py) and the kernels draw
from it as torch's CPU kernels do (random_streams.py), in the same order, so the same seed
gives the same values. The in-place samplers are registry ops, so the dispatcher writes
through views, bumps the version once and runs torch's in-place checks. Sampling has no
gradient: every formula here returns zeros, as torch's derivatives.yaml does.

Differences from torch: the last-bit and MKL cases listed in random_streams.py.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_shapes
from ..backends import numpy_backend as _npb
from .creation import (FACTORY_KW, TYPEMETA_NAME, _is_int, _size_args, _size_kw, _tensor_cls,
                       _type_name, alloc, check_requires_grad, check_size, check_tensor_arg,
                       dtype_arg, checked_scalar, factory_device, finish, fresh,
                       invalid_combination, like_strides, number, out_dtype, zeros_like,
                       check_pin_memory)
from .random import numpy_generator as _gen
from . import random_streams as _rs
from .random_bounds import _random_bounds, _random_default_bounds
from ._arg_parser import float_arg
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, fw_not_implemented

xp = _npb.xp


# ---------------------------------------------------------------------------------------------
# Sampling on arrays (shape and dtype given); complex dtypes sample real and imaginary parts
# ---------------------------------------------------------------------------------------------
def _strides(arr):
    """The strides an in-place fill visits `arr` by (torch's TensorIterator order)."""
    return arr.strides


def _uniform_array(g, shape, np_dtype, low=0.0, high=1.0, strides=None):
    """torch's uniform kernel (random_streams.uniform) laid out for `strides`."""
    n = int(math.prod(shape))
    return _rs.place(_rs.uniform(g, n, np_dtype, low, high), tuple(shape), strides)


def _normal_array(g, shape, np_dtype, mean=0.0, std=1.0, strides=None, contiguous=True):
    n = int(math.prod(shape))
    return _rs.place(_rs.normal(g, n, np_dtype, mean, std, contiguous), tuple(shape), strides)


def _randint_array(g, shape, np_dtype, low, high_inclusive, strides=None):
    n = int(math.prod(shape))
    return _rs.place(_rs.integers(g, n, np_dtype, low, high_inclusive), tuple(shape), strides)


def _bernoulli_array(g, shape, p, np_dtype, strides=None):
    """0/1 of `np_dtype`, 1 where torch's uniform < p (p: a float64 number or an array of
    `shape`, compared in its own precision)."""
    n = int(math.prod(shape))
    if isinstance(p, float):
        u = _rs.place(_rs.uniform01_double(g, n), tuple(shape), strides)
    else:
        pd = p.dtype if p.dtype == xp.float64 else xp.dtype(xp.float32)
        u = _rs.place(_rs.bernoulli_uniforms(g, n, pd), tuple(shape), strides)
        p = p.astype(pd)
    return (u < p).astype(np_dtype)


def _fmt(x) -> str:
    return f"{float(x):g}"


def _float_kernel_check(name, self_dt):
    if self_dt.kind not in "fcV":
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{D.from_np(self_dt)._legacy}'")


# ---------------------------------------------------------------------------------------------
# In-place samplers (registry ops: version bump, leaf and overlap checks come from dispatch)
# ---------------------------------------------------------------------------------------------
INPLACE_ONLY = ("inplace",)


@defop("uniform_", node="UniformBackward0", promote=Promote.NONE, variants=(),
       public="uniform")
def uniform(xp, self, from_=0, to=1, *, generator=None):
    """Fill with samples from U[from, to)."""
    d = D.from_np(self.dtype)
    _float_kernel_check("check_uniform_bounds", self.dtype)
    real = d.to_real()
    # (positions as torch counts them in a method call, 1 after self: uniform_'s and
    # geometric_'s Python methods pass errors on as they are, where the methods made from an
    # OpSpec (normal_, exponential_, cauchy_, log_normal_) renumber the dispatcher's positions,
    # which count self: so those kernels count it, from 2)
    lo = float(float_arg("uniform_", "from", 1, from_))
    hi = float(float_arg("uniform_", "to", 2, to))
    mx = float(_npb.finfo(real.np).max)
    name = TYPEMETA_NAME[real]
    for v, what in ((lo, "from"), (hi, "to")):
        if not -mx <= v <= mx:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if not lo <= hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(lo)} > to={_fmt(hi)}")
    if hi - lo > mx:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{real._legacy}>"
                           f"::max(), but found to={_fmt(hi)} and from={_fmt(lo)} which result "
                           "in to-from to exceed the limit")
    return _uniform_array(_gen(generator), self.shape, self.dtype, lo, hi, _strides(self))


def uniform_(self, *args, generator=None, **kwargs):
    """``uniform_(from=0, to=1)``: fill with samples from U[from, to)."""
    if "from" in kwargs:
        kwargs["from_"] = kwargs.pop("from")
    return uniform.call_inplace(self, *args, generator=generator, **kwargs)


@defop("normal_", node="NormalBackward0", promote=Promote.NONE, variants=INPLACE_ONLY,
       public="normal")
def normal_inplace(xp, self, mean=0, std=1, *, generator=None):
    """Fill with samples from N(mean, std**2)."""
    mean, std = float_arg("normal_", "mean", 2, mean), float_arg("normal_", "std", 3, std)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    _float_kernel_check("normal_kernel_cpu", self.dtype)
    return _normal_array(_gen(generator), self.shape, self.dtype, mean, std, _strides(self),
                         self.flags.c_contiguous)


@defop("bernoulli_.float", node="BernoulliBackward2", promote=Promote.NONE,
       variants=(), public="bernoulli_")
def bernoulli_float(xp, self, p=0.5, *, generator=None):
    return _bernoulli_scalar(self, p, generator, _strides(self))


def _bernoulli_scalar(self, p, generator, strides=None):
    """0/1 of self's shape and dtype, 1 with probability `p` (a number), drawn in the order
    of `strides` (None: C order)."""
    p = number(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    if self.dtype.kind == "c" or (self.dtype.kind == "u" and self.itemsize > 1):
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for "
                                  f"'{D.from_np(self.dtype)._legacy}'")
    return _bernoulli_array(_gen(generator), self.shape, float(p), self.dtype, strides)


@defop("bernoulli_.Tensor", node="BernoulliBackward1", promote=Promote.NONE,
       inputs=("self", "p"), variants=(), public="bernoulli_")
def bernoulli_tensor(xp, self, p, *, generator=None):
    if self.dtype.kind == "u" and self.itemsize > 1:   # (torch dispatches on self first)
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_self_\" not implemented for "
                                  f"'{D.from_np(self.dtype)._legacy}'")
    if p.dtype.kind not in "fV":
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                  f"'{D.from_np(p.dtype)._legacy}'")
    if self.dtype.kind == "c":
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_self_\" not implemented for "
                                  f"'{D.from_np(self.dtype)._legacy}'")
    p = _expand(p, self.shape)
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    return _bernoulli_array(_gen(generator), self.shape, p, self.dtype, _strides(self))


def _expand(arr, shape):
    """``arr.expand(shape)`` with torch's error text."""
    from .._utils import shape_str
    shape = tuple(shape)
    if arr.ndim > len(shape):
        raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be "
                           f"greater or equal to the number of dimensions in the tensor "
                           f"({arr.ndim})")
    off = len(shape) - arr.ndim
    for i, n in enumerate(arr.shape):
        if n != 1 and n != shape[off + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[off + i]}) must match "
                               f"the existing size ({n}) at non-singleton dimension {off + i}.  "
                               f"Target sizes: {shape_str(shape)}.  Tensor sizes: "
                               f"{shape_str(arr.shape)}")
    return xp.broadcast_to(arr, shape)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 with probability `p` (a float, or a tensor broadcast to self), else 0."""
    if isinstance(p, _tensor_cls()):
        return bernoulli_tensor.call_inplace(self, p, generator=generator)
    return bernoulli_float.call_inplace(self, p, generator=generator)


@defop("random_.from", node="RandomBackward0", promote=Promote.NONE, variants=(),
       public="random_")
def random_from(xp, self, from_, to, *, generator=None):
    d = D.from_np(self.dtype)
    lo, hi = _random_bounds(from_, to, d)
    return _randint_array(_gen(generator), self.shape, self.dtype, lo, hi, _strides(self))


@defop("random_.to", node="RandomBackward1", promote=Promote.NONE, variants=(),
       public="random_")
def random_to(xp, self, to, *, generator=None):
    d = D.from_np(self.dtype)
    lo, hi = _random_bounds(0, to, d)
    return _randint_array(_gen(generator), self.shape, self.dtype, lo, hi, _strides(self))


@defop("random_", node="RandomBackward2", promote=Promote.NONE, variants=(), public="random_")
def random_all(xp, self, *, generator=None):
    lo, hi = _random_default_bounds(D.from_np(self.dtype))
    return _randint_array(_gen(generator), self.shape, self.dtype, lo, hi, _strides(self))


_RANDOM_SIGNATURES = (" * (*, torch.Generator generator = None)\n"
                      " * (int from, int to, *, torch.Generator generator = None)\n"
                      " * (int to, *, torch.Generator generator = None)\n")


def random_(self, *args, generator=None, **kwargs):
    """Fill with integers: ``random_()`` over the dtype's range, ``random_(to)`` over
    [0, to), ``random_(from, to)`` over [from, to) (``to=None``: up to the dtype's top)."""
    if "from" in kwargs:
        args = (kwargs.pop("from"),) + args
    if "to" in kwargs:
        args = args + (kwargs.pop("to"),)
    ok = not kwargs and len(args) <= 2 and all(
        type(a) is not bool and _is_int(a) for a in args if a is not None) \
        and (len(args) < 2 or args[0] is not None) and (len(args) != 1 or args[0] is not None)
    if not ok:
        got = ", ".join(_type_name(a) for a in args)
        raise TypeError(f"random_() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{_RANDOM_SIGNATURES}")
    args = tuple(None if a is None else int(a) for a in args)
    if any(a is not None and not -2 ** 63 <= a < 2 ** 63 for a in args):
        raise ValueError("Overflow when unpacking long long")
    if len(args) == 2:
        return random_from.call_inplace(self, args[0], args[1], generator=generator)
    if len(args) == 1:
        return random_to.call_inplace(self, args[0], generator=generator)
    return random_all.call_inplace(self, generator=generator)


@defop("exponential_", node="ExponentialBackward0", promote=Promote.NONE,
       variants=INPLACE_ONLY, public="exponential")
def exponential(xp, self, lambd=1, *, generator=None):
    """Fill with samples from Exp(lambd)."""
    lambd = float_arg("exponential_", "lambd", 2, lambd)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    if self.dtype.kind not in "fV":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           "dtype must be a floating point but you specified "
                           f"{D.from_np(self.dtype)._legacy}")
    flat = _rs.exponential(_gen(generator), self.size, self.dtype, lambd)
    return _rs.place(flat, self.shape, _strides(self))


@defop("geometric_", node="GeometricBackward0", promote=Promote.NONE, variants=(),
       public="geometric")
def geometric(xp, self, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success."""
    p = float_arg("geometric_", "p", 1, p)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    if self.dtype.kind in "cb":
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for "
                                  f"'{D.from_np(self.dtype)._legacy}'")
    u = _rs.uniform01_double(_gen(generator), self.size)
    flat = xp.ceil(xp.log(u) / math.log1p(-p)).astype(self.dtype)
    return _rs.place(flat, self.shape, _strides(self))


def geometric_(self, *args, generator=None, **kwargs):
    """Fill with the number of Bernoulli(p) trials up to the first success."""
    if not args and "p" not in kwargs:
        raise TypeError('geometric_() missing 1 required positional arguments: "p"')
    return geometric.call_inplace(self, *args, generator=generator, **kwargs)


@defop("cauchy_", node="CauchyBackward0", promote=Promote.NONE, variants=INPLACE_ONLY,
       public="cauchy")
def cauchy(xp, self, median=0, sigma=1, *, generator=None):
    """Fill with samples from Cauchy(median, sigma)."""
    median = float_arg("cauchy_", "median", 2, median)
    sigma = float_arg("cauchy_", "sigma", 3, sigma)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    d = D.from_np(self.dtype)
    if d.category != D.FLOAT:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {TYPEMETA_NAME[d]}")
    u = _rs.uniform01_double(_gen(generator), self.size)
    flat = (median + sigma * xp.tan(math.pi * (u - 0.5))).astype(self.dtype)
    return _rs.place(flat, self.shape, _strides(self))


@defop("log_normal_", node="LogNormalBackward0", promote=Promote.NONE, variants=INPLACE_ONLY,
       public="log_normal")
def log_normal(xp, self, mean=1, std=2, *, generator=None):
    """Fill with exp(N(mean, std**2))."""
    mean = float_arg("log_normal_", "mean", 2, mean)
    std = float_arg("log_normal_", "std", 3, std)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    if self.dtype.kind not in "fV":
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for "
                                  f"'{D.from_np(self.dtype)._legacy}'")
    z = _normal_array(_gen(generator), self.shape, xp.dtype(xp.float64), mean, std,
                      _strides(self), contiguous=False)       # element by element in torch
    return xp.exp(z).astype(self.dtype)


# ---------------------------------------------------------------------------------------------
# Factories
# ---------------------------------------------------------------------------------------------
def _random_factory(fname, size, kw_size, out, dtype, check):
    shape = check_size(_size_args(fname, size, kw_size))
    d = out_dtype(dtype, out, D.get_default_dtype())
    check(d)
    return shape, d


def _check_uniform_dtype(d):
    if d.category < D.FLOAT:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{d._legacy}'")


def _check_normal_dtype(d):
    if d.category < D.FLOAT:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{d._legacy}'")


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, **kwargs):
    """Samples from U[0, 1) of the given size (floating and complex dtypes)."""
    check_pin_memory(pin_memory)
    shape, d = _random_factory("rand", size, _size_kw("rand", kwargs), out, dtype,
                               _check_uniform_dtype)
    arr = _uniform_array(_gen(generator), shape, d.np)
    return finish(fresh(arr), requires_grad, factory_device(device), out)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kwargs):
    """Samples from N(0, 1) of the given size (complex: each part has variance 1/2)."""
    check_pin_memory(pin_memory)
    shape, d = _random_factory("randn", size, _size_kw("randn", kwargs), out, dtype,
                               _check_normal_dtype)
    arr = _normal_array(_gen(generator), shape, d.np)
    return finish(fresh(arr), requires_grad, factory_device(device), out)


def _int_arg(fname, v, name, pos):
    if type(v) is bool or not _is_int(v):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                        f"{_type_name(v)}")
    v = int(v)
    if not -2 ** 63 <= v < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return v


def _randint_values(g, shape, d, low, high, strides=None):
    if d.category == D.COMPLEX:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    lo, hi = _random_bounds(low, high, d)
    return _randint_array(g, shape, d.np, lo, hi, strides)


_RANDINT_SIGS = [
    f"int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, {FACTORY_KW}",
    f"int high, tuple of ints size, *, Tensor out = None, {FACTORY_KW}",
    f"int low, int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, "
    f"{FACTORY_KW}",
    f"int low, int high, tuple of ints size, *, Tensor out = None, {FACTORY_KW}"]


def _is_plain_int(v) -> bool:
    return type(v) is not bool and _is_int(v)


def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    """Integers from [low, high) (low defaults to 0): ``randint(high, size)`` or
    ``randint(low, high, size)``; int64 unless `dtype` says otherwise."""
    check_pin_memory(pin_memory)
    args = list(args)
    if low is not None:
        args.insert(0, low)
    if high is not None:
        args.insert(1 if low is not None else len(args), high)
    if size is not None:
        args.append(size)
    if len(args) in (2, 3) and all(_is_plain_int(a) for a in args[:-1]):
        if not isinstance(args[-1], (tuple, list)):
            raise TypeError(f"randint(): argument 'size' (position {len(args)}) must be tuple "
                            f"of ints, not {_type_name(args[-1])}")
    else:
        raise invalid_combination("randint", args, _RANDINT_SIGS)
    bounds = [int(a) for a in args[:-1]]
    for v in bounds:
        if not -2 ** 63 <= v < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
    lo, hi = (0, bounds[0]) if len(bounds) == 1 else bounds
    shape = check_size(_size_args("randint", (args[-1],), None))
    d = out_dtype(dtype, out, D.int64)
    if requires_grad:
        check_requires_grad(d)
    arr = _randint_values(_gen(generator), shape, d, lo, hi)
    return finish(fresh(arr), requires_grad, factory_device(device), out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of 0 .. n-1 (int64 unless `dtype`)."""
    check_pin_memory(pin_memory)
    n = _int_arg("randperm", n, "n", 1)
    check_size((n,))
    d = out_dtype(dtype, out, D.int64)
    if d.category != D.COMPLEX and d is not D.bool_:
        checked_scalar(n - 1 if n > 0 else n, d)
    limits = {D.float16: (2 ** 11 + 1, "2049", "Half"), D.float32: (2 ** 24 + 1, "2^24+1", "Float"),
              D.float64: (2 ** 53 + 1, "2^53+1", "Double")}
    if d in limits and n > limits[d][0]:
        raise RuntimeError(f"n cannot be greater than {limits[d][1]} for {limits[d][2]} type.")
    if d is D.bool_ or d.category == D.COMPLEX or d in D.LIMITED_UNSIGNED:
        raise NotImplementedError(f"\"randperm\" not implemented for '{d._legacy}'")
    arr = _rs.randperm(_gen(generator), n).astype(d.np)
    return finish(fresh(arr), requires_grad, factory_device(device), out)


# -- normal: four overloads, three of them differentiable ops -----------------------------------
def _check_std_tensor(std):
    """torch's CHECK_NORMAL_TENSOR_STD, which runs before the shapes are broadcast."""
    if std.dtype.kind == "c":
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std.size and not (std >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")


@defop("normal.Tensor_float", node="NormalBackward1", promote=Promote.NONE, inputs=("mean",),
       variants=(), public="normal")
def normal_tensor_float(xp, mean, std=1.0, *, generator=None):
    std = number(std)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    _float_kernel_check("normal_kernel_cpu", mean.dtype)
    return _normal_array(_gen(generator), mean.shape, mean.dtype, 0.0, std) + mean


@defop("normal.float_Tensor", node="NormalBackward2", promote=Promote.NONE, inputs=("std",),
       variants=(), public="normal")
def normal_float_tensor(xp, std, mean=0.0, *, generator=None):
    _check_std_tensor(std)
    _float_kernel_check("normal_kernel_cpu", std.dtype)
    z = _normal_array(_gen(generator), std.shape, std.dtype)
    return (z * std + std.dtype.type(number(mean))).astype(std.dtype)


@defop("normal.Tensor_Tensor", node="NormalBackward3", promote=Promote.NONE,
       inputs=("mean", "std"), variants=(), public="normal")
def normal_tensor_tensor(xp, mean, std, *, generator=None):
    _check_std_tensor(std)
    shape = xp.broadcast_shapes(mean.shape, std.shape)
    _float_kernel_check("normal_kernel_cpu", mean.dtype)
    z = _normal_array(_gen(generator), shape, mean.dtype)
    return (z * std + mean).astype(mean.dtype)


_GEN_OUT = "*, torch.Generator generator = None, Tensor out = None"
_NORMAL_SIGS = [f"Tensor mean, Tensor std, {_GEN_OUT}", f"Tensor mean, float std = 1, {_GEN_OUT}",
                f"float mean, Tensor std, {_GEN_OUT}",
                f"float mean, float std, tuple of ints size, {_GEN_OUT}, {FACTORY_KW}"]


_UNSET = object()   # (an argument not given: torch's parser tells it from its default)


def normal(mean=0.0, std=_UNSET, size=None, *, generator=None, out=None, dtype=_UNSET,
           layout=_UNSET, device=_UNSET, requires_grad=_UNSET, pin_memory=_UNSET):
    """Samples from N(mean, std**2): tensor means and/or stds broadcast together, or float
    ``mean``, ``std`` and a ``size``. The factory keywords belong to the last form alone: with
    a tensor mean or std, torch's parser refuses them, even at their defaults."""
    Tensor = _tensor_cls()
    factory = {k: v for k, v in (("dtype", dtype), ("layout", layout), ("device", device),
                                 ("pin_memory", pin_memory), ("requires_grad", requires_grad))
               if v is not _UNSET}
    given = (mean,) if std is _UNSET else (mean, std)
    if std is _UNSET:
        std = 1.0
    tm, ts = isinstance(mean, Tensor), isinstance(std, Tensor)
    kw = {"generator": generator}
    if out is not None:
        kw["out"] = out
    # the keywords given, for the parser's message (which lists several in the reverse of the
    # order given: that order is lost here)
    passed = {k: v for k, v in (("generator", generator), ("out", out)) if v is not None}
    passed.update(factory)
    if (tm or ts) and factory:
        raise invalid_combination("normal", given + ((size,) if size is not None else ()),
                                  _NORMAL_SIGS, passed)
    dtype, device = factory.get("dtype"), factory.get("device")
    check_pin_memory(factory.get("pin_memory"))
    requires_grad = factory.get("requires_grad", False)
    if size is not None and (tm or ts):
        raise invalid_combination("normal", (mean, std, size), _NORMAL_SIGS)
    if tm and ts:
        return normal_tensor_tensor(mean, std, **kw)
    if tm:
        if out is not None:
            # torch's normal_out_impl sizes the output as mean broadcast with `out`'s old shape
            shape = broadcast_shapes(mean.shape, out.shape)
            if tuple(shape) != tuple(mean.shape):
                mean = mean.expand(shape)
        return normal_tensor_float(mean, std, **kw)
    if ts:
        return normal_float_tensor(std, mean, **kw)
    if size is None:
        if len(given) == 1 and not passed:
            # (one argument: only the (Tensor mean, float std=1) overload takes one)
            raise TypeError(f"normal(): argument 'mean' (position 1) must be Tensor, not "
                            f"{_type_name(mean)}")
        raise invalid_combination("normal", given, _NORMAL_SIGS, passed)
    mean, std = number(mean, "normal", "mean", 1), number(std, "normal", "std", 2)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    shape = check_size(_size_args("normal", (size,), None))
    d = out_dtype(dtype, out, D.get_default_dtype())
    _check_normal_dtype(d)
    arr = _normal_array(_gen(generator), shape, d.np, mean, std)
    return finish(fresh(arr), requires_grad, device, out)


# -- bernoulli / multinomial -------------------------------------------------------------------
@defop("bernoulli", node="BernoulliBackward0", promote=Promote.NONE, variants=(),
       public="bernoulli")
def bernoulli_p_self(xp, self, *, generator=None):
    if self.dtype.kind not in "fV":
        which = "self" if self.dtype.kind == "c" or (self.dtype.kind == "u"
                                                    and self.itemsize > 1) else "p"
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_{which}_\" not implemented for "
                                  f"'{D.from_np(self.dtype)._legacy}'")
    if self.size and not ((self >= 0) & (self <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    # torch: a contiguous result, whatever p's layout
    return _bernoulli_array(_gen(generator), self.shape, self, self.dtype)


# torch has no derivative for this overload: its grad_fn is a "NotImplemented" node
@defop("bernoulli.p", node="NotImplemented", promote=Promote.NONE, variants=(),
       public="bernoulli")
def bernoulli_p(xp, self, p, *, generator=None):
    return _bernoulli_scalar(self, p, generator)


@bernoulli_p.backward
def _(ctx, grad):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


_BERNOULLI_SIGS = ("Tensor input, *, torch.Generator generator = None, Tensor out = None",
                   "Tensor input, float p, *, torch.Generator generator = None")


def bernoulli(input, p=None, *, generator=None, out=None):
    """Draw 0/1 with probabilities `input` (or with the float `p`, shaped like `input`)."""
    check_tensor_arg("bernoulli", input)
    if p is None:
        kw = {"generator": generator} if out is None else {"generator": generator, "out": out}
        return bernoulli_p_self(input, **kw)
    if out is not None:
        err = invalid_combination("bernoulli", (input, p), _BERNOULLI_SIGS)
        got = f"({_type_name(input)}, {_type_name(p)})"
        raise TypeError(str(err).replace(got, got[:-1] + ", out=Tensor)", 1))
    return bernoulli_p(input, p, generator=generator)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Sample category indices from the rows of `input` (non-negative weights): int64,
    shape ``(num_samples,)`` or ``(rows, num_samples)``."""
    check_tensor_arg("multinomial", input)
    num_samples = _int_arg("multinomial", num_samples, "num_samples", 2)
    p = input._data
    if not 1 <= p.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype.kind not in "fV":
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype._legacy}")
    if isinstance(out, _tensor_cls()) and out.dtype.np != xp.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out.dtype._legacy}")
    if isinstance(out, _tensor_cls()):   # (an expanded out=: Note [out= and memory overlap])
        out._check_writeable()
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = p.shape[-1]
    if not replacement and num_samples > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if k > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    work = p.dtype if p.dtype.itemsize >= 4 else xp.dtype(xp.float32)
    rows = p.reshape(-1, k).astype(work)
    g = _gen(generator)
    if not replacement or num_samples == 1:   # (torch's fast path covers one sample too)
        if not (rows.size and rows.max() < float("inf") and rows.min() >= 0) or \
                xp.isnan(rows).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (rows.sum(axis=1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        # torch's trick: the top-k of p / Exp(1) is a sample without replacement
        q = _rs.exponential(g, rows.size, p.dtype, 1.0).reshape(rows.shape)
        keys = (p.reshape(rows.shape) / q).astype(p.dtype)
        idx = xp.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    else:
        if (rows < 0).any() or xp.isnan(rows).any():
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if xp.isinf(rows).any():
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        sums = rows.sum(axis=1)
        if (sums <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        # torch: running sums in the accumulate type, divided by the total, then the first
        # category whose sum reaches a 53-bit uniform, row by row
        cdf = (xp.cumsum(rows, axis=1) / sums[:, None].astype(work)).astype(xp.float64)
        u = _rs.uniform01_double(g, rows.shape[0] * num_samples).reshape(-1, num_samples)
        idx = xp.stack([xp.searchsorted(c, uu, side="left") for c, uu in zip(cdf, u)])
        idx = xp.minimum(idx, k - 1)
    idx = idx.astype(xp.int64).reshape(p.shape[:-1] + (num_samples,))
    return finish(fresh(idx), False, None, out)


# -- _like --------------------------------------------------------------------------------------
def _like_array(fname, input, dtype, memory_format):
    check_tensor_arg(fname, input)
    d = dtype_arg(dtype, fname) or input.dtype
    strides = like_strides(input, memory_format)
    return d, strides


def _fill_like(arr_fn, input, d, strides):
    """Allocate like `input`, then fill in memory order (as torch fills the new tensor)."""
    out = alloc(input._data.shape, d.np, strides)
    out[...] = arr_fn(out.shape, d.np, out.strides, out.flags.c_contiguous)
    return out


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None, pin_memory=False):
    """``rand`` shaped (and laid out) like `input`."""
    check_pin_memory(pin_memory)
    d, strides = _like_array("rand_like", input, dtype, memory_format)
    _check_uniform_dtype(d)
    arr = _fill_like(lambda s, dt, st, c: _uniform_array(_gen(generator), s, dt, 0.0, 1.0, st), input, d, strides)
    return finish(arr, requires_grad, device)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None, pin_memory=False):
    """``randn`` shaped (and laid out) like `input`."""
    check_pin_memory(pin_memory)
    d, strides = _like_array("randn_like", input, dtype, memory_format)
    _check_normal_dtype(d)
    arr = _fill_like(lambda s, dt, st, c: _normal_array(_gen(generator), s, dt, 0.0, 1.0, st, c),
                     input, d, strides)
    return finish(arr, requires_grad, device)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None, pin_memory=False):
    """``randint`` shaped like `input` (its dtype unless `dtype`): ``randint_like(x, high)``
    or ``randint_like(x, low, high)``."""
    check_pin_memory(pin_memory)
    if high is None:
        low, high = 0, low
    low = _int_arg("randint_like", low, "low", 2)
    high = _int_arg("randint_like", high, "high", 3)
    d, strides = _like_array("randint_like", input, dtype, memory_format)
    if requires_grad:
        check_requires_grad(d)
    g = _gen(generator)
    arr = _fill_like(lambda s, dt, st, c: _randint_values(g, s, d, low, high, st), input, d,
                     strides)
    return finish(arr, requires_grad, device)


def _zero_grads(ctx, grad):
    """Sampling has no derivative (torch: zeros_like for every input)."""
    zero = zeros_like(grad)
    return tuple(zero for _ in ctx._next)


for _spec in (uniform, normal_inplace, bernoulli_float, bernoulli_tensor, random_from, random_to,
              random_all, exponential, geometric, cauchy, log_normal, normal_tensor_float,
              normal_float_tensor, normal_tensor_tensor, bernoulli_p_self):
    _spec.backward(_zero_grads)
    _spec.jvp(AUTO_ELEMENT_WISE)   # zero tangents
bernoulli_p.jvp(fw_not_implemented("aten::bernoulli", short=True))

for _fn in (rand, randn, randint, randperm, normal, bernoulli, multinomial, rand_like, randn_like,
            randint_like):
    FUNCTIONS[_fn.__name__] = _fn
for _name, _fn in (("uniform_", uniform_), ("bernoulli_", bernoulli_), ("random_", random_),
                   ("bernoulli", bernoulli), ("geometric_", geometric_),
                   ("multinomial", multinomial)):
    METHODS[_name] = _fn


# an out= may be the input, no other overlap (Note [out= and memory overlap] in _dispatch.py)
bernoulli_p_self.out_overlap = "partial"
