"""Run one module built the same way in dyngrad and torch, with the weights copied across
through ``state_dict``, and compare outputs, input gradients and parameter gradients.

Shared by test_recurrent.py and test_transformer.py.
"""
import numpy as np
import torch

import dyngrad

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def to_torch_state(module):
    """dyngrad state_dict -> torch tensors (copies)."""
    return {k: torch.from_numpy(np.array(v.detach().numpy(), copy=True))
            for k, v in module.state_dict().items()}


def build_pair(make, dtype="float32", train=True):
    """``make(lib)`` on both libraries; torch gets dyngrad's weights."""
    ours, theirs = make(dyngrad), make(torch)
    if dtype == "float64":
        ours, theirs = ours.double(), theirs.double()
    result = theirs.load_state_dict(to_torch_state(ours))
    assert not result.missing_keys and not result.unexpected_keys
    ours.train(train)
    theirs.train(train)
    return ours, theirs


def _flatten(out):
    if out is None:
        return [None]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    return [out]


def _tensor(lib, array, requires_grad, dtype):
    if array is None:
        return None
    if array.dtype.kind == "f":
        array = array.astype(dtype)
    t = lib.from_numpy(np.array(array, copy=True))
    return t.requires_grad_(requires_grad and array.dtype.kind == "f")


def _np(t):
    return np.array(t.detach().numpy())


def check_module(make, call, inputs, dtype="float32", train=True, grads=True, tol=None,
                 grad_enabled=True, graph=True):
    """Compare ``call(lib, module, *tensors)`` on both libraries.

    ``inputs`` is a list of numpy arrays (or None): floating arrays become tensors of
    ``dtype`` that require grad, boolean ones masks. Outputs (any nesting of tuples) must have
    equal shapes, dtypes and values; with ``grads`` a random weighted sum of the outputs is
    backpropagated and the gradients of the inputs and of every parameter are compared.
    With ``graph`` the outputs' strides and grad_fn names must be torch's too.
    Returns the two modules."""
    tol = tol or TOL[dtype]
    ours, theirs = build_pair(make, dtype, train)
    results = {}
    for lib, module in ((dyngrad, ours), (torch, theirs)):
        tensors = [_tensor(lib, a, grads, dtype) for a in inputs]
        with lib.set_grad_enabled(grad_enabled):
            outs = _flatten(call(lib, module, *tensors))
        results[lib.__name__] = (tensors, outs)
        if grads:
            rng = np.random.default_rng(7)
            loss = None
            for o in outs:
                if o is None or not o.requires_grad:
                    continue
                w = lib.from_numpy(rng.standard_normal(tuple(o.shape)).astype(dtype))
                term = (o * w).sum()
                loss = term if loss is None else loss + term
            if loss is not None:
                loss.backward()
    (ti, to), (ri, ro) = results["dyngrad"], results["torch"]
    assert len(to) == len(ro)
    for k, (a, b) in enumerate(zip(to, ro)):
        assert (a is None) == (b is None), f"output {k}: {a} vs {b}"
        if a is None:
            continue
        assert tuple(a.shape) == tuple(b.shape), f"output {k}: {a.shape} vs {b.shape}"
        assert str(a.dtype) == str(b.dtype), f"output {k}"
        assert a.requires_grad == b.requires_grad, f"output {k}"
        if graph:
            assert a.stride() == b.stride(), f"output {k}: {a.stride()} vs {b.stride()}"
            assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__, \
                f"output {k}: {a.grad_fn} vs {b.grad_fn}"
        np.testing.assert_allclose(_np(a), _np(b), err_msg=f"output {k}", **tol)
    if grads:
        for k, (a, b) in enumerate(zip(ti, ri)):
            if a is None or not b.requires_grad:
                continue
            assert (a.grad is None) == (b.grad is None), f"input {k} grad"
            if b.grad is not None:
                np.testing.assert_allclose(_np(a.grad), _np(b.grad),
                                           err_msg=f"input {k} grad", **tol)
        theirs_params = dict(theirs.named_parameters())
        for name, p in ours.named_parameters():
            q = theirs_params[name]
            assert (p.grad is None) == (q.grad is None), f"{name}.grad"
            if q.grad is not None:
                np.testing.assert_allclose(_np(p.grad), _np(q.grad), err_msg=f"{name}.grad",
                                           **tol)
    return ours, theirs


def raises_same(fn):
    """``fn(lib)`` raises the same exception type and message on both libraries."""
    try:
        fn(torch)
    except Exception as e:   # noqa: BLE001
        expected = (type(e).__name__, str(e))
    else:
        raise AssertionError("torch did not raise")
    try:
        fn(dyngrad)
    except Exception as e:   # noqa: BLE001
        got = (type(e).__name__, str(e))
    else:
        raise AssertionError(f"dyngrad did not raise; torch raised {expected}")
    assert got == expected
