"""Forward-over-reverse AD against live torch: the forward-mode rules of the backward primitives.

A backward formula calls "backward primitives" (``threshold_backward``, ``slice_backward``,
``avg_pool2d_backward``...), ops of their own that users never call directly. Differentiating a
gradient in forward mode (``func.jvp(func.grad(f))``, ``func.hessian``, ``jacfwd(jacrev(f))``)
pushes tangents through them, so each needs a JVP rule. Every case below is a small function
built on one family of ops, run on both libraries in three ways:

* ``test_hvp``: the Hessian-vector product ``jvp(grad(f), (x,), (t,))`` of ``f(x)**2`` summed,
  where both a primitive's gradient input and its ``self`` carry tangents;
* ``test_dual_cotangent``: ``autograd.grad(f(x), x, v)`` inside a dual level with a dual ``v``,
  which gives a tangent to the gradient input alone and, without create_graph, reaches the
  primitives torch uses only then (``logit_backward``);
* ``test_dual_input``: the same with a dual ``x`` and a plain ``v``, where the primitives' other
  inputs (``self``, a saved result) carry the tangents and the gradient input often none.

Values (and whether a tangent exists) must agree. Where torch has no forward derivative for a
primitive (or raises for another reason) dyngrad must raise the same error. A few scenarios
follow the table: ``hessian`` and ``jacfwd(jacrev)``, a double backward in forward mode, and
torch's DelayedError node.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import dyngrad
from ops._grad_support import StrictXfail, assert_same_error
from .helpers import assert_prints_like_torch

# {(case, test): reason} for cases known to differ from torch for a reason outside the JVP
# rules. Strict: a case that starts to agree must leave this list.
KNOWN_DIFFERENCES = {
    ("weight_norm", "dual_cotangent"): "torch's backward without create_graph calls "
                                       "_weight_norm_interface_backward, which refuses forward "
                                       "AD; dyngrad's backward (nn/utils/weight_norm.py) is "
                                       "written in ops that support it",
}


def _F(lib):
    return lib.nn.functional


def _t(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype)


def _prelu_both(lib, x):
    """prelu with a tangent on the weight too: input and weight both slices of x."""
    return _F(lib).prelu(x[:6].reshape(2, 3), x[6:])


def _ctc(lib, x):
    log_probs = x.reshape(3, 1, 3).log_softmax(2)
    return _F(lib).ctc_loss(log_probs, _t(lib, [[1, 2]]), _t(lib, [3]), _t(lib, [2]))


def _sdpa(lib, x):
    q = x.reshape(1, 1, 2, 4)
    return _F(lib).scaled_dot_product_attention(q, q.flip(2), q * 2)


def _segment(lib, x):
    return lib.segment_reduce(x, "sum", lengths=_t(lib, [2, 3, 1]))


def _rrelu(lib, x):
    lib.manual_seed(0)
    return _F(lib).rrelu(x * 1, training=True, inplace=True)


def _set(lib, x):
    y = lib.zeros(4, dtype=lib.float64)
    return y.set_(x * 2)


def _pack(lib, x):
    packed = lib.nn.utils.rnn.pack_padded_sequence(x.reshape(3, 2, 1), _t(lib, [3, 2]))
    return packed.data


def _weight_norm(lib, x):
    fn = torch._weight_norm if lib is torch else \
        importlib.import_module("dyngrad.nn.utils.weight_norm")._weight_norm
    return fn(x[:6].reshape(2, 3), x[6:].reshape(2, 1))


def _masked_scatter(lib, x, src_shape):
    mask = _t(lib, [True, False, True, True])
    return lib.zeros(4, dtype=lib.float64).masked_scatter(mask, x[:int(np.prod(src_shape))]
                                                          .reshape(src_shape))


def _fractional(lib, x, dims):
    F = _F(lib)
    shape = (1, 2) + (4,) * dims
    samples = lib.full((1, 2, dims), 0.3, dtype=lib.float64)
    pool = F.fractional_max_pool2d if dims == 2 else F.fractional_max_pool3d
    return pool(x.reshape(shape), 2, output_size=2, _random_samples=samples)


def _interp(mode, shape, **kw):
    def fn(lib, x):
        return _F(lib).interpolate(x.reshape(shape), mode=mode, **kw)
    return fn


def _pad(mode, shape, pad):
    def fn(lib, x):
        return _F(lib).pad(x.reshape(shape), pad, mode=mode)
    return fn


def _pool(name, shape, *args, **kw):
    def fn(lib, x):
        return getattr(_F(lib), name)(x.reshape(shape), *args, **kw)
    return fn


# (id, function of (lib, x), numel of x): x is float64, drawn from a normal distribution
CASES = [
    # masked activation backwards (threshold, hardtanh, leaky_relu, hardshrink, softshrink)
    ("relu", lambda L, x: _F(L).relu(x), 5),
    ("relu6", lambda L, x: _F(L).relu6(x * 4), 5),
    ("threshold", lambda L, x: _F(L).threshold(x, 0.1, 2.0), 5),
    ("hardtanh", lambda L, x: _F(L).hardtanh(x, -0.5, 0.7), 5),
    ("leaky_relu", lambda L, x: _F(L).leaky_relu(x, 0.2), 5),
    ("hardshrink", lambda L, x: _F(L).hardshrink(x, 0.4), 5),
    ("softshrink", lambda L, x: _F(L).softshrink(x, 0.4), 5),
    ("gelu", lambda L, x: _F(L).gelu(x), 5),
    ("gelu_tanh", lambda L, x: _F(L).gelu(x, approximate="tanh"), 5),
    ("hardsigmoid", lambda L, x: _F(L).hardsigmoid(x * 3), 5),
    ("logit", lambda L, x: L.logit(x.sigmoid()), 5),
    ("logit_eps", lambda L, x: L.logit(x.sigmoid(), 0.2), 5),
    ("prelu", lambda L, x: _F(L).prelu(x.reshape(2, 3), _t(L, [0.25], L.float64)), 6),
    ("prelu_weight", _prelu_both, 9),
    ("elu", lambda L, x: _F(L).elu(x, 0.7), 5),
    ("selu", lambda L, x: _F(L).selu(x), 5),
    ("celu", lambda L, x: _F(L).celu(x, 1.5), 5),
    # in-place activations: the tangent is written in place, from the result
    ("elu_", lambda L, x: _F(L).elu(x * 1, 0.7, inplace=True), 5),
    ("celu_", lambda L, x: _F(L).celu(x * 1, 1.5, inplace=True), 5),
    ("selu_", lambda L, x: _F(L).selu(x * 1, inplace=True), 5),
    ("leaky_relu_", lambda L, x: _F(L).leaky_relu(x * 1, 0.2, inplace=True), 5),
    ("leaky_relu_negative_slope_", lambda L, x: _F(L).leaky_relu(x * 1, -0.2, inplace=True), 5),
    ("threshold_", lambda L, x: _F(L).threshold(x * 1, 0.1, 2.0, inplace=True), 5),
    ("relu_", lambda L, x: _F(L).relu(x * 1, inplace=True), 5),
    ("hardtanh_", lambda L, x: _F(L).hardtanh(x * 1, -0.5, 0.7, inplace=True), 5),
    ("rrelu_training_", _rrelu, 5),
    # in-place ops whose gradient reads the input from before the write (saved with its tangent)
    ("mul_", lambda L, x: (x * 2).mul_(x), 5),
    ("div_", lambda L, x: (x * 2 + 5).div_(x + 3), 5),
    ("pow_", lambda L, x: (x.abs() + 1).pow_(x), 5),
    # nll_loss (2-d input and less) and nll_loss2d (4-d, and 3-d reshaped to it)
    ("nll_loss_1d", lambda L, x: _F(L).nll_loss(x.log_softmax(0), _t(L, 2)), 4),
    ("nll_loss", lambda L, x: _F(L).nll_loss(x.reshape(3, 4).log_softmax(1),
                                             _t(L, [0, 3, 1])), 12),
    ("nll_loss_weight", lambda L, x: _F(L).nll_loss(
        x.reshape(3, 4), _t(L, [0, 3, 1]), _t(L, [1.0, 2.0, 0.5, 3.0], L.float64)), 12),
    ("nll_loss_ignore_sum", lambda L, x: _F(L).nll_loss(
        x.reshape(3, 4), _t(L, [0, 3, 1]), ignore_index=3, reduction="sum"), 12),
    ("nll_loss_none", lambda L, x: _F(L).nll_loss(x.reshape(3, 4), _t(L, [0, 3, 1]),
                                                  reduction="none"), 12),
    ("nll_loss2d", lambda L, x: _F(L).nll_loss(x.reshape(2, 3, 2, 2).log_softmax(1),
                                               _t(L, [[[0, 1], [2, 2]], [[1, 0], [0, 2]]])), 24),
    ("nll_loss2d_weight_none", lambda L, x: _F(L).nll_loss(
        x.reshape(1, 3, 2, 2), _t(L, [[[0, 1], [2, 2]]]), _t(L, [1.0, 2.0, 0.5], L.float64),
        reduction="none"), 12),
    ("nll_loss_3d", lambda L, x: _F(L).nll_loss(x.reshape(2, 3, 2), _t(L, [[0, 2], [1, 1]])), 12),
    ("cross_entropy", lambda L, x: _F(L).cross_entropy(x.reshape(3, 4), _t(L, [0, 3, 1])), 12),
    ("cross_entropy_4d", lambda L, x: _F(L).cross_entropy(
        x.reshape(1, 3, 2, 2), _t(L, [[[0, 1], [2, 2]]])), 12),
    ("cross_entropy_smoothing", lambda L, x: _F(L).cross_entropy(
        x.reshape(3, 4), _t(L, [0, 3, 1]), label_smoothing=0.1), 12),
    # views: slice, select, diagonal, unfold backward
    ("slice", lambda L, x: x[1:], 5),
    ("slice_step", lambda L, x: x.reshape(3, 4)[:, ::2], 12),
    ("narrow", lambda L, x: x.reshape(3, 4).narrow(1, 1, 2), 12),
    ("select", lambda L, x: x.reshape(3, 4)[1], 12),
    ("select_dim1", lambda L, x: x.reshape(3, 4).select(1, 2), 12),
    ("diagonal", lambda L, x: x.reshape(3, 4).diagonal(), 12),
    ("diagonal_offset", lambda L, x: L.diagonal(x.reshape(2, 3, 2), 1, 0, 1), 12),
    ("trace", lambda L, x: L.trace(x.reshape(3, 3)), 9),
    ("unfold", lambda L, x: x.unfold(0, 3, 2), 7),
    ("unfold_overlapping", lambda L, x: x.reshape(2, 4).unfold(1, 3, 1), 8),
    ("diff", lambda L, x: L.diff(x), 5),
    ("trapezoid", lambda L, x: L.trapezoid(x), 5),
    ("split", lambda L, x: L.stack(x.split(2)[:2]), 5),
    ("index", lambda L, x: x[_t(L, [0, 2, 2])], 4),
    # prod's gradient where a factor is 0 (the products of the others)
    ("prod_zero", lambda L, x: (x * _t(L, [1.0, 0.0, 1.0, 1.0], L.float64)).prod(), 4),
    ("prod_dim_zero", lambda L, x: (x * _t(L, [1.0, 0.0, 1.0, 1.0], L.float64))
     .reshape(2, 2).prod(1), 4),
    # pooling: average, max (with indices), adaptive, fractional; 1-d to 3-d
    ("avg_pool1d", _pool("avg_pool1d", (1, 2, 5), 2, 1, 1), 10),
    ("avg_pool2d", _pool("avg_pool2d", (1, 2, 4, 4), 2), 32),
    ("avg_pool2d_options", _pool("avg_pool2d", (1, 1, 5, 5), 3, 2, 1, True, False), 25),
    ("avg_pool2d_divisor", _pool("avg_pool2d", (1, 1, 4, 4), 2, divisor_override=3), 16),
    ("avg_pool3d", _pool("avg_pool3d", (1, 1, 4, 4, 4), 2), 64),
    ("max_pool1d", _pool("max_pool1d", (1, 2, 6), 2), 12),
    ("max_pool2d", _pool("max_pool2d", (1, 2, 4, 4), 2), 32),
    ("max_pool2d_overlapping", _pool("max_pool2d", (1, 1, 4, 4), 2, 1), 16),
    ("max_pool3d", _pool("max_pool3d", (1, 1, 4, 4, 4), 2), 64),
    ("adaptive_avg_pool1d", _pool("adaptive_avg_pool1d", (1, 2, 5), 3), 10),
    ("adaptive_avg_pool2d", _pool("adaptive_avg_pool2d", (1, 2, 5, 4), (3, 2)), 40),
    ("adaptive_avg_pool3d", _pool("adaptive_avg_pool3d", (1, 1, 3, 4, 5), (2, 3, 2)), 60),
    ("adaptive_max_pool1d", _pool("adaptive_max_pool1d", (1, 2, 5), 3), 10),
    ("adaptive_max_pool2d", _pool("adaptive_max_pool2d", (1, 2, 5, 4), (3, 2)), 40),
    ("adaptive_max_pool3d", _pool("adaptive_max_pool3d", (1, 1, 3, 4, 5), (2, 3, 2)), 60),
    ("fractional_max_pool2d", lambda L, x: _fractional(L, x, 2), 32),
    ("fractional_max_pool3d", lambda L, x: _fractional(L, x, 3), 128),
    # interpolation, every mode
    ("nearest1d", _interp("nearest", (1, 2, 3), scale_factor=2), 6),
    ("nearest2d", _interp("nearest", (1, 1, 2, 3), size=(3, 5)), 6),
    ("nearest3d", _interp("nearest", (1, 1, 2, 2, 2), scale_factor=2), 8),
    ("nearest_exact1d", _interp("nearest-exact", (1, 2, 3), size=5), 6),
    ("nearest_exact2d", _interp("nearest-exact", (1, 1, 2, 3), size=(3, 5)), 6),
    ("nearest_exact3d", _interp("nearest-exact", (1, 1, 2, 2, 2), size=(3, 3, 3)), 8),
    ("linear", _interp("linear", (1, 2, 3), scale_factor=2), 6),
    ("linear_align", _interp("linear", (1, 2, 3), size=5, align_corners=True), 6),
    ("bilinear", _interp("bilinear", (1, 1, 2, 3), size=(3, 5)), 6),
    ("bicubic", _interp("bicubic", (1, 1, 3, 3), scale_factor=2), 9),
    ("trilinear", _interp("trilinear", (1, 1, 2, 2, 2), scale_factor=2), 8),
    ("bilinear_antialias", _interp("bilinear", (1, 1, 5, 5), size=(2, 3), antialias=True), 25),
    ("bicubic_antialias", _interp("bicubic", (1, 1, 5, 5), size=(2, 3), antialias=True), 25),
    # reflection and replication padding
    ("reflect1d", _pad("reflect", (1, 2, 4), (1, 2)), 8),
    ("reflect2d", _pad("reflect", (1, 1, 3, 4), (1, 2, 2, 1)), 12),
    ("reflect3d", _pad("reflect", (1, 1, 3, 3, 3), (1, 1, 2, 0, 1, 2)), 27),
    ("replicate1d", _pad("replicate", (1, 2, 4), (1, 2)), 8),
    ("replicate2d", _pad("replicate", (1, 1, 3, 4), (1, 2, 2, 1)), 12),
    ("replicate3d", _pad("replicate", (1, 1, 3, 3, 3), (1, 1, 2, 0, 1, 2)), 27),
    # embedding, masked_scatter
    ("embedding", lambda L, x: _F(L).embedding(_t(L, [[0, 1, 3], [3, 3, 2]]), x.reshape(4, 3)),
     12),
    ("embedding_padding_freq", lambda L, x: _F(L).embedding(
        _t(L, [[0, 1, 3], [3, 3, 2]]), x.reshape(4, 3), padding_idx=1, scale_grad_by_freq=True),
     12),
    ("masked_scatter", lambda L, x: _masked_scatter(L, x, (4,)), 4),
    ("masked_scatter_other_shape", lambda L, x: _masked_scatter(L, x, (5,)), 5),
    # primitives torch has no forward derivative for
    ("multi_margin_loss", lambda L, x: _F(L).multi_margin_loss(
        x.reshape(2, 3), _t(L, [0, 2]), reduction="none"), 6),
    ("multilabel_margin_loss", lambda L, x: _F(L).multilabel_margin_loss(
        x.reshape(2, 3), _t(L, [[0, 2, -1], [1, -1, 0]])), 6),
    ("cdist", lambda L, x: L.cdist(x.reshape(2, 3), _t(L, [[0.5, 1.0, 2.0]], L.float64)), 6),
    ("pdist", lambda L, x: _F(L).pdist(x.reshape(3, 2)), 6),
    ("grid_sample", lambda L, x: _F(L).grid_sample(
        x.reshape(1, 1, 3, 3), _t(L, [[[[0.1, -0.3], [0.5, 0.2]]]], L.float64),
        align_corners=False), 9),
    ("grid_sample_3d", lambda L, x: _F(L).grid_sample(
        x.reshape(1, 1, 2, 2, 2), _t(L, [[[[[0.1, -0.3, 0.4]]]]], L.float64),
        align_corners=True), 8),
    ("ctc_loss", _ctc, 9),
    ("sdpa", _sdpa, 8),
    ("segment_reduce", _segment, 6),
    ("weight_norm", _weight_norm, 8),
    ("pack_padded_sequence", _pack, 6),
    ("set_", _set, 4),
]


def _np(t):
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().copy()
    return np.array(t._data, copy=True)


def _inputs(lib, n, seed):
    """x and a tangent for it, the same values on both libraries."""
    rng = np.random.default_rng(seed)
    return lib.from_numpy(rng.standard_normal(n)), lib.from_numpy(rng.standard_normal(n))


def _like_output(lib, y, seed):
    return lib.from_numpy(np.random.default_rng(seed).standard_normal(tuple(y.shape)))


def _hvp(lib, fn, n):
    x, t = _inputs(lib, n, 0)

    def f(x):
        return fn(lib, x).pow(2).sum()

    try:
        grad, hvp = lib.func.jvp(lib.func.grad(f), (x,), (t,))
    except Exception as e:   # noqa: BLE001  (torch's verdict decides what it means)
        return None, e
    return (_np(grad), _np(hvp)), None


def _vjp_dual_cotangent(lib, fn, n):
    x, _ = _inputs(lib, n, 1)
    fwad = lib.autograd.forward_ad
    try:
        with fwad.dual_level():
            x.requires_grad_()
            y = fn(lib, x)
            v = fwad.make_dual(_like_output(lib, y, 2), _like_output(lib, y, 3))
            g, = lib.autograd.grad(y, x, v)
            primal, tangent = fwad.unpack_dual(g)
            return (_np(primal), _np(tangent)), None
    except Exception as e:   # noqa: BLE001
        return None, e


def _vjp_dual_input(lib, fn, n):
    x, t = _inputs(lib, n, 4)
    fwad = lib.autograd.forward_ad
    try:
        with fwad.dual_level():
            x.requires_grad_()
            y = fn(lib, fwad.make_dual(x, t))
            g, = lib.autograd.grad(y, x, _like_output(lib, y, 5))
            primal, tangent = fwad.unpack_dual(g)
            return (_np(primal), _np(tangent)), None
    except Exception as e:   # noqa: BLE001
        return None, e


def _compare(run, fn, n, where):
    expected, texc = run(torch, fn, n)
    got, exc = run(dyngrad, fn, n)
    if texc is not None:
        assert_same_error(exc, texc, where)
        return
    if exc is not None:
        raise AssertionError(f"{where}: dyngrad raised {exc!r}, torch did not") from exc
    for name, a, b in zip(("primal", "tangent"), got, expected):
        if a is None or b is None:
            assert a is None and b is None, f"{where}: {name} {a} (torch {b})"
            continue
        torch.testing.assert_close(torch.from_numpy(a), torch.from_numpy(b),
                                   msg=lambda m: f"{where}: {name}: {m}")


def _known(name, test):
    return StrictXfail(KNOWN_DIFFERENCES.get((name, test)))


@pytest.mark.parametrize("name,fn,n", CASES, ids=[c[0] for c in CASES])
def test_hvp(name, fn, n):
    with _known(name, "hvp"):
        _compare(_hvp, fn, n, f"{name} (jvp of grad)")


@pytest.mark.parametrize("name,fn,n", CASES, ids=[c[0] for c in CASES])
def test_dual_cotangent(name, fn, n):
    with _known(name, "dual_cotangent"):
        _compare(_vjp_dual_cotangent, fn, n, f"{name} (grad with a dual cotangent)")


@pytest.mark.parametrize("name,fn,n", CASES, ids=[c[0] for c in CASES])
def test_dual_input(name, fn, n):
    with _known(name, "dual_input"):
        _compare(_vjp_dual_input, fn, n, f"{name} (grad of a dual input)")


# -- scenarios ---------------------------------------------------------------------------------
def test_hessian_and_jacfwd_of_jacrev():
    """The calls of the bug report: forward-over-reverse through threshold_backward and
    slice_backward, as whole matrices."""
    def ex(lib):
        F, func = lib.nn.functional, lib.func
        x = lib.tensor([1.5, -0.5, 2.0, 0.25], dtype=lib.float64)
        print(func.hessian(lambda x: F.relu(x).pow(2).sum())(x))
        print(func.jacfwd(func.grad(lambda x: x[1:].pow(3).sum()))(x))
        print(func.jacfwd(func.jacrev(lambda x: F.avg_pool1d(x.view(1, 1, 4), 2).pow(2).sum()))(x))
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("rank", [2, 3])
def test_grid_sample_double_backward_refuses(rank):
    """A dual cotangent reaching grid_sample's double backward: torch's passes the tangent on
    to grid_sampler_{2,3}d_backward, which refuses forward AD."""
    def ex(lib):
        rng = np.random.default_rng(0)
        shape = (1, 1) + (3,) * rank
        x = lib.from_numpy(rng.standard_normal(shape)).requires_grad_()
        grid = lib.from_numpy(rng.uniform(-1, 1, (1,) + (2,) * rank + (rank,))).requires_grad_()
        y = lib.nn.functional.grid_sample(x, grid, align_corners=False)
        _, grid_grad = lib.autograd.grad(y.pow(2).sum(), (x, grid), create_graph=True)
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            v = fwad.make_dual(lib.ones_like(grid_grad), lib.ones_like(grid_grad))
            lib.autograd.grad(grid_grad, (x, grid), v)
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("create_graph", [False, True])
def test_delayed_error_drops_the_tangent_once_recorded(create_graph):
    """scatter_reduce's product gradient with two zeros at one place goes through torch's
    DelayedError node, which keeps the tangent without create_graph and drops it with."""
    def ex(lib):
        x = lib.tensor([0.0, 0.0, 2.0, -1.0], dtype=lib.float64, requires_grad=True)
        y = lib.zeros(2, dtype=lib.float64).scatter_reduce(0, lib.tensor([0, 0, 1, 1]), x,
                                                           "prod", include_self=False)
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            v = fwad.make_dual(lib.ones_like(y), lib.tensor([2.0, 3.0], dtype=lib.float64))
            g, = lib.autograd.grad(y, x, v, create_graph=create_graph)
            primal, tangent = fwad.unpack_dual(g)
            print(primal.detach(), tangent)
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("op", ["conv1d", "conv_transpose1d"])
def test_convolution_forward_over_reverse_with_an_unneeded_input(op):
    """Forward mode through a convolution's double backward differentiates its forward node
    for the weight alone: the input's gradient, left out of the mask, must be no gradient (it
    was an empty placeholder the engine refused). Unbatched, so that a view sits between."""
    def ex(lib):
        lib.manual_seed(0)
        x = lib.randn(3, 7, dtype=lib.float64, requires_grad=True)
        shape = (2, 3, 3) if op == "conv1d" else (3, 2, 3)
        w = lib.randn(*shape, dtype=lib.float64, requires_grad=True)
        conv = getattr(lib.nn.functional, op)
        print(lib.autograd.gradgradcheck(lambda a, b: conv(a, b), (x, w),
                                         check_fwd_over_rev=True, check_rev_over_rev=False,
                                         check_undefined_grad=False))
    assert_prints_like_torch(ex)
