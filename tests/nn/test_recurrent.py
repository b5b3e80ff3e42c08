"""nn.RNN / LSTM / GRU and their cells against torch: weights copied across via state_dict,
outputs, input and parameter gradients compared in float32 and float64 over a grid of
options; parameter names, shapes, order and initialisation; reprs; errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from tests.nn._seq_compare import build_pair, check_module, raises_same

T, B, I, H = 3, 2, 3, 4
DTYPES = ["float32", "float64"]


def rng(seed=0):
    return np.random.default_rng(seed)


def make_seq(kind, **kw):
    """A factory ``lib -> module`` for RNN (tanh/relu), LSTM or GRU."""
    def make(lib):
        if kind == "RNN_RELU":
            return lib.nn.RNN(I, H, nonlinearity="relu", **kw)
        cls = {"RNN": "RNN", "LSTM": "LSTM", "GRU": "GRU"}[kind]
        return getattr(lib.nn, cls)(I, H, **kw)
    return make


def seq_inputs(kind, num_layers, bidirectional, batch_first, with_hx, proj_size=0, seed=0,
               batched=True):
    r = rng(seed)
    shape = (B, T, I) if batch_first else (T, B, I)
    if not batched:
        shape = (T, I)
    x = r.standard_normal(shape)
    if not with_hx:
        return [x]
    layers = num_layers * (2 if bidirectional else 1)
    hshape = (layers, B) if batched else (layers,)
    h = r.standard_normal(hshape + (proj_size or H,))
    if kind == "LSTM":
        return [x, h, r.standard_normal(hshape + (H,))]
    return [x, h]


def call_seq(kind):
    def call(lib, module, x, h=None, c=None):
        if h is None:
            return module(x)
        return module(x, (h, c)) if kind == "LSTM" else module(x, h)
    return call


# (num_layers, bidirectional, batch_first, bias, with_hx)
CONFIGS = [
    (1, False, False, True, False),
    (1, False, True, True, True),
    (1, True, False, False, True),
    (2, False, False, True, True),
    (2, True, True, True, False),
    (2, True, False, True, True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "L{}-bi{}-bf{}-bias{}-hx{}".format(
    *map(int, c)))
@pytest.mark.parametrize("kind", ["RNN", "RNN_RELU", "LSTM", "GRU"])
def test_sequence_layers_match_torch(kind, config, dtype):
    num_layers, bidirectional, batch_first, bias, with_hx = config
    make = make_seq(kind, num_layers=num_layers, bidirectional=bidirectional,
                    batch_first=batch_first, bias=bias)
    inputs = seq_inputs(kind, num_layers, bidirectional, batch_first, with_hx)
    # torch runs float32 LSTMs through a fused oneDNN kernel (MkldnnRnnLayerBackward0): same
    # values, another graph
    check_module(make, call_seq(kind), inputs, dtype,
                 graph=not (kind == "LSTM" and dtype == "float32"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("num_layers,bidirectional,with_hx", [(1, False, True),
                                                               (2, True, False),
                                                               (2, False, True)])
def test_lstm_proj_size(num_layers, bidirectional, with_hx, dtype):
    make = make_seq("LSTM", num_layers=num_layers, bidirectional=bidirectional, proj_size=2)
    inputs = seq_inputs("LSTM", num_layers, bidirectional, False, with_hx, proj_size=2)
    ours, _ = check_module(make, call_seq("LSTM"), inputs, dtype)
    assert ours.weight_hr_l0.shape == (2, H)
    assert ours.weight_hh_l0.shape == (4 * H, 2)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input(kind, with_hx, batch_first):
    make = make_seq(kind, num_layers=2, bidirectional=True, batch_first=batch_first)
    inputs = seq_inputs(kind, 2, True, batch_first, with_hx, batched=False)
    check_module(make, call_seq(kind), inputs, "float64")


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_eval_and_train_equal_without_dropout(kind):
    make = make_seq(kind, num_layers=2)
    inputs = seq_inputs(kind, 2, False, False, True)
    check_module(make, call_seq(kind), inputs, "float64", train=False)
    ours, _ = build_pair(make, "float64")
    x = dyngrad.from_numpy(inputs[0])
    train_out = ours(x)[0]
    ours.eval()
    np.testing.assert_array_equal(ours(x)[0].detach().numpy(), train_out.detach().numpy())


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_dropout_between_layers(kind):
    """In eval mode dropout is off (torch gives the same values); in training with p=1 the
    second layer sees zeros, which is deterministic, so torch gives the same values too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make = make_seq(kind, num_layers=2, dropout=0.5)
        check_module(make, call_seq(kind), seq_inputs(kind, 2, False, False, True), "float64",
                     train=False)
        make = make_seq(kind, num_layers=2, dropout=1.0, bidirectional=True)
        check_module(make, call_seq(kind), seq_inputs(kind, 2, True, False, True), "float64",
                     train=True)


def test_dropout_changes_training_output():
    dyngrad.manual_seed(0)
    m = dyngrad.nn.GRU(I, H, num_layers=2, dropout=0.5).double()
    x = dyngrad.from_numpy(rng().standard_normal((T, B, I)))
    a = m(x)[0]
    m.eval()
    b = m(x)[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kind", ["RNNCell", "RNNCell_relu", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("hx,batched", [(False, True), (True, True), (True, False),
                                        (False, False)])
def test_cells_match_torch(kind, bias, dtype, hx, batched):
    def make(lib):
        if kind == "RNNCell_relu":
            return lib.nn.RNNCell(I, H, bias=bias, nonlinearity="relu")
        return getattr(lib.nn, kind)(I, H, bias=bias)

    r = rng(1)
    lead = (B,) if batched else ()
    inputs = [r.standard_normal(lead + (I,))]
    if hx:
        inputs.append(r.standard_normal(lead + (H,)))
        if kind == "LSTMCell":
            inputs.append(r.standard_normal(lead + (H,)))

    def call(lib, module, x, h=None, c=None):
        if h is None:
            return module(x)
        return module(x, (h, c)) if kind == "LSTMCell" else module(x, h)

    check_module(make, call, inputs, dtype)


def test_cell_over_time_matches_torch():
    """A cell unrolled by hand: gradients flow through every step."""
    def call(lib, module, x):
        h = c = None
        for t in range(x.shape[0]):
            h, c = module(x[t]) if h is None else module(x[t], (h, c))
        return h, c

    check_module(lambda lib: lib.nn.LSTMCell(I, H), call, [rng(2).standard_normal((4, B, I))],
                 "float64")


@pytest.mark.parametrize("fn", ["rnn_tanh", "rnn_relu", "gru", "lstm"])
def test_functional_sequence_ops(fn):
    """torch.lstm / torch.gru / torch.rnn_tanh / torch.rnn_relu called directly."""
    ours, theirs = build_pair(make_seq("LSTM" if fn == "lstm" else "GRU" if fn == "gru" else
                                       "RNN_RELU" if fn == "rnn_relu" else "RNN",
                                       num_layers=2, bidirectional=True), "float64")
    r = rng(3)
    x = r.standard_normal((T, B, I))
    h = r.standard_normal((4, B, H))
    c = r.standard_normal((4, B, H))
    outs = []
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        hx = (lib.from_numpy(h), lib.from_numpy(c)) if fn == "lstm" else lib.from_numpy(h)
        weights = [getattr(m, n) for n in m._flat_weights_names]
        outs.append(getattr(lib, fn)(lib.from_numpy(x), hx, weights, True, 2, 0.0, False, True,
                                     False))
    assert len(outs[0]) == len(outs[1])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


@pytest.mark.parametrize("fn", ["rnn_tanh_cell", "rnn_relu_cell", "gru_cell", "lstm_cell"])
def test_functional_cell_ops(fn):
    r = rng(4)
    gates = {"lstm_cell": 4, "gru_cell": 3}.get(fn, 1)
    arrays = [r.standard_normal(s) for s in ((B, I), (B, H), (B, H), (gates * H, I),
                                             (gates * H, H), (gates * H,), (gates * H,))]
    outs = []
    for lib in (dyngrad, torch):
        x, h, c, w_ih, w_hh, b_ih, b_hh = [lib.from_numpy(a) for a in arrays]
        hx = (h, c) if fn == "lstm_cell" else h
        outs.append(getattr(lib, fn)(x, hx, w_ih, w_hh, b_ih, b_hh))
    for a, b in zip(outs[0] if fn == "lstm_cell" else [outs[0]],
                    outs[1] if fn == "lstm_cell" else [outs[1]]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)


# -- parameters, init, repr ----------------------------------------------------------------------
SPECS = [
    ("RNN", dict()),
    ("RNN", dict(num_layers=2, nonlinearity="relu", bias=False, batch_first=True,
                 bidirectional=True)),
    ("LSTM", dict(num_layers=3, bidirectional=True)),
    ("LSTM", dict(num_layers=2, proj_size=2, bias=False)),
    ("LSTM", dict(proj_size=3, bidirectional=True, batch_first=True)),
    ("GRU", dict(num_layers=2, dropout=0.25)),
    ("GRU", dict(bias=False, bidirectional=True)),
    ("RNNCell", dict()),
    ("RNNCell", dict(bias=False, nonlinearity="relu")),
    ("LSTMCell", dict(bias=False)),
    ("GRUCell", dict()),
]


@pytest.mark.parametrize("cls,kw", SPECS)
def test_parameters_repr_and_init(cls, kw):
    dyngrad.manual_seed(0)   # (the spread check below is about a few dozen draws: seeded, so
    torch.manual_seed(0)     # that it does not depend on what ran before)
    ours, theirs = getattr(dyngrad.nn, cls)(I, H, **kw), getattr(torch.nn, cls)(I, H, **kw)
    assert str(ours) == str(theirs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours_params = list(ours.named_parameters())
    assert [(n, tuple(p.shape)) for n, p in ours_params] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    bound = 1 / math.sqrt(H)
    values = np.concatenate([p.detach().numpy().ravel() for _, p in ours_params])
    assert np.all(np.abs(values) <= bound)
    assert values.max() > 0.8 * bound and values.min() < -0.8 * bound
    assert all(p.requires_grad and p.is_leaf for _, p in ours_params)
    assert all(type(p).__name__ == "Parameter" for _, p in ours_params)
    if not cls.endswith("Cell"):
        assert [[n for n in names] for names in ours._all_weights] == theirs._all_weights
        assert len(ours.all_weights) == len(theirs.all_weights)


def test_cell_without_bias_registers_none():
    m = dyngrad.nn.GRUCell(I, H, bias=False)
    assert m.bias_ih is None and m.bias_hh is None
    assert [n for n, _ in m.named_parameters()] == ["weight_ih", "weight_hh"]


def test_attributes_like_torch():
    for lib_m in (dyngrad.nn.LSTM(I, H, 2, dropout=0.3), torch.nn.LSTM(I, H, 2, dropout=0.3)):
        assert (lib_m.mode, lib_m.input_size, lib_m.hidden_size, lib_m.num_layers, lib_m.bias,
                lib_m.batch_first, lib_m.dropout, lib_m.bidirectional, lib_m.proj_size) == \
            ("LSTM", I, H, 2, True, False, 0.3, False, 0)
    assert dyngrad.nn.RNN(I, H, nonlinearity="relu").mode == "RNN_RELU"
    assert dyngrad.nn.RNN(I, H, 1, "relu").nonlinearity == "relu"


def test_double_and_reloaded_weights_are_used():
    """After .double() and after load_state_dict the forward uses the new tensors."""
    ours, theirs = build_pair(make_seq("LSTM", num_layers=2), "float32")
    ours.double()
    theirs.double()
    x = rng(5).standard_normal((T, B, I))
    a = ours(dyngrad.from_numpy(x))[0]
    b = theirs(torch.from_numpy(x))[0]
    assert str(a.dtype) == "torch.float64"
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)
    with dyngrad.no_grad():
        ours.weight_hh_l1.mul_(2)
    with torch.no_grad():
        theirs.weight_hh_l1.mul_(2)
    a = ours(dyngrad.from_numpy(x))[0]
    b = theirs(torch.from_numpy(x))[0]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_dropout_warning_like_torch():
    for lib in (dyngrad, torch):
        with pytest.warns(UserWarning) as record:
            lib.nn.LSTM(I, H, dropout=0.5)
        assert str(record[0].message) == (
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got dropout=0.5 and num_layers=1")


# -- errors ----------------------------------------------------------------------------------------
def _x(lib, *shape, dtype=None):
    return lib.from_numpy(np.ones(shape, dtype=dtype or np.float32))


CONSTRUCTOR_ERRORS = [
    lambda lib: lib.nn.GRU(I, H, proj_size=2),
    lambda lib: lib.nn.RNN(I, H, proj_size=2),
    lambda lib: lib.nn.RNN(I, H, nonlinearity="sigmoid"),
    lambda lib: lib.nn.LSTM(I, H, proj_size=H),
    lambda lib: lib.nn.LSTM(I, H, proj_size=-1),
    lambda lib: lib.nn.LSTM(I, H, dropout=1.5),
    lambda lib: lib.nn.LSTM(I, H, dropout=True),
    lambda lib: lib.nn.LSTM(I, 0),
    lambda lib: lib.nn.LSTM(0, H),
    lambda lib: lib.nn.LSTM(I, H, num_layers=0),
    lambda lib: lib.nn.LSTM(3.0, H),
    lambda lib: lib.nn.LSTM(I, 4.0),
    lambda lib: lib.nn.LSTM(I, H, bias=1),
    lambda lib: lib.nn.GRU(I, H, batch_first=None),
]


@pytest.mark.parametrize("k", range(len(CONSTRUCTOR_ERRORS)))
def test_constructor_errors(k):
    raises_same(CONSTRUCTOR_ERRORS[k])


FORWARD_ERRORS = [
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, 2, 2, 5)),
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, 2, 2, I, dtype=np.float64)),
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, 2, 2, 2, I)),
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, I)),
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, 2, 2, I), (_x(lib, 1, 3, H), _x(lib, 1, 2, H))),
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, 2, 2, I), (_x(lib, 1, 2, H), _x(lib, 1, 2, 5))),
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, 2, 2, I), (_x(lib, 2, H), _x(lib, 1, 2, H))),
    lambda lib: lib.nn.LSTM(I, H)(_x(lib, 2, I), (_x(lib, 1, 1, H), _x(lib, 1, 1, H))),
    lambda lib: lib.nn.LSTM(I, H, proj_size=2)(_x(lib, 2, 2, I), (_x(lib, 1, 2, H),
                                                                   _x(lib, 1, 2, H))),
    lambda lib: lib.nn.GRU(I, H)(_x(lib, 2, 2, I), _x(lib, 2, 2, H)),
    lambda lib: lib.nn.GRU(I, H)(_x(lib, 2, 2, I), _x(lib, 2, H)),
    lambda lib: lib.nn.GRU(I, H)(_x(lib, 2, I), _x(lib, 1, 1, H)),
    lambda lib: lib.nn.GRU(I, H)(_x(lib, 1, 2, 2, I)),
    lambda lib: lib.nn.RNN(I, H)(_x(lib, 1, 2, 2, I)),
    lambda lib: lib.nn.RNN(I, H, batch_first=True)(_x(lib, 2, 3, I), _x(lib, 1, 3, H)),
    lambda lib: lib.nn.GRU(I, H)(_x(lib, 0, 2, I)),
    lambda lib: lib.nn.LSTMCell(I, H)(_x(lib, 2, 5)),
    lambda lib: lib.nn.LSTMCell(I, H)(_x(lib, 2, I), (_x(lib, 3, H), _x(lib, 2, H))),
    lambda lib: lib.nn.LSTMCell(I, H)(_x(lib, 2, I), (_x(lib, 2, 5), _x(lib, 2, H))),
    lambda lib: lib.nn.LSTMCell(I, H)(_x(lib, 2, I), (_x(lib, 2, H), _x(lib, 2, 5))),
    lambda lib: lib.nn.LSTMCell(I, H)(_x(lib, 2, I), (_x(lib, 2, 1, H), _x(lib, 2, H))),
    lambda lib: lib.nn.LSTMCell(I, H)(_x(lib, 1, 2, I)),
    lambda lib: lib.nn.GRUCell(I, H)(_x(lib, 2, 2, I)),
    lambda lib: lib.nn.GRUCell(I, H)(_x(lib, 2, I), _x(lib, 2, 2, H)),
    lambda lib: lib.nn.GRUCell(I, H)(_x(lib, 2, I), _x(lib, 3, H)),
    lambda lib: lib.nn.GRUCell(I, H)(_x(lib, I), _x(lib, 2, H)),
    lambda lib: lib.nn.RNNCell(I, H)(_x(lib, 2, 5)),
    lambda lib: lib.nn.RNNCell(I, H)(_x(lib, 2, 2, I)),
    lambda lib: lib.nn.RNNCell(I, H)(_x(lib, 2, I), _x(lib, 1, 1, H)),
    lambda lib: lib.nn.RNNCell(I, H, nonlinearity="gelu")(_x(lib, 2, I)),
    lambda lib: lib.lstm_cell(_x(lib, 2, I), (_x(lib, 2, H),), _x(lib, 4 * H, I),
                              _x(lib, 4 * H, H)),
    lambda lib: lib.lstm(_x(lib, 2, 1, I), (_x(lib, 1, 1, H), _x(lib, 1, 1, H)),
                         [_x(lib, 4 * H, I)], True, 1, 0.0, False, False, False),
]


@pytest.mark.parametrize("k", range(len(FORWARD_ERRORS)))
def test_forward_errors(k):
    raises_same(FORWARD_ERRORS[k])


@pytest.mark.parametrize("kind,kw", [("LSTM", dict(num_layers=2, proj_size=1)),
                                     ("GRU", dict(bidirectional=True)),
                                     ("RNN", dict(num_layers=2))])
def test_gradcheck_and_gradgradcheck(kind, kw):
    """Every step is built from differentiable ops, so second derivatives work too."""
    from dyngrad.autograd import gradcheck, gradgradcheck
    dyngrad.manual_seed(0)
    m = getattr(dyngrad.nn, kind)(2, 2, **kw).double()
    x = dyngrad.from_numpy(rng(8).standard_normal((2, 1, 2))).requires_grad_()
    h = dyngrad.from_numpy(rng(9).standard_normal((2, 1, 1 if kind == "LSTM" else 2)))
    h.requires_grad_()

    def f(x, h):
        if kind == "LSTM":
            out, (h_n, c_n) = m(x, (h, dyngrad.zeros(2, 1, 2, dtype=dyngrad.float64)))
            return out, h_n, c_n
        return m(x, h)

    assert gradcheck(f, (x, h))
    assert gradgradcheck(f, (x, h))


def test_dtype_argument():
    for make in (lambda lib: lib.nn.LSTM(I, H, 2, proj_size=2, dtype=lib.float64),
                 lambda lib: lib.nn.GRUCell(I, H, dtype=lib.float64)):
        ours, theirs = make(dyngrad), make(torch)
        assert [str(p.dtype) for p in ours.parameters()] == \
            [str(p.dtype) for p in theirs.parameters()]
