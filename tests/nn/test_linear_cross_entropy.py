"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against
torch: the reference path (values, gradients, graph), the chunked ``options`` path (its nodes,
values, gradients, the second-backward error, the fallback warning), argument errors, and the
module's parameters and repr."""
import warnings

import numpy as np
import pytest
import torch

import dyngrad

from tests.compare import like_torch, node_chain, same

LIBS = (torch, dyngrad)


def arr(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def labels(n, classes, seed=0, ignore=None):
    t = np.random.default_rng(seed + 100).integers(0, classes, n)
    if ignore is not None:
        t[1] = ignore
    return t


def run(lib, *, n=6, d=4, c=5, bias=False, class_weight=False, dtype="float32",
        target=None, options=None, unbatched=False, **kw):
    """(loss, grad_input, grad_weight[, grad_bias]) with a random upstream gradient."""
    x = lib.tensor(arr(n, d, dtype=dtype)[0] if unbatched else arr(n, d, dtype=dtype),
                   requires_grad=True)
    w = lib.tensor(arr(c, d, seed=1, dtype=dtype), requires_grad=True)
    b = lib.tensor(arr(c, seed=2, dtype=dtype), requires_grad=True) if bias else None
    t = lib.tensor(labels(n, c) if target is None else target)
    if unbatched:
        t = t[0]
    cw = lib.tensor(np.linspace(0.5, 1.5, c).astype(dtype)) if class_weight else None
    opts = lib.nn.LinearCrossEntropyOptions(**options) if options is not None else None
    loss = lib.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw,
                                                  options=opts, **kw)
    chain = node_chain(loss)
    (loss * lib.tensor(arr(*loss.shape, seed=3, dtype=dtype))).sum().backward()
    grads = (x.grad, w.grad) + ((b.grad,) if bias else ())
    return chain, loss, grads


def compare(rtol=1e-5, atol=1e-6, **kw):
    ours, theirs = run(dyngrad, **kw), run(torch, **kw)
    assert ours[0] == theirs[0], (ours[0], theirs[0])
    same(ours[1].detach(), theirs[1].detach(), rtol=rtol, atol=atol)
    same(ours[2], theirs[2], rtol=rtol, atol=atol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("class_weight", [False, True])
def test_reference_path(reduction, bias, class_weight):
    compare(reduction=reduction, bias=bias, class_weight=class_weight)


@pytest.mark.parametrize("kw", [
    dict(label_smoothing=0.2), dict(ignore_index=2), dict(target=labels(6, 5, ignore=-100)),
    dict(unbatched=True), dict(unbatched=True, reduction="none"), dict(dtype="float64"),
])
def test_reference_path_options(kw):
    compare(**kw)


def test_reference_path_probabilities_and_k_dim():
    def probs(lib):
        x = lib.tensor(arr(6, 4), requires_grad=True)
        w = lib.tensor(arr(5, 4, seed=1), requires_grad=True)
        p = lib.tensor(np.random.default_rng(7).dirichlet(np.ones(5), 6).astype("float32"))
        loss = lib.nn.functional.linear_cross_entropy(x, w, p, label_smoothing=0.1)
        loss.backward()
        return loss, x.grad, w.grad
    like_torch(probs, rtol=1e-5, atol=1e-6)

    def k_dim(lib):
        x = lib.tensor(arr(6, 4), requires_grad=True)
        w = lib.tensor(arr(5, 2, 3, 4, seed=1), requires_grad=True)
        b = lib.tensor(arr(5, 2, 3, seed=2), requires_grad=True)
        t = lib.tensor(np.random.default_rng(3).integers(0, 5, (6, 2, 3)))
        loss = lib.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, reduction="sum")
        loss.backward()
        return loss, x.grad, w.grad, b.grad
    like_torch(k_dim, rtol=1e-5, atol=1e-5)


CHUNKED = [dict(), dict(batch_chunk_size=2), dict(batch_chunk_size=4, chunking_method=None),
           dict(chunking_method="aspect_ratio:2"), dict(acc_policy="accurate")]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("options", CHUNKED)
def test_chunked_path(reduction, options):
    compare(reduction=reduction, options=options, bias=True, n=9,
            target=labels(9, 5, ignore=-100))


@pytest.mark.parametrize("kw", [dict(class_weight=True), dict(unbatched=True),
                                dict(unbatched=True, reduction="none"), dict(dtype="float64"),
                                dict(class_weight=True, reduction="none", ignore_index=3)])
def test_chunked_path_variants(kw):
    compare(options={}, **kw)


def test_chunked_next_functions_and_no_grad():
    def describe(lib):
        F, O = lib.nn.functional, lib.nn.LinearCrossEntropyOptions
        x = lib.tensor(arr(6, 4), requires_grad=True)
        w = lib.tensor(arr(5, 4, seed=1), requires_grad=True)
        cw = lib.ones(5, requires_grad=True)
        t = lib.tensor(labels(6, 5))
        out = []
        for kw in (dict(), dict(weight=cw), dict(weight=cw.detach(), reduction="none")):
            fn = F.linear_cross_entropy(x, w, t, options=O(), **kw).grad_fn
            out.append([type(f).__name__ if f is not None else None
                        for f, _ in fn.next_functions])
        out.append(F.linear_cross_entropy(x.detach(), w.detach(), t, options=O()).grad_fn)
        with lib.no_grad():
            out.append(F.linear_cross_entropy(x, w, t, options=O()).grad_fn)
        return out
    assert describe(dyngrad) == describe(torch)


@pytest.mark.parametrize("allow", [False, True])
def test_chunked_second_backward(allow):
    def fn(lib):
        x = lib.tensor(arr(6, 4), requires_grad=True)
        w = lib.tensor(arr(5, 4, seed=1), requires_grad=True)
        opts = lib.nn.LinearCrossEntropyOptions(allow_retain_graph=allow)
        loss = lib.nn.functional.linear_cross_entropy(x, w, lib.tensor(labels(6, 5)),
                                                      options=opts)
        loss.backward(retain_graph=True)
        loss.backward()
        return x.grad, w.grad
    like_torch(fn, rtol=1e-5, atol=1e-6)


def test_chunked_none_reduction_retains_graph():
    def fn(lib):
        x = lib.tensor(arr(6, 4), requires_grad=True)
        loss = lib.nn.functional.linear_cross_entropy(
            x, lib.tensor(arr(5, 4, seed=1)), lib.tensor(labels(6, 5)), reduction="none",
            options=lib.nn.LinearCrossEntropyOptions())
        loss.sum().backward(retain_graph=True)
        loss.sum().backward()
        return x.grad
    like_torch(fn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw", [dict(label_smoothing=0.1), dict(target_int32=True),
                                dict(k_dim=True)])
def test_options_fallback_warning(kw):
    def fn(lib):
        x = lib.tensor(arr(6, 4), requires_grad=True)
        w = lib.tensor(arr(5, 2, 4, seed=1) if kw.get("k_dim") else arr(5, 4, seed=1))
        t = labels(6, 5) if not kw.get("k_dim") else np.zeros((6, 2), dtype=np.int64)
        t = lib.tensor(t.astype("int32") if kw.get("target_int32") else t)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                loss = lib.nn.functional.linear_cross_entropy(
                    x, w, t, label_smoothing=kw.get("label_smoothing", 0.0),
                    options=lib.nn.LinearCrossEntropyOptions())
                result = (node_chain(loss), float(loss.detach()))
            except RuntimeError as e:
                result = str(e)
        return result, [(w.category.__name__, str(w.message), w.filename == __file__)
                        for w in caught]
    ours, theirs = fn(dyngrad), fn(torch)
    assert ours[1] == theirs[1] and len(theirs[1]) == 1
    if isinstance(theirs[0], str):
        assert ours[0] == theirs[0]
    else:
        assert ours[0][0] == theirs[0][0]
        np.testing.assert_allclose(ours[0][1], theirs[0][1], rtol=1e-6)


@pytest.mark.parametrize("case", ["input_3d", "weight_1d", "features", "bias_shape",
                                  "k_dim_unbatched", "probs_ignore", "chunk_conflict",
                                  "acc_dtype", "bad_policy", "bad_method", "bad_chunk",
                                  "bad_acc_dtype"])
def test_errors(case):
    def fn(lib):
        F, O = lib.nn.functional, lib.nn.LinearCrossEntropyOptions
        x, w, t = lib.tensor(arr(6, 4)), lib.tensor(arr(5, 4)), lib.tensor(labels(6, 5))
        calls = {
            "input_3d": lambda: F.linear_cross_entropy(lib.tensor(arr(2, 6, 4)), w, t),
            "weight_1d": lambda: F.linear_cross_entropy(x, lib.tensor(arr(4)), t),
            "features": lambda: F.linear_cross_entropy(x, lib.tensor(arr(5, 3)), t),
            "bias_shape": lambda: F.linear_cross_entropy(x, w, t, linear_bias=lib.zeros(4)),
            "k_dim_unbatched": lambda: F.linear_cross_entropy(lib.tensor(arr(4)),
                                                              lib.tensor(arr(5, 2, 4)), t),
            "probs_ignore": lambda: F.linear_cross_entropy(x, w, lib.zeros(6, 5),
                                                           ignore_index=1),
            "chunk_conflict": lambda: F.linear_cross_entropy(
                x, w, t, options=O(batch_chunk_size=2, chunking_method="aspect_ratio")),
            "acc_dtype": lambda: F.linear_cross_entropy(x, w, t,
                                                        options=O(acc_dtype=lib.float64)),
            "bad_policy": lambda: O(acc_policy="fast"),
            "bad_method": lambda: O(chunking_method="aspect_ratio:0"),
            "bad_chunk": lambda: O(batch_chunk_size=0),
            "bad_acc_dtype": lambda: O(acc_dtype=lib.int32),
        }
        calls[case]()
    like_torch(fn)


def test_options_object():
    def describe(lib):
        O = lib.nn.LinearCrossEntropyOptions
        o = O(batch_chunk_size=3)
        adjusted = o._adjust(num_batches=10, in_features=4, num_classes=50,
                             dtype=lib.float32, device=lib.device("cpu"))
        return (repr(O()), repr(o), repr(adjusted), O() == O(), hash(O()) == hash(O()),
                repr(O()._adjust(64, 8, 1000, lib.float32, lib.device("cpu"))),
                repr(O(chunking_method="aspect_ratio")._adjust(64, 8, 1000, lib.float16,
                                                               lib.device("cpu"))))
    assert describe(dyngrad) == describe(torch)


@pytest.mark.parametrize("kw", [dict(), dict(bias=True, reduction="sum", ignore_index=1,
                                             label_smoothing=0.2, out_features=(2, 3)),
                                dict(weight=True, options=True)])
def test_module(kw):
    def build(lib):
        args = dict(kw)
        if args.pop("weight", False):
            args["weight"] = lib.linspace(0.5, 1.5, 5)
        if args.pop("options", False):
            args["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        return lib.nn.LinearCrossEntropyLoss(4, 5, **args)
    ours, theirs = build(dyngrad), build(torch)
    assert repr(ours) == repr(theirs) and ours.extra_repr() == theirs.extra_repr()
    assert ([(n, tuple(p.shape)) for n, p in ours.named_parameters()]
            == [(n, tuple(p.shape)) for n, p in theirs.named_parameters()])
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    shape = (6, 2, 3) if "out_features" in kw else (6,)
    t = np.random.default_rng(5).integers(0, 5, shape)
    results = []
    for lib, module in ((dyngrad, ours), (torch, theirs)):
        x = lib.tensor(arr(6, 4), requires_grad=True)
        loss = module(x, lib.tensor(t))
        loss.backward()
        results.append((node_chain(loss), loss.detach(), x.grad, module.linear.weight.grad))
    assert results[0][0] == results[1][0]
    same(results[0][1:], results[1][1:], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["weight_shape", "smoothing"])
def test_module_errors(case):
    def fn(lib):
        if case == "weight_shape":
            lib.nn.LinearCrossEntropyLoss(4, 5, weight=lib.ones(4))
        else:
            lib.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5)
    like_torch(fn)


def test_chunked_gradcheck():
    """The chunked node's gradients are the derivative of its loss (float64)."""
    x = dyngrad.tensor(arr(5, 3, dtype="float64"), requires_grad=True)
    w = dyngrad.tensor(arr(4, 3, seed=1, dtype="float64"), requires_grad=True)
    b = dyngrad.tensor(arr(4, seed=2, dtype="float64"), requires_grad=True)
    t = dyngrad.tensor(labels(5, 4, ignore=-100))
    for reduction in ("mean", "sum", "none"):
        opts = dyngrad.nn.LinearCrossEntropyOptions(batch_chunk_size=2, allow_retain_graph=True)
        assert dyngrad.autograd.gradcheck(
            lambda x, w, b: dyngrad.nn.functional.linear_cross_entropy(
                x, w, t, linear_bias=b, reduction=reduction, options=opts), (x, w, b))
