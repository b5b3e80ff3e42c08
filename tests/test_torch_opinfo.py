"""Every op of torch's own OpInfo database (torch.testing._internal.common_methods_invocations)
run through torch and through dyngrad on torch's sample inputs in float64: the results' values,
dtypes, shapes and strides, the errors raised, and the first-order gradients of the results'
sum with respect to every input that requires grad.

The op dyngrad runs is the one of the same name (``nn.functional.conv2d`` is
``dyngrad.nn.functional.conv2d``; a Tensor method is dyngrad.Tensor's); an OpInfo whose callable is
a lambda of torch's test module runs with ``torch`` in its globals standing for dyngrad. The
samples' tensors cross over as contiguous copies, and torch's side uses the same copies.

The ops listed in KNOWN differ for the reason given there: each is an xfail that must fail.
"""
from __future__ import annotations

import math
import types
import warnings

import numpy as np
import pytest
import torch

import dyngrad

from tests.torch_databases import op_db

MAX_SAMPLES = 6

_RANDOM = "random: its values come from the generator's stream, which dyngrad's is not"
_EMPTY = "uninitialised memory: its values are whatever the allocation held"
_MISSING = "not in dyngrad"
KNOWN = {
    **{name: _RANDOM for name in (
        "cauchy", "exponential", "geometric", "log_normal", "normal", "normal.number_mean",
        "normal.in_place", "uniform", "bernoulli", "multinomial", "randn", "randn_like",
        "rand_like", "randint", "randint_like", "nn.functional.dropout",
        "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
        "nn.functional.feature_alpha_dropout.with_train", "nn.functional.rrelu",
        "nn.functional.fractional_max_pool3d",
        "svd_lowrank", "pca_lowrank")},
    "nn.functional.scaled_dot_product_attention": _RANDOM + " (samples with dropout_p > 0)",
    "nn.functional.multi_head_attention_forward": _RANDOM + " (samples with dropout_p > 0)",
    **{name: _EMPTY for name in ("empty", "empty_like", "empty_strided", "empty_permuted",
                                 "new_empty", "new_empty_strided")},
    **{name: _MISSING + " (sparse CSR tensors)" for name in (
        "sparse.sampled_addmm", "sparse.mm.reduce")},
    **{name: _MISSING + " (CUDA's jiterator)" for name in (
        "jiterator_unary", "jiterator_binary", "jiterator_4inputs_with_extra_args",
        "jiterator_binary_return_by_ref", "jiterator_2inputs_2outputs")},
    **{name: _MISSING + " (an internal aten op)" for name in (
        "_segment_reduce.lengths", "_segment_reduce.offsets", "_chunk_cat",
        "_softmax_backward_data", "_native_batch_norm_legit", "_batch_norm_with_update",
        "_upsample_bilinear2d_aa", "_unsafe_masked_index",
        "_unsafe_masked_index_put_accumulate",
        "max_pool2d_with_indices_backward", "native_dropout_backward")},
    "chalf": _MISSING + " (complex32)",
    "linalg.eig": "eigenvectors are unique up to a phase; LAPACK's choice differs from torch's",
    "linalg.eigh": "eigenvectors are unique up to a sign; LAPACK's choice differs from torch's",
    "special.bessel_j0": "torch's float64 kernel is off by ~1e-7 here; dyngrad's is within a few "
                         "ulps (ops/special_bessel2.py)",
    "special.bessel_y1": "torch's float64 kernel is off by ~3e-7 here; dyngrad's is within a few "
                         "ulps (ops/special_bessel2.py)",
    "as_strided_scatter": "torch 2.13's gradient for the input is wrong (it fails torch's own "
                          "gradcheck: the mask is inverted); dyngrad's is the derivative",
    "as_strided.partial_views": "the sample is a view into a larger storage, which a contiguous "
                                "copy does not keep",
    "nn.functional.linear_cross_entropy.chunked": "the OpInfo's callable closes over torch's "
                                                  "dtype objects",
    "nn.functional.linear_cross_entropy.chunked_none": "the OpInfo's callable closes over torch's "
                                                       "dtype objects",
    "nn.functional.triplet_margin_with_distance_loss": "the samples pass torch's own functions as "
                                                       "distance_function",
    "block_diag": "the gradient of a 1-d block is a view of the expanded incoming gradient "
                  "(stride 0); torch's is a copy",
    "ormqr": "the gradient of the reflectors is row-major; torch's is column-major",
    "fft.hfft2": "the gradient's strides differ from torch's",
    "fft.irfft2": "the gradient's strides differ from torch's",
    "linalg.matrix_power": "for n = 0 the gradient of a 1x1 input keeps strides of 0",
    "linalg.pinv.singular": "the gradient's strides differ from torch's",
}


def _op_id(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def _dyngrad_callable(op):
    """The dyngrad function standing for the OpInfo's callable (see the module docstring)."""
    f = op.op
    if isinstance(f, types.FunctionType) and f.__module__.startswith("torch.testing"):
        env = dict(f.__globals__, torch=dyngrad, F=dyngrad.nn.functional)
        return types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)
    qualname = getattr(f, "__qualname__", "")
    if qualname.startswith(("TensorBase.", "Tensor.")):
        return getattr(dyngrad.Tensor, qualname.split(".", 1)[1], None)
    if type(f).__name__ == "OpOverload":   # torch.ops.aten.<op>.<overload>
        packet = getattr(dyngrad.ops.aten, f._schema.name.split("::")[1], None)
        return getattr(packet, f._overloadname, None)
    obj = dyngrad
    for part in op.name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _to_dyngrad(v):
    if isinstance(v, torch.Tensor):
        t = dyngrad.tensor(v.detach().numpy().copy())
        return t.requires_grad_() if v.requires_grad else t
    if isinstance(v, torch.dtype):
        return getattr(dyngrad, str(v).split(".")[1])
    if isinstance(v, torch.device):
        return dyngrad.device(str(v))
    if isinstance(v, torch.Size):
        return dyngrad.Size(v)
    if isinstance(v, torch.memory_format):
        return getattr(dyngrad, str(v).split(".")[1])
    if isinstance(v, (list, tuple)):
        return type(v)(_to_dyngrad(x) for x in v)
    if isinstance(v, dict):
        return {k: _to_dyngrad(x) for k, x in v.items()}
    return v


def _contiguous(v):
    """The sample's tensors as contiguous leaves (what crosses over to dyngrad)."""
    if isinstance(v, torch.Tensor):
        return v.detach().contiguous().requires_grad_(v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v)(_contiguous(x) for x in v)
    if isinstance(v, dict):
        return {k: _contiguous(x) for k, x in v.items()}
    return v


def _leaves(v):
    if isinstance(v, (list, tuple)):
        return [x for item in v for x in _leaves(item)]
    if isinstance(v, dict):
        return [x for item in v.values() for x in _leaves(item)]
    return [v]


def _numpy(t):
    if isinstance(t, torch.Tensor) and t._is_zerotensor():   # (torch's gradient of zeros)
        return np.zeros(t.shape, str(t.dtype).split(".")[1])
    t = t.detach()
    if t.is_sparse:   # (compared in its dense form; _compare has compared the layouts)
        t = t.to_dense()
    t = t.resolve_conj().resolve_neg()
    return t.float().numpy() if t.dtype in (torch.bfloat16, dyngrad.bfloat16) else t.numpy()


def _compare(theirs, ours, rtol, where):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, dyngrad.Tensor), f"{where}: {type(ours).__name__}"
        assert str(ours.dtype) == str(theirs.dtype), where
        assert str(ours.layout) == str(theirs.layout), where
        assert tuple(ours.shape) == tuple(theirs.shape), where
        if theirs.numel():
            assert ours.stride() == theirs.stride(), f"{where}: {ours.stride()}"
        t, o = _numpy(theirs), _numpy(ours)
        if t.dtype.kind in "fc":
            np.testing.assert_allclose(o, t, rtol=rtol, atol=rtol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(o, t, err_msg=where)
    elif isinstance(theirs, float) and math.isnan(theirs):
        assert isinstance(ours, float) and math.isnan(ours), where
    elif isinstance(theirs, (bool, int, float, complex)):
        assert not isinstance(ours, dyngrad.Tensor), where
        assert ours == pytest.approx(theirs, rel=rtol, abs=rtol), where


def _call(fn, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs), None
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            return None, e


def _check_sample(op, fn, sample, i):
    args_t = _contiguous((sample.input,) + tuple(sample.args))
    kwargs_t = _contiguous(dict(sample.kwargs))
    args_d, kwargs_d = _to_dyngrad(args_t), _to_dyngrad(kwargs_t)
    out_t, err_t = _call(op.op, args_t, kwargs_t)
    out_d, err_d = _call(fn, args_d, kwargs_d)
    if err_t is not None or err_d is not None:
        assert err_t is not None and err_d is not None, f"sample {i}: torch {err_t!r}, " \
                                                        f"dyngrad {err_d!r}"
        assert type(err_d) is type(err_t), f"sample {i}: {err_t!r} against {err_d!r}"
        return
    flat_t, flat_d = _leaves(out_t), _leaves(out_d)
    assert len(flat_d) == len(flat_t), f"sample {i}"
    for k, (t, o) in enumerate(zip(flat_t, flat_d)):
        _compare(t, o, 1e-7, f"sample {i}, output {k}")
    # first-order gradients of the outputs' sum (the absolute value's for complex outputs)
    grads_of_t = [t for t in flat_t if isinstance(t, torch.Tensor) and t.requires_grad]
    grads_of_d = [o for o in flat_d if isinstance(o, dyngrad.Tensor) and o.requires_grad]
    assert len(grads_of_d) == len(grads_of_t), f"sample {i}: outputs requiring grad"
    wrt_t = [a for a in _leaves([args_t, kwargs_t])
             if isinstance(a, torch.Tensor) and a.requires_grad]
    wrt_d = [a for a in _leaves([args_d, kwargs_d])
             if isinstance(a, dyngrad.Tensor) and a.requires_grad]
    if not grads_of_t or not wrt_t:
        return
    total = sum((t.abs() if t.is_complex() else t).sum() for t in grads_of_t)
    g_t, err_t = _call(torch.autograd.grad, (total, wrt_t), {"allow_unused": True})
    if err_t is not None:
        return   # (torch has no derivative here: nothing to compare)
    total = sum((o.abs() if o.is_complex() else o).sum() for o in grads_of_d)
    g_d = dyngrad.autograd.grad(total, wrt_d, allow_unused=True)
    for k, (t, o) in enumerate(zip(g_t, g_d)):
        if t is None:
            assert o is None, f"sample {i}, gradient {k}"
            continue
        _compare(t, o, 1e-6, f"sample {i}, gradient {k}")


def _cases():
    for op in op_db:
        if torch.float64 not in op.supported_dtypes("cpu"):
            continue
        name = _op_id(op)
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[name])] if name in KNOWN else []
        yield pytest.param(op, id=name, marks=marks)


@pytest.mark.parametrize("op", _cases())
def test_op_like_torch(op):
    fn = _dyngrad_callable(op)
    assert fn is not None, f"dyngrad has no {op.name}"
    samples = list(op.sample_inputs("cpu", torch.float64, requires_grad=True))[:MAX_SAMPLES]
    for i, sample in enumerate(samples):
        _check_sample(op, fn, sample, i)


def test_known_differences_are_ops_of_the_database():
    """Each KNOWN entry names an op of torch's database (none is left over after a rename)."""
    names = {_op_id(op) for op in op_db}
    assert set(KNOWN) <= names, set(KNOWN) - names
