"""torch.bfloat16 (through the optional ml_dtypes package) against live torch.

Values: pointwise ops compute each element in float32 and round once to bfloat16, as torch's CPU
kernels do, so they must agree bit for bit; so must the reductions, matrix products and
normalisations checked exactly below (float32 accumulation, one rounding; torch's own summation
order differs from NumPy's, which shows in float32's last bits and so, rarely, in a bfloat16
rounding: the checks with ``ULP`` allow one bfloat16 step, 2**-7 relative). The op-database
sweep compares every op torch runs on float16 (the ones not listed in ``KNOWN_DIFFERENT``) on
bfloat16 samples, within ``ULP``.
"""
import itertools
import subprocess
import sys
import zlib

import numpy as np
import pytest
import torch

import dyngrad
from compare import call, like_torch, same
from opinfo import OP_DB

pytest.importorskip("ml_dtypes")

# one bfloat16 rounding step: 2**-8 to 2**-7 of the value, by where it lies in its binade
ULP = dict(rtol=2.0 ** -7, atol=1e-30)


def bf(lib, shape=(3, 4), seed=0, low=-3.0, high=3.0):
    """The same bfloat16 tensor on either library (float32 values rounded by each)."""
    a = np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)
    return lib.from_numpy(a).to(lib.bfloat16)


# -- the dtype -----------------------------------------------------------------------------------
def test_dtype_attributes():
    b, t = dyngrad.bfloat16, torch.bfloat16
    assert repr(b) == repr(t) == "torch.bfloat16" and str(b) == str(t)
    assert (b.itemsize, b.is_floating_point, b.is_complex, b.is_signed) == \
        (t.itemsize, t.is_floating_point, t.is_complex, t.is_signed)
    assert str(b.to_complex()) == str(t.to_complex()) and b.to_real() is b
    import pickle
    assert pickle.loads(pickle.dumps(b)) is b


def test_finfo():
    ours, theirs = dyngrad.finfo(dyngrad.bfloat16), torch.finfo(torch.bfloat16)
    assert repr(ours) == repr(theirs)
    for name in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, name) == getattr(theirs, name), name


def test_legacy_types():
    assert dyngrad.BFloat16Tensor.__name__ == "BFloat16Tensor"
    assert dyngrad.BFloat16Storage.__name__ == "BFloat16Storage"
    like_torch(lambda L: L.BFloat16Tensor([1.5, 2.25]))
    like_torch(lambda L: L.ones(2).type(L.BFloat16Tensor))
    like_torch(lambda L: L.ones(2).type("torch.BFloat16Tensor"))
    assert dyngrad.ones(2, dtype=dyngrad.bfloat16).type() == "torch.BFloat16Tensor"
    assert isinstance(dyngrad.ones(2).bfloat16(), dyngrad.BFloat16Tensor)
    assert dyngrad.ones(3, dtype=dyngrad.bfloat16).untyped_storage().nbytes() == 6


# -- promotion -----------------------------------------------------------------------------------
NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("other", NAMES)
def test_promote_types(other):
    for a, b in (("bfloat16", other), (other, "bfloat16")):
        theirs, texc = call(lambda L: L.promote_types(getattr(L, a), getattr(L, b)), torch)
        ours, exc = call(lambda L: L.promote_types(getattr(L, a), getattr(L, b)), dyngrad)
        if texc is not None:
            assert (type(exc), str(exc)) == (type(texc), str(texc))
        else:
            assert str(ours) == str(theirs)


def _operand(lib, kind, what):
    if kind == "scalar":
        return what
    return lib.ones((2,) if kind == "tensor" else (), dtype=getattr(lib, what))


OPERANDS = [(k, d) for d in NAMES[:12] for k in ("tensor", "zerodim")] + \
    [("scalar", s) for s in (True, 3, 2.5, 1 + 2j)]


@pytest.mark.parametrize("kind", ["tensor", "zerodim"])
@pytest.mark.parametrize("other", OPERANDS, ids=str)
def test_result_type_and_add(kind, other):
    """result_type and the dtype of a sum, bfloat16 on either side."""
    for a, b in ((("bfloat16", kind), other[::-1]), (other[::-1], ("bfloat16", kind))):
        def fn(L):
            x, y = _operand(L, a[1], a[0]), _operand(L, b[1], b[0])
            return str(L.result_type(x, y)), str((x + y).dtype)
        assert fn(dyngrad) == fn(torch)


# -- creation ------------------------------------------------------------------------------------
def _g(L):
    return L.Generator().manual_seed(0)


CREATION = {
    "tensor": lambda L: L.tensor([1.7, -3.3, 1e-3, 12345.6, 3e38], dtype=L.bfloat16),
    "tensor_0d": lambda L: L.tensor(2.71828, dtype=L.bfloat16),
    "tensor_ints": lambda L: L.tensor([[1, 2], [257, 4]], dtype=L.bfloat16),
    "zeros": lambda L: L.zeros(2, 3, dtype=L.bfloat16),
    "ones": lambda L: L.ones(4, dtype=L.bfloat16),
    "full": lambda L: L.full((2,), 1.7, dtype=L.bfloat16),
    "empty_shape": lambda L: L.empty(2, 3, dtype=L.bfloat16).shape,
    "arange": lambda L: L.arange(0, 1, 0.1, dtype=L.bfloat16),
    "arange_int": lambda L: L.arange(10, dtype=L.bfloat16),
    "linspace": lambda L: L.linspace(0, 1, 7, dtype=L.bfloat16),
    "linspace_neg": lambda L: L.linspace(-3, 5, 11, dtype=L.bfloat16),
    "randn": lambda L: L.randn(3, 4, generator=_g(L), dtype=L.bfloat16),
    "rand": lambda L: L.rand(5, generator=_g(L), dtype=L.bfloat16),
    "zeros_like": lambda L: L.zeros_like(L.ones(3, dtype=L.bfloat16)),
    "full_like": lambda L: L.full_like(L.ones(3, dtype=L.bfloat16), 0.1),
    "new_full": lambda L: L.ones(2).bfloat16().new_full((2,), 3.3),
    "eye": lambda L: L.eye(3, dtype=L.bfloat16),
    "fill_overflow": lambda L: L.ones(2, dtype=L.bfloat16).fill_(1e39),
}


@pytest.mark.parametrize("name", CREATION)
def test_creation(name):
    like_torch(CREATION[name])


def test_default_dtype_bfloat16():
    def fn(L):
        L.set_default_dtype(L.bfloat16)
        try:
            out = (L.tensor([1.5, 2.0]), L.ones(2) / 3, L.arange(0.0, 1.0, 0.25),
                   repr(L.tensor([0.1, 0.2])), str(L.get_default_dtype()))
            try:
                L.tensor([1j])
            except RuntimeError as e:
                out += (str(e),)
            return out
        finally:
            L.set_default_dtype(L.float32)
    theirs, ours = fn(torch), fn(dyngrad)
    same(ours[:3], theirs[:3])
    assert ours[3:] == theirs[3:]


# -- conversion ----------------------------------------------------------------------------------
CONVERSION = {
    "to": lambda L: bf(L),
    "method": lambda L: L.from_numpy(np.linspace(-5, 5, 13, dtype=np.float32)).bfloat16(),
    "from_float64": lambda L: L.tensor([1 / 3, 1e-40, 1e39, -0.0], dtype=L.float64).bfloat16(),
    "back_float": lambda L: bf(L).float(),
    "back_double": lambda L: bf(L).double(),
    "to_half": lambda L: bf(L).half(),
    "to_int": lambda L: (bf(L) * 10).int(),
    "to_uint8": lambda L: bf(L, low=0, high=200).to(L.uint8),
    "to_bool": lambda L: bf(L).bool(),
    "from_int": lambda L: L.arange(-300, 300, 7).to(L.bfloat16),
    "from_bool": lambda L: L.tensor([True, False]).to(L.bfloat16),
    "to_complex": lambda L: bf(L).to(L.complex64),
    "type": lambda L: bf(L).type(L.float64),
    "copy_": lambda L: L.zeros(3, 4, dtype=L.bfloat16).copy_(L.ones(3, 4) / 3),
    "copy_to_float": lambda L: L.zeros(3, 4).copy_(bf(L)),
    "nan_inf": lambda L: L.tensor([float("nan"), float("inf"), -float("inf")]).bfloat16(),
    "module": lambda L: tuple(L.nn.Linear(3, 2).bfloat16().to(L.float32)(L.ones(1, 3))
                              .shape for _ in (0,)),
}


@pytest.mark.parametrize("name", CONVERSION)
def test_conversion(name):
    like_torch(CONVERSION[name])


def test_tolist_item():
    for L in (torch, dyngrad):
        x = L.tensor([1.1, 2.5, 3.14159], dtype=L.bfloat16)
        assert x.tolist() == [1.1015625, 2.5, 3.140625]
        assert type(x[2].item()) is float and x[2].item() == 3.140625
        assert float(x[0]) == 1.1015625 and int(x[1]) == 2


def test_module_to_bfloat16():
    for L in (torch, dyngrad):
        L.manual_seed(0)
    nets = [L.nn.Sequential(L.nn.Linear(4, 3), L.nn.BatchNorm1d(3)) for L in (torch, dyngrad)]
    nets[1].load_state_dict({k: dyngrad.from_numpy(v.numpy().copy())
                             for k, v in nets[0].state_dict().items()})
    for i, net in enumerate(nets):
        L = (torch, dyngrad)[i]
        net.to(L.bfloat16) if i else net.bfloat16()
    for (k, v), (k2, v2) in zip(nets[0].state_dict().items(), nets[1].state_dict().items()):
        assert k == k2 and str(v.dtype) == str(v2.dtype)
        same(v2, v)


def test_numpy_refused():
    def numpy_of(L):
        return L.ones(2, dtype=L.bfloat16).numpy()

    def numpy_requires_grad(L):
        return L.ones(2, dtype=L.bfloat16, requires_grad=True).numpy()

    def array(L):
        return np.asarray(L.ones(2, dtype=L.bfloat16))

    import ml_dtypes
    arr = np.array([1, 2], dtype=ml_dtypes.bfloat16)
    for fn in (numpy_of, numpy_requires_grad, array, lambda L: L.from_numpy(arr),
               lambda L: L.tensor(arr), lambda L: L.as_tensor(arr)):
        like_torch(fn)


def test_serialization_roundtrip(tmp_path):
    x = dyngrad.tensor([[1.1, -2.5], [3e38, 1e-39]], dtype=dyngrad.bfloat16)
    dyngrad.save({"x": x, "y": x[1]}, tmp_path / "t.pt")
    back = dyngrad.load(tmp_path / "t.pt")
    assert back["x"].dtype is dyngrad.bfloat16
    assert np.array_equal(back["x"]._data.view(np.uint16), x._data.view(np.uint16))
    assert back["y"].untyped_storage().data_ptr() == back["x"].untyped_storage().data_ptr()


# -- printing ------------------------------------------------------------------------------------
REPRS = {
    "mixed": lambda L: L.tensor([1.0, 2.5, 3.14159, 1e-3, 12345.6], dtype=L.bfloat16),
    "ints": lambda L: L.tensor([[1, 2], [3, 4]], dtype=L.bfloat16),
    "small": lambda L: L.tensor([1e-10, 1e10], dtype=L.bfloat16),
    "special": lambda L: L.tensor([float("nan"), float("inf"), -0.0], dtype=L.bfloat16),
    "zero_dim": lambda L: L.tensor(1.5, dtype=L.bfloat16),
    "empty": lambda L: L.empty(0, dtype=L.bfloat16),
    "empty2": lambda L: L.empty(0, 3, dtype=L.bfloat16),
    "randn": lambda L: L.randn(3, 4, generator=_g(L), dtype=L.bfloat16),
    "long": lambda L: L.arange(0, 1, 0.1, dtype=L.bfloat16),
    "large": lambda L: L.linspace(-1, 1, 2000, dtype=L.bfloat16),
    "grad": lambda L: L.ones(2, dtype=L.bfloat16, requires_grad=True) * 2,
}


@pytest.mark.parametrize("name", REPRS)
def test_repr(name):
    assert repr(REPRS[name](dyngrad)) == repr(REPRS[name](torch))


# -- pointwise: exact --------------------------------------------------------------------------
POINTWISE = {
    "add": lambda L: bf(L) + bf(L, seed=1),
    "sub": lambda L: bf(L) - bf(L, seed=1),
    "mul": lambda L: bf(L) * bf(L, seed=1),
    "div": lambda L: bf(L) / bf(L, seed=1),
    "add_alpha": lambda L: L.add(bf(L), bf(L, seed=1), alpha=0.37),
    "sub_alpha": lambda L: L.sub(bf(L), bf(L, seed=1), alpha=0.3),
    "add_scalar": lambda L: bf(L) + 0.37,
    "rsub_scalar": lambda L: 0.37 - bf(L),
    "mul_scalar": lambda L: bf(L) * 2.7,
    "div_scalar": lambda L: bf(L) / 0.37,
    "floordiv_scalar": lambda L: bf(L) // 0.37,
    "pow_scalar": lambda L: bf(L, low=0.1) ** 1.3,
    "int_scalar": lambda L: bf(L) + 257,
    "mul_int_tensor": lambda L: bf(L) * L.arange(4),
    "add_float32": lambda L: bf(L) + bf(L).float(),
    "add_float16": lambda L: bf(L) + bf(L).half(),
    "add_float64_0d": lambda L: bf(L) + L.tensor(0.1, dtype=L.float64),
    "neg": lambda L: -bf(L),
    "abs": lambda L: bf(L).abs(),
    "sqrt": lambda L: bf(L, low=0).sqrt(),
    "rsqrt": lambda L: bf(L, low=0.1).rsqrt(),
    "exp": lambda L: bf(L).exp(),
    "log": lambda L: bf(L, low=0.1).log(),
    "sin": lambda L: bf(L).sin(),
    "tanh": lambda L: bf(L).tanh(),
    "sigmoid": lambda L: bf(L).sigmoid(),
    "relu": lambda L: L.relu(bf(L)),
    "gelu": lambda L: L.nn.functional.gelu(bf(L)),
    "silu": lambda L: L.nn.functional.silu(bf(L)),
    "erf": lambda L: bf(L).erf(),
    "floor": lambda L: (bf(L) * 3).floor(),
    "clamp": lambda L: bf(L).clamp(-1, 1),
    "where": lambda L: L.where(bf(L) > 0, bf(L), 0.5),
    "masked_fill": lambda L: bf(L).masked_fill(bf(L) > 1, 0.1),
    "lerp": lambda L: L.lerp(bf(L), bf(L, seed=1), 0.3),
    "addcmul": lambda L: L.addcmul(bf(L), bf(L, seed=1), bf(L, seed=2), value=0.5),
    "eq": lambda L: bf(L) == bf(L, seed=1),
    "lt_scalar": lambda L: bf(L) < 0.37,
    "isnan": lambda L: (bf(L) / 0).isnan(),
    "maximum": lambda L: L.maximum(bf(L), bf(L, seed=1)),
    "atan2": lambda L: L.atan2(bf(L), bf(L, seed=1)),
    "mul_": lambda L: bf(L).mul_(0.37),
    "add_": lambda L: bf(L).add_(bf(L, seed=1), alpha=-0.1),
    "transposed": lambda L: bf(L, (4, 3)).t() * bf(L),
    "big_add_scalar": lambda L: bf(L, (520,)) + 0.37,
    "big_mul_scalar": lambda L: bf(L, (520,)) * 0.37,
    "big_div_scalar": lambda L: bf(L, (520,)) / 0.37,
    "big_exp": lambda L: bf(L, (37, 29)).exp(),
    # Note [Reduced-precision scalars]: a 0-dim second operand of mul/div is taken in float32
    "mul_float64_0d": lambda L: bf(L) * L.tensor(0.1, dtype=L.float64),
    "mul_float32_0d": lambda L: bf(L) * L.tensor(1 / 3, dtype=L.float32),
    "mul_float16_0d": lambda L: bf(L) * L.tensor(0.7, dtype=L.float16),
    "div_float64_0d": lambda L: bf(L) / L.tensor(0.3, dtype=L.float64),
    "div_trunc_0d": lambda L: L.div(bf(L, (520,)) * 100, L.tensor(0.7, dtype=L.bfloat16),
                                    rounding_mode="trunc"),
    "floordiv_float64_0d": lambda L: bf(L, (520,)) // L.tensor(0.03, dtype=L.float64),
    "floor_divide_": lambda L: bf(L, (520,)).floor_divide_(0.03),
    "mul_int_big": lambda L: bf(L) * 100003,
    "zerodim_first": lambda L: L.tensor(0.1, dtype=L.float64) * bf(L),   # (rounded first)
    "rfloordiv_exact": lambda L: 2.0 // bf(L, (520,), low=1, high=3),
    # bfloat16's pow rounds each product for the exponents 3 and -2
    "pow_3": lambda L: bf(L, (520,)) ** 3,
    "pow_3_float": lambda L: bf(L, (520,)) ** 3.0,
    "pow_minus_2": lambda L: bf(L, (520,), low=0.1) ** -2,
    "leaky_relu": lambda L: L.nn.functional.leaky_relu(bf(L, (520,)), 0.3),
    "leaky_relu_empty": lambda L: L.nn.functional.leaky_relu(bf(L, (0,))),
}


@pytest.mark.parametrize("name", POINTWISE)
def test_pointwise(name):
    like_torch(POINTWISE[name])


# -- reductions, products, normalisations --------------------------------------------------
EXACT = {
    "sum": lambda L: bf(L).sum(),
    "sum_dim": lambda L: bf(L).sum(1),
    "mean": lambda L: bf(L).mean(0),
    "var": lambda L: bf(L).var(1),
    "std": lambda L: bf(L).std(),
    "prod": lambda L: bf(L, low=0.5, high=1.5).prod(1),
    "amax": lambda L: bf(L).amax(1),
    "max": lambda L: bf(L).max(1),
    "argmax": lambda L: bf(L).argmax(),
    "min": lambda L: bf(L).min(),
    "norm": lambda L: bf(L).norm(),
    "cumsum": lambda L: bf(L).cumsum(1),
    "sort": lambda L: bf(L).sort(1),
    "topk": lambda L: bf(L).topk(2),
    "logsumexp": lambda L: bf(L).logsumexp(1),
    "softmax": lambda L: bf(L).softmax(1),
    "softmax_0": lambda L: bf(L).softmax(0),
    "log_softmax": lambda L: bf(L).log_softmax(1),
    "log_softmax_0": lambda L: bf(L).log_softmax(0),
    "log_softmax_wide": lambda L: bf(L, (50, 37), high=5).log_softmax(-1),
    "layer_norm": lambda L: L.nn.functional.layer_norm(bf(L), (4,)),
    "layer_norm_affine": lambda L: L.nn.functional.layer_norm(bf(L), (4,), bf(L, (4,), 1),
                                                              bf(L, (4,), 2)),
    "mm": lambda L: bf(L) @ bf(L, (4, 5), 1),
    "matmul_vec": lambda L: bf(L) @ bf(L, (4,), 3),
    "bmm": lambda L: L.bmm(bf(L, (2, 3, 4)), bf(L, (2, 4, 5), 1)),
    "addmm": lambda L: L.addmm(bf(L, (5,)), bf(L), bf(L, (4, 5), 1)),
    "addmm_beta_alpha": lambda L: L.addmm(bf(L, (5,)), bf(L), bf(L, (4, 5), 1), beta=0.5,
                                          alpha=2),
    "linear": lambda L: L.nn.functional.linear(bf(L), bf(L, (5, 4), 1), bf(L, (5,), 2)),
    "linear_big": lambda L: L.nn.functional.linear(bf(L, (13, 40)), bf(L, (9, 40), 1),
                                                   bf(L, (9,), 2)),
    "mse": lambda L: L.nn.functional.mse_loss(bf(L), bf(L, seed=1)),
    "mse_sum": lambda L: L.nn.functional.mse_loss(bf(L), bf(L, seed=1), reduction="sum"),
    "cross_entropy": lambda L: L.nn.functional.cross_entropy(bf(L), L.tensor([0, 1, 2])),
    "max_pool2d": lambda L: L.nn.functional.max_pool2d(bf(L, (1, 2, 6, 6)), 2),
    "avg_pool2d": lambda L: L.nn.functional.avg_pool2d(bf(L, (2, 3, 9, 9)), 3, 2, 1),
    "adaptive_avg_pool2d": lambda L: L.nn.functional.adaptive_avg_pool2d(bf(L, (2, 3, 9, 9)),
                                                                          (4, 4)),
    "cat": lambda L: L.cat([bf(L), bf(L, seed=1)]),
}


@pytest.mark.parametrize("name", EXACT)
def test_reductions_products_exact(name):
    like_torch(EXACT[name])


WITHIN_ULP = {
    "sum_big": lambda L: bf(L, (300, 70)).sum(0),
    "mean_big": lambda L: bf(L, (300, 70)).mean(),
    "mm_big": lambda L: bf(L, (30, 200)) @ bf(L, (200, 20), 1),
    "softmax_middle_dim": lambda L: bf(L, (5, 6, 7)).softmax(1),
    "conv2d": lambda L: L.nn.functional.conv2d(bf(L, (1, 2, 5, 5)), bf(L, (3, 2, 3, 3), 1)),
}


@pytest.mark.parametrize("name", WITHIN_ULP)
def test_reductions_products_within_ulp(name):
    like_torch(WITHIN_ULP[name], **ULP)


# -- autograd ------------------------------------------------------------------------------------
GRADS = {
    "mul_sum": lambda L, x, w: (x * w).sum(),
    "exp_mean": lambda L, x, w: (x.exp() * w).mean(),
    "linear": lambda L, x, w: L.nn.functional.linear(x, w.t()).pow(2).sum(),
    "softmax": lambda L, x, w: (x.softmax(1) * w).sum(),
    "log_softmax": lambda L, x, w: (x.log_softmax(1) * w).sum(),
    "tanh": lambda L, x, w: (x.tanh() * w).sum(),
    "mse": lambda L, x, w: L.nn.functional.mse_loss(x, w),
}


@pytest.mark.parametrize("name", GRADS)
def test_backward(name):
    def fn(L):
        x = bf(L).requires_grad_()
        w = bf(L, (3, 4) if name != "linear" else (4, 3), seed=1).requires_grad_()
        loss = GRADS[name](L, x, w)
        loss.backward()
        return loss, x.grad, w.grad
    like_torch(fn, **ULP)
    got = fn(dyngrad)
    assert got[1].dtype is dyngrad.bfloat16 and got[1].grad_fn is None


def test_grad_accumulates_in_bfloat16():
    def fn(L):
        x = bf(L).requires_grad_()
        for k in (0.1, 0.7):
            (x * k).sum().backward()
        return x.grad
    like_torch(fn)


def test_mlp_training_step():
    """Forward, backward and three SGD steps of a small MLP held in bfloat16."""
    rng = np.random.default_rng(0)
    init = [rng.uniform(-0.5, 0.5, s).astype(np.float32) for s in ((16, 8), (16,), (3, 16), (3,))]
    data = rng.uniform(-1, 1, (32, 8)).astype(np.float32)
    labels = rng.integers(0, 3, 32)

    def run(L):
        net = L.nn.Sequential(L.nn.Linear(8, 16), L.nn.ReLU(), L.nn.Linear(16, 3))
        with L.no_grad():
            for p, v in zip(net.parameters(), init):
                p.copy_(L.from_numpy(v))
        net = net.to(L.bfloat16)
        opt = L.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        x, y = L.from_numpy(data).to(L.bfloat16), L.from_numpy(labels)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = L.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return tuple(losses) + tuple(p.detach() for p in net.parameters()) + \
            tuple(p.grad for p in net.parameters())
    # (the products' float32 sums run in another order than torch's: a bfloat16 step here and
    # there, carried through three updates)
    like_torch(run, rtol=2.0 ** -6, atol=2.0 ** -8)


# -- the op database: every op torch runs on float16, on bfloat16 samples ----------------------
# ops whose bfloat16 results differ from torch's (left to do: see the report / README)
KNOWN_DIFFERENT = frozenset((
    "_trilinear", "addbmm", "addbmm.broadcast", "addmv", "addr", "argsort", "baddbmm",
    "batch_norm", "conv_tbc", "copysign", "cumulative_trapezoid", "erf", "histc", "histogram",
    "histogramdd", "instance_norm", "kthvalue", "ldexp", "linalg.matrix_exp", "logit",
    "logsumexp", "matrix_exp", "nanmean", "nanmedian", "nn.functional.affine_grid",
    "nn.functional.batch_norm", "nn.functional.bilinear",
    "nn.functional.binary_cross_entropy_with_logits", "nn.functional.conv1d",
    "nn.functional.conv2d", "nn.functional.conv3d", "nn.functional.conv_tbc",
    "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
    "nn.functional.conv_transpose3d", "nn.functional.cross_entropy",
    "nn.functional.embedding_bag", "nn.functional.gelu", "nn.functional.grid_sample.3d",
    "nn.functional.grid_sample.bicubic", "nn.functional.grid_sample.bilinear",
    "nn.functional.grid_sample.nearest", "nn.functional.instance_norm",
    "nn.functional.interpolate.bicubic", "nn.functional.interpolate.linear",
    "nn.functional.interpolate.trilinear", "nn.functional.max_unpool3d",
    "nn.functional.nll_loss", "nn.functional.rrelu",
    "nn.functional.scaled_dot_product_attention", "scatter.reduce_add", "scatter_add",
    "scatter_reduce.mean", "scatter_reduce.sum", "segment_reduce.prod", "signbit", "sort",
    "special.i0e", "special.logit", "special.ndtr", "topk", "trapezoid", "trapz", "unique",
))


def _to_bf16(v, lib):
    if isinstance(v, (torch.Tensor, dyngrad.Tensor)) and v.dtype == lib.float32:
        return v.to(lib.bfloat16)
    if isinstance(v, (list, tuple)):
        return type(v)(_to_bf16(x, lib) for x in v)
    if isinstance(v, dict):
        return {k: _to_bf16(x, lib) for k, x in v.items()}
    return v


DB_CASES = [pytest.param(op, id=op.id) for op in OP_DB
            if "float16" in op.dtypes and op.check_values and op.id not in KNOWN_DIFFERENT]


@pytest.mark.parametrize("op", DB_CASES)
def test_op_database(op):
    samples = op.samples("float32", np.random.default_rng(zlib.crc32(op.id.encode())))
    for i, sample in enumerate(samples):
        def fn(L):
            args, kwargs = sample.to(L)
            return op.op(L)(*_to_bf16(args, L), **_to_bf16(kwargs, L))
        try:
            like_torch(fn, **ULP)
        except AssertionError as e:
            raise AssertionError(f"sample {i}: {sample!r}: {e}") from None


def test_known_different_still_listed():
    """Each op of KNOWN_DIFFERENT exists in the database (a renamed one would go unnoticed)."""
    ids = {op.id for op in OP_DB}
    assert KNOWN_DIFFERENT <= ids


# -- without ml_dtypes ---------------------------------------------------------------------------
def test_without_ml_dtypes():
    code = """
import sys
sys.modules["ml_dtypes"] = None          # as if it were not installed
import dyngrad as torch
b = torch.bfloat16
assert repr(b) == "torch.bfloat16" and b.itemsize == 2 and b.is_floating_point
assert torch.promote_types(b, torch.int8) is b and torch.finfo(b).eps == 2 ** -7
for make in (lambda: torch.zeros(2, dtype=b), lambda: torch.tensor([1.0], dtype=b),
             lambda: torch.ones(2).to(b), lambda: torch.ones(2).bfloat16()):
    try:
        make()
    except RuntimeError as e:
        assert "pip install dyngrad[bf16]" in str(e), e
    else:
        raise AssertionError("a bfloat16 tensor without ml_dtypes")
assert (torch.ones(2) + 1).tolist() == [2.0, 2.0]
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
