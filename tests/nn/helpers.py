"""Build one layer on both libraries, copy the weights across, and compare.

``pair(make)`` calls ``make(dyngrad)`` and ``make(torch)``; our weights go to torch through
the state dict (our random stream is our own), so the two modules compute the same function.
"""
import numpy as np
import torch

import dyngrad


def to_torch(t):
    return torch.from_numpy(np.array(t.detach().numpy(), copy=True))


def to_ours(t):
    return dyngrad.from_numpy(np.array(t.detach().numpy(), copy=True))


def copy_state(ours, theirs) -> None:
    """Load our module's state into torch's (strict: the keys must agree)."""
    theirs.load_state_dict({k: to_torch(v) for k, v in ours.state_dict().items()})


def pair(make, dtype=None):
    """(ours, theirs) from one constructor lambda, torch's weights set to ours."""
    ours = make(dyngrad)
    theirs = make(torch)
    if dtype == "float64":
        ours.double()
        theirs.double()
    copy_state(ours, theirs)
    return ours, theirs


def tensors_of(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def assert_close(ours, theirs, rtol, atol=0.0, where=""):
    assert str(ours.dtype) == str(theirs.dtype), where
    assert tuple(ours.shape) == tuple(theirs.shape), where
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol, err_msg=where)


TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}


def check_forward_backward(ours, theirs, arrays, dtype, grad_inputs=None, seed=0,
                           graph=True):
    """Run both modules on the same inputs; compare outputs, grad_fn names, and the
    gradients of ``(out * g).sum()`` w.r.t. the float inputs and every parameter."""
    rtol, atol = TOL[dtype]
    grad_inputs = [a.dtype.kind == "f" for a in arrays] if grad_inputs is None else grad_inputs
    xs_o, xs_t = [], []
    for a, rg in zip(arrays, grad_inputs):
        if a.dtype.kind == "f":
            a = a.astype(dtype)
        xs_o.append(dyngrad.tensor(a, requires_grad=rg))
        xs_t.append(torch.tensor(a, requires_grad=rg))
    out_o = tensors_of(ours(*xs_o))
    out_t = tensors_of(theirs(*xs_t))
    assert len(out_o) == len(out_t)
    for o, t in zip(out_o, out_t):
        assert_close(o, t, rtol, atol, "forward")
        assert (o.grad_fn is None) == (t.grad_fn is None)
        if t.grad_fn is not None and graph:
            assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
    o, t = out_o[0], out_t[0]
    if not t.requires_grad:
        return out_o, out_t
    g = np.random.default_rng(seed).standard_normal(tuple(t.shape)).astype(str(t.dtype)[6:])
    (o * dyngrad.tensor(g)).sum().backward()
    (t * torch.tensor(g)).sum().backward()
    for i, (xo, xt) in enumerate(zip(xs_o, xs_t)):
        if xt.grad is None:
            assert xo.grad is None, f"grad of input {i}"
        else:
            assert_close(xo.grad, xt.grad, rtol * 10, atol * 10, f"grad of input {i}")
    params_t = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        pt = params_t[name]
        if pt.grad is None:
            assert p.grad is None, name
        else:
            assert_close(p.grad, pt.grad, rtol * 10, atol * 10, f"grad of {name}")
    return out_o, out_t
