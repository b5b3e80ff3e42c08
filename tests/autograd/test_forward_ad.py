"""Forward-mode AD (``autograd.forward_ad``) against live torch.

The op database drives the tangent checks: for every differentiable OpInfo, in float64 and
complex128, each sample runs inside a ``dual_level`` on both libraries with every floating or
complex tensor made dual (the same random tangents on both sides, with an imaginary part for a
complex one), and the output tangents must agree (None on the same outputs, same
dtype, shape and values). Where torch has no forward derivative for an op it raises
NotImplementedError, and dyngrad must raise the same error. The rest are explicit scenarios:
the level API and its errors, views and in-place ops on dual tensors, reverse mode through
forward mode, and custom Functions with ``jvp``.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from ops._grad_support import StrictXfail, assert_same_error, grad_cases, sample_seed
from ._forward_support import run_dual
from .helpers import assert_prints_like_torch

# dyngrad computes a tangent where torch raises, for a reason outside the op's formula
TORCH_ONLY_ERRORS = {}

# Samples whose tangents are known to differ from torch's: {op id: [(words of the sample's
# repr, reason)]}. They must still differ (strict), so a fixed one has to leave this list.
KNOWN_DIFFERENCES = {
    "linalg.det": [("singular", "torch's LU-based JVP gives 0 on an exactly singular matrix; "
                                "dyngrad gives the adjugate's value")],
    "linalg.slogdet": [("singular", "dyngrad's slogdet derivative solves with the singular "
                                    "matrix (LinAlgError); torch returns non-finite values")],
    "logdet": [("singular", "as linalg.slogdet")],
    "logcumsumexp": [("stability", "torch's JVP underflows to 0 at -1000 (and for complex "
                                   "inputs, whose exp it does not scale, overflows to NaN at "
                                   "+1000); dyngrad's sums in log space")],
}
# complex128 with complex tangents (_forward_support.py): a rule that forgets a conj shows there
DTYPES = ("float64", "complex128")

# torch's tangent reads memory it never wrote (the tangent copied into a sliced primal's
# layout leaves the gaps uninitialised), so there is nothing to compare
UNDEFINED_IN_TORCH = {"as_strided": "Strided(sliced",
                      # the output sees the input's storage beyond the input's elements
                      "slice_inverse": "SampleInput(Strided("}


@pytest.mark.parametrize("op,dtype", grad_cases("supports_autograd", dtypes=DTYPES))
def test_forward_ad_matches_torch(op, dtype):
    with StrictXfail(op.xfail_reason("forward_ad", dtype)):
        _check_op(op, dtype)


@pytest.mark.parametrize("op,dtype", grad_cases("supports_autograd", dtypes=DTYPES, inplace=True))
def test_forward_ad_inplace_matches_torch(op, dtype):
    with StrictXfail(op.xfail_reason("forward_ad_inplace", dtype)):
        _check_op(op, dtype, inplace=True)


def _check_op(op, dtype, inplace=False):
    checked = 0
    for index, sample in enumerate(op.sample_inputs(dtype)):
        if inplace and not sample.input_is_tensor:
            continue
        where = f"{op.id}[{dtype}] {sample}" + (f" ({op.inplace})" if inplace else "")
        if UNDEFINED_IN_TORCH.get(op.id, "\0") in repr(sample):
            continue
        known = [reason for words, reason in KNOWN_DIFFERENCES.get(op.id, ())
                 if words in repr(sample)]
        if known:
            with pytest.raises(AssertionError):   # strict: must still differ
                _check_sample(op, dtype, index, sample, inplace, where)
            continue
        checked += _check_sample(op, dtype, index, sample, inplace, where)
    if not inplace:
        assert checked, f"{op.id}[{dtype}]: torch rejected every sample; fix the OpInfo"


def _check_sample(op, dtype, index, sample, inplace, where) -> int:
    """Compare one sample's tangents; 0 when torch rejects the call (an invalid sample)."""
    seed = sample_seed(op, dtype, index, "fw")
    expected, texc = run_dual(op, sample, torch, seed, inplace)
    got, exc = run_dual(op, sample, dyngrad, seed, inplace)
    if texc is not None:
        if isinstance(texc, NotImplementedError) and op.id not in TORCH_ONLY_ERRORS:
            assert_same_error(exc, texc, where)     # torch has no forward AD for it
            return 1
        return 0   # an invalid call: test_forward compares the errors
    if exc is not None:
        raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
    _compare(got, expected, where, op.tolerance(dtype))
    return 1


def _compare(got, expected, where, tol):
    assert len(got) == len(expected), f"{where}: {len(got)} outputs, torch {len(expected)}"
    rtol, atol = tol
    for k, ((_, tangent), (_, ttangent)) in enumerate(zip(got, expected)):
        at = f"{where}: tangent of output {k}"
        if ttangent is None or tangent is None:
            assert tangent is None and ttangent is None, \
                f"{at}: dyngrad {'None' if tangent is None else 'a tensor'}, torch " \
                f"{'None' if ttangent is None else 'a tensor'}"
            continue
        assert tangent.dtype == ttangent.dtype, f"{at}: dtype {tangent.dtype} != {ttangent.dtype}"
        assert tangent.shape == ttangent.shape, f"{at}: shape {tangent.shape} != {ttangent.shape}"
        torch.testing.assert_close(torch.from_numpy(tangent), torch.from_numpy(ttangent),
                                   rtol=rtol, atol=atol, equal_nan=True,
                                   msg=lambda m: f"{at}: {m}")


# -- the level API ---------------------------------------------------------------------------------
def _fw(lib):
    return lib.autograd.forward_ad


def test_make_and_unpack_dual():
    def ex(lib):
        fwad = _fw(lib)
        x = lib.tensor([1.0, 2.0, 3.0])
        t = lib.tensor([0.5, -1.0, 2.0])
        with fwad.dual_level() as level:
            print(level)
            d = fwad.make_dual(x, t)
            print(d._base is x, d.is_leaf, d.requires_grad, d)
            u = fwad.unpack_dual(d)
            print(type(u).__name__, u._fields, u.tangent is t, u.primal._base is x, u.primal)
            primal, tangent = u
            print(primal is x, tangent is t, fwad.unpack_dual(x).tangent)
            print(fwad.unpack_dual(d, level=0).tangent is t)
        print(fwad.unpack_dual(d).tangent, fwad.unpack_dual(d).primal is d)
        print(fwad.unpack_dual(d, level=0).tangent)
    assert_prints_like_torch(ex)


def test_enter_and_exit_functions_and_decorator():
    def ex(lib):
        fwad = _fw(lib)
        level = fwad.enter_dual_level()
        d = fwad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))
        y = d * d
        print(level, fwad.unpack_dual(y).tangent)
        fwad.exit_dual_level(level=level)
        print(fwad.unpack_dual(y).tangent)

        @fwad.dual_level()
        def jvp_of_sin(x, v):
            return fwad.unpack_dual(fwad.make_dual(x, v).sin()).tangent
        print(jvp_of_sin(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 1.0])))
        print(fwad.make_dual is not None)
    assert_prints_like_torch(ex)


def test_tangent_layout_follows_the_primal():
    def ex(lib):
        fwad = _fw(lib)
        x = lib.arange(12.0).reshape(3, 4)
        t = lib.arange(12.0).reshape(4, 3).t()
        same = lib.ones(3, 4)
        with fwad.dual_level():
            d = fwad.make_dual(x, t)
            tangent = fwad.unpack_dual(d).tangent
            print(tangent is t, tangent.stride(), lib.equal(tangent, t))
            print(fwad.unpack_dual(fwad.make_dual(x, same)).tangent is same)
            xt = lib.arange(12.0).reshape(4, 3).t()
            print(fwad.unpack_dual(fwad.make_dual(xt, lib.ones(3, 4))).tangent.stride())
            wide = lib.ones(3, 4, dtype=lib.float64)
            print(fwad.unpack_dual(fwad.make_dual(x, wide)).tangent.dtype)
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("case", [
    "no_level", "int_primal", "int_tangent", "size", "bad_level", "stale_level", "nested",
    "exit_other_level", "exit_without_level", "dual_of_dual", "unpack_not_tensor", "expanded",
    "str_tangent",
])
def test_level_api_errors(case):
    def ex(lib):
        fwad = _fw(lib)
        x = lib.tensor([1.0, 2.0, 3.0])
        t = lib.tensor([1.0, 1.0, 1.0])
        if case == "no_level":
            fwad.make_dual(x, t)
        if case == "stale_level":
            with fwad.dual_level():
                pass
            fwad.make_dual(x, t, level=0)
        if case == "exit_without_level":
            fwad.exit_dual_level()
        if case == "exit_other_level":
            fwad.exit_dual_level(level=3)
        with fwad.dual_level():
            if case == "int_primal":
                fwad.make_dual(lib.arange(3), t)
            if case == "int_tangent":
                fwad.make_dual(x, lib.arange(3))
            if case == "size":
                fwad.make_dual(x, lib.ones(2))
            if case == "bad_level":
                fwad.make_dual(x, t, level=5)
            if case == "nested":
                fwad.enter_dual_level()
            if case == "exit_other_level":
                fwad.exit_dual_level(level=3)
            if case == "dual_of_dual":
                fwad.make_dual(fwad.make_dual(x, t), t)
            if case == "unpack_not_tensor":
                fwad.unpack_dual(print)
            if case == "expanded":
                fwad.make_dual(lib.ones(3).expand(2, 3), lib.ones(2, 3))
            if case == "str_tangent":
                fwad.make_dual(x, "t")
    assert_prints_like_torch(ex)


def test_grad_modes():
    """Tangents flow under no_grad; inference mode computes none."""
    def ex(lib):
        fwad = _fw(lib)
        with fwad.dual_level():
            d = fwad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, -1.0]))
            with lib.no_grad():
                print(fwad.unpack_dual(d.exp()).tangent)
            with lib.inference_mode():
                print(fwad.unpack_dual(d.exp()).tangent)
            print(fwad.unpack_dual(d > 1).tangent, fwad.unpack_dual(d.argmax()).tangent)
    assert_prints_like_torch(ex)


# -- views and in-place ops ------------------------------------------------------------------------
def test_views_of_a_dual_tensor_view_its_tangent():
    def ex(lib):
        fwad = _fw(lib)
        x = lib.arange(6.0).reshape(2, 3)
        t = lib.arange(6.0).reshape(2, 3) * 10
        with fwad.dual_level():
            d = fwad.make_dual(x, t)
            for v in (d[1], d.t(), d.view(3, 2), d[:, 1:], d.unsqueeze(0), d.expand(2, 2, 3),
                      d.narrow(1, 0, 2), d.select(0, 1), d.permute(1, 0), d.flatten()):
                tangent = fwad.unpack_dual(v).tangent
                print(tangent, tangent._base is t, tangent.stride())
    assert_prints_like_torch(ex)


def test_inplace_on_dual_tensors_update_the_tangent():
    def ex(lib):
        fwad = _fw(lib)
        with fwad.dual_level():
            t = lib.tensor([1.0, 2.0, 3.0])
            d = fwad.make_dual(lib.tensor([1.0, -2.0, 3.0]), t)
            e = fwad.make_dual(lib.tensor([2.0, 2.0, -1.0]), lib.tensor([1.0, 0.0, 1.0]))
            d.mul_(e)        # tangent t e + d e_t, written into t itself
            print(fwad.unpack_dual(d).tangent, fwad.unpack_dual(d).tangent is t, t)
            d[0] = 7.0       # a copy of a number: tangent 0 there
            print(fwad.unpack_dual(d).tangent, d._version)
            plain = lib.zeros(3)
            plain.add_(d)    # a tensor without tangent gets one
            print(fwad.unpack_dual(plain).tangent)
            base = lib.zeros(2, 3)
            base[1].copy_(d)   # a view of a tensor without tangent: the base gets one
            print(fwad.unpack_dual(base).tangent)
            other = fwad.make_dual(lib.ones(2, 3), lib.ones(2, 3))
            row = other[0]
            row.mul_(3.0)    # through a view: the base's tangent changes too
            print(fwad.unpack_dual(other).tangent, fwad.unpack_dual(row).tangent)
    assert_prints_like_torch(ex)


def test_inplace_view_ops_restride_the_tangent():
    def ex(lib):
        fwad = _fw(lib)
        with fwad.dual_level():
            d = fwad.make_dual(lib.arange(6.0).reshape(2, 3), lib.arange(6.0).reshape(2, 3))
            d.t_()
            print(fwad.unpack_dual(d).tangent)
            d.unsqueeze_(0)
            print(fwad.unpack_dual(d).tangent.shape)
            d.squeeze_()
            print(fwad.unpack_dual(d).tangent.shape)
            d.transpose_(0, 1)
            print(fwad.unpack_dual(d).tangent)
    assert_prints_like_torch(ex)


# -- forward mode and reverse mode together ---------------------------------------------------------
def test_backward_through_primal_and_tangent():
    def ex(lib):
        fwad = _fw(lib)
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = lib.tensor([1.0, 0.5, -1.0])
        with fwad.dual_level():
            d = fwad.make_dual(x, v)
            y = (d.sin() * d).sum()
            primal, tangent = fwad.unpack_dual(y)
            print(tangent.requires_grad, primal.requires_grad)
            primal.backward(retain_graph=True)
            print(x.grad)
            x.grad = None
            tangent.backward()    # forward-over-reverse: the Hessian-vector product
            print(x.grad)
    assert_prints_like_torch(ex)


def test_jvp_through_a_small_network():
    """A linear layer, softmax and a loss: the tangent equals torch's."""
    def ex(lib):
        fwad = _fw(lib)
        gen = np.random.default_rng(0)
        w = lib.from_numpy(gen.standard_normal((4, 3)))
        b = lib.from_numpy(gen.standard_normal(4))
        x = lib.from_numpy(gen.standard_normal((5, 3)))
        target = lib.tensor([0, 1, 2, 3, 0])
        with fwad.dual_level():
            wd = fwad.make_dual(w, lib.ones(4, 3, dtype=lib.float64))
            h = lib.nn.functional.linear(x, wd, b).tanh()
            loss = lib.nn.functional.cross_entropy(h, target)
            mse = lib.nn.functional.mse_loss(h.softmax(1), lib.zeros(5, 4, dtype=lib.float64))
            print(round(float(fwad.unpack_dual(loss).tangent), 10),
                  round(float(fwad.unpack_dual(mse).tangent), 10))
    assert_prints_like_torch(ex)


def test_op_without_forward_rule_raises():
    def ex(lib):
        fwad = _fw(lib)
        with fwad.dual_level():
            d = fwad.make_dual(lib.tensor([3.0, 1.0, 3.0]), lib.ones(3))
            lib.unique(d)
    assert_prints_like_torch(ex)


# -- custom Functions --------------------------------------------------------------------------
def _functions(lib):
    class MulAdd(lib.autograd.Function):
        @staticmethod
        def forward(x, y):
            print("forward sees a tangent:",
                  lib.autograd.forward_ad.unpack_dual(x).tangent is not None)
            return x * y, x + y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(*inputs)

        @staticmethod
        def jvp(ctx, x_t, y_t):
            x, y = ctx.saved_tensors
            return x_t * y + x * y_t, x_t + y_t

    class Scale(lib.autograd.Function):   # the old style, ctx in forward
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

        @staticmethod
        def jvp(ctx, x_t, k_t):
            print("k's tangent:", k_t)
            return x_t * ctx.k

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class WrongCount(NoJvp):
        @staticmethod
        def forward(x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    class WrongShape(NoJvp):
        @staticmethod
        def jvp(ctx, x_t):
            return x_t[:1]

    return MulAdd, Scale, NoJvp, WrongCount, WrongShape


@pytest.mark.parametrize("case", ["mul_add", "mul_add_second", "old_style", "no_jvp",
                                  "no_tangent", "wrong_count", "wrong_shape"])
def test_custom_function_jvp(case):
    def ex(lib):
        fwad = _fw(lib)
        MulAdd, Scale, NoJvp, WrongCount, WrongShape = _functions(lib)
        with fwad.dual_level():
            x = fwad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([2.0, -1.0]))
            y = lib.tensor([5.0, 7.0])
            if case == "mul_add":
                print([fwad.unpack_dual(o).tangent for o in MulAdd.apply(x, y)])
            if case == "mul_add_second":
                print([fwad.unpack_dual(o).tangent for o in MulAdd.apply(y, x)])
            if case == "old_style":
                print(fwad.unpack_dual(Scale.apply(x, 3.0)).tangent)
            if case == "no_jvp":
                NoJvp.apply(x)
            if case == "no_tangent":
                print(fwad.unpack_dual(NoJvp.apply(y)).tangent)
            if case == "wrong_count":
                WrongCount.apply(x)
            if case == "wrong_shape":
                WrongShape.apply(x)
    assert_prints_like_torch(ex)


def test_custom_function_jvp_with_reverse_mode():
    def ex(lib):
        fwad = _fw(lib)
        MulAdd = _functions(lib)[0]
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with fwad.dual_level():
            d = fwad.make_dual(x, lib.tensor([1.0, 1.0]))
            prod, total = MulAdd.apply(d, lib.tensor([3.0, 4.0]))
            print(fwad.unpack_dual(prod).tangent, type(prod.grad_fn).__name__)
    assert_prints_like_torch(ex)


def test_long_level_forgets_dead_tangents():
    """dyngrad's bookkeeping (no torch counterpart): tangents of dead tensors are not kept, and
    leaving the level clears the rest."""
    fwad = dyngrad.autograd.forward_ad
    with fwad.dual_level():
        x = fwad.make_dual(dyngrad.ones(3), dyngrad.ones(3))
        for _ in range(3000):
            y = x * 2
        assert len(fwad._dual_tensors) <= 1025
        assert fwad.unpack_dual(y).tangent.tolist() == [2.0, 2.0, 2.0]
    assert not fwad._dual_tensors and "_fw_grad" not in y.__dict__


@pytest.mark.parametrize("f", ["tanh", "sigmoid", "exp", "softmax", "log_softmax", "tanh_"])
def test_forward_over_reverse_through_ops_that_save_their_output(f):
    """A JVP of autograd.grad(create_graph=True): the backward formulas read the saved output,
    whose tangent must come along (Note [Saved outputs keep their tangent])."""
    fns = {"tanh": lambda lib, z: lib.tanh(z), "sigmoid": lambda lib, z: lib.sigmoid(z),
           "exp": lambda lib, z: lib.exp(z), "softmax": lambda lib, z: lib.softmax(z, 0),
           "log_softmax": lambda lib, z: lib.log_softmax(z, 0),
           "tanh_": lambda lib, z: (z * 1).tanh_()}
    res = []
    for lib in (dyngrad, torch):
        fw = lib.autograd.forward_ad
        x = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([0.5, 0.2, -0.4], dtype=lib.float64, requires_grad=True)
        with fw.dual_level():
            xd = fw.make_dual(x, lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64))
            y = (fns[f](lib, xd * w) * lib.sigmoid(xd)).sum()
            g, = lib.autograd.grad(y, w, create_graph=True)
            p, t = fw.unpack_dual(g)
            res.append((p.detach().numpy(), t.detach().numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12)


def test_operators_and_methods_carry_tangents_inside_a_level():
    # the dispatcher's fast paths (operators, unary methods) step aside while a level exists,
    # and the general path propagates (Note [Open inference blocks] in grad_mode.py)
    from dyngrad.ops import _dispatch

    def ex(torch):
        fwAD = torch.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, -1.0]))
            y = fwAD.make_dual(torch.tensor([3.0, 4.0]), torch.tensor([0.5, 0.0]))
            for out in (x + y, x * y, x * 2, 1.5 - x, -x, abs(x), x.exp(), torch.mul(x, y)):
                print(fwAD.unpack_dual(out).tangent)
        print(fwAD.unpack_dual(x * y).tangent)
    assert_prints_like_torch(ex)
    assert _dispatch._fast_off is False   # the level is gone: the fast paths serve again


def test_dual_tensor_reprs():
    """A dual tensor prints its tangent as torch's f-string does: a 0-dim one as its number."""
    def ex(torch):
        fwAD = torch.autograd.forward_ad
        with fwAD.dual_level():
            for p, t in [(torch.tensor(2.0), torch.tensor(1.0)),
                         (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])),
                         (torch.tensor(2.0, dtype=torch.float64),
                          torch.tensor(1.5, dtype=torch.float64))]:
                d = fwAD.make_dual(p, t)
                print(repr(d), repr(d * 2))
    assert_prints_like_torch(ex)
