"""Flags (keepdim, unbiased, sorted, return_inverse...) are bools for torch's parser: 1, 0 or a
NumPy bool is a TypeError, never read as true or false. Also the dims of ``x.squeeze(0, 1)``
spelled out as a method's only int list, and the counts in the TypeErrors of functions made by
factories, which name the public function."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from tests.compare import call, same_outcome


def _run(expr, lib):
    x = lib.ones(2, 3)
    ix = lib.zeros(1, 3, dtype=lib.long)
    return call(lambda lib: eval(expr, {"x": x, "ix": ix, "t": lib, "np": np,
                                        "F": lib.nn.functional}), lib)


# torch raises a TypeError for each; dyngrad must raise one with the same words
SAME_MESSAGE = [
    "x.sum(0, keepdim=1)", "x.sum(0, 1)", "t.sum(x, 0, keepdim=1)", "x.sum(0, keepdim=np.True_)",
    "x.mean(0, keepdim=1)", "x.mean(0, 1)", "t.mean(x, 0, keepdim=0)",
    "x.amax(0, 1)", "x.amin(0, keepdim=1)", "x.max(0, 1)", "x.min(0, keepdim=1)",
    "x.prod(0, 1)", "x.logsumexp(0, keepdim=1)", "x.argmax(0, 1)", "x.argmin(0, keepdim=1)",
    "x.all(0, 1)", "x.any(0, keepdim=1)", "x.median(0, 1)", "x.median(0, keepdim=1)",
    "t.nanmedian(x, 0, 1)", "x.nansum(0, 1)", "x.nanmean(0, keepdim=1)", "t.nanmean(x, 0, 1)",
    "x.std(0, 1)", "x.var(0, 1)", "x.std(0, unbiased=1)", "t.var(x, 0, keepdim=1)",
    "x.norm(2, 0, keepdim=1)", "x.kthvalue(1, 0, 1)", "x.kthvalue(1, 0, keepdim=1)",
    "x.topk(1, 0, 1)", "x.topk(1, sorted=1)", "x.sort(0, 1)", "x.sort(descending=1)",
    "t.median(x, 0, 1, 2)", "t.nanmedian(x, 0, 1, 2)", "x.cumsum(0, 1)",
    "x.aminmax(0, keepdim=1)", "t.aminmax(x, 0, keepdim=1)",
    # torch.linalg's bindings: their table in _signatures.py (linalg_svd, linalg_pinv)
    "t.linalg.svd(t.eye(2), full_matrices=0)", "t.linalg.pinv(t.eye(2), hermitian=1)",
]

# torch refuses these too; dyngrad's words name the op and the argument, but the op or the
# position differs where torch's Python layer calls another op (batch_norm: native_batch_norm)
REFUSED = [
    "t.unique(x, sorted=1)", "t.isclose(x, x, equal_nan=1)", "F.batch_norm(x, t.zeros(3), "
    "t.ones(3), training=1)",
    "t.index_put(x, (t.tensor([0]),), t.tensor(1.), accumulate=1)",
    "x.scatter_reduce(0, ix, x, 'sum', include_self=0)",
    "t.triangular_solve(t.eye(2), t.eye(2), upper=1)", "t.unique_consecutive(x, return_counts=1)",
]


def _refusals(expr):
    """The messages of the TypeErrors `expr` raises on dyngrad and on torch."""
    (_, ours), (_, theirs) = _run(expr, dyngrad), _run(expr, torch)
    assert type(theirs) is TypeError and type(ours) is TypeError, (ours, theirs)
    return str(ours), str(theirs)


@pytest.mark.parametrize("expr", SAME_MESSAGE)
def test_flag_refused_with_torchs_message(expr):
    ours, theirs = _refusals(expr)
    assert ours == theirs


@pytest.mark.parametrize("expr", REFUSED)
def test_flag_refused(expr):
    ours, _ = _refusals(expr)
    assert "must be bool, not int" in ours


@pytest.mark.parametrize("expr", [
    "x.sum(0, True)", "x.mean(dim=0, keepdim=False)", "x.std(0, True, True)", "x.var(False)",
    "x.max(0, True).values", "x.median(0, True).indices", "x.sort(0, True).values",
    "t.unique(x, sorted=True, return_inverse=True)[1]", "x.topk(1, 0, True, False).values",
    "t.isclose(x, x, equal_nan=True)", "x.logsumexp(0, True)", "x.norm(2, 0, True)",
])
def test_bool_flags_still_work(expr):
    ours, err = _run(expr, dyngrad)
    theirs, terr = _run(expr, torch)
    assert err is None and terr is None
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert ours.dtype == getattr(dyngrad, str(theirs.dtype).split(".")[1])


# -- x.squeeze(0, 1) --------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "x.squeeze(0, 1).shape", "x.squeeze(0, 2).stride()", "x.squeeze(0, 0)",
    "x.squeeze(0, 5)", "x.squeeze(0, 'a')", "x.squeeze(0, 1.5)", "x.squeeze(0, dim=1)",
    "x.squeeze([0], 1)", "x.squeeze(True, 1)", "x.squeeze(np.int64(0), 1).shape",
    "x.squeeze(0, 1, 2).shape", "t.squeeze(x, 0, 1)", "x.clone().squeeze_(0, 1).shape",
    "x.clone().squeeze_(0, 'a')", "x.clone().squeeze_(0, 1, dim=2)",
    "x.permute([2, 0], 1)", "x.flip([0], 1)", "x.view([6], 1)",
])
def test_squeeze_dims_spelled_out(expr):
    def run(lib):
        x = lib.ones(1, 1, 6).reshape(1, 1, 2, 3)
        return eval(expr, {"x": x, "t": lib, "np": np})
    same_outcome(run)


def test_squeeze_dims_spelled_out_records_the_dims_overload():
    for lib in (torch, dyngrad):
        x = lib.ones(1, 1, 3, requires_grad=True)
        y = x.squeeze(0, 1)
        assert type(y.grad_fn).__name__ == "SqueezeBackward2"
        y.sum().backward()
        assert x.grad.shape == (1, 1, 3)


def test_factory_made_functions_are_named_in_pythons_errors():
    """A function made inside a factory words Python's own errors with its public name."""
    x = dyngrad.ones(2, 3)
    with pytest.raises(TypeError, match=r"^cumprod\(\) got an unexpected keyword argument"):
        x.cumprod(0, keepdim=True)
    assert dyngrad.median.__qualname__ == "median"


@pytest.mark.parametrize("expr", ["x.count_nonzero(0, 2)", "x.count_nonzero(0, 'a')",
                                  "x.count_nonzero(0)", "x.count_nonzero((0, 2))",
                                  "x.count_nonzero(dim=0)", "x.count_nonzero(0, dim=2)"])
def test_count_nonzero_dims_spelled_out(expr):
    same_outcome(lambda lib: eval(expr, {"x": lib.ones(1, 2, 1, 3)}))
