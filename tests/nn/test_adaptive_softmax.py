"""AdaptiveLogSoftmaxWithLoss against live torch, with torch's weights copied into ours:
structure, state_dict keys, outputs, graph nodes, gradients, log_prob, predict and errors."""
import numpy as np
import pytest
import torch

import dyngrad

from .helpers import pair


def _graph(t):
    """Node names of the graph under `t`, breadth first."""
    names, todo, seen = [], [t.grad_fn], set()
    while todo:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        todo.extend(n for n, _ in node.next_functions)
    return names


def _pair(*args, dtype=None, **kwargs):
    return pair(lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs), dtype)


def _msg(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


@pytest.mark.parametrize("args, kwargs", [
    ((8, 10, [2, 5]), {"div_value": 2.0}),
    ((16, 20, (4,)), {"head_bias": True}),
    ((6, 7, [1, 2, 3, 6]), {"div_value": 1.5}),
])
def test_structure(args, kwargs):
    ours, theirs = _pair(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert ([(k, tuple(v.shape)) for k, v in ours.state_dict().items()]
            == [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()])
    for attr in ("in_features", "n_classes", "cutoffs", "div_value", "head_bias",
                 "shortlist_size", "n_clusters", "head_size"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("targets", [[0, 9, 3, 5, 1, 7], [0, 1, 1, 0, 1, 0], [9, 8, 7, 6, 5, 5],
                                     [2, 3, 4, 2, 3, 4]])
def test_forward_backward(dtype, targets):
    ours, theirs = _pair(8, 10, [2, 5], div_value=2.0, head_bias=True, dtype=dtype)
    x = np.random.default_rng(0).standard_normal((6, 8)).astype(dtype)
    xo, xt = dyngrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ro, rt = ours(xo, dyngrad.tensor(targets)), theirs(xt, torch.tensor(targets))
    assert type(ro).__name__ == type(rt).__name__ == "_ASMoutput"
    assert ro._fields == rt._fields
    tol = 1e-5 if dtype == "float32" else 1e-12
    for o, t in zip(ro, rt):
        assert str(o.dtype) == str(t.dtype) and tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
        assert _graph(o) == _graph(t)
    g = np.random.default_rng(1).standard_normal(6).astype(dtype)
    ((ro.output * dyngrad.tensor(g)).sum() + ro.loss).backward()
    ((rt.output * torch.tensor(g)).sum() + rt.loss).backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=tol * 10, atol=tol)
    grads_t = {n: p.grad for n, p in theirs.named_parameters()}
    for n, p in ours.named_parameters():
        if grads_t[n] is None:
            assert p.grad is None, n
        else:
            np.testing.assert_allclose(p.grad.numpy(), grads_t[n].numpy(), rtol=tol * 10,
                                       atol=tol, err_msg=n)


def test_unbatched_log_prob_and_predict():
    ours, theirs = _pair(8, 10, [2, 5], div_value=2.0, head_bias=True)
    x = np.random.default_rng(2).standard_normal((7, 8)).astype("float32")
    xo, xt = dyngrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ro, rt = ours(xo[3], dyngrad.tensor(6)), theirs(xt[3], torch.tensor(6))
    for o, t in zip(ro, rt):
        assert tuple(o.shape) == tuple(t.shape) == ()
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-5)
        assert _graph(o) == _graph(t)
    lo, lt = ours.log_prob(xo), theirs.log_prob(xt)
    np.testing.assert_allclose(lo.detach().numpy(), lt.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert _graph(lo) == _graph(lt)
    lo.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-6)
    # predict: every branch (all rows in the shortlist, none, some) by biasing the head
    for shift in ([5, 5, -5, -5], [-5, -5, 5, 5], [0, 0, 0, 0]):
        with torch.no_grad():
            theirs.head.bias.copy_(torch.tensor(shift, dtype=torch.float32))
        ours.load_state_dict({k: dyngrad.tensor(v.numpy())
                              for k, v in theirs.state_dict().items()})
        po, pt = ours.predict(xo), theirs.predict(xt)
        assert str(po.dtype) == str(pt.dtype)
        np.testing.assert_array_equal(po.numpy(), pt.numpy())
        np.testing.assert_array_equal(po.numpy(), ours.log_prob(xo).argmax(1).numpy())


@pytest.mark.parametrize("cutoffs, n_classes", [([], 10), ([5, 2], 10), ([0, 3], 10),
                                                ([2, 10], 10), ([2, 2], 10), ([2.5], 10)])
def test_cutoff_errors(cutoffs, n_classes):
    assert (_msg(lambda: dyngrad.nn.AdaptiveLogSoftmaxWithLoss(4, n_classes, cutoffs))
            == _msg(lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(4, n_classes, cutoffs)))


@pytest.mark.parametrize("x_shape, target", [((3, 4), [1, 2]), ((3, 4, 1), [1, 2, 3]),
                                             ((3, 4), 1), ((3, 4), [[1, 2, 3]]),
                                             ((3, 4), [1, 12, 3]), ((3, 4), [-1, 2, 3])])
def test_forward_errors(x_shape, target):
    ours, theirs = _pair(4, 10, [2, 5])
    x = np.ones(x_shape, dtype="float32")
    assert (_msg(lambda: ours(dyngrad.tensor(x), dyngrad.tensor(target)))
            == _msg(lambda: theirs(torch.tensor(x), torch.tensor(target))))
