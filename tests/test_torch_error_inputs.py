"""The error inputs of torch's OpInfo database (``op.error_inputs``: the calls torch's own tests
expect to fail), run through torch and through dyngrad: the same exception type and the same
message. ``KNOWN`` lists the differences left, each a strict xfail with its reason.

The samples cross over with their aliasing kept where it is plain (one tensor passed twice stays
one tensor); a sample that cannot cross at all (a meta tensor, 65 dims) is left out.
"""
from __future__ import annotations

import functools
import warnings

import pytest
import torch

import dyngrad
from tests.test_torch_opinfo import _call, _dyngrad_callable, _op_id
from tests.torch_databases import op_db


def _to_dyngrad(v, memo):
    """`v` with its torch tensors as dyngrad tensors, one per torch tensor."""
    if isinstance(v, torch.Tensor):
        if id(v) not in memo:
            if v.requires_grad:
                memo[id(v)] = dyngrad.tensor(v.detach().numpy().copy()).requires_grad_()
            else:
                try:
                    memo[id(v)] = _same_memory(v, memo)
                except RuntimeError:   # (torch left it larger than its storage: cat's samples)
                    memo[id(v)] = dyngrad.tensor(v.detach().numpy().copy())
        return memo[id(v)]
    if isinstance(v, torch.dtype):
        return getattr(dyngrad, str(v).split(".")[1])
    if isinstance(v, (list, tuple)):
        return type(v)(_to_dyngrad(x, memo) for x in v)
    if isinstance(v, dict):
        return {k: _to_dyngrad(x, memo) for k, x in v.items()}
    return v


def _same_memory(v, memo):
    """A dyngrad tensor with `v`'s values laid out as `v` is: tensors over one torch storage
    are views of one dyngrad tensor, with their sizes, strides and offsets, so that an out=
    overlapping an input, or expanded, stays so."""
    st = v.untyped_storage()
    key = ("storage", st.data_ptr(), st.nbytes(), v.dtype)
    base = memo.get(key)
    if base is None:
        flat = torch.tensor([], dtype=v.dtype).set_(st, 0, (st.nbytes() // v.element_size(),))
        base = memo[key] = dyngrad.tensor(flat.numpy().copy())
    return base.as_strided(tuple(v.shape), v.stride(), v.storage_offset())


_UNBOUND = ("OpInfo calls the Tensor method unbound with a number as self: torch's C method "
            "refuses it, dyngrad's Python method reads the number's array")
_SPARSE = "the sample asks for a sparse layout, which dyngrad does not have"
KNOWN = {
    **{(name, i): _UNBOUND for name in ("__radd__", "__rmul__", "__rand__", "__ror__",
                                       "__rxor__", "__rdiv__") for i in (0, 1)},
    **{(f"signal.windows.{name}", 1): _SPARSE for name in (
        "hamming", "hann", "bartlett", "blackman", "cosine", "exponential", "gaussian", "kaiser",
        "general_cosine", "general_hamming", "nuttall")},
    **{(f"nn.functional.conv{n}d", 5): "dyngrad checks the stride's length against the "
       "weight before torch's checks of the input's and the weight's dims" for n in (1, 2, 3)},
    **{("cat", i): "out= shares its storage with one of cat's inputs: torch's resize of it "
                   "fails ('Trying to resize storage that is not resizable'), dyngrad resizes "
                   "it or reports the overlap" for i in (6, 7, 8)},
}


@functools.lru_cache(maxsize=None)
def _error_cases():
    """(op, error sample index, its sample input) for each error input torch raises on here."""
    out = []
    for op in op_db:
        if _dyngrad_callable(op) is None:
            continue
        try:
            errors = list(op.error_inputs("cpu"))
        except Exception:   # noqa: BLE001  (an op whose error inputs need what this lacks)
            continue
        for i, error in enumerate(errors):
            s = error.sample_input
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, err = _call(op.op, (s.input,) + tuple(s.args), dict(s.kwargs))
            if err is None:   # (an error input for another device or build passes here)
                continue
            try:
                _to_dyngrad(((s.input,) + tuple(s.args), dict(s.kwargs)), {})
            except Exception:   # noqa: BLE001  (a meta tensor, 65 dims: nothing to cross with)
                continue
            out.append((op, i, s))
    return out


def _cases():
    for op, i, sample in _error_cases():
        name = _op_id(op)
        reason = KNOWN.get((name, i))
        marks = [] if reason is None else [pytest.mark.xfail(strict=True, reason=reason)]
        yield pytest.param(op, sample, id=f"{name}-{i}", marks=marks)


def _outcome(err):
    return "ok" if err is None else f"{type(err).__name__}: {err}"


@pytest.mark.parametrize("op, sample", _cases())
def test_error_input_like_torch(op, sample):
    args = (sample.input,) + tuple(sample.args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, theirs = _call(op.op, args, dict(sample.kwargs))
        memo = {}
        ours_args = _to_dyngrad(args, memo)
        ours_kwargs = _to_dyngrad(dict(sample.kwargs), memo)
    _, ours = _call(_dyngrad_callable(op), ours_args, ours_kwargs)
    assert _outcome(ours) == _outcome(theirs)
