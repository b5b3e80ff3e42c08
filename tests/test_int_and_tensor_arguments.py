"""Arguments torch's parser refuses that dyngrad took: a float or bool ``diagonal`` of
tril/triu (the kernel rounded it down through NumPy), a Python number as the input of clone and
the ``*_copy`` ops (taken as a 0-dim tensor), rrelu's generator in eval mode (unused), and
atleast_Nd's and istft's non-tensors (an AttributeError)."""
from __future__ import annotations

import pytest
import torch

import dyngrad

CALLS = [
    "x.tril(1.5)", "L.tril(x, 1.5)", "x.tril_(1.5)", "L.triu(x, 1.0)", "x.triu(True)",
    "L.tril(x, diagonal=1.5)", "x.tril(L.tensor(1))", "x.triu_(-1)",
    "L.clone(1.5)", "L.expand_copy(1.5, (2,))", "L.alias_copy(2)", "L.detach_copy(1.5)",
    "L.squeeze_copy(1.5)", "L.t_copy(1.5)", "L.permute_copy(1, (0,))", "L.view_copy(1.5, (1,))",
    "L.rrelu(x, generator=1)", "L.rrelu_(x, generator=1)", "L.rrelu(x, 0.1, 0.2, True, 1)",
    "L.rrelu(x, generator=L.Generator())",
    # atleast_Nd hands its binding one tensor or the tuple (it read '_data' of anything)
    'L.atleast_1d("a", "b")', "L.atleast_2d(1.5)", "L.atleast_3d([x, 2])", "L.atleast_1d(None)",
    "[t.shape for t in L.atleast_2d(x, L.ones(3))]",
    # istft's binding checks its input and n_fft (it read 'is_complex' of anything)
    'L.istft("a", "b", "c")', 'x.istft("a", "b", "c")', "L.istft(x, 2.5)", "L.istft(x, True)",
]


def _outcome(lib, expr):
    try:
        r = eval(expr, {"L": lib, "x": lib.ones(3, 3)})
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return type(e).__name__, str(e)
    return "ok", r.tolist() if hasattr(r, "tolist") else [tuple(s) for s in r]


@pytest.mark.parametrize("expr", CALLS)
def test_like_torch(expr):
    assert _outcome(dyngrad, expr) == _outcome(torch, expr)
