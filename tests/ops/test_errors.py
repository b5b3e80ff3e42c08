"""Bad calls raise torch's exception type with torch's message (compared with live torch).

Each case is one lambda run on both libraries (tinygrad's trick, STYLE.md §6). Where our text
cannot equal torch's, the case says why and checks that the message names the op and the
offending argument instead.
"""
from __future__ import annotations

import pytest
import torch

import dyngrad
from compare import like_torch
from opinfo import OP_DB
from opinfo.core import ALL_DTYPES

from .test_forward import assert_same_error, call


def raises_like_torch(fn):
    """Run ``fn(lib)`` on both libraries: both must raise the same type with the same text."""
    _, texc = call(fn, (torch,), {})
    assert texc is not None, "torch did not raise: the case is wrong"
    _, exc = call(fn, (dyngrad,), {})
    assert_same_error(exc, texc, "dyngrad vs torch")


def m23(lib, dtype=None):
    return lib.ones(2, 3, dtype=dtype or lib.float32)


def v(lib, n=3, dtype=None):
    return lib.ones(n, dtype=dtype or lib.float32)


def longs(lib):
    return lib.tensor([1, 2, 3])


def bools(lib):
    return lib.tensor([True, False, True])


def cplx(lib):
    return lib.tensor([1 + 1j, 2 - 1j])


CASES = {
    # broadcasting
    "add broadcast": lambda lib: m23(lib) + v(lib, 4),
    "mul broadcast 3-d": lambda lib: lib.ones(2, 3, 4) * lib.ones(3, 3, 1),
    "where broadcast": lambda lib: lib.where(lib.ones(2, 3) > 0, lib.ones(4), lib.ones(2, 1)),
    "maximum broadcast": lambda lib: lib.maximum(m23(lib), v(lib, 2)),
    "in-place broadcast of self": lambda lib: v(lib).add_(m23(lib)),
    "in-place shape mismatch": lambda lib: v(lib, 2).mul_(m23(lib)),
    # inputs torch's derivatives declare non-differentiable may not require grad
    "bce weight requiring grad": lambda lib: lib.nn.functional.binary_cross_entropy(
        v(lib).mul(0.5), v(lib), weight=v(lib).requires_grad_()),
    "bce with logits pos_weight requiring grad": lambda lib: lib.nn.functional
    .binary_cross_entropy_with_logits(v(lib), v(lib), pos_weight=v(lib).requires_grad_()),
    "nll_loss weight requiring grad": lambda lib: lib.nn.functional.nll_loss(
        m23(lib), lib.tensor([0, 2]), weight=v(lib).requires_grad_()),
    "nll_loss2d weight requiring grad": lambda lib: lib.nn.functional.nll_loss(
        lib.ones(2, 3, 4), lib.zeros(2, 4, dtype=lib.long), weight=v(lib).requires_grad_()),
    "cross_entropy weight requiring grad": lambda lib: lib.nn.functional.cross_entropy(
        m23(lib), lib.tensor([0, 2]), weight=v(lib).requires_grad_(), label_smoothing=0.1),
    "batch_norm running_mean requiring grad": lambda lib: lib.nn.functional.batch_norm(
        m23(lib), v(lib).requires_grad_(), v(lib)),
    "soft_margin_loss target requiring grad": lambda lib: lib.nn.functional.soft_margin_loss(
        v(lib), v(lib).requires_grad_()),
    # index_select: torch's two kernels have messages of their own
    "index_select out of range, vector": lambda lib: v(lib).index_select(0, lib.tensor([5])),
    "index_select negative, 0-dim": lambda lib: lib.tensor(1.0).index_select(
        0, lib.tensor([-1])),
    "index_select out of range, dim 0": lambda lib: m23(lib).index_select(0, lib.tensor([2])),
    "index_select out of range, dim 0 of a transpose": lambda lib: m23(lib).t().index_select(
        0, lib.tensor([-1])),
    "index_select out of range, dim 1": lambda lib: m23(lib).index_select(1, lib.tensor([3])),
    "index_select out of range, dim -1": lambda lib: m23(lib).index_select(-1, lib.tensor(-1)),
    "index_select out of range, dim 0 of an empty tensor": lambda lib: lib.ones(2, 0, 2)
    .index_select(0, lib.tensor([5])),
    "index_select from an empty dim": lambda lib: lib.ones(3, 0).index_select(
        1, lib.tensor([0])),
    "index_select out of range, 0-dim index": lambda lib: m23(lib).index_select(
        0, lib.tensor(7)),
    "index_select of an empty vector": lambda lib: lib.ones(0).index_select(
        0, lib.tensor([0])),
    # dims of reductions
    "sum dim out of range": lambda lib: m23(lib).sum(2),
    "sum negative dim": lambda lib: lib.sum(m23(lib), -3),
    "sum repeated dim": lambda lib: m23(lib).sum((0, 0)),
    "sum repeated dim (negative)": lambda lib: m23(lib).sum((1, -1)),
    "mean dim out of range": lambda lib: m23(lib).mean(-3),
    "mean dim of a 0-dim tensor": lambda lib: lib.tensor(3.0).mean(1),
    "sum dims of a 0-dim tensor": lambda lib: lib.tensor(3.0).sum((0, -1)),
    # in-place casting
    "add_ float scalar into long": lambda lib: longs(lib).add_(1.5),
    "add_ float 0-dim into long": lambda lib: longs(lib).add_(lib.tensor(1.5)),
    "mul_ float tensor into long": lambda lib: longs(lib).mul_(v(lib)),
    "div_ into long": lambda lib: longs(lib).div_(2),
    "sqrt_ of long": lambda lib: longs(lib).sqrt_(),
    "exp_ of bool": lambda lib: bools(lib).exp_(),
    "add_ long into bool": lambda lib: bools(lib).add_(1),
    "add_ complex into float": lambda lib: v(lib, 2).add_(cplx(lib)),
    "clamp_ scalar into long": lambda lib: longs(lib).clamp_(0.5),
    "clamp_ tensor into long": lambda lib: longs(lib).clamp_(lib.tensor(0.5)),
    "clamp_ into int8": lambda lib: lib.tensor([1], dtype=lib.int8).clamp_(max=0.5),
    "pow_ float exponent into long": lambda lib: longs(lib).pow_(2.5),
    "abs_ of complex": lambda lib: cplx(lib).abs_(),
    "in-place into an expanded tensor": lambda lib: v(lib).expand(2, 3).add_(1)
    if hasattr(lib.Tensor, "expand") else lib.ones(2, 3).add_(lib.ones(4)),
    # bool arithmetic
    "bool - bool": lambda lib: bools(lib) - bools(lib),
    "bool - True": lambda lib: bools(lib) - True,
    "bool - int": lambda lib: bools(lib) - 1,
    "int - bool": lambda lib: 1 - bools(lib),
    "float - bool tensor": lambda lib: lib.sub(v(lib), bools(lib)),
    "rsub bool": lambda lib: lib.rsub(bools(lib), 1),
    "sub_ bool": lambda lib: bools(lib).sub_(bools(lib)),
    "-bool": lambda lib: -bools(lib),
    "neg bool": lambda lib: lib.neg(bools(lib)),
    "+bool": lambda lib: +bools(lib),
    # powers
    "long ** -1": lambda lib: longs(lib) ** -1,
    "long.pow(-2)": lambda lib: longs(lib).pow(-2),
    "long.pow_(-1)": lambda lib: longs(lib).pow_(-1),
    "bool ** -1": lambda lib: bools(lib) ** -1,
    "bool ** bool": lambda lib: bools(lib) ** bools(lib),
    "True ** bool": lambda lib: True ** bools(lib),
    # integer division by zero
    "long // 0": lambda lib: longs(lib) // 0,
    "long % 0": lambda lib: longs(lib) % 0,
    "long % zero tensor": lambda lib: longs(lib) % lib.tensor([1, 0, 1]),
    "5 % zero tensor": lambda lib: lib.remainder(5, lib.tensor([1, 0, 1])),
    "div trunc by 0": lambda lib: lib.div(longs(lib), 0, rounding_mode="trunc"),
    "div floor by zero tensor": lambda lib: lib.div(longs(lib), lib.zeros(3, dtype=lib.int64),
                                                    rounding_mode="floor"),
    "floor_divide_ by 0": lambda lib: longs(lib).floor_divide_(0),
    "div bad rounding mode": lambda lib: lib.div(v(lib), 2, rounding_mode="bad"),
    # dtypes a kernel does not support
    "bool // bool": lambda lib: bools(lib) // bools(lib),
    "complex % complex": lambda lib: cplx(lib) % cplx(lib),
    "complex < complex": lambda lib: cplx(lib) < cplx(lib),
    "float & float": lambda lib: v(lib) & v(lib),
    "long & float scalar": lambda lib: longs(lib) & 1.5,
    "~float": lambda lib: lib.bitwise_not(v(lib)),
    "Tensor.softmax without dim": lambda lib: m23(lib).softmax(),
    "Tensor.log_softmax without dim": lambda lib: m23(lib).log_softmax(dtype=lib.float64),
    "softmax without dim": lambda lib: lib.softmax(m23(lib)),
    "~ operator on float": lambda lib: ~v(lib),
    "~ operator on complex": lambda lib: ~cplx(lib),
    "__invert__ of float": lambda lib: v(lib, dtype=lib.float64).__invert__(),
    "~ operator on float16": lambda lib: ~v(lib, dtype=lib.float16),
    "float << 1": lambda lib: lib.bitwise_left_shift(v(lib), 1),
    "bool >> bool": lambda lib: bools(lib) >> bools(lib),
    "abs bool": lambda lib: lib.abs(bools(lib)),
    "clamp complex": lambda lib: cplx(lib).clamp(0),
    "clamp bool, scalar bounds": lambda lib: bools(lib).clamp(True, True),
    "clamp bool, min only": lambda lib: bools(lib).clamp(True),
    "clamp bool, max only": lambda lib: bools(lib).clamp(max=True),
    "maximum complex": lambda lib: lib.maximum(cplx(lib), cplx(lib)),
    "minimum complex": lambda lib: lib.minimum(cplx(lib), cplx(lib)),
    # where / clamp / mean
    "where long condition": lambda lib: lib.where(longs(lib), v(lib), v(lib)),
    "where float condition": lambda lib: lib.where(v(lib), v(lib), v(lib)),
    "clamp without bounds": lambda lib: lib.clamp(v(lib)),
    "clamp with None bounds": lambda lib: v(lib).clamp(None, None),
    "clamp_ without bounds": lambda lib: v(lib).clamp_(),
    # clamp_min / clamp_max: the overload is picked by the bound's type, errors as torch's parser
    "clamp_min_ scalar into long": lambda lib: longs(lib).clamp_min_(0.5),
    "clamp_max_ tensor into long": lambda lib: longs(lib).clamp_max_(lib.tensor(0.5)),
    "clamp_min bool, bool bound": lambda lib: lib.clamp_min(bools(lib), True),
    "clamp_max bool, bool bound": lambda lib: bools(lib).clamp_max(False),
    "clamp_min None bound": lambda lib: lib.clamp_min(v(lib), None),
    "clamp_min without bound": lambda lib: lib.clamp_min(v(lib)),
    "clamp_min two bounds": lambda lib: lib.clamp_min(v(lib), 1, 2),
    "clamp_min on a number": lambda lib: lib.clamp_min(1.0, 2),
    "Tensor.clamp_min None": lambda lib: v(lib).clamp_min(None),
    "Tensor.clamp_max str": lambda lib: v(lib).clamp_max("a"),
    "Tensor.clamp_min without bound": lambda lib: v(lib).clamp_min(),
    "Tensor.clamp_max two bounds": lambda lib: v(lib).clamp_max(1, 2),
    "Tensor.clamp_min unknown keyword": lambda lib: v(lib).clamp_min(foo=1),
    "Tensor.clamp_min min=None": lambda lib: v(lib).clamp_min(min=None),
    "Tensor.clamp_min_ None": lambda lib: v(lib).clamp_min_(None),
    "Tensor.clamp_max_ min=": lambda lib: v(lib).clamp_max_(min=1.0),
    "clamp_min out of another dtype": lambda lib: lib.clamp_min(
        v(lib), lib.tensor([1.0]), out=lib.empty(3, dtype=lib.int64)),
    "clip without bounds": lambda lib: lib.clip(v(lib)),
    "mean of longs": lambda lib: longs(lib).mean(),
    "mean of longs over a dim": lambda lib: longs(lib).mean(0),
    "mean of bools": lambda lib: lib.mean(bools(lib)),
    "mean with an integer dtype": lambda lib: v(lib).mean(dtype=lib.int64),
    "imag of a real tensor": lambda lib: v(lib).imag,
    # matrix products
    "matmul 2-d shapes": lambda lib: m23(lib) @ lib.ones(4, 5),
    "matmul 1-d sizes": lambda lib: lib.matmul(v(lib, 3), v(lib, 4)),
    "matmul 0-d": lambda lib: lib.matmul(lib.tensor(1.0), m23(lib)),
    "matmul 0-d right": lambda lib: lib.matmul(m23(lib), lib.tensor(1.0)),
    "matmul batch broadcast": lambda lib: lib.ones(2, 2, 3) @ lib.ones(3, 4, 2),
    "matmul 3-d @ 1-d": lambda lib: lib.ones(2, 2, 3) @ v(lib, 4),
    "matmul 1-d @ 3-d": lambda lib: v(lib, 4) @ lib.ones(2, 2, 3),
    "matmul 3-d @ 2-d (folded)": lambda lib: lib.ones(2, 3, 4) @ lib.ones(5, 3),
    "matmul 2-d @ 3-d": lambda lib: lib.ones(3, 4) @ lib.ones(2, 5, 3),
    "matmul dtypes 2-d": lambda lib: longs(lib) @ lib.ones(3, 2),
    "matmul dtypes 1-d": lambda lib: lib.matmul(v(lib, 3, lib.float64), v(lib)),
    "matmul dtypes mv": lambda lib: lib.matmul(lib.ones(2, 3, dtype=lib.float64), v(lib)),
    "matmul dtypes batched": lambda lib: lib.ones(4, 2, 3, dtype=lib.float64) @ lib.ones(4, 3, 5),
    "matmul bool": lambda lib: lib.ones(2, 3, dtype=lib.bool) @ lib.ones(3, 2, dtype=lib.bool),
    "mm vector": lambda lib: lib.mm(m23(lib), v(lib)),
    "mm self vector": lambda lib: lib.mm(v(lib), m23(lib)),
    "mm shapes": lambda lib: lib.mm(m23(lib), m23(lib)),
    "mm dtypes": lambda lib: lib.mm(lib.ones(2, 3, dtype=lib.int32), lib.ones(3, 2)),
    "mm bool": lambda lib: lib.mm(lib.ones(1, 2, dtype=lib.bool), lib.ones(2, 1, dtype=lib.bool)),
    "bmm ranks": lambda lib: lib.bmm(m23(lib), m23(lib)),
    "bmm rank of mat2": lambda lib: lib.bmm(lib.ones(2, 2, 3), m23(lib)),
    "bmm batch": lambda lib: lib.bmm(lib.ones(2, 2, 3), lib.ones(3, 3, 2)),
    "bmm inner": lambda lib: lib.bmm(lib.ones(2, 2, 3), lib.ones(2, 4, 2)),
    "bmm dtypes": lambda lib: lib.bmm(lib.ones(2, 2, 3, dtype=lib.float64), lib.ones(2, 3, 4)),
    "bmm bool": lambda lib: lib.bmm(lib.ones(2, 2, 3, dtype=lib.bool),
                                    lib.ones(2, 3, 4, dtype=lib.bool)),
    "dot ranks": lambda lib: lib.dot(m23(lib), v(lib)),
    "dot sizes": lambda lib: lib.dot(v(lib, 3), v(lib, 4)),
    "dot dtypes": lambda lib: lib.dot(longs(lib), v(lib)),
    "dot bool": lambda lib: lib.dot(bools(lib), bools(lib)),
    "mv ranks": lambda lib: lib.mv(m23(lib), m23(lib)),
    "mv sizes": lambda lib: lib.mv(m23(lib), v(lib, 4)),
    "mv dtypes": lambda lib: lib.mv(m23(lib), v(lib, 3, lib.float64)),
    "mv bool": lambda lib: lib.mv(lib.ones(2, 3, dtype=lib.bool), lib.ones(3, dtype=lib.bool)),
    # alpha
    "float alpha, integer tensors": lambda lib: lib.add(longs(lib), longs(lib), alpha=1.5),
    "bool alpha, integer tensors": lambda lib: lib.add(longs(lib), longs(lib), alpha=True),
    "complex alpha, real tensors": lambda lib: lib.sub(v(lib), v(lib), alpha=1j),
    "float alpha, bool tensors": lambda lib: lib.add(bools(lib), bools(lib), alpha=2.5),
    # argument types
    "add(x, 'a')": lambda lib: lib.add(m23(lib), "a"),
    "add('a', x)": lambda lib: lib.add("a", m23(lib)),
    "mul(x, None)": lambda lib: lib.mul(m23(lib), None),
    "maximum(x, 1)": lambda lib: lib.maximum(m23(lib), 1),
    "minimum(1, x)": lambda lib: lib.minimum(1, m23(lib)),
    "logical_and(x, 1)": lambda lib: lib.logical_and(m23(lib), 1),
    "exp(2)": lambda lib: lib.exp(2),
    "abs(-2)": lambda lib: lib.abs(-2),
    "neg(2)": lambda lib: lib.neg(2),
    "sum(2)": lambda lib: lib.sum(2),
    "mm(x, 1)": lambda lib: lib.mm(m23(lib), 1),
    "dot(x, 1)": lambda lib: lib.dot(v(lib), 1),
    "matmul(x, 1)": lambda lib: lib.matmul(m23(lib), 1),
    "matmul('a', x)": lambda lib: lib.matmul("a", m23(lib)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_error_like_torch(case):
    raises_like_torch(CASES[case])


# -- cases where our text cannot equal torch's -------------------------------------------------
def test_method_argument_positions_name_the_op_and_type():
    """torch numbers a method's arguments without ``self`` ("(position 1)"); dyngrad's
    dispatcher sees methods as functions and says "(position 2)". The type, the op, the
    argument name and the offending type still match."""
    _, texc = call(lambda: torch.ones(2).add("a"), (), {})
    _, exc = call(lambda: dyngrad.ones(2).add("a"), (), {})
    assert type(exc) is type(texc) is TypeError
    assert str(texc) == "add(): argument 'other' (position 1) must be Tensor, not str"
    assert str(exc).startswith("add(): argument 'other' (position") and str(exc).endswith(
        "must be Tensor, not str")


def test_clamp_mixed_bounds_is_a_type_error():
    """torch's "invalid combination of arguments" text lists its Python signatures; ours names
    clamp and both bound types."""
    for lib in (torch, dyngrad):
        with pytest.raises(TypeError, match=r"clamp\(\) received an invalid combination"):
            lib.clamp(lib.ones(3), min=lib.zeros(3), max=1.0)


def test_where_with_a_string_is_a_type_error():
    """torch lists where's overloads ("invalid combination of arguments"), and so does ours
    (Note [Parser errors] in dyngrad/ops/_arg_parser.py)."""
    _, texc = call(lambda: torch.where(torch.ones(3) > 0, torch.ones(3), "a"), (), {})
    _, exc = call(lambda: dyngrad.where(dyngrad.ones(3) > 0, dyngrad.ones(3), "a"), (), {})
    assert type(exc) is type(texc) is TypeError
    assert str(texc).startswith("where() received an invalid combination of arguments")
    assert str(exc) == str(texc)


def test_dunder_with_str_is_unsupported_operand():
    raises_like_torch(lambda lib: m23(lib) + "a")
    raises_like_torch(lambda lib: "a" + m23(lib))
    raises_like_torch(lambda lib: m23(lib) * None)
    raises_like_torch(lambda lib: m23(lib) - [1])


# -- OpInfo negative claims: dtypes an op does not list must raise torch's error ----------------
UNSUPPORTED = [pytest.param(op, dt, id=f"{op.id}-{dt}") for op in OP_DB for dt in ALL_DTYPES
               if dt not in op.dtypes]


@pytest.mark.parametrize("op,dtype", UNSUPPORTED)
def test_unsupported_dtype_raises_like_torch(op, dtype):
    sample = op.sample_inputs(dtype)[0]
    targs, tkwargs = sample.to(torch)
    _, texc = call(op.op(torch), targs, tkwargs)
    assert texc is not None, f"torch supports {op.id} for {dtype} ({sample}): list it in dtypes"
    args, kwargs = sample.to(dyngrad)
    _, exc = call(op.op(dyngrad), args, kwargs)
    assert_same_error(exc, texc, f"{op.id}[{dtype}] {sample}")


# Python numbers converted with torch's check (clamp's bounds, where's values) or wrapped
# around as a C cast (add, mul), compared with torch: values or the overflow error
_I16 = lambda L: L.ones(2, dtype=L.int16)   # noqa: E731
_COND = lambda L: L.tensor([True, False])   # noqa: E731
SCALAR_FIT = {
    "where_int16_overflow": lambda L: L.where(_COND(L), _I16(L), 2 ** 40),
    "where_overflow_first": lambda L: L.where(_COND(L), 70000, _I16(L)),
    "where_float_promotes": lambda L: L.where(_COND(L), _I16(L), 1e10),
    "where_float16_inf": lambda L: L.where(_COND(L), L.ones(2, dtype=L.float16), 1e6),
    "where_uint8_wraps_minus_one": lambda L: L.where(_COND(L), L.ones(2, dtype=L.uint8), -1),
    "clamp_int16_overflow": lambda L: _I16(L).clamp(max=70000),
    "clamp_int16_low": lambda L: _I16(L).clamp(min=-70000),
    "clamp_float_bound_promotes": lambda L: _I16(L).clamp(max=1e10),
    "clamp_float32_overflow": lambda L: L.ones(2).clamp(max=1e40),
    "clamp_float16_overflow": lambda L: L.ones(2, dtype=L.float16).clamp(max=1e6),
    "clamp_uint8_minus_one": lambda L: L.ones(2, dtype=L.uint8).clamp(min=-1),
    "clamp_min_overflow": lambda L: L.clamp_min(_I16(L), 70000),
    "clamp_max_inplace_overflow": lambda L: _I16(L).clamp_max_(70000),
    "clip_overflow": lambda L: _I16(L).clip(max=70000),
    "add_wraps": lambda L: _I16(L) + 2 ** 40,
    "mul_wraps": lambda L: _I16(L) * 70000,
}


@pytest.mark.parametrize("case", list(SCALAR_FIT))
def test_python_numbers_fit_as_torch(case):
    like_torch(SCALAR_FIT[case])
