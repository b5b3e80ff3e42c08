"""Lazy modules and uninitialized parameters against live torch: reprs before and after the
first call, parameter shapes and dtypes, initialisation bounds, state_dict / load_state_dict of
uninitialized modules, the class swap, and torch's errors."""
import copy
import math
import pickle
import re

import numpy as np
import pytest
import torch

import dyngrad

from .helpers import check_forward_backward, copy_state

LAZY = [
    ("LazyLinear", lambda nn: nn.LazyLinear(3), (2, 5)),
    ("LazyLinear_nobias", lambda nn: nn.LazyLinear(3, bias=False), (2, 4, 5)),
    ("LazyConv1d", lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    ("LazyConv1d_unbatched", lambda nn: nn.LazyConv1d(4, 3), (3, 7)),
    ("LazyConv2d", lambda nn: nn.LazyConv2d(4, 3, stride=2, groups=2, bias=False),
     (1, 2, 6, 5)),
    ("LazyConv3d", lambda nn: nn.LazyConv3d(2, 2, padding_mode="circular", padding=1),
     (1, 2, 3, 4, 3)),
    ("LazyConvTranspose1d", lambda nn: nn.LazyConvTranspose1d(4, 3, stride=2), (2, 3, 5)),
    ("LazyConvTranspose2d", lambda nn: nn.LazyConvTranspose2d(4, 3, groups=2, dilation=2),
     (1, 2, 4, 5)),
    ("LazyConvTranspose3d", lambda nn: nn.LazyConvTranspose3d(2, 2, output_padding=1,
                                                              stride=2), (1, 3, 2, 3, 2)),
    ("LazyBatchNorm1d", lambda nn: nn.LazyBatchNorm1d(), (4, 3)),
    ("LazyBatchNorm2d", lambda nn: nn.LazyBatchNorm2d(momentum=None, bias=False), (2, 3, 4, 4)),
    ("LazyBatchNorm3d", lambda nn: nn.LazyBatchNorm3d(affine=False), (2, 3, 2, 3, 2)),
    ("LazyBatchNorm1d_nostats", lambda nn: nn.LazyBatchNorm1d(track_running_stats=False),
     (4, 3, 2)),
    ("LazyInstanceNorm1d", lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 5)),
    ("LazyInstanceNorm2d", lambda nn: nn.LazyInstanceNorm2d(affine=False), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", lambda nn: nn.LazyInstanceNorm3d(track_running_stats=False),
     (2, 3, 2, 3, 2)),
]
IDS = [c[0] for c in LAZY]


def _describe_state(sd):
    """Key -> placeholder class name, or (dtype, shape) for real tensors."""
    out = {}
    for k, v in sd.items():
        name = type(v).__name__
        out[k] = name if name.startswith("Uninitialized") else (str(v.dtype), tuple(v.shape))
    return out


def _msg(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


@pytest.mark.parametrize("name, make, shape", LAZY, ids=IDS)
def test_lazy_repr_state_and_materialization(name, make, shape):
    ours, theirs = make(dyngrad.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert _describe_state(ours.state_dict()) == _describe_state(theirs.state_dict())
    assert ([(n, repr(p)) for n, p in ours.named_parameters()]
            == [(n, repr(p)) for n, p in theirs.named_parameters()])
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    ours(dyngrad.tensor(x))
    theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ == name.split("_")[0][4:]
    assert repr(ours) == repr(theirs)
    assert not hasattr(ours, "_initialize_hook") and not hasattr(ours, "_load_hook")
    assert not ours._forward_pre_hooks and not ours._load_state_dict_pre_hooks
    assert _describe_state(ours.state_dict()) == _describe_state(theirs.state_dict())
    assert ([type(p).__name__ for p in ours.parameters()]
            == [type(p).__name__ for p in theirs.parameters()])
    # same function once torch has our weights (and our running stats)
    copy_state(ours, theirs)
    check_forward_backward(ours, theirs, [x], "float32")
    check_forward_backward(ours.eval(), theirs.eval(), [x], "float32")


@pytest.mark.parametrize("make", [lambda nn: nn.LazyLinear(200),
                                  lambda nn: nn.LazyConv2d(200, 3)])
def test_lazy_init_bounds(make):
    m = make(dyngrad.nn)
    m(dyngrad.ones(1, 4, 5, 5) if isinstance(m, dyngrad.nn.LazyConv2d) else dyngrad.ones(2, 9))
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    fan_in = w[0].size
    bound = 1 / math.sqrt(fan_in)
    for t in (w, b):
        assert np.abs(t).max() <= bound and np.abs(t).max() > 0.8 * bound
    assert m.weight.dtype == dyngrad.float32 and m.weight.requires_grad


def test_lazy_batchnorm_init_and_dtype():
    ours, theirs = dyngrad.nn.LazyBatchNorm1d().double(), torch.nn.LazyBatchNorm1d().double()
    assert type(ours.running_mean).__name__ == type(theirs.running_mean).__name__
    assert str(ours.running_mean.data.dtype) == str(theirs.running_mean.data.dtype)
    x = np.random.default_rng(1).standard_normal((5, 3))
    ours(dyngrad.tensor(x))
    theirs(torch.tensor(x))
    for k, v in theirs.state_dict().items():
        o = ours.state_dict()[k]
        assert str(o.dtype) == str(v.dtype), k
        np.testing.assert_allclose(o.numpy(), v.numpy(), rtol=1e-12)


def test_uninitialized_parameter_and_buffer():
    po, pt = dyngrad.nn.UninitializedParameter(), torch.nn.UninitializedParameter()
    assert repr(po) == repr(pt) and str(po) == str(pt)
    assert isinstance(po, dyngrad.nn.Parameter) and po.requires_grad and po.is_leaf
    assert tuple(po.size()) == tuple(pt.size()) and str(po.dtype) == str(pt.dtype)
    assert po.is_floating_point() and not po.is_complex()
    assert type(po.double()).__name__ == type(pt.double()).__name__ == "Tensor"
    assert _msg(lambda: po.shape) == _msg(lambda: pt.shape)
    assert _msg(lambda: po.share_memory_()) == _msg(lambda: pt.share_memory_())
    pat = re.compile(r"Attempted to use an uninitialized parameter in .*\. This error")
    for fo, ft in [(lambda: po + 1, lambda: pt + 1), (lambda: po.sum(), lambda: pt.sum()),
                   (lambda: po.dim(), lambda: pt.dim()),
                   (lambda: dyngrad.nn.functional.linear(dyngrad.ones(2, 3), po),
                    lambda: torch.nn.functional.linear(torch.ones(2, 3), pt))]:
        (to, mo), (tt, mt) = _msg(fo), _msg(ft)
        assert to is tt is ValueError
        assert pat.sub("", mo) == pat.sub("", mt) and pat.match(mo)
        assert mo == mt   # the function is named as torch names it, for these
    assert _msg(lambda: po.requires_grad_()) == _msg(lambda: pt.requires_grad_())
    assert _msg(lambda: po.clone()) == _msg(lambda: pt.clone())
    assert po.ndim == pt.ndim == 1
    assert _msg(lambda: po.copy_(dyngrad.empty(0))) == _msg(lambda: pt.copy_(torch.empty(0)))
    bo, bt = dyngrad.nn.UninitializedBuffer(persistent=False), \
        torch.nn.UninitializedBuffer(persistent=False)
    assert repr(bo) == repr(bt) and bo.persistent is False and not bo.requires_grad
    assert isinstance(bo, dyngrad.nn.Buffer)
    for conv in ("double", "half"):
        assert type(getattr(bo, conv)()).__name__ == type(getattr(bt, conv)()).__name__
        assert str(getattr(bo, conv)().data.dtype) == str(getattr(bt, conv)().data.dtype)
    assert type(bo.to(dyngrad.float64)).__name__ == "UninitializedBuffer"
    assert _msg(lambda: copy.deepcopy(bo))[0] is _msg(lambda: copy.deepcopy(bt))[0]
    # materialize
    for lib in (dyngrad, torch):
        p = lib.nn.UninitializedParameter(dtype=lib.float64)
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3)
        assert p.dtype is lib.float64 and p.requires_grad
        q = lib.nn.UninitializedParameter(requires_grad=False)
        q.materialize((4,), dtype=lib.float16)
        assert q.dtype is lib.float16 and not q.requires_grad
        b = lib.nn.UninitializedBuffer()
        b.materialize((3,))
        assert type(b) is lib.Tensor and b.shape == (3,)
        r = pickle.loads(pickle.dumps(lib.nn.UninitializedParameter(requires_grad=False)))
        assert type(r).__name__ == "UninitializedParameter" and not r.requires_grad
        assert repr(copy.deepcopy(lib.nn.UninitializedParameter())) == "<UninitializedParameter>"
    assert dyngrad.nn.parameter.is_lazy(dyngrad.nn.UninitializedBuffer())
    assert not dyngrad.nn.parameter.is_lazy(dyngrad.nn.Parameter(dyngrad.ones(1)))


def test_lazy_load_state_dict():
    for lib in (dyngrad, torch):
        lazy, other = lib.nn.LazyLinear(3), lib.nn.LazyLinear(3)
        # placeholders into placeholders: all keys match, nothing materialized
        assert repr(other.load_state_dict(lazy.state_dict())) == "<All keys matched successfully>"
        assert type(other.weight).__name__ == "UninitializedParameter"
        # real tensors into placeholders: materialized, class kept until the first call
        full = lib.nn.Linear(4, 3)
        lazy.load_state_dict(full.state_dict())
        assert type(lazy).__name__ == "LazyLinear" and lazy.in_features == 0
        assert type(lazy.weight) is lib.nn.Parameter and not lazy.has_uninitialized_params()
        np.testing.assert_array_equal(lazy.weight.detach().numpy(), full.weight.detach().numpy())
        lazy(lib.ones(2, 4))
        assert repr(lazy) == "Linear(in_features=4, out_features=3, bias=True)"
        np.testing.assert_array_equal(lazy.weight.detach().numpy(), full.weight.detach().numpy())
        assert lib.nn.LazyLinear(3).state_dict(keep_vars=True)["weight"].requires_grad
        bn = lib.nn.LazyBatchNorm1d()
        bn.load_state_dict(lib.nn.BatchNorm1d(4).state_dict())
        bn(lib.ones(3, 4))
        assert repr(bn).startswith("BatchNorm1d(0, ")   # torch keeps num_features 0 here
    # placeholders into a real module, and a wrong input after loading: torch's errors
    assert (_msg(lambda: dyngrad.nn.Linear(4, 3).load_state_dict(
        dyngrad.nn.LazyLinear(3).state_dict())) ==
        _msg(lambda: torch.nn.Linear(4, 3).load_state_dict(torch.nn.LazyLinear(3).state_dict())))

    def wrong(lib):
        m = lib.nn.LazyLinear(3)
        m.load_state_dict(lib.nn.Linear(4, 3).state_dict())
        m(lib.ones(2, 5))
    assert _msg(lambda: wrong(dyngrad)) == _msg(lambda: wrong(torch))
    # a plain module with a placeholder buffer cannot save it (detach is not allowed)
    for lib in (dyngrad, torch):
        m = lib.nn.Module()
        m.register_buffer("x", lib.nn.UninitializedBuffer())
        assert _msg(lambda: m.state_dict())[0] is ValueError


def test_lazy_errors():
    cases = [
        lambda lib: lib.nn.LazyConv2d(4, 3)(lib.ones(2, 5)),
        lambda lib: lib.nn.LazyConvTranspose1d(4, 3)(lib.ones(2, 5, 3, 3)),
        lambda lib: lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5)),
        lambda lib: lib.nn.LazyLinear(4)(lib.ones(())),
        lambda lib: lib.nn.LazyBatchNorm2d()(lib.ones(2, 5)),
        lambda lib: lib.nn.LazyInstanceNorm1d()(lib.ones(2, 5, 3, 3)),
        lambda lib: lib.nn.LazyLinear(4).share_memory(),
        lambda lib: lib.nn.LazyConv2d(3, 2).requires_grad_(False),
        lambda lib: lib.nn.LazyLinear(4).weight.numpy(),
    ]
    for case in cases:
        assert _msg(lambda: case(dyngrad)) == _msg(lambda: case(torch))

    def custom(lib, init):
        class M(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.UninitializedParameter()

            def forward(self, x):
                return x
        if init:
            M.initialize_parameters = lambda self, x: None
        M()(lib.ones(2))
    for init in (False, True):
        assert _msg(lambda: custom(dyngrad, init)) == _msg(lambda: custom(torch, init))


def test_lazy_module_conversions():
    for lib in (dyngrad, torch):
        m = lib.nn.LazyConv2d(3, 2).float().double()
        assert m.weight.data.dtype is lib.float64 and m.weight.requires_grad
        assert type(m.weight).__name__ == "UninitializedParameter"
        m.half()
        assert m.weight.data.dtype is lib.float16
        m.float()(lib.ones(1, 2, 3, 3))
        assert tuple(m.weight.shape) == (3, 2, 2, 2) and m.weight.dtype is lib.float32
        with pytest.raises(ValueError):
            lib.nn.LazyLinear(3).to_empty(device="cpu")
        m = lib.nn.LazyLinear(2, dtype=lib.float64)
        assert m(lib.ones(2, 3, dtype=lib.float64)).dtype is lib.float64


def test_lazy_copies_optimizers_and_containers():
    for lib in (dyngrad, torch):
        net = lib.nn.Sequential(lib.nn.LazyLinear(5), lib.nn.ReLU(), lib.nn.LazyLinear(2))
        # optimizers accept placeholders (torch too); a step with no gradient skips them
        opt = lib.optim.SGD(net.parameters(), lr=0.1)
        opt.step()
        lib.optim.Adam(lib.nn.LazyLinear(3).parameters()).step()
        clone = copy.deepcopy(net)
        pickled = pickle.loads(pickle.dumps(net))
        assert repr(clone) == repr(net)
        clone(lib.ones(3, 4))
        assert type(net[0]).__name__ == "LazyLinear" and net[0]._forward_pre_hooks
        pickled(lib.ones(3, 6))
        net(lib.ones(3, 7))
        assert [tuple(p.shape) for p in clone.parameters()] == [(5, 4), (5,), (2, 5), (2,)]
        assert [tuple(p.shape) for p in pickled.parameters()] == [(5, 6), (5,), (2, 5), (2,)]
        assert [tuple(p.shape) for p in net.parameters()] == [(5, 7), (5,), (2, 5), (2,)]
        assert type(net[2]) is lib.nn.Linear
        # the parameters the optimizer holds are the ones materialized in place
        assert opt.param_groups[0]["params"][0] is net[0].weight
        out = net(lib.ones(3, 7)).sum()
        out.backward()
        opt.step()
        assert net[0].weight.grad.shape == (5, 7)


@pytest.mark.parametrize("name", ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
                                  "LazyConvTranspose1d", "LazyConvTranspose2d",
                                  "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
                                  "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
                                  "LazyInstanceNorm3d"])
def test_lazy_class_module_paths(name):
    ours, theirs = getattr(dyngrad.nn, name), getattr(torch.nn, name)
    assert ours.__module__.replace("dyngrad", "torch") == theirs.__module__
    assert [c.__name__ for c in ours.__mro__ if c.__name__ != "_StateDictMixin"][:3] == \
        [c.__name__ for c in theirs.__mro__][:3]
    module = __import__(ours.__module__, fromlist=[name])
    assert getattr(module, name) is ours
    assert ours.cls_to_become.__name__ == theirs.cls_to_become.__name__
    args = () if "Norm" in name else (3,) if "Linear" in name else (3, 2)
    assert type(pickle.loads(pickle.dumps(ours(*args)))) is ours
    # a wrong call names the class as torch does
    assert _msg(lambda: ours(*args, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) == \
        _msg(lambda: theirs(*args, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))


def test_save_and_load_of_uninitialized_parameters_like_torch():
    """The placeholders pickle themselves; a weights-only load refuses them, as torch's does."""
    import io
    got = {}
    for lib in (torch, dyngrad):
        buf = io.BytesIO()
        lib.save(lib.nn.LazyLinear(3).state_dict(), buf)
        buf.seek(0)
        with pytest.raises(Exception, match="Weights only load failed"):
            lib.load(buf, weights_only=True)
        buf.seek(0)
        got[lib] = {k: type(v).__name__ for k, v in lib.load(buf, weights_only=False).items()}
    assert got[dyngrad] == got[torch]
