"""A non-tensor where torch takes a tensor, for every op of torch's OpInfo database: the first,
second or third argument of the op's first float64 sample replaced by a list, None or a float. The
call must fail as torch's does, with the same exception type and message: the argument
parser's TypeError where torch's function is a binding (``cross(): argument 'input' (position
1) must be Tensor, not list``), the AttributeError where it is Python code that reads an
attribute first. ``KNOWN`` lists the differences left, each a strict xfail with its reason.
"""
from __future__ import annotations

import pytest
import torch

from tests.test_torch_opinfo import _call, _contiguous, _dyngrad_callable, _op_id, _to_dyngrad
from tests.torch_databases import op_db

BAD = ([1.0, 2.0], None, 2.5)

_UNBOUND = ("OpInfo calls the Tensor method unbound (Tensor.item(x)): torch's C method "
            "refuses another type of self, dyngrad's Python method reads the argument's array")
_NUMBER = ("dyngrad's dispatcher takes a Python number as a 0-dim tensor for any input of an op "
           "that declares no scalar inputs; torch's parser refuses it")
_PYTHON = ("torch's Python function reads another attribute of the argument before it calls its "
           "binding, or calls another binding")
KNOWN = {
    **{(name, 0): _UNBOUND for name in (
        "item", "__radd__", "__rmul__", "__getitem__", "cdouble", "cfloat", "__rdiv__",
        "__rmatmul__", "__rmod__", "__rpow__", "__rsub__")},
    ("__rmatmul__", 1): _UNBOUND,
    **{(name, 0): _NUMBER for name in (
        "clone", "expand_copy", "alias_copy", "unfold_copy", "squeeze_copy", "unsqueeze_copy",
        "t_copy", "permute_copy", "unsafe_split", "split_with_sizes", "split_with_sizes_copy",
        "unbind_copy", "transpose_copy", "index_put", "take", "grid_sampler_2d",
        "grid_sampler_3d", "nn.functional.pixel_shuffle", "nn.functional.pixel_unshuffle")},
    **{(name, 1): _NUMBER for name in ("take", "grid_sampler_2d", "grid_sampler_3d", "rsub")},
    **{(name, 0): _PYTHON for name in (
        "nn.functional.adaptive_avg_pool2d", "nn.functional.adaptive_max_pool2d",
        "nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.max_pool3d",
        "nn.functional.softmin", "nn.functional.embedding_bag", "nn.functional.ctc_loss",
        "split", "tensordot", "norm", "unique", "lu", "linalg.norm", "masked.sum",
        "masked.prod")},
    **{(name, 1): _PYTHON for name in (
        "tensordot", "nn.functional.ctc_loss", "trapz", "trapezoid", "cumulative_trapezoid",
        "masked.logaddexp")},
    ("polygamma.polygamma_n_0", 0): "torch's polygamma takes n first: the tensor is argument 2",
    ("special.polygamma.special_polygamma_n_0", 0): "as polygamma, under special_polygamma's name",
    ("torch.ops.aten._safe_softmax.default", 0): "torch.ops calls go through the dispatcher's "
                                                 "schema check (RuntimeError), not the parser",
    ("slice", 0): "as _safe_softmax: an aten op called through torch.ops",
    **{(name, 0): "torch's parser reads a list as a list of tensors (Tensor... tensors)"
       for name in ("atleast_1d", "atleast_2d", "atleast_3d")},
    **{(name, i): "the parser's 'got (...)' lists the keyword arguments, which dyngrad's "
       "message leaves out" for name in ("bucketize", "searchsorted") for i in (0, 1)},
    ("nonzero", 0): "dyngrad's table has nonzero's two overloads of older torch releases "
                    "(as_tuple apart), torch 2.13's parser one",
    **{(name, 0): _UNBOUND + " (the random in-place methods)" for name in (
        "cauchy", "exponential", "geometric", "log_normal", "normal.in_place", "uniform")},
    ("gradient", 0): "the parser's listing of gradient's overloads adds a line on the keywords "
                     "it did not match; dyngrad's table does not word it",
    ("max_pool2d_with_indices_backward", 0): "the sample's call runs F.max_pool2d with "
                                             "return_indices, whose binding torch names",
    **{(name, 0): "torch's Python code computes `A @ ...` first: Python's operator error for "
                  "a number, where dyngrad's matmul names itself" for name in (
        "svd_lowrank", "pca_lowrank")},
    **{(name, 2): "dyngrad's dispatcher numbers its tensor inputs, not torch's arguments: "
                  "the dim or normalized_shape before them is not counted" for name in (
        "scatter_add", "scatter_reduce.sum", "native_layer_norm")},
    ("randint_like", 0): "dyngrad's table lacks randint_like's overloads (low, high and "
                         "generator forms)",
}


def _first_sample(op):
    try:
        return next(iter(op.sample_inputs("cpu", torch.float64, requires_grad=False)))
    except Exception:   # noqa: BLE001  (an op whose samples need what this machine lacks)
        return None


def _cases():
    """(op, its first sample, the position of a tensor argument) for the first variant of each
    op that dyngrad has (test_torch_opinfo.py reports the ones it lacks)."""
    seen = set()
    for op in op_db:
        if torch.float64 not in op.supported_dtypes("cpu") or op.name in seen:
            continue
        seen.add(op.name)
        sample = _first_sample(op)
        if sample is None or _dyngrad_callable(op) is None:
            continue
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
