"""Training behaviour against torch: BatchNorm running statistics over several steps,
train/eval switching, dropout, freezing, and a few SGD steps of a small CNN with identical
starting weights giving identical weights."""
import numpy as np
import pytest
import torch

import dyngrad

from .helpers import pair


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.BatchNorm1d(3), (8, 3)),
    (lambda nn: nn.BatchNorm1d(3, momentum=None), (6, 3, 4)),
    (lambda nn: nn.BatchNorm2d(2, momentum=0.3, affine=False), (4, 2, 3, 3)),
    (lambda nn: nn.InstanceNorm1d(2, track_running_stats=True, momentum=0.2), (3, 2, 5)),
], ids=["bn1d", "bn1d_cumulative", "bn2d", "instancenorm_stats"])
def test_running_stats_after_several_steps(make, shape, dtype):
    rtol = 1e-5 if dtype == "float32" else 1e-12
    ours, theirs = pair(lambda lib: make(lib.nn), dtype)
    rng = np.random.default_rng(0)
    for step in range(5):
        x = (rng.standard_normal(shape) * (step + 1) + step).astype(dtype)
        a = ours(dyngrad.tensor(x))
        b = theirs(torch.tensor(x))
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol,
                                   atol=rtol)
    for (name, buf), (_, ref) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert str(buf.dtype) == str(ref.dtype), name
        np.testing.assert_allclose(buf.numpy(), ref.numpy(), rtol=rtol, err_msg=name)
    ours.eval()
    theirs.eval()
    x = rng.standard_normal(shape).astype(dtype)
    np.testing.assert_allclose(ours(dyngrad.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=rtol, atol=rtol)
    for buf, ref in zip(ours.buffers(), theirs.buffers()):   # eval leaves the stats alone
        np.testing.assert_allclose(buf.numpy(), ref.numpy(), rtol=rtol)


def test_batchnorm_eval_without_running_stats_uses_batch_stats():
    ours, theirs = pair(lambda lib: lib.nn.BatchNorm1d(3, track_running_stats=False).eval())
    x = np.random.default_rng(1).standard_normal((5, 3)).astype("float32")
    np.testing.assert_allclose(ours(dyngrad.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_batchnorm_and_instancenorm_input_checks():
    from .test_module import same_error
    same_error(lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3)))
    same_error(lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)))
    same_error(lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.ones(2, 4, 5)))
    same_error(lambda lib: lib.nn.Softmax2d()(lib.ones(2)))
    same_error(lambda lib: lib.nn.Dropout(1.5))
    same_error(lambda lib: lib.nn.GroupNorm(3, 4))
    same_error(lambda lib: lib.nn.Conv2d(3, 4, 3, groups=2))
    same_error(lambda lib: lib.nn.Conv2d(4, 3, 3, groups=2))
    same_error(lambda lib: lib.nn.Conv2d(4, 4, 3, groups=0))
    same_error(lambda lib: lib.nn.Conv2d(4, 4, 3, stride=2, padding="same"))
    same_error(lambda lib: lib.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"))
    same_error(lambda lib: lib.nn.Embedding(3, 2, padding_idx=3))
    same_error(lambda lib: lib.nn.Embedding(3, 2, _weight=lib.ones(2, 2)))
    same_error(lambda lib: lib.nn.Embedding.from_pretrained(lib.ones(3)))
    same_error(lambda lib: lib.nn.Unflatten(1, [2, 2.0]))
    same_error(lambda lib: lib.nn.Unflatten(1, 4))
    same_error(lambda lib: lib.nn.Hardtanh(1.0, 0.5))
    same_error(lambda lib: lib.nn.HuberLoss(delta="1"))
    same_error(lambda lib: lib.nn.TripletMarginLoss(margin=0))


@pytest.mark.parametrize("kwargs", [{"padding_mode": "mirror"}, {"padding": "full"}])
def test_conv_setting_errors_print_a_set(kwargs):
    # the message prints a set literal, whose order differs between processes: compare the set
    import ast
    texts = []
    for lib in (torch, dyngrad):
        with pytest.raises(ValueError) as info:
            lib.nn.Conv2d(4, 4, 3, **kwargs)
        texts.append(str(info.value))
    start, end = texts[0].index("{"), texts[0].index("}") + 1
    assert texts[1][:start] == texts[0][:start] and texts[1][end:] == texts[0][end:]
    assert ast.literal_eval(texts[1][start:end]) == ast.literal_eval(texts[0][start:end])


def test_instancenorm_warns_on_feature_mismatch():
    for lib in (torch, dyngrad):
        with pytest.warns(UserWarning, match="input's size at dim=1 does not match "
                                             "num_features"):
            lib.nn.InstanceNorm1d(3)(lib.ones(2, 4, 5))


def test_dropout_train_and_eval():
    d = dyngrad.nn.Dropout(0.3)
    x = dyngrad.ones(200, 100)
    y = d(x).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    d.eval()
    assert d(x) is x or dyngrad.equal(d(x), x)
    d2 = dyngrad.nn.Dropout2d(0.5)
    y = d2(dyngrad.ones(50, 40, 3, 3)).numpy()
    per_channel = y.reshape(50, 40, 9)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    assert str(d) == str(torch.nn.Dropout(0.3))
    assert str(d2) == str(torch.nn.Dropout2d(0.5))


def test_embedding_from_pretrained_and_padding_gradient():
    def scenario(lib):
        w = lib.arange(12.0).reshape(4, 3)
        e = lib.nn.Embedding.from_pretrained(w, padding_idx=1)
        frozen = (e.weight.requires_grad, str(e))
        e2 = lib.nn.Embedding.from_pretrained(w.clone(), freeze=False, padding_idx=1)
        e2(lib.tensor([[0, 1], [1, 3]])).sum().backward()
        bag = lib.nn.EmbeddingBag.from_pretrained(w, mode="max")
        return (frozen, e2.weight.grad.tolist(), e.weight.data_ptr() == w.data_ptr(), str(bag),
                bag(lib.tensor([[0, 2]])).tolist())
    from .test_module import same_result
    same_result(scenario)


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3), nn.GELU(), nn.Dropout(0.0), nn.Flatten(), nn.Linear(6, 5),
        nn.LogSoftmax(dim=1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sgd_steps_match_torch(dtype):
    ours, theirs = pair(_cnn, dtype)
    ours[0].requires_grad_(False)      # a frozen first layer
    theirs[0].requires_grad_(False)
    rng = np.random.default_rng(0)
    loss_o, loss_t = dyngrad.nn.NLLLoss(), torch.nn.NLLLoss()
    for _ in range(4):
        x = rng.standard_normal((8, 1, 6, 6)).astype(dtype)
        y = rng.integers(0, 5, 8)
        for lib, model, loss in ((dyngrad, ours, loss_o), (torch, theirs, loss_t)):
            model.zero_grad()
            out = loss(model(lib.tensor(x)), lib.tensor(y))
            out.backward()
            lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with lib.no_grad():
                for p in model.parameters():
                    if p.grad is not None:
                        p -= 0.1 * p.grad
    rtol = 1e-4 if dtype == "float32" else 1e-10
    assert ours[0].weight.grad is None
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=rtol, err_msg=name)


def test_nll_loss_2d_is_deprecated_nll_loss():
    msgs = []
    for lib in (torch, dyngrad):
        with pytest.warns(FutureWarning) as rec:
            m = lib.nn.NLLLoss2d(ignore_index=2)
        msgs.append((str(rec[0].message), str(m), m.ignore_index))
    assert msgs[0] == msgs[1]
