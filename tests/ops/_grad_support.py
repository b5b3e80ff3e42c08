"""What the OpInfo-driven gradient tests share: one sample run with gradients on both libraries.

``run_with_grad(op, sample, lib)`` materialises a sample, marks every floating tensor in it
(the input, positional and keyword arguments, lists of tensors) as requiring grad, and calls the
op. Gradient outputs are drawn once, as NumPy arrays, and materialised for each library, so both
sides differentiate the same function with the same cotangents.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest
import torch

import dyngrad
from opinfo import OP_DB

GRAD_DTYPES = ("float32", "float64", "complex128")


def grad_cases(flag: str, dtypes=GRAD_DTYPES, inplace=False):
    """pytest params (op, dtype) for the ops whose `flag` (supports_autograd…) is set; with
    `inplace`, only those with an in-place variant; without, only those with a function form
    (in-place-only ops are tested as in-place variants); ``inplace=None``: every op."""
    def wanted(op):
        return op.inplace if inplace else inplace is None or not op.inplace_only
    return [pytest.param(op, dt, id=f"{op.id}-{dt}") for op in OP_DB if getattr(op, flag)
            and wanted(op) for dt in dtypes if dt in op.dtypes
            and (op.supports_complex_autograd or not dt.startswith("complex"))]


def _is_tensor(value) -> bool:
    return isinstance(value, (torch.Tensor, dyngrad.Tensor))


def _floating(t) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _mark(value, leaves):
    """Set requires_grad on the floating tensors in `value` (recursively); collect them."""
    if _is_tensor(value):
        if _floating(value) and not value.requires_grad:
            value.requires_grad_()
            leaves.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _mark(v, leaves)
    elif isinstance(value, dict):
        for v in value.values():
            _mark(v, leaves)


def outputs_of(result):
    """The tensors an op returned, as a list (ops may return a tuple or list of tensors)."""
    if _is_tensor(result):
        return [result]
    if isinstance(result, (list, tuple)):
        return [r for r in result if _is_tensor(r)]
    return []


def run_with_grad(op, sample, lib, inplace=False):
    """(leaves, outputs, exception) for one call of `op` on `sample` with gradients on.

    With `inplace` (always for in-place-only ops), the in-place variant runs on a clone of the
    input (a leaf cannot be modified in place), so the graph has the op's node rebased over a
    CloneBackward0.
    """
    args, kwargs = sample.to(lib)
    leaves = []
    _mark(args, leaves)
    _mark(kwargs, leaves)
    try:
        if inplace or op.inplace_only:
            result = getattr(args[0].clone(), op.inplace)(*args[1:], **kwargs)
        else:
            result = op.op(lib)(*args, **kwargs)
    except Exception as e:   # noqa: BLE001  (torch's verdict decides what it means)
        return leaves, [], e
    return leaves, outputs_of(result), None




def sample_seed(op, dtype, index, salt="") -> int:
    return zlib.crc32(f"{op.id}:{dtype}:{index}:{salt}".encode())


def random_like(tensors, seed):
    """NumPy arrays of normal values, one per tensor (same shape and dtype)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in tensors:
        dtype = str(t.dtype).split(".")[-1]
        values = rng.standard_normal(tuple(t.shape))
        if t.dtype.is_complex:
            values = values + 1j * rng.standard_normal(tuple(t.shape))
        out.append(np.asarray(values).astype(dtype))
    return out


def as_tensors(arrays, lib, requires_grad=False):
    out = []
    for a in arrays:
        t = lib.from_numpy(a.copy()) if a.size else lib.zeros(a.shape,
                                                                dtype=getattr(lib, a.dtype.name))
        out.append(t.requires_grad_() if requires_grad else t)
    return out


def to_numpy(t) -> np.ndarray:
    """A tensor's values (a sparse tensor's dense form)."""
    if t.is_sparse:
        t = t.detach().to_dense()
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().copy()
    return np.array(t._data, copy=True)


def assert_grads_close(ours, theirs, where, tol):
    """Per input: None on both sides, or same dtype, same shape and close values."""
    assert len(ours) == len(theirs), where
    rtol, atol = tol
    for i, (g, tg) in enumerate(zip(ours, theirs)):
        at = f"{where}: gradient {i}"
        if tg is None or g is None:
            assert g is None and tg is None, \
                f"{at}: dyngrad {'None' if g is None else 'a tensor'}, torch " \
                f"{'None' if tg is None else 'a tensor'}"
            continue
        assert str(g.dtype) == str(tg.dtype), f"{at}: dtype {g.dtype} != {tg.dtype}"
        assert tuple(g.shape) == tuple(tg.shape), \
            f"{at}: shape {tuple(g.shape)} != {tuple(tg.shape)}"
        torch.testing.assert_close(torch.from_numpy(to_numpy(g)), tg.detach(), rtol=rtol,
                                   atol=atol, equal_nan=True, check_stride=False,
                                   msg=lambda m: f"{at}: {m}")


def assert_same_error(exc, texc, where) -> None:
    assert exc is not None, f"{where}: torch raised {type(texc).__name__}({texc}), dyngrad did not"
    assert type(exc).__name__ == type(texc).__name__ and str(exc) == str(texc), (
        f"{where}: dyngrad raised {type(exc).__name__}({str(exc)!r}), torch "
        f"{type(texc).__name__}({str(texc)!r})")


class StrictXfail:
    """Run a test body; with a reason, expect a failure (strict: passing is an error)."""

    def __init__(self, reason):
        self.reason = reason

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.reason is None:
            return False
        if exc_type is None:
            pytest.fail(f"XPASS(strict): {self.reason}")
        if exc_type is not None and not issubclass(exc_type, Exception):
            return False
        pytest.xfail(self.reason)
