"""utils.flop_counter and utils.module_tracker against live torch: the same models (FLOPs
depend on shapes only) give the same totals, per-module and per-op counts, and tables."""
import contextlib
import io
import warnings

import numpy as np
import pytest
import tabulate  # noqa: F401  (torch's FlopCounterMode prints its table through it)
import torch
import torch.utils.flop_counter
import torch.utils.module_tracker

import dyngrad
import dyngrad.utils.flop_counter
import dyngrad.utils.module_tracker
from dyngrad.ops import _dispatch

LIBS = (torch, dyngrad)


def _t(L, *shape, rg=False):
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    return L.tensor(data, requires_grad=rg)


def _counted(L, run, **kw):
    """(total, counts with str keys, the table printed on exit, the counter)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        with L.utils.flop_counter.FlopCounterMode(**kw) as fc:
            run(L)
    counts = {m: {str(k): v for k, v in d.items()} for m, d in fc.get_flop_counts().items()}
    return fc.get_total_flops(), counts, out.getvalue(), fc


def _same(run, **kw):
    """Run `run(L)` under a counter in torch and dyngrad; everything must agree."""
    t = _counted(torch, run, **kw)
    d = _counted(dyngrad, run, **kw)
    assert d[0] == t[0]
    assert d[1] == t[1]
    for k in t[1]:   # the order of the ops in each module's row list
        assert list(d[1][k]) == list(t[1][k]), k
    assert d[2] == t[2]
    for depth in (1, 2, 3, None):
        assert d[3].get_table(depth) == t[3].get_table(depth)
    return d


def _mlp(L):
    nn = L.nn
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(),
                         nn.Sequential(nn.Linear(16, 32), nn.ReLU()), nn.Linear(32, 4))


def _cnn(L):
    nn = L.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(8, 8, 3, stride=2, groups=2, bias=False), nn.Flatten(),
                         nn.Linear(8 * 3 * 3, 10))


def test_mlp_forward_exact():
    total, counts, table, _ = _same(lambda L: _mlp(L)(_t(L, 5, 8)))
    # 2 * m * k * n for each addmm: 5x8x16, 5x16x32, 5x32x4
    assert total == 2 * 5 * (8 * 16 + 16 * 32 + 32 * 4) == 7680
    assert counts["Sequential.2.0"] == {"aten.addmm": 5120}
    assert table == ("Module          FLOP    % Total\n"
                     "------------  ------  ---------\n"
                     "Sequential      7680    100.00%\n"
                     "- aten.addmm    7680    100.00%\n"
                     "Sequential.0    1280     16.67%\n"
                     "- aten.addmm    1280     16.67%\n"
                     "Sequential.2    5120     66.67%\n"
                     "- aten.addmm    5120     66.67%\n"
                     "Sequential.3    1280     16.67%\n"
                     "- aten.addmm    1280     16.67%\n")


@pytest.mark.parametrize("input_grad", [False, True])
def test_mlp_forward_backward(input_grad):
    total, counts, table, _ = _same(
        lambda L: _mlp(L)(_t(L, 5, 8, rg=input_grad)).sum().backward())
    # backward: two mm per layer, but no input gradient for the first unless x requires grad
    assert total == 7680 * 3 - (0 if input_grad else 2 * 5 * 8 * 16)
    assert "21.760K" in table or input_grad


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_mlp_3d_input_and_depth(depth):
    _same(lambda L: _mlp(L)(_t(L, 2, 5, 8)).sum().backward(), depth=depth)


def test_no_grad_forward():
    def run(L):
        with L.no_grad():
            _mlp(L)(_t(L, 2, 5, 8))
    _same(run)


@pytest.mark.parametrize("input_grad", [False, True])
def test_cnn(input_grad):
    total, counts, _, _ = _same(
        lambda L: _cnn(L)(_t(L, 2, 3, 8, 8, rg=input_grad)).sum().backward())
    assert counts["Sequential.0"]["aten.convolution"] == 2 * 8 * 8 * 9 * 2 * 8 * 3


@pytest.mark.parametrize("make", [
    lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1),
    lambda nn: nn.ConvTranspose1d(4, 2, 3, groups=2, bias=False),
    lambda nn: nn.Conv1d(4, 4, 3, dilation=2, groups=4),
    lambda nn: nn.Conv3d(4, 2, 2, padding=1),
    lambda nn: nn.Conv2d(4, 4, 3, padding="same", padding_mode="circular"),
])
def test_convolutions(make):
    shapes = {"ConvTranspose2d": (2, 4, 5, 5), "ConvTranspose1d": (2, 4, 7), "Conv1d": (2, 4, 9),
              "Conv3d": (1, 4, 3, 4, 4), "Conv2d": (2, 4, 6, 6)}

    def run(L):
        m = make(L.nn)
        m(_t(L, *shapes[type(m).__name__], rg=True)).sum().backward()
    _same(run)


def test_bmm_baddbmm_matmul():
    def run(L):
        a, b, c = _t(L, 3, 4, 5, rg=True), _t(L, 3, 5, 6, rg=True), _t(L, 3, 4, 6, rg=True)
        L.bmm(a, b).sum().backward()
        L.baddbmm(c, a, b, beta=0.5).sum().backward()
        (a @ _t(L, 5, 7, rg=True)).sum().backward()   # 3-d @ 2-d: one mm
        (_t(L, 2, 1, 4, 5, rg=True) @ _t(L, 3, 5, 6, rg=True)).sum().backward()   # bmm
        (_t(L, 4, 5, rg=True) @ _t(L, 5, rg=True)).sum().backward()   # mv: not counted
        L.einsum("bij,bjk->bik", a, b)
        L.addmm(_t(L, 4, 6), _t(L, 4, 5), _t(L, 5, 6), beta=0.5, alpha=2)
        L.mm(_t(L, 4, 5), _t(L, 5, 6), out=L.empty(4, 6))
        L.mm(input=_t(L, 4, 5), mat2=_t(L, 5, 3))   # (the formula gets them positional)
        _t(L, 4, 5).addmm_(_t(L, 4, 2), _t(L, 2, 5))   # in-place: not counted
    total, counts, _, _ = _same(run)
    assert counts["Global"]["aten.baddbmm"] == 2 * 3 * 4 * 5 * 6


def test_transformer_encoder_layer():
    def run(L):
        L.manual_seed(0)
        enc = L.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        enc(_t(L, 2, 5, 8)).sum().backward()
    total, counts, _, _ = _same(run, depth=3)
    # attention itself (_scaled_dot_product_flash_attention_for_cpu) has no formula on CPU
    assert set(counts["Global"]) == {"aten.mm", "aten.addmm"}


def test_multihead_attention_and_sdpa():
    def run(L):
        L.manual_seed(0)
        mha = L.nn.MultiheadAttention(8, 2)
        q = _t(L, 5, 2, 8)
        mha(q, q, q)[0].sum().backward()
        L.nn.functional.scaled_dot_product_attention(
            _t(L, 2, 2, 5, 4, rg=True), _t(L, 2, 2, 5, 4), _t(L, 2, 2, 5, 4)).sum().backward()
    _same(run)


def test_global_rows_and_suffixes():
    def run(L):
        L.mm(_t(L, 4, 8), _t(L, 8, 8))        # outside every module: a Global row
        _mlp(L)(_t(L, 5, 8))
    _same(run)
    _same(lambda L: L.nn.Linear(512, 512)(_t(L, 64, 512)).sum().backward())      # M
    _same(lambda L: L.nn.Linear(512, 512)(_t(L, 2048, 512)).sum().backward())    # 2147.484M
    _same(lambda L: None)                                                         # no FLOPs
    _same(lambda L: L.mm(_t(L, 4, 5), _t(L, 5, 6)))


def test_display_false_and_empty_counter():
    for L in LIBS:
        total, counts, printed, fc = _counted(L, lambda L: L.mm(_t(L, 4, 5), _t(L, 5, 6)),
                                              display=False)
        assert (total, printed) == (240, "")
        fresh = L.utils.flop_counter.FlopCounterMode(display=False)
        assert fresh.get_flop_counts() == {}
        assert fresh.get_total_flops() == 0
        assert fresh.get_flop_counts() == {"Global": {}}   # (a defaultdict read, as torch's)
    assert fresh.get_table() == ("Module      FLOP    % Total\n"
                                 "--------  ------  ---------\n"
                                 "Global         0         0%")


def test_mods_argument_warns():
    for L in LIBS:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.utils.flop_counter.FlopCounterMode(L.nn.Linear(2, 2), display=False)
        assert [(str(x.message), x.category, x.filename) for x in w] == [
            ("mods argument is not needed anymore, you can stop passing it", UserWarning,
             __file__)]


def test_custom_mapping():
    def run(L):
        _mlp(L)(_t(L, 5, 8)).sum().backward()

    def mm_formula(a_shape, b_shape, *args, out_shape=None, **kwargs):
        return a_shape[0] + 1000 * out_shape[1]

    def relu_formula(x_shape, *args, out_shape=None, **kwargs):
        return x_shape[-1]

    def raw_add(*args, out_val=None, **kwargs):   # raw: the arguments themselves
        return out_val.numel()
    raw_add._get_raw = True

    for fm in (lambda L: L.utils.flop_counter.aten,):
        t = _counted(torch, run, custom_mapping={fm(torch).mm: mm_formula,
                                                 fm(torch).relu: relu_formula,
                                                 fm(torch).add: raw_add})
        d = _counted(dyngrad, run, custom_mapping={fm(dyngrad).mm: mm_formula,
                                                   fm(dyngrad).relu: relu_formula,
                                                   fm(dyngrad).add: raw_add})
        assert d[:3] == t[:3]
        assert "aten.relu" in d[1]["Sequential.2.1"]


def test_register_flop_formula():
    for L in LIBS:
        fc = L.utils.flop_counter
        with pytest.raises(RuntimeError, match="^duplicate registrations for aten.mm$"):
            fc.register_flop_formula(fc.aten.mm)(lambda *a, out_shape=None: 0)
        fc.register_flop_formula(fc.aten.cumsum)(lambda x, *a, out_shape=None, **k: 3)
        try:
            total, counts, _, _ = _counted(L, lambda L: _t(L, 4).cumsum(0), display=False)
        finally:
            del fc.flop_registry[fc.aten.cumsum]
        assert counts == {"Global": {"aten.cumsum": 3}}
    assert repr(dyngrad.utils.flop_counter.aten.mm) == repr(torch.ops.aten.mm)


def test_nested_counters_both_count():
    def run(L):
        m = _mlp(L)
        x = _t(L, 2, 8)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), \
                L.utils.flop_counter.FlopCounterMode(display=False) as outer:
            m(x).sum().backward()
            with L.utils.flop_counter.FlopCounterMode(depth=1) as inner:
                m(x).sum().backward()
            L.mm(x, x.t())
        return outer.get_flop_counts(), inner.get_flop_counts(), out.getvalue()

    def plain(r):
        return tuple({m: {str(k): v for k, v in d.items()} for m, d in c.items()}
                     for c in r[:2]) + (r[2],)
    assert plain(run(dyngrad)) == plain(run(torch))


def test_counter_off_after_exit_even_on_error():
    assert _dispatch._flop_hook is None and not _dispatch._intercept
    with pytest.raises(ValueError):
        with dyngrad.utils.flop_counter.FlopCounterMode(display=False):
            assert _dispatch._intercept and _dispatch._flop_hook is not None
            raise ValueError
    assert _dispatch._flop_hook is None and not _dispatch._intercept and not _dispatch._fast_off


def _tracker_log(L):
    m = L.nn.Sequential(L.nn.Linear(4, 4), L.nn.ReLU(), L.nn.Sequential(L.nn.Linear(4, 4)))
    log = []
    with L.utils.module_tracker.ModuleTracker() as tr:
        def hook(name):
            return lambda *a: log.append((name, sorted(tr.parents), tr.is_bw))
        for name, sub in m.named_modules():
            sub.register_forward_pre_hook(hook("pre " + name))
            sub.register_forward_hook(hook("post " + name))
        x = L.ones(2, 4, requires_grad=True)
        out = m(x)
        log.append(("after forward", sorted(tr.parents), tr.is_bw))
        out.register_hook(hook("out grad"))
        m[0].weight.register_hook(hook("w0 grad"))
        m[2][0].weight.register_hook(hook("w2 grad"))
        x.register_hook(hook("x grad"))
        out.sum().backward()
        log.append(("after backward", sorted(tr.parents), tr.is_bw))
        m(L.ones(2, 4)).sum().backward()   # the first module's name stays until backward ends
        log.append(("after backward 2", sorted(tr.parents), tr.is_bw))
    log.append(("exit", sorted(tr.parents), len(tr._hooks)))
    return log


def test_module_tracker():
    log = _tracker_log(dyngrad)
    assert log == _tracker_log(torch)
    assert ("w0 grad", ["Global", "Sequential", "Sequential.0"], True) in log
