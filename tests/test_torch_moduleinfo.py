"""Every module of torch's ModuleInfo database (torch.testing._internal.common_modules) built
with the same constructor arguments in torch and in dyngrad, dyngrad's state loaded from
torch's, run in training and in evaluation mode on torch's float64 sample inputs: outputs and
the gradients of their squares' sum with respect to the parameters and the inputs, compared as
in test_torch_opinfo.py. The lazy modules are compared on their outputs' shapes (their
parameters are made at the first call, from the random generator).

The modules listed in KNOWN differ for the reason given there: each is an xfail that must fail.
"""
from __future__ import annotations

import warnings

import pytest
import torch

import dyngrad
from tests.test_torch_opinfo import _call, _compare, _contiguous, _leaves, _to_dyngrad

from tests.torch_databases import module_db

MAX_SAMPLES = 6

KNOWN = {
    "TransformerEncoder": "the samples pass torch's own layer and activation objects",
    "TransformerEncoderLayer": "the samples pass torch's own activation functions",
    "TransformerDecoderLayer": "the samples pass torch's own activation functions",
}


def _cases():
    for info in module_db:
        name = info.module_cls.__name__
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[name])] if name in KNOWN else []
        yield pytest.param(info, id=name, marks=marks)


def _grads(lib, outputs, wrt):
    outputs = [o for o in outputs if isinstance(o, lib.Tensor) and o.requires_grad]
    if not outputs or not wrt:
        return None
    total = sum((o * o).sum() for o in outputs)
    return _call(lib.autograd.grad, (total, wrt), {"allow_unused": True})


@pytest.mark.parametrize("info", _cases())
def test_module_like_torch(info):
    cls = info.module_cls
    dyn_cls = getattr(dyngrad.nn, cls.__name__, None)
    assert dyn_cls is not None, f"dyngrad.nn has no {cls.__name__}"
    samples = info.module_inputs_func(info, device="cpu", dtype=torch.float64,
                                      requires_grad=True, training=True)[:MAX_SAMPLES]
    for i, sample in enumerate(samples):
        ctor = sample.constructor_input
        torch.manual_seed(0)
        theirs, err = _call(cls, ctor.args, ctor.kwargs)
        if err is not None:
            continue   # (a sample of constructor errors: test_module_errors's matter)
        ours = dyn_cls(*_to_dyngrad(ctor.args), **_to_dyngrad(ctor.kwargs))
        if sample.forward_input is None:
            continue
        if not info.is_lazy:
            theirs, ours = theirs.double(), ours.double()
            ours.load_state_dict({k: _to_dyngrad(v) for k, v in theirs.state_dict().items()})
        for training in (True, False):
            theirs.train(training)
            ours.train(training)
            args_t = _contiguous(sample.forward_input.args)
            kwargs_t = _contiguous(sample.forward_input.kwargs)
            args_d, kwargs_d = _to_dyngrad(args_t), _to_dyngrad(kwargs_t)
            out_t, err_t = _call(theirs, args_t, kwargs_t)
            out_d, err_d = _call(ours, args_d, kwargs_d)
            where = f"sample {i}, {'training' if training else 'evaluation'}"
            if err_t is not None or err_d is not None:
                assert type(err_d) is type(err_t), f"{where}: {err_t!r} against {err_d!r}"
                continue
            flat_t, flat_d = _leaves(out_t), _leaves(out_d)
            assert len(flat_d) == len(flat_t), where
            for k, (t, o) in enumerate(zip(flat_t, flat_d)):
                if info.is_lazy:
                    assert tuple(o.shape) == tuple(t.shape), f"{where}, output {k}"
                else:
                    _compare(t, o, 1e-7, f"{where}, output {k}")
            if info.is_lazy:
                continue
            wrt_t = [p for p in theirs.parameters() if p.requires_grad] + [
                a for a in _leaves(list(args_t)) if isinstance(a, torch.Tensor) and a.requires_grad]
            wrt_d = [p for p in ours.parameters() if p.requires_grad] + [
                a for a in _leaves(list(args_d)) if isinstance(a, dyngrad.Tensor)
                and a.requires_grad]
            got_t, got_d = _grads(torch, flat_t, wrt_t), _grads(dyngrad, flat_d, wrt_d)
            if got_t is None or got_t[1] is not None:
                continue   # (nothing to differentiate, or no derivative in torch)
            assert got_d is not None and got_d[1] is None, f"{where}: {got_d}"
            for k, (t, o) in enumerate(zip(got_t[0], got_d[0])):
                if t is None:
                    assert o is None, f"{where}, gradient {k}"
                    continue
                _compare(t, o, 1e-6, f"{where}, gradient {k}")


@pytest.mark.parametrize("info", [pytest.param(i, id=i.module_cls.__name__) for i in module_db
                                  if i.module_error_inputs_func is not None])
def test_module_errors(info):
    """torch's error inputs for the module: the same error type, its message matching torch's
    expected pattern."""
    import re
    errors = info.module_error_inputs_func(info, device="cpu", dtype=torch.float64,
                                           requires_grad=False, training=True)
    for j, case in enumerate(errors):
        sample = case.module_error_input
        if sample.forward_input is None:
            continue
        ctor = sample.constructor_input
        dyn_cls = getattr(dyngrad.nn, info.module_cls.__name__)

        def run():
            module = dyn_cls(*_to_dyngrad(ctor.args), **_to_dyngrad(ctor.kwargs))
            return module(*_to_dyngrad(_contiguous(sample.forward_input.args)),
                          **_to_dyngrad(_contiguous(sample.forward_input.kwargs)))
        with pytest.raises(case.error_type) as err:
            run()
        assert re.search(case.error_regex, str(err.value)), f"case {j}: {err.value}"


def test_known_differences_are_modules_of_the_database():
    assert set(KNOWN) <= {info.module_cls.__name__ for info in module_db}
