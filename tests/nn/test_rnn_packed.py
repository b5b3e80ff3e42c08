"""PackedSequence utilities (nn.utils.rnn) and RNN/LSTM/GRU on packed input, against torch:
packed data, batch sizes, indices, padding, grad_fn names and gradients."""
import numpy as np
import pytest
import torch

import dyngrad
from tests.nn._seq_compare import check_module, raises_same

I, H = 3, 4


def rng(seed=0):
    return np.random.default_rng(seed)


def both(array, requires_grad=True):
    return (dyngrad.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def close(a, b, **kw):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(np.array(a.detach().numpy()), b.detach().numpy(), **kw)


def same_packed(p, q):
    close(p.data, q.data)
    assert p.batch_sizes.tolist() == q.batch_sizes.tolist()
    assert str(p.batch_sizes.dtype) == str(q.batch_sizes.dtype)
    for a, b in ((p.sorted_indices, q.sorted_indices), (p.unsorted_indices, q.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()


LENGTHS = [([5, 3, 3, 1], True), ([2, 5, 1, 3], False), ([4], True), ([3, 3, 3], True)]


@pytest.mark.parametrize("lengths,enforce_sorted", LENGTHS)
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_roundtrip(lengths, enforce_sorted, batch_first):
    T, B = max(lengths) + 1, len(lengths)
    x = rng().standard_normal((B, T, 2) if batch_first else (T, B, 2))
    ours, theirs = both(x)
    results = []
    for lib, t in ((dyngrad, ours), (torch, theirs)):
        p = lib.nn.utils.rnn.pack_padded_sequence(t, lib.tensor(lengths), batch_first,
                                                  enforce_sorted)
        out, lens = lib.nn.utils.rnn.pad_packed_sequence(p, batch_first, padding_value=-2.0,
                                                         total_length=T + 1)
        results.append((p, out, lens))
    (p, o, lo), (q, t, lt) = results
    same_packed(p, q)
    assert type(p.data.grad_fn).__name__ == type(q.data.grad_fn).__name__
    close(o, t)
    assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
    assert lo.tolist() == lt.tolist() and str(lo.dtype) == str(lt.dtype)
    g = rng(1).standard_normal(tuple(t.shape))
    (o * dyngrad.tensor(g)).sum().backward()
    (t * torch.tensor(g)).sum().backward()
    close(ours.grad, theirs.grad)


def test_pack_padded_double_backward():
    x = rng().standard_normal((4, 3, 2))
    ours, theirs = both(x)
    grads = []
    for lib, t in ((dyngrad, ours), (torch, theirs)):
        p = lib.nn.utils.rnn.pack_padded_sequence(t * t, [4, 2, 1])
        g, = lib.autograd.grad((p.data ** 2).sum(), t, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), t)
        grads.append((g, g2))
    close(grads[0][0], grads[1][0])
    close(grads[0][1], grads[1][1])


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_unpack(enforce_sorted):
    arrays = [rng(i).standard_normal((n, 2)) for i, n in enumerate([4, 2, 3])]
    if enforce_sorted:
        arrays.sort(key=len, reverse=True)
    got = []
    for lib in (dyngrad, torch):
        seqs = [lib.tensor(a, requires_grad=True) for a in arrays]
        p = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)
        got.append((p, lib.nn.utils.rnn.unpack_sequence(p)))
    same_packed(got[0][0], got[1][0])
    for a, b in zip(got[0][1], got[1][1]):
        close(a, b)
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first, padding_side):
    arrays = [rng(i).standard_normal((n, 2, 2)) for i, n in enumerate([3, 1, 4])]
    got = []
    for lib in (dyngrad, torch):
        seqs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = lib.nn.utils.rnn.pad_sequence(seqs, batch_first, 1.5, padding_side)
        (out * lib.arange(out.numel(), dtype=lib.float64).view(out.shape)).sum().backward()
        got.append((out, seqs))
    (o, so), (t, st) = got
    close(o, t)
    assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
    for a, b in zip(so, st):
        close(a.grad, b.grad)


def test_pad_sequence_dtypes_and_tensor_input():
    for lib_args in [lambda lib: ([lib.ones(2, 3, dtype=lib.int64)], True, 1.5),
                     lambda lib: (lib.arange(6.0).view(2, 3), False, 0.0)]:
        o = dyngrad.nn.utils.rnn.pad_sequence(*lib_args(dyngrad))
        t = torch.nn.utils.rnn.pad_sequence(*lib_args(torch))
        close(o, t)


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence(batch_first):
    x = rng().standard_normal((3, 4, 2) if batch_first else (4, 3, 2))
    got = []
    for lib in (dyngrad, torch):
        t = lib.tensor(x)
        got.append((lib.nn.utils.rnn.unpad_sequence(t, lib.tensor([4, 1, 3]), batch_first), t))
    for a, b in zip(got[0][0], got[1][0]):
        close(a, b)
    close(got[0][1], got[1][1])   # without batch_first both transpose the input in place


def test_invert_permutation_and_packed_methods():
    perm = [2, 0, 3, 1]
    assert (dyngrad.nn.utils.rnn.invert_permutation(dyngrad.tensor(perm)).tolist()
            == torch.nn.utils.rnn.invert_permutation(torch.tensor(perm)).tolist())
    assert dyngrad.nn.utils.rnn.invert_permutation(None) is None
    p = dyngrad.nn.utils.rnn.pack_sequence([dyngrad.ones(3), dyngrad.ones(1)])
    q = torch.nn.utils.rnn.pack_sequence([torch.ones(3), torch.ones(1)])
    assert repr(p) == repr(q)
    assert p.double().data.dtype == dyngrad.float64 and p.to(dyngrad.float32) is p
    assert p.is_cuda is False and p._fields == q._fields
    p2 = dyngrad.nn.utils.rnn.PackedSequence(p.data, p.batch_sizes)
    assert p2.unsorted_indices is None


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(4, 3, 2), [2, 4, 1]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(4, 3, 2), [4, 2, 0]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(4, 3, 2), [4, 2]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(0, 2, 3), [1, 1]),
    lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence([lib.ones(3), lib.ones(2)]), total_length=2),
    lambda lib: lib.nn.utils.rnn.pad_sequence([]),
    lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(2)], padding_side="up"),
    lambda lib: lib.nn.utils.rnn.pad_sequence(3),
])
def test_errors(fn):
    raises_same(fn)


# -- recurrent layers on packed input -----------------------------------------------------------
def make(kind, **kw):
    def build(lib):
        if kind == "RNN_RELU":
            return lib.nn.RNN(I, H, nonlinearity="relu", **kw)
        return getattr(lib.nn, kind)(I, H, **kw)
    return build


def packed_call(lengths, enforce_sorted, lstm):
    def call(lib, module, x, h=None, c=None):
        p = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        hx = None if h is None else ((h, c) if lstm else h)
        out, hidden = module(p, hx)
        assert isinstance(out, lib.nn.utils.rnn.PackedSequence)
        padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out)
        return out, hidden, padded
    return call


CONFIGS = [dict(), dict(num_layers=2), dict(bidirectional=True),
           dict(num_layers=2, bidirectional=True), dict(bias=False)]


@pytest.mark.parametrize("kind", ["RNN", "RNN_RELU", "GRU", "LSTM"])
@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 3, 3, 1], True),
                                                    ([2, 5, 1, 3], False)])
@pytest.mark.parametrize("with_hx", [False, True])
def test_packed_recurrent(kind, config, lengths, enforce_sorted, with_hx):
    r = rng(3)
    x = r.standard_normal((max(lengths), len(lengths), I))
    inputs = [x]
    if with_hx:
        layers = config.get("num_layers", 1) * (2 if config.get("bidirectional") else 1)
        inputs.append(r.standard_normal((layers, len(lengths), H)))
        if kind == "LSTM":
            inputs.append(r.standard_normal((layers, len(lengths), H)))
    check_module(make(kind, **config), packed_call(lengths, enforce_sorted, kind == "LSTM"),
                 inputs, dtype="float64", graph=False)


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_packed_recurrent_float32_and_graph(kind):
    lengths = [2, 4, 1]
    x = rng(5).standard_normal((4, 3, I))
    ours, theirs = check_module(make(kind, num_layers=2, bidirectional=True),
                                packed_call(lengths, False, kind == "LSTM"), [x],
                                dtype="float32", graph=False)
    # the final states are torch's IndexSelectBackward0 (back to the caller's order)
    p = dyngrad.nn.utils.rnn.pack_padded_sequence(dyngrad.tensor(x, dtype=dyngrad.float32),
                                                  lengths, enforce_sorted=False)
    out, hidden = ours(p)
    h = hidden[0] if kind == "LSTM" else hidden
    assert type(h.grad_fn).__name__ == "IndexSelectBackward0"
    assert type(out.data.grad_fn).__name__ == "CatBackward0"


def test_packed_lstm_proj_and_batch_first_module():
    lengths = [4, 2, 2]
    x = rng(6).standard_normal((3, 4, I))

    def call(lib, module, x):
        p = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True)
        out, (h, c) = module(p)
        return out.data, h, c

    check_module(make("LSTM", proj_size=2, batch_first=True, num_layers=2), call, [x],
                 dtype="float64", graph=False)


def test_packed_hidden_at_own_length():
    """h_n of each sequence equals the padded run's output at its last step."""
    lengths = [5, 2, 4]
    x = dyngrad.tensor(rng(8).standard_normal((5, 3, I)), dtype=dyngrad.float32)
    gru = dyngrad.nn.GRU(I, H)
    p = dyngrad.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False)
    out, h = gru(p)
    padded, lens = dyngrad.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
    for b, n in enumerate(lens.tolist()):
        np.testing.assert_allclose(h[0, b].detach().numpy(), padded[b, n - 1].detach().numpy(),
                                   rtol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.GRU(I, H)(lib.nn.utils.rnn.pack_sequence([lib.ones(3, I)]),
                                 lib.zeros(1, 2, H)),
    lambda lib: lib.nn.RNN(I, H)(lib.nn.utils.rnn.pack_sequence([lib.ones(3, I + 1)])),
    lambda lib: lib.nn.RNN(I, H)(lib.nn.utils.rnn.pack_sequence(
        [lib.ones(3, I, dtype=lib.float64)])),
    lambda lib: lib.nn.GRU(I, H)(lib.nn.utils.rnn.pack_sequence([lib.ones(3, I)]),
                                 lib.zeros(2, 1, H)),
])
def test_packed_recurrent_errors(fn):
    raises_same(fn)
