"""In-place arithmetic with nothing to record (an optimizer's step): the dispatcher's shortcut
(`fast_inplace`) must give torch's values, versions and errors, and fall back to the checked
path whenever torch has something to say."""
import numpy as np
import pytest
import torch

import dyngrad
from compare import call, torch_part


def _x(lib, requires_grad=True):
    return lib.tensor(np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3),
                      requires_grad=requires_grad)


def _y(lib):
    return lib.tensor(np.linspace(-1, 2, 6, dtype=np.float32).reshape(2, 3))


CASES = {
    "add_ alpha": lambda lib, x, y: x.add_(y, alpha=-0.5),
    "add_ int alpha": lambda lib, x, y: x.add_(y, alpha=3),
    "add_": lambda lib, x, y: x.add_(y),
    "sub_ alpha": lambda lib, x, y: x.sub_(y, alpha=2.5),
    "mul_": lambda lib, x, y: x.mul_(y),
    "div_": lambda lib, x, y: x.div_(y),
    "add_ itself": lambda lib, x, y: x.add_(x, alpha=2),
    "add_ bool alpha": lambda lib, x, y: x.add_(y, alpha=True),
    "add_ complex alpha": lambda lib, x, y: x.add_(y, alpha=1j),
    "add_ float64 other": lambda lib, x, y: x.add_(y.double()),
    "add_ broadcast other": lambda lib, x, y: x.add_(y[0]),
    "add_ into a row view": lambda lib, x, y: x[1].add_(y[0], alpha=2),
    "add_ into a transposed view": lambda lib, x, y: x.t().add_(y.t()),
    "add_ partial overlap": lambda lib, x, y: x.view(-1)[1:].add_(x.view(-1)[:-1]),
    "add_ into an expanded tensor": lambda lib, x, y: y[0].expand(2, 3).add_(y),
    "mul_ shape mismatch": lambda lib, x, y: x[0].mul_(y),
    # a 0-dim tensor operand (clip_grad_norm_'s coefficient): broadcast, promoted, overlapping
    "mul_ 0-dim": lambda lib, x, y: x.mul_(y.sum()),
    "add_ 0-dim alpha": lambda lib, x, y: x.add_(y[1, 1].clone(), alpha=3),
    "mul_ 0-dim float64": lambda lib, x, y: x.mul_(y.double().sum()),
    "mul_ 0-dim of itself": lambda lib, x, y: x.mul_(x[0, 0]),
    "mul_ 0-dim into an element": lambda lib, x, y: x[1, 2].mul_(y.sum()),
    "mul_ 0-dim into a transposed view": lambda lib, x, y: x.t().mul_(y.sum()),
    # numbers and three-operand ops (an Adam step: mul_, add_, lerp_, addcmul_, addcdiv_)
    "mul_ number": lambda lib, x, y: x.mul_(0.999),
    "add_ number": lambda lib, x, y: x.add_(1e-8),
    "sub_ int": lambda lib, x, y: x.sub_(2),
    "div_ number": lambda lib, x, y: x.div_(3.0),
    "add_ bool": lambda lib, x, y: x.add_(True),
    "add_ number into an element": lambda lib, x, y: x[1, 2].add_(1),
    "add_ number into a transposed view": lambda lib, x, y: x.t().add_(1.5),
    "mul_ number into an expanded tensor": lambda lib, x, y: y[0].expand(2, 3).mul_(2.0),
    "mul_ number into longs": lambda lib, x, y: x.long().mul_(0.5),
    "mul_ number into halves": lambda lib, x, y: x.half().mul_(0.1),
    "lerp_ near self": lambda lib, x, y: x.lerp_(y, 0.1),
    "lerp_ near end": lambda lib, x, y: x.lerp_(y, 0.75),
    "lerp_ NaN weight": lambda lib, x, y: x.lerp_(y, float("nan")),
    # (a weight whose products are exact: torch's vectorised lerp fuses the multiply-add,
    # which can round differently in the last bit)
    "lerp_ tensor weight": lambda lib, x, y: x.lerp_(y, lib.full_like(y, 0.25)),
    "lerp_ halves": lambda lib, x, y: x.half().lerp_(y.half(), 0.3),
    "addcmul_ value": lambda lib, x, y: x.addcmul_(y, y, value=-0.5),
    "addcmul_ of itself": lambda lib, x, y: x.addcmul_(x, y),
    "addcdiv_ value": lambda lib, x, y: x.addcdiv_(y, y.abs() + 1, value=0.25),
    "addcmul_ partial overlap": lambda lib, x, y: x.view(-1)[1:].addcmul_(
        x.view(-1)[:-1], y.view(-1)[1:]),
    "addcmul_ broadcast operand": lambda lib, x, y: x.addcmul_(y[0], y, value=2),
    "addcdiv_ float64 operand": lambda lib, x, y: x.addcdiv_(y.double(), y.abs() + 1),
}


@pytest.mark.parametrize("grad_mode", ["no_grad", "plain tensors"])
@pytest.mark.parametrize("name", CASES)
def test_like_torch(name, grad_mode):
    results = {}
    for lib in (dyngrad, torch):
        # a first call fills the promotion caches the shortcut reads: the second, compared
        # below, takes it wherever it applies
        call(lambda lib: CASES[name](lib, _x(lib, requires_grad=False), _y(lib)), lib)
        x = _x(lib, requires_grad=grad_mode == "no_grad")
        y = _y(lib)
        v0 = x._version
        if grad_mode == "no_grad":
            with lib.no_grad():
                out, exc = call(lambda lib: CASES[name](lib, x, y), lib)
        else:
            out, exc = call(lambda lib: CASES[name](lib, x, y), lib)
        results[lib] = (x.detach().numpy().copy(), x._version - v0, exc,
                        None if out is None else (tuple(out.shape), out.stride()))
    (xd, vd, ed, od), (xt, vt, et, ot) = results[dyngrad], results[torch]
    if et is not None:
        assert ed is not None, f"torch raised {et!r}"
        assert (type(ed).__name__, torch_part(str(ed))) == (type(et).__name__, str(et))
    else:
        assert ed is None, ed
        assert od == ot
    np.testing.assert_array_equal(xd, xt)          # a refused write changes nothing
    assert vd == vt


def test_inference_tensor_is_refused_outside_inference_mode():
    messages = []
    for lib in (dyngrad, torch):
        with lib.inference_mode():
            x = lib.ones(3)
        with lib.no_grad(), pytest.raises(RuntimeError) as e:
            x.add_(lib.ones(3), alpha=2)
        messages.append(str(e.value))
        if lib is dyngrad:   # (torch raises after its kernel has written; dyngrad before)
            assert x.tolist() == [1.0, 1.0, 1.0]
            assert x._storage is None or x._storage.version == 0   # (_version: torch's error)
        with pytest.raises(RuntimeError, match="^Inference tensors do not track version"):
            x._version
    assert messages[0] == messages[1]


def test_a_leaf_that_requires_grad_is_refused_with_grad_on():
    for lib in (dyngrad, torch):
        w = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            w.add_(lib.ones(3), alpha=2)
        assert w._version == 0


def test_a_saved_tensor_written_under_no_grad_fails_backward_as_in_torch():
    messages = []
    for lib in (dyngrad, torch):
        w = lib.ones(3, requires_grad=True)
        y = (w * w).sum()
        with lib.no_grad():
            w.add_(lib.ones(3), alpha=-0.1)
        with pytest.raises(RuntimeError) as e:
            y.backward()
        messages.append(str(e.value))
    assert torch_part(messages[0]) == messages[1]


def test_the_optimizer_step_takes_the_shortcut(monkeypatch):
    """After one call has cached the op's promotion, p.add_(g, alpha=...) under no_grad runs
    without the general path (the cases above then check it against torch)."""
    from dyngrad.ops import _dispatch
    p, g = _x(dyngrad), _y(dyngrad)
    coef = g[0, 0].clone()   # (a 0-dim tensor: clip_grad_norm_'s scaling)
    with dyngrad.no_grad():
        p.add_(g, alpha=0.5)
        p.mul_(g)
        p.mul_(coef)
        p.add_(coef, alpha=2)

        def general(*args, **kwargs):
            raise AssertionError("took the general path")
        monkeypatch.setattr(_dispatch, "_run_general", general)
        p.add_(g, alpha=0.5)
        p.mul_(g)
        p.mul_(coef)
        p.add_(coef, alpha=2)
    assert p._version == 8
