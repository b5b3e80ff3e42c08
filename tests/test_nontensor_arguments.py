"""Wrongly typed arguments, for every op of torch's OpInfo database, against torch: the first,
second or third argument of the op's first float64 sample, where it is a tensor, replaced by a
list, None or a float; any other argument that is not a tensor (a number, bool, dtype or tuple)
replaced by a string. The call must fail as torch's does, with the same exception type and
message: the argument parser's TypeError where torch's function is a binding (``cross():
argument 'input' (position 1) must be Tensor, not list``), the AttributeError where it is
Python code that reads an attribute first. ``KNOWN`` and ``KNOWN_STRINGS`` list the
differences left, each a strict xfail with its reason.
"""
from __future__ import annotations

import functools

import pytest
import torch

from tests.test_torch_opinfo import _call, _contiguous, _dyngrad_callable, _op_id, _to_dyngrad
from tests.torch_databases import op_db

BAD = ([1.0, 2.0], None, 2.5)

_UNBOUND = ("OpInfo calls the Tensor method unbound (Tensor.item(x)): torch's C method "
            "refuses another type of self, dyngrad's Python method reads the argument's array")
_PYTHON = ("torch's Python function reads another attribute of the argument before it calls its "
           "binding, or calls another binding")
KNOWN = {
    **{(name, 0): _UNBOUND for name in (
        "item", "__radd__", "__rmul__", "__getitem__", "cdouble", "cfloat", "__rdiv__",
        "__rmatmul__", "__rmod__", "__rpow__", "__rsub__")},
    ("__rmatmul__", 1): _UNBOUND,
    **{(name, 0): _PYTHON for name in (
        "nn.functional.adaptive_avg_pool2d", "nn.functional.adaptive_max_pool2d",
        "nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.max_pool3d",
        "nn.functional.softmin", "nn.functional.embedding_bag", "nn.functional.ctc_loss",
        "tensordot", "masked.sum",
        "masked.prod")},
    **{(name, 1): _PYTHON for name in (
        "tensordot", "nn.functional.ctc_loss", "trapz", "trapezoid", "cumulative_trapezoid",
        "masked.logaddexp")},
    ("special.polygamma.special_polygamma_n_0", 0): "dyngrad's table lacks special_polygamma, "
                                                    "which takes n first",
    ("torch.ops.aten._safe_softmax.default", 0): "torch.ops calls go through the dispatcher's "
                                                 "schema check (RuntimeError), not the parser",
    ("slice", 0): "as _safe_softmax: an aten op called through torch.ops",
    ("nonzero", 0): "dyngrad's table has nonzero's two overloads of older torch releases "
                    "(as_tuple apart), torch 2.13's parser one",
    **{(name, 0): _UNBOUND + " (the random in-place methods)" for name in (
        "cauchy", "exponential", "geometric", "log_normal", "normal.in_place", "uniform")},
    ("max_pool2d_with_indices_backward", 0): "the sample's call runs F.max_pool2d with "
                                             "return_indices, whose binding torch names",
    **{(name, 0): "torch's Python code computes `A @ ...` first: Python's operator error for "
                  "a number, where dyngrad's matmul names itself" for name in (
        "svd_lowrank", "pca_lowrank")},
}


def _first_sample(op):
    try:
        return next(iter(op.sample_inputs("cpu", torch.float64, requires_grad=False)))
    except Exception:   # noqa: BLE001  (an op whose samples need what this machine lacks)
        return None


def _strided(sample) -> bool:
    """Whether the sample's tensors are all strided (a sparse CSR input cannot cross over)."""
    values = [sample.input, *sample.args, *sample.kwargs.values()]
    return all(v.layout == torch.strided for v in values if isinstance(v, torch.Tensor))


@functools.lru_cache(maxsize=None)
def _ops_and_samples():
    """(op, its first float64 sample) for the first variant of each op that dyngrad has
    (test_torch_opinfo.py reports the ones it lacks)."""
    seen, out = set(), []
    for op in op_db:
        if torch.float64 not in op.supported_dtypes("cpu") or op.name in seen:
            continue
        seen.add(op.name)
        sample = _first_sample(op)
        if sample is not None and _dyngrad_callable(op) is not None and _strided(sample):
            out.append((op, sample))
    return out


def _cases():
    """(op, its first sample, the position of a tensor argument)."""
    for op, sample in _ops_and_samples():
        args = (sample.input,) + tuple(sample.args)
        for position in (0, 1, 2):
            if position >= len(args) or not isinstance(args[position], torch.Tensor):
                continue
            name = _op_id(op)
            reason = KNOWN.get((name, position))
            marks = [] if reason is None else [pytest.mark.xfail(strict=True, reason=reason)]
            yield pytest.param(op, sample, position, id=f"{name}-{position}", marks=marks)


def _outcome(err):
    return "ok" if err is None else f"{type(err).__name__}: {err}"


@pytest.mark.parametrize("op, sample, position", _cases())
def test_non_tensor_argument_like_torch(op, sample, position):
    fn = _dyngrad_callable(op)
    args = list(_contiguous((sample.input,) + tuple(sample.args)))
    kwargs = _contiguous(dict(sample.kwargs))
    for bad in BAD:
        theirs = list(args)
        theirs[position] = bad
        ours = list(_to_dyngrad(tuple(args)))
        ours[position] = bad
        _, err_t = _call(op.op, theirs, kwargs)
        _, err_d = _call(fn, ours, _to_dyngrad(kwargs))
        assert _outcome(err_d) == _outcome(err_t), type(bad).__name__


def test_known_differences_are_cases_of_the_database():
    ids = {(_op_id(op), position) for op, _, position in
           (p.values for p in _cases())}
    assert set(KNOWN) <= ids, set(KNOWN) - ids


# -- a string where torch takes a number, a bool, a dtype or a tuple of ints ----------------------
_SILENT = "dyngrad's Python code takes the string without looking at it (no failure to explain)"
_NO_ENTRY = ("torch's Python function checks or converts the argument itself, or calls a "
             "binding that dyngrad's table lacks: a Python error of its own on each side")
KNOWN_STRINGS = {
    **{(name, i): _SILENT for name, i in (
        ("nn.functional.avg_pool2d", 4), ("nn.functional.avg_pool2d", 5),
        *((f"grid_sampler_{n}d", i) for n in (2, 3) for i in (2, 3, 4)))},
    **{(name, i): _NO_ENTRY for name, i in (
        ("nn.functional.softmin", 1),
        ("nn.functional.adaptive_avg_pool2d", 1), ("nn.functional.adaptive_max_pool1d", 1),
        ("nn.functional.adaptive_max_pool2d", 1), ("nn.functional.fractional_max_pool2d", 1),
        ("nn.functional.fractional_max_pool3d", 1), ("nn.functional.glu", 1),
        ("nn.functional.threshold", 1), ("nn.functional.threshold", 2),
        ("nn.functional.ctc_loss", 2),
        ("nn.functional.ctc_loss", 3), *(("nn.functional.unfold", i) for i in (1, 2, 3, 4)),
        *((f"masked.{n}", 1) for n in ("cumsum", "cumprod", "median", "softmax", "log_softmax",
                                       "softmin")), ("masked.normalize", 2))},
    ("slice", 1): "an aten op called through torch.ops: the dispatcher's schema check",
    ("special.polygamma.special_polygamma_n_0", 1): "polygamma's name, not special_polygamma's",
}


def _string_cases():
    """(op, its first sample, the position of a number, bool, dtype or tuple argument)."""
    for op, sample in _ops_and_samples():
        args = (sample.input,) + tuple(sample.args)
        for position in range(1, len(args)):
            if isinstance(args[position], (torch.Tensor, str)) or args[position] is None:
                continue
            name = _op_id(op)
            reason = KNOWN_STRINGS.get((name, position))
            marks = [] if reason is None else [pytest.mark.xfail(strict=True, reason=reason)]
            yield pytest.param(op, sample, position, id=f"{name}-{position}", marks=marks)


@pytest.mark.parametrize("op, sample, position", _string_cases())
def test_string_argument_like_torch(op, sample, position):
    args = list(_contiguous((sample.input,) + tuple(sample.args)))
    kwargs = _contiguous(dict(sample.kwargs))
    theirs = list(args)
    theirs[position] = "a"
    ours = list(_to_dyngrad(tuple(args)))
    ours[position] = "a"
    _, err_t = _call(op.op, theirs, kwargs)
    _, err_d = _call(_dyngrad_callable(op), ours, _to_dyngrad(kwargs))
    assert _outcome(err_d) == _outcome(err_t)


def test_known_string_differences_are_cases_of_the_database():
    ids = {(_op_id(op), position) for op, _, position in (p.values for p in _string_cases())}
    assert set(KNOWN_STRINGS) <= ids, set(KNOWN_STRINGS) - ids
