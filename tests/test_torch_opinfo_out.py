"""``out=`` for every op of torch's OpInfo database that supports it: each op's first samples
in float64 through torch and dyngrad, with empty out tensors (a tuple of them for an op of
several results) of the results' dtypes. What is written into them (values, dtype, shape,
strides), whether the op returns them themselves, and the error where one is raised, compared
with torch's."""
from __future__ import annotations

import pytest
import torch

import dyngrad

from tests.test_torch_opinfo import KNOWN as _OPINFO_KNOWN
from tests.test_torch_opinfo import (_call, _compare, _contiguous, _dyngrad_callable, _op_id,
                                     _to_dyngrad)
from tests.torch_databases import op_db

MAX_SAMPLES = 2
# outs of uninitialised memory or of a random stream cannot be compared
_SKIP = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
         "new_empty_strided", "normal", "normal.number_mean", "bernoulli", "multinomial",
         "randn", "randint", "rand", "cauchy", "exponential", "geometric", "log_normal",
         "uniform", "randperm", "nn.functional.dropout",
         # (these crash torch 2.13 itself with out=)
         "nn.functional.avg_pool3d", "narrow_copy"}
# differing here for the reasons they differ without out= (test_torch_opinfo.py)
KNOWN = {name: _OPINFO_KNOWN[name] for name in (
    "sparse.sampled_addmm", "_native_batch_norm_legit", "_batch_norm_with_update", "_chunk_cat",
    "linalg.eig", "linalg.eigh", "special.bessel_j0", "special.bessel_y1")}


def _empty_like_results(lib, result):
    """Out tensors for `result` (a tensor, or a tuple of them): empty, of the results' dtypes."""
    dtype = (lambda t: t.dtype) if lib is torch else (
        lambda t: getattr(dyngrad, str(t.dtype).split(".")[1]))
    if isinstance(result, torch.Tensor):
        return lib.empty(0, dtype=dtype(result))
    if isinstance(result, tuple) and result and all(isinstance(r, torch.Tensor)
                                                     for r in result):
        return tuple(lib.empty(0, dtype=dtype(r)) for r in result)
    return None


def _cases():
    for op in op_db:
        if not op.supports_out or _op_id(op) in _SKIP \
                or torch.float64 not in op.supported_dtypes("cpu"):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[_op_id(op)])] \
            if _op_id(op) in KNOWN else []
        yield pytest.param(op, id=_op_id(op), marks=marks)


@pytest.mark.parametrize("op", list(_cases()))
def test_out(op):
    fn = _dyngrad_callable(op)
    assert fn is not None, "not in dyngrad"
    samples = op.sample_inputs("cpu", torch.float64, requires_grad=False)
    checked = 0
    for i, sample in enumerate(samples):
        if i >= MAX_SAMPLES:
            break
        args_t = _contiguous((sample.input,) + tuple(sample.args))
        kwargs_t = _contiguous(dict(sample.kwargs))
        result, err = _call(op.op, args_t, kwargs_t)
        outs_t = None if err is not None else _empty_like_results(torch, result)
        if outs_t is None:
            continue
        outs_d = _empty_like_results(dyngrad, result)
        args_d, kwargs_d = _to_dyngrad(args_t), _to_dyngrad(kwargs_t)
        ret_t, err_t = _call(op.op, args_t, dict(kwargs_t, out=outs_t))
        ret_d, err_d = _call(fn, args_d, dict(kwargs_d, out=outs_d))
        if err_t is not None or err_d is not None:
            assert type(err_d) is type(err_t), f"sample {i}: {err_t!r} against {err_d!r}"
            continue
        if ret_t is None:   # (the *_copy ops of several results return nothing with out=)
            assert ret_d is None, f"sample {i}: returned {type(ret_d).__name__}"
            ret_t = ret_d = [None] * len(outs_t)
        pairs = [(outs_t, outs_d, ret_t, ret_d)] if isinstance(outs_t, torch.Tensor) else \
            [(a, b, r, s) for a, b, r, s in zip(outs_t, outs_d, ret_t, ret_d)]
        assert isinstance(ret_d, dyngrad.Tensor) == isinstance(ret_t, torch.Tensor)
        for k, (o_t, o_d, r_t, r_d) in enumerate(pairs):
            _compare(o_t, o_d, 1e-7, f"sample {i}, out {k}")
            assert (r_d is o_d) == (r_t is o_t), f"sample {i}, out {k}: returned itself"
        checked += 1
