"""torch.segment_reduce beyond the op database: the backward's NotImplemented node and its
error, and the saved attributes of SegmentReduceBackward0."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad


def _run(lib, reduce):
    x = lib.from_numpy(np.arange(12.0).reshape(6, 2) % 5).requires_grad_()
    out = lib.segment_reduce(x, reduce, lengths=lib.tensor([2, 0, 4]), initial=0.5)
    return x, out


@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "max", "min"])
def test_double_backward_is_not_implemented(reduce):
    results = []
    for lib in (torch, dyngrad):
        x, out = _run(lib, reduce)
        node = out.grad_fn
        saved = (node._saved_reduce, node._saved_axis, node._saved_initial,
                 node._saved_offsets is None, node._saved_lengths.tolist())
        g, = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        try:
            g.sum().backward()
            err = None
        except RuntimeError as e:
            err = str(e)
        results.append((type(node).__name__, saved, type(g.grad_fn).__name__, err,
                        g.detach().numpy()))
    (tn, ts, tg, te, tv), (n, s, g, e, v) = results
    assert (n, s, g, e) == (tn, ts, tg, te)
    assert e == "derivative for aten::_segment_reduce_backward is not implemented"
    np.testing.assert_allclose(v, tv)
