"""First derivatives of every differentiable op in the database against live torch.

For each OpInfo (``supports_autograd``) × dtype (float32, float64, and complex128 where torch
differentiates the op's complex results) × sample: every floating or complex tensor of the
sample requires grad, the op (and, in test_backward_inplace, its in-place variant on a clone of
the input) runs on both libraries, and ``autograd.grad(outputs, inputs,
grad_outputs=random)`` must agree: None for the same inputs, otherwise the same dtype, shape
and values. Samples cover contiguous and non-contiguous inputs, Python scalars, 0-dim tensors
and broadcasting (see tests/opinfo). Outputs that torch does not attach to the graph (integer
or bool results) must not be attached by dyngrad either, and where torch's backward raises
(``floor_divide``: no derivative), dyngrad raises the same error.
"""
from __future__ import annotations

import pytest
import torch

import dyngrad
from opinfo import OP_DB

from ._grad_support import (StrictXfail, as_tensors, assert_grads_close, assert_same_error,
                            grad_cases, random_like, run_with_grad, sample_seed)


@pytest.mark.parametrize("op,dtype", grad_cases("supports_autograd"))
def test_backward(op, dtype):
    with StrictXfail(op.xfail_reason("backward", dtype)):
        _check_backward(op, dtype)


@pytest.mark.parametrize("op,dtype", grad_cases("supports_autograd", inplace=True))
def test_backward_inplace(op, dtype):
    with StrictXfail(op.xfail_reason("backward_inplace", dtype)):
        _check_backward(op, dtype, inplace=True)


def _check_backward(op, dtype, inplace=False):
    checked = 0
    for index, sample in enumerate(op.sample_inputs(dtype)):
        if sample.input_is_tensor or not inplace:
            checked += _check_sample(op, dtype, index, sample, inplace)
    # (torch refuses some in-place variants on complex tensors: abs_, eq_; test_forward
    # compares those errors)
    assert checked or (inplace and dtype.startswith("complex")), \
        f"{op.id}[{dtype}]: torch rejected every sample; fix the OpInfo"


def _check_sample(op, dtype, index, sample, inplace) -> bool:
    """Compare one sample's gradients (False when torch rejects the call or it is complex)."""
    where = f"{op.id}[{dtype}] {sample}" + (f" ({op.inplace})" if inplace else "")
    tleaves, touts, texc = run_with_grad(op, sample, torch, inplace)
    if texc is not None:
        return False          # an invalid call: test_forward compares the errors
    leaves, outs, exc = run_with_grad(op, sample, dyngrad, inplace)
    if exc is not None:
        raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
    assert [o.requires_grad for o in outs] == [o.requires_grad for o in touts], \
        f"{where}: outputs requiring grad differ"
    pick = [i for i, o in enumerate(touts) if o.requires_grad]
    if not pick or not tleaves:
        assert all(o.grad_fn is None for o in outs), f"{where}: unexpected grad_fn"
        return True
    cotangents = random_like([touts[i] for i in pick], sample_seed(op, dtype, index))
    expected, texc = _grad([touts[i] for i in pick], tleaves, as_tensors(cotangents, torch),
                           torch)
    got, exc = _grad([outs[i] for i in pick], leaves, as_tensors(cotangents, dyngrad), dyngrad)
    if texc is not None:
        assert_same_error(exc, texc, where + " (backward)")
        return True
    if exc is not None:
        raise AssertionError(f"{where}: dyngrad's backward raised {exc!r}") from exc
    assert_grads_close(got, expected, where, op.tolerance(dtype))
    return True


def _grad(outputs, inputs, cotangents, lib):
    try:
        return lib.autograd.grad(outputs, inputs, cotangents, allow_unused=True), None
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return None, e


def test_complex_parts():
    """real/imag of a complex tensor: the gradient is grad + 0j / grad * 1j, as torch."""
    for lib_name in ("real", "imag"):
        values = [1.5 - 2j, -0.5 + 1j, 3j]
        z = torch.tensor(values, dtype=torch.complex128, requires_grad=True)
        ours = dyngrad.tensor(values, dtype=dyngrad.complex128, requires_grad=True)
        cot = [0.25, -1.0, 2.0]
        expected, = torch.autograd.grad(getattr(torch, lib_name)(z), z,
                                        torch.tensor(cot, dtype=torch.float64))
        got, = dyngrad.autograd.grad(getattr(dyngrad, lib_name)(ours), ours,
                                     dyngrad.tensor(cot, dtype=dyngrad.float64))
        assert str(got.dtype) == str(expected.dtype)
        torch.testing.assert_close(torch.from_numpy(got._data.copy()), expected)


_REFUSED = [pytest.param(op, id=op.id) for op in OP_DB
            if op.supports_autograd and not op.supports_complex_autograd
            and "complex128" in op.dtypes and not op.inplace_only]
_REFUSAL = "does not support automatic differentiation for outputs with complex dtype"
# ops whose refusal dyngrad does not raise yet (each needs torch's check in its public
# function, as gather_scatter.no_complex_autograd does for scatter_reduce)



@pytest.mark.parametrize("op", _REFUSED)
def test_complex_autograd_refused(op):
    """The ops marked ``supports_complex_autograd=False``: torch refuses to record their complex
    results ("<op> does not support automatic differentiation for outputs with complex
    dtype."), and so does dyngrad."""
    for sample in op.sample_inputs("complex128"):
        _, _, texc = run_with_grad(op, sample, torch)
        if texc is not None and _REFUSAL in str(texc):
            break
    else:
        raise AssertionError(f"{op.id}: torch differentiates its complex results; drop "
                             "supports_complex_autograd=False")
    _, _, exc = run_with_grad(op, sample, dyngrad)
    assert_same_error(exc, texc, f"{op.id} {sample}")
