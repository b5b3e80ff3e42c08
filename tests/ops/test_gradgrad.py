"""Second derivatives of every twice-differentiable op in the database against live torch.

For each OpInfo (``supports_gradgrad``) × sample, in float64 and (where torch differentiates
the op's complex results) complex128: the first gradients are taken
with ``create_graph=True`` and with cotangents that themselves require grad (as torch's
gradgradcheck does, so the formulas' linearity in ``grad`` is checked too). Which first
gradients are attached to a graph must agree with torch; then ``autograd.grad(first_grads,
inputs + cotangents, grad_outputs=random, allow_unused=True)`` must agree: None for the same
inputs, otherwise the same dtype, shape and values. ``gradgrad_samples`` on an OpInfo caps the
samples taken, to keep this test short.
"""
from __future__ import annotations

import pytest
import torch

import dyngrad

from ._grad_support import (StrictXfail, as_tensors, assert_grads_close, assert_same_error,
                            grad_cases, random_like, run_with_grad, sample_seed)


@pytest.mark.parametrize("op,dtype", grad_cases("supports_gradgrad", ("float64", "complex128"),
                                                inplace=None))
def test_gradgrad(op, dtype):
    with StrictXfail(op.xfail_reason("gradgrad", dtype)):
        _check_gradgrad(op, dtype)


def _spread(samples, n):
    """At most `n` samples, spread evenly over the list (which is ordered by kind)."""
    if n is None or len(samples) <= n:
        return list(enumerate(samples))
    step = len(samples) / n
    return [(int(i * step), samples[int(i * step)]) for i in range(n)]


def _check_gradgrad(op, dtype):
    checked = differentiable = 0
    for index, sample in _spread(op.sample_inputs(dtype), op.gradgrad_samples):
        where = f"{op.id}[{dtype}] {sample}"
        tleaves, touts, texc = run_with_grad(op, sample, torch)
        if texc is not None or not tleaves:
            continue
        pick = [i for i, o in enumerate(touts) if o.requires_grad]
        if not pick:
            continue          # bool/int results (comparisons): test_backward checks them
        differentiable += 1
        leaves, outs, exc = run_with_grad(op, sample, dyngrad)
        if exc is not None:
            raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
        cotangents = random_like([touts[i] for i in pick], sample_seed(op, dtype, index))
        tcots = as_tensors(cotangents, torch, requires_grad=True)
        cots = as_tensors(cotangents, dyngrad, requires_grad=True)
        expected, texc = _second(torch, [touts[i] for i in pick], tleaves, tcots, op, dtype,
                                 index)
        got, exc = _second(dyngrad, [outs[i] for i in pick], leaves, cots, op, dtype, index)
        if texc is not None:
            assert_same_error(exc, texc, where)
            checked += 1
            continue
        if exc is not None:
            raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
        tattached, texpected = expected
        attached, got = got
        assert attached == tattached, \
            f"{where}: first gradients attached to a graph: {attached}, torch {tattached}"
        if got is not None:
            assert_grads_close(got, texpected, where + " (second derivative)",
                               op.tolerance(dtype))
        checked += 1
    assert checked or not differentiable, \
        f"{op.id}[{dtype}]: no sample was differentiated twice; fix the OpInfo"


def _second(lib, outputs, leaves, cotangents, op, dtype, index):
    """((which first gradients have a graph), second gradients or None), or the exception."""
    try:
        first = lib.autograd.grad(outputs, leaves, cotangents, create_graph=True,
                                  allow_unused=True)
        attached = tuple(g is not None and g.requires_grad for g in first)
        firsts = [g for g, a in zip(first, attached) if a]
        if not firsts:
            return (attached, None), None
        seconds = as_tensors(random_like(firsts, sample_seed(op, dtype, index, "second")), lib)
        second = lib.autograd.grad(firsts, list(leaves) + list(cotangents), seconds,
                                   allow_unused=True)
        return (attached, second), None
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return None, e
