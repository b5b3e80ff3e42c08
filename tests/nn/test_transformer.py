"""nn.MultiheadAttention, nn.TransformerEncoderLayer and nn.TransformerEncoder against torch:
weights copied across via state_dict; outputs, attention weights, input and parameter
gradients compared in float32 and float64 over a grid of options; reprs, state_dict keys,
initialisation, warnings and errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from tests.nn._seq_compare import build_pair, check_module, raises_same

E, NH, L, S, N = 8, 2, 3, 4, 2
DTYPES = ["float32", "float64"]


def rng(seed=0):
    return np.random.default_rng(seed)


KPM = np.array([[False, False, True, False], [False, False, False, False]])   # (N, S)
KPM_SELF = np.array([[False, False, True], [False, False, False]])           # (N, L)


def causal(n):
    return np.triu(np.full((n, n), -np.inf), 1)


# -- MultiheadAttention --------------------------------------------------------------------------
# name: (constructor kwargs, self-attention?, key_padding_mask, attn_mask)
MHA_CASES = {
    "plain": (dict(), False, None, None),
    "self": (dict(), True, None, None),
    "self-batch_first": (dict(batch_first=True), True, None, None),
    "cross-batch_first": (dict(batch_first=True), False, None, None),
    "kpm-bool": (dict(), False, KPM, None),
    "kpm-float": (dict(), False, np.where(KPM, -1e9, 0.0), None),
    "attn-2d-float": (dict(), False, None, rng(1).standard_normal((L, S))),
    "attn-2d-bool": (dict(), False, None, np.triu(np.ones((L, S), bool), 2)),
    "attn-3d": (dict(), False, None, rng(2).standard_normal((N * NH, L, S))),
    "both-masks": (dict(batch_first=True), False, np.where(KPM, -np.inf, 0.0),
                   rng(3).standard_normal((L, S))),
    "kdim-vdim": (dict(kdim=5, vdim=6), False, KPM, None),
    "bias-kv": (dict(add_bias_kv=True), False, KPM, rng(4).standard_normal((L, S))),
    "zero-attn": (dict(add_zero_attn=True), False, KPM, rng(5).standard_normal((L, S))),
    "bias-kv-zero-attn-kdim": (dict(add_bias_kv=True, add_zero_attn=True, kdim=5, vdim=3),
                               False, None, None),
    "no-bias": (dict(bias=False), True, KPM_SELF, None),
    "four-heads": (dict(num_heads=4), True, None, causal(L)),
}


def make_mha(kw):
    kw = dict(kw)
    heads = kw.pop("num_heads", NH)
    return lambda lib: lib.nn.MultiheadAttention(E, heads, **kw)


def mha_inputs(kw, self_attn, kpm, attn_mask, batched=True):
    r = rng(10)
    bf = kw.get("batch_first", False)
    lead = lambda n: ((N, n) if bf else (n, N)) if batched else (n,)   # noqa: E731
    q = r.standard_normal(lead(L) + (E,))
    if self_attn:
        return [q, None, None, kpm, attn_mask]
    k = r.standard_normal(lead(S) + (kw.get("kdim", E),))
    v = r.standard_normal(lead(S) + (kw.get("vdim", E),))
    return [q, k, v, kpm, attn_mask]


def mha_call(need_weights=True, average=True, is_causal=False):
    def call(lib, module, q, k, v, kpm, attn_mask):
        if k is None:
            k = v = q
        return module(q, k, v, key_padding_mask=kpm, attn_mask=attn_mask,
                      need_weights=need_weights, average_attn_weights=average,
                      is_causal=is_causal)
    return call


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weights", ["avg", "per-head", "none"])
@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention_matches_torch(case, weights, dtype):
    kw, self_attn, kpm, attn_mask = MHA_CASES[case]
    call = mha_call(need_weights=weights != "none", average=weights == "avg")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # mismatched mask dtypes warn (compared below)
        check_module(make_mha(kw), call, mha_inputs(kw, self_attn, kpm, attn_mask), dtype)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("kpm", [None, KPM_SELF])
def test_multihead_attention_is_causal(need_weights, kpm):
    kw = dict(batch_first=True)
    check_module(make_mha(kw), mha_call(need_weights, is_causal=True),
                 mha_inputs(kw, True, kpm, causal(L)), "float64")


@pytest.mark.parametrize("case", ["plain", "self", "kpm-bool", "attn-3d", "kdim-vdim"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_unbatched(case, need_weights):
    kw, self_attn, kpm, attn_mask = MHA_CASES[case]
    kpm = None if kpm is None else kpm[0]
    if attn_mask is not None and attn_mask.ndim == 3:
        attn_mask = attn_mask[:NH]
    check_module(make_mha(kw), mha_call(need_weights),
                 mha_inputs(kw, self_attn, kpm, attn_mask, batched=False), "float64")


@pytest.mark.parametrize("train", [True, False])
def test_multihead_attention_dropout_off_in_eval(train):
    """dropout=0 in train mode and dropout=0.5 in eval mode both give torch's values."""
    kw = dict(dropout=0.0 if train else 0.5, batch_first=True)
    check_module(make_mha(kw), mha_call(), mha_inputs(kw, True, KPM_SELF, None), "float64",
                 train=train)


def test_multihead_attention_eval_no_grad():
    """torch takes its fused inference path here; the values agree (its output is contiguous
    there, a transposed view on the ordinary path, which is the one we take)."""
    kw = dict(batch_first=True)
    check_module(make_mha(kw), mha_call(), mha_inputs(kw, True, KPM_SELF, None), "float32",
                 train=False, grads=False, grad_enabled=False, graph=False)


def test_multihead_attention_dropout_in_training():
    dyngrad.manual_seed(0)
    m = dyngrad.nn.MultiheadAttention(E, NH, dropout=0.5).double()
    x = dyngrad.from_numpy(rng().standard_normal((L, N, E)))
    out, w = m(x, x, x)
    m.eval()
    out_eval, w_eval = m(x, x, x)
    assert not np.allclose(w.detach().numpy(), w_eval.detach().numpy())
    np.testing.assert_allclose(w_eval.detach().numpy().sum(-1), 1.0)


def test_multihead_attention_functional():
    """F.multi_head_attention_forward called directly, with static_k/static_v."""
    r = rng(6)
    q = r.standard_normal((L, N, E))
    kv = r.standard_normal((S, N, E))
    sk = r.standard_normal((N * NH, S, E // NH))
    sv = r.standard_normal((N * NH, S, E // NH))
    w_in, b_in = r.standard_normal((3 * E, E)), r.standard_normal(3 * E)
    w_out, b_out = r.standard_normal((E, E)), r.standard_normal(E)
    outs = []
    for lib in (dyngrad, torch):
        t = lib.from_numpy
        outs.append(lib.nn.functional.multi_head_attention_forward(
            t(q), t(kv), t(kv), E, NH, t(w_in), t(b_in), None, None, False, 0.0, t(w_out),
            t(b_out), static_k=t(sk), static_v=t(sv)))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)


MHA_SPECS = [dict(), dict(bias=False), dict(kdim=5, vdim=3), dict(add_bias_kv=True),
             dict(batch_first=True, dropout=0.1, add_zero_attn=True)]


@pytest.mark.parametrize("kw", MHA_SPECS)
def test_multihead_attention_parameters_repr_init(kw):
    ours, theirs = dyngrad.nn.MultiheadAttention(E, NH, **kw), \
        torch.nn.MultiheadAttention(E, NH, **kw)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    for name in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads", "dropout",
                 "batch_first", "head_dim", "add_zero_attn"):
        assert getattr(ours, name) == getattr(theirs, name), name
    for name in ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight",
                 "in_proj_bias", "bias_k", "bias_v"):
        assert (getattr(ours, name) is None) == (getattr(theirs, name) is None), name
    if ours.in_proj_weight is not None:
        bound = math.sqrt(6 / (E + 3 * E))   # xavier_uniform_ on (3E, E)
        w = ours.in_proj_weight.detach().numpy()
        assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    if ours.in_proj_bias is not None:
        assert not ours.in_proj_bias.detach().numpy().any()
        assert not ours.out_proj.bias.detach().numpy().any()
    assert type(ours.out_proj).__name__ == "NonDynamicallyQuantizableLinear"


def test_merge_masks_like_torch():
    kw = dict(batch_first=True)
    ours, theirs = build_pair(make_mha(kw))
    r = rng(7)
    q = r.standard_normal((N, L, E)).astype(np.float32)
    kpm = np.where(KPM_SELF, -np.inf, 0).astype(np.float32)
    for attn in (r.standard_normal((L, L)), r.standard_normal((N * NH, L, L))):
        attn = attn.astype(np.float32)
        a = ours.merge_masks(dyngrad.from_numpy(attn), dyngrad.from_numpy(kpm),
                             dyngrad.from_numpy(q))
        b = theirs.merge_masks(torch.from_numpy(attn), torch.from_numpy(kpm),
                               torch.from_numpy(q))
        assert a[1] == b[1]
        np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    a = ours.merge_masks(None, dyngrad.from_numpy(kpm), dyngrad.from_numpy(q))
    assert a[1] == 1


def _t(lib, *shape, dtype=np.float32):
    return lib.from_numpy(np.ones(shape, dtype=dtype))


MHA_ERRORS = [
    lambda lib: lib.nn.MultiheadAttention(E, 3),
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, E), _t(lib, S, E)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, E), _t(lib, E), _t(lib, E)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E), attn_mask=_t(lib, L, L)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E), attn_mask=_t(lib, 2, L, S)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E),
                                                 attn_mask=_t(lib, 1, 1, L, S)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E),
                                                 key_padding_mask=_t(lib, N, S + 1)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E),
                                                 key_padding_mask=_t(lib, N, S, dtype=np.int64)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E), key_padding_mask=_t(lib, S)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S, N, E), is_causal=True),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E + 1), _t(lib, S, N, E),
                                                 _t(lib, S, N, E)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, N, E), _t(lib, S, N, E),
                                                 _t(lib, S + 1, N, E)),
    lambda lib: lib.nn.MultiheadAttention(E, NH, kdim=3)(_t(lib, L, N, E), _t(lib, S, N, 4),
                                                         _t(lib, S, N, E)),
    lambda lib: lib.nn.MultiheadAttention(E, NH)(_t(lib, L, E), _t(lib, S, E), _t(lib, S, E),
                                                 attn_mask=_t(lib, 3, L, S)),
]


@pytest.mark.parametrize("k", range(len(MHA_ERRORS)))
def test_multihead_attention_errors(k):
    raises_same(MHA_ERRORS[k])


def test_mismatched_mask_warning_like_torch():
    messages = []
    for lib in (dyngrad, torch):
        m = lib.nn.MultiheadAttention(E, NH)
        x = _t(lib, L, N, E)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            m(x, x, x, key_padding_mask=lib.from_numpy(KPM_SELF),
              attn_mask=_t(lib, L, L))
        messages.append(sorted({str(w.message) for w in record}))
    assert messages[0] == messages[1] and messages[0]


# -- TransformerEncoderLayer ------------------------------------------------------------------
def gelu_fn(lib):
    return lib.nn.functional.gelu


LAYER_CASES = {
    "default": dict(),
    "batch_first": dict(batch_first=True),
    "norm_first": dict(norm_first=True),
    "gelu-str": dict(activation="gelu", batch_first=True),
    "gelu-fn": dict(activation=gelu_fn),
    "gelu-module": dict(activation=lambda lib: lib.nn.GELU()),
    "silu-callable": dict(activation=lambda lib: lib.nn.functional.silu, norm_first=True),
    "no-bias-eps": dict(bias=False, layer_norm_eps=1e-3, batch_first=True),
}


def make_layer(kw, dropout=0.0):
    def make(lib):
        args = dict(kw)
        if callable(args.get("activation")):
            args["activation"] = args["activation"](lib)
        return lib.nn.TransformerEncoderLayer(E, NH, dim_feedforward=12, dropout=dropout,
                                              **args)
    return make


def src_input(batch_first, batched=True, seed=20):
    shape = ((N, L) if batch_first else (L, N)) if batched else (L,)
    return rng(seed).standard_normal(shape + (E,))


def layer_call(lib, module, src, mask, kpm, *, is_causal=False):
    return module(src, src_mask=mask, src_key_padding_mask=kpm, is_causal=is_causal)


MASKS = {
    "none": (None, None),
    "kpm": (None, KPM_SELF),
    "mask": (rng(21).standard_normal((L, L)), None),
    "both": (causal(L), np.where(KPM_SELF, -np.inf, 0.0)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("masks", list(MASKS))
@pytest.mark.parametrize("case", list(LAYER_CASES))
def test_encoder_layer_matches_torch(case, masks, dtype):
    kw = LAYER_CASES[case]
    mask, kpm = MASKS[masks]
    check_module(make_layer(kw), layer_call,
                 [src_input(kw.get("batch_first", False)), mask, kpm], dtype)


@pytest.mark.parametrize("case", ["default", "norm_first"])
def test_encoder_layer_unbatched_and_causal(case):
    kw = LAYER_CASES[case]

    def call(lib, module, src, mask):
        return module(src, src_mask=mask, is_causal=True)

    check_module(make_layer(kw), call, [src_input(False, batched=False), causal(L)], "float64")


@pytest.mark.parametrize("grad_enabled", [True, False])
def test_encoder_layer_eval_mode(grad_enabled):
    """Dropout 0.1 is off in eval mode; without autograd torch runs its fused kernel."""
    kw = LAYER_CASES["batch_first"]
    check_module(make_layer(kw, dropout=0.1), layer_call, [src_input(True), None, KPM_SELF],
                 "float32", train=False, grads=grad_enabled, grad_enabled=grad_enabled)


def test_encoder_layer_dropout_in_training():
    dyngrad.manual_seed(0)
    layer = dyngrad.nn.TransformerEncoderLayer(E, NH, 12, dropout=0.5).double()
    x = dyngrad.from_numpy(src_input(False))
    a = layer(x)
    layer.eval()
    assert not np.allclose(a.detach().numpy(), layer(x).detach().numpy())


@pytest.mark.parametrize("case", list(LAYER_CASES))
def test_encoder_layer_repr_and_state_dict(case):
    ours, theirs = make_layer(LAYER_CASES[case], 0.1)(dyngrad), \
        make_layer(LAYER_CASES[case], 0.1)(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.activation_relu_or_gelu == theirs.activation_relu_or_gelu
    assert ours.norm_first == theirs.norm_first


def test_encoder_layer_bad_activation():
    raises_same(lambda lib: lib.nn.TransformerEncoderLayer(E, NH, activation="tanh"))


# -- TransformerEncoder -----------------------------------------------------------------------
def make_encoder(layer_kw, num_layers=2, norm=True, **kw):
    def make(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = make_layer(layer_kw)(lib)
            return lib.nn.TransformerEncoder(layer, num_layers,
                                             norm=lib.nn.LayerNorm(E) if norm else None, **kw)
    return make


def encoder_call(lib, module, src, mask, kpm):
    return module(src, mask=mask, src_key_padding_mask=kpm)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("masks", list(MASKS))
@pytest.mark.parametrize("case,norm", [("default", True), ("batch_first", False),
                                       ("norm_first", True)])
def test_encoder_matches_torch(case, norm, masks, dtype):
    kw = LAYER_CASES[case]
    mask, kpm = MASKS[masks]
    check_module(make_encoder(kw, norm=norm), encoder_call,
                 [src_input(kw.get("batch_first", False)), mask, kpm], dtype)


def test_encoder_causal_hint():
    def call(lib, module, src, mask):
        return module(src, mask=mask, is_causal=True)

    check_module(make_encoder(LAYER_CASES["default"]), call, [src_input(False), causal(L)],
                 "float64")


@pytest.mark.parametrize("kpm", [KPM_SELF, np.array([[False, True, False], [False] * 3])])
@pytest.mark.parametrize("grad_enabled", [False, True])
def test_encoder_eval_padding_positions(kpm, grad_enabled):
    """In eval mode without autograd torch runs a left-aligned padded batch as nested tensors
    and gives zeros at the padded positions (before ``norm``); with autograd it does not."""
    def make(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = lib.nn.TransformerEncoderLayer(E, NH, 12, dropout=0.0, batch_first=True)
            norm = lib.nn.LayerNorm(E)
            encoder = lib.nn.TransformerEncoder(layer, 2, norm=norm)
        with lib.no_grad():
            encoder.norm.bias.fill_(0.5)   # padded rows show the norm's bias
        return encoder

    check_module(make, encoder_call, [src_input(True), None, kpm], "float32",
                 train=False, grads=False, grad_enabled=grad_enabled)


@pytest.mark.parametrize("layer_kw", [dict(), dict(batch_first=True),
                                      dict(batch_first=True, norm_first=True),
                                      dict(batch_first=True, bias=False),
                                      dict(batch_first=True, activation="gelu"),
                                      dict(batch_first=True, layer_norm_eps=1e-3)])
def test_encoder_nested_tensor_warning_like_torch(layer_kw):
    results = []
    for lib in (dyngrad, torch):
        layer = lib.nn.TransformerEncoderLayer(E, NH, 12, **layer_kw)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            enc = lib.nn.TransformerEncoder(layer, 2)
        results.append(([str(w.message) for w in record], enc.use_nested_tensor))
    assert results[0] == results[1]


def test_encoder_odd_heads_warning_like_torch():
    results = []
    for lib in (dyngrad, torch):
        layer = lib.nn.TransformerEncoderLayer(6, 3, 12, batch_first=True)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=True)
            lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        results.append([str(w.message) for w in record])
    assert results[0] == results[1] and len(results[0]) == 1


def test_encoder_repr_state_dict_and_copies():
    ours, theirs = make_encoder(LAYER_CASES["batch_first"], 3)(dyngrad), \
        make_encoder(LAYER_CASES["batch_first"], 3)(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.num_layers == 3 and len(ours.layers) == 3
    # deep copies: separate parameters, equal initial values
    a, b = ours.layers[0].linear1.weight, ours.layers[1].linear1.weight
    assert a is not b
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_gradcheck_and_gradgradcheck():
    from dyngrad.autograd import gradcheck, gradgradcheck
    dyngrad.manual_seed(0)
    r = rng(30)
    a = dyngrad.nn.MultiheadAttention(4, 2, kdim=3, add_bias_kv=True).double()
    q, k, v = (dyngrad.from_numpy(r.standard_normal(s)).requires_grad_()
               for s in ((2, 1, 4), (2, 1, 3), (2, 1, 4)))
    assert gradcheck(lambda q, k, v: a(q, k, v), (q, k, v))
    assert gradgradcheck(lambda q, k, v: a(q, k, v)[0], (q, k, v))
    layer = dyngrad.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu").double()
    # its self-attention takes torch's flash node, whose double backward raises, as torch's;
    # the math path differentiates twice
    with pytest.raises(RuntimeError, match="derivative for aten::_scaled_dot_product_flash"):
        gradgradcheck(layer, (q,))
    with dyngrad.nn.attention.sdpa_kernel(dyngrad.nn.attention.SDPBackend.MATH):
        assert gradgradcheck(layer, (q,))


# -- decoder and the whole Transformer ----------------------------------------------------------
def make_decoder_layer(kw, dropout=0.0):
    def make(lib):
        args = dict(kw)
        if callable(args.get("activation")):
            args["activation"] = args["activation"](lib)
        return lib.nn.TransformerDecoderLayer(E, NH, dim_feedforward=12, dropout=dropout,
                                              **args)
    return make


def decoder_inputs(batch_first, masks, batched=True):
    r = rng(40)
    lead = (lambda n: (N, n) if batch_first else (n, N)) if batched else (lambda n: (n,))
    tgt_mask, tgt_kpm = MASKS[masks]
    mem_kpm = None if tgt_kpm is None else (KPM if batched else KPM[0])
    mem_mask = None if tgt_mask is None else r.standard_normal((L, S))
    if not batched and tgt_kpm is not None:
        tgt_kpm = tgt_kpm[0]
    return [r.standard_normal(lead(L) + (E,)), r.standard_normal(lead(S) + (E,)), tgt_mask,
            mem_mask, tgt_kpm, mem_kpm]


def decoder_call(lib, module, tgt, memory, tgt_mask, memory_mask, tgt_kpm, mem_kpm):
    return module(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                  tgt_key_padding_mask=tgt_kpm, memory_key_padding_mask=mem_kpm)


DECODER_CASES = ["default", "batch_first", "norm_first", "gelu-module", "no-bias-eps"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("masks", list(MASKS))
@pytest.mark.parametrize("case", DECODER_CASES)
def test_decoder_layer_matches_torch(case, masks, dtype):
    kw = LAYER_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_module(make_decoder_layer(kw), decoder_call,
                     decoder_inputs(kw.get("batch_first", False), masks), dtype)


@pytest.mark.parametrize("masks", ["none", "both"])
def test_decoder_matches_torch(masks):
    def make(lib):
        return lib.nn.TransformerDecoder(make_decoder_layer(dict(norm_first=True))(lib), 2,
                                         norm=lib.nn.LayerNorm(E))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_module(make, decoder_call, decoder_inputs(False, masks), "float64")
        check_module(make, decoder_call, decoder_inputs(False, masks, batched=False), "float64")


def make_transformer(**kw):
    def make(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.nn.Transformer(d_model=E, nhead=NH, num_encoder_layers=2,
                                      num_decoder_layers=1, dim_feedforward=12, dropout=0.0,
                                      **kw)
    return make


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [dict(), dict(batch_first=True, norm_first=True),
                                dict(activation="gelu", bias=False)])
def test_transformer_matches_torch(kw, dtype):
    bf = kw.get("batch_first", False)
    r = rng(50)
    lead = (lambda n: (N, n)) if bf else (lambda n: (n, N))
    inputs = [r.standard_normal(lead(S) + (E,)), r.standard_normal(lead(L) + (E,)), causal(L),
              KPM, KPM_SELF]

    def call(lib, module, src, tgt, tgt_mask, src_kpm, tgt_kpm):
        return module(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_kpm,
                      tgt_key_padding_mask=tgt_kpm, memory_key_padding_mask=src_kpm)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_module(make_transformer(**kw), call, inputs, dtype)


def test_transformer_repr_state_dict_init_and_warning():
    results = []
    for lib in (dyngrad, torch):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            model = lib.nn.Transformer(d_model=E, nhead=NH, num_encoder_layers=2,
                                       num_decoder_layers=2, dim_feedforward=12)
        results.append((repr(model), list(model.state_dict()),
                        [str(w.message) for w in record]))
    assert results[0] == results[1]
    # every matrix re-drawn with xavier_uniform_: linear1.weight (12, 8) has bound sqrt(6/20)
    # (Linear's own init would stay below 1/sqrt(8) = 0.35)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = dyngrad.nn.Transformer(E, NH, 1, 1, 12)
    w = np.abs(model.encoder.layers[0].linear1.weight.detach().numpy())
    bound = math.sqrt(6 / (E + 12))
    assert w.max() <= bound and w.max() > 0.8 * bound


def test_transformer_generate_square_subsequent_mask():
    for dtype in (None, "float64"):
        a = dyngrad.nn.Transformer.generate_square_subsequent_mask(
            4, dtype=getattr(dyngrad, dtype) if dtype else None)
        b = torch.nn.Transformer.generate_square_subsequent_mask(
            4, dtype=getattr(torch, dtype) if dtype else None)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


TRANSFORMER_ERRORS = [
    lambda lib: make_transformer()(lib)(_t(lib, S, N, E), _t(lib, L, N + 1, E)),
    lambda lib: make_transformer(batch_first=True)(lib)(_t(lib, N, S, E), _t(lib, N + 1, L, E)),
    lambda lib: make_transformer()(lib)(_t(lib, S, N, E), _t(lib, L, N, E + 1)),
]


@pytest.mark.parametrize("k", range(len(TRANSFORMER_ERRORS)))
def test_transformer_errors(k):
    raises_same(TRANSFORMER_ERRORS[k])


def test_dtype_argument():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make in (lambda lib: lib.nn.MultiheadAttention(E, NH, kdim=3, add_bias_kv=True,
                                                           dtype=lib.float64),
                     lambda lib: lib.nn.Transformer(E, NH, 1, 1, 12, dtype=lib.float64)):
            ours, theirs = make(dyngrad), make(torch)
            assert [(n, str(p.dtype)) for n, p in ours.named_parameters()] == \
                [(n, str(p.dtype)) for n, p in theirs.named_parameters()]
