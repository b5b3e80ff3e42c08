"""OpInfo entries for dyngrad/ops/embedding.py: torch.embedding and nn.functional.embedding."""
from __future__ import annotations

import numpy as np

from .core import ALL_DTYPES, OP_DB, OpInfo, SampleInput, make_array, transposed


def _idx(*rows):
    return np.array(rows, dtype=np.int64)


def _embedding(dtype, rng):
    """torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)."""
    w = make_array((5, 3), dtype, rng)
    return [
        SampleInput(w, _idx(1, 2, 4, 1)),
        SampleInput(w, _idx([0, 2], [2, 2]), 2, desc="padding_idx"),
        SampleInput(w, _idx([1, 3], [1, 1]), -1, True, desc="scale_grad_by_freq"),
        SampleInput(w, np.array(3, dtype=np.int64), desc="0-dim indices"),
        SampleInput(w, np.array([0, 4], dtype=np.int32), desc="int32 indices"),
        SampleInput(transposed((3, 5), dtype, rng), _idx(0, 2, 2)),
        SampleInput(w, _idx(5), desc="index out of range"),
        SampleInput(w, np.array([1.0]), desc="float indices"),
        SampleInput(make_array((5,), dtype, rng), _idx(1), desc="1-d weight"),
    ]


def _embedding_functional(dtype, rng):
    """nn.functional.embedding(input, weight, padding_idx, max_norm, norm_type, ...)."""
    w = make_array((6, 4), dtype, rng)
    out = [
        SampleInput(_idx([1, 2], [5, 1]), w),
        SampleInput(_idx(0, 3, 3), w, padding_idx=3),
        SampleInput(_idx(0, 5, 5), w, padding_idx=-1),
        SampleInput(_idx(0, 3, 3, 1), w, scale_grad_by_freq=True),
        SampleInput(_idx(1), w, padding_idx=6, desc="padding_idx out of range"),
    ]
    return out   # max_norm renorms the weight in place: tests/test_normalization.py


OP_DB += [
    OpInfo("embedding", _embedding, ALL_DTYPES, supports_out=False, method=False,
           gradgrad_samples=2, supports_complex_autograd=False),
    OpInfo("nn.functional.embedding", _embedding_functional, ALL_DTYPES, supports_out=False,
           gradgrad_samples=2, supports_complex_autograd=False),
]


def _embedding_bag_functional(dtype, rng):
    """nn.functional.embedding_bag(input, weight, offsets, ..., mode, per_sample_weights, ...)."""
    w = make_array((6, 3), dtype, rng)
    idx = _idx(1, 2, 4, 5, 4, 3, 2, 0)
    off = _idx(0, 2, 2, 5)
    psw = make_array((8,), dtype, rng)
    return [
        SampleInput(idx, w, off, desc="mean, an empty bag"),
        SampleInput(idx, w, off, mode="sum"),
        SampleInput(idx, w, off, mode="max"),
        SampleInput(idx, w, off, mode="sum", per_sample_weights=psw),
        SampleInput(idx, w, off, mode="mean", padding_idx=2),
        SampleInput(idx, w, off, mode="max", padding_idx=4),
        # (no scale_grad_by_freq: torch's CPU gradient scales rows by other rows' counts;
        # see the report in tests/test_normalization.py)
        SampleInput(idx, w, _idx(0, 3, 8), include_last_offset=True),
        SampleInput(_idx([1, 2, 0], [4, 4, 5]), w, mode="sum", desc="2-d input"),
        SampleInput(_idx([1, 2, 0], [4, 4, 5]), w, mode="max"),
        SampleInput(idx.astype(np.int32), w, off, desc="int32 indices"),
        SampleInput(idx, w, _idx(1, 2), desc="offsets[0] != 0"),
        SampleInput(idx, w, _idx(0, 9), include_last_offset=True, desc="offsets[-1] > len"),
        SampleInput(idx, w, off, mode="max", per_sample_weights=psw, desc="psw needs sum"),
        SampleInput(idx, w, desc="no offsets"),
        SampleInput(idx, w, off, mode="median"),
    ]


def _embedding_bag(dtype, rng):
    """torch.embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
    per_sample_weights, include_last_offset, padding_idx): all four results."""
    w = make_array((6, 3), dtype, rng)
    idx = _idx(1, 2, 4, 5, 4, 3, 2, 0)
    off = _idx(0, 2, 2, 5)
    return [SampleInput(w, idx, off, False, mode, False, None, False, pad)
            for mode in (0, 1, 2) for pad in (None, -1)]


EB_GRADGRAD = "torch's embedding_bag backward is not differentiable (no grad_fn)"

OP_DB += [
    OpInfo("nn.functional.embedding_bag", _embedding_bag_functional,
           ("float16", "float32", "float64"), supports_out=False, supports_gradgrad=False),
    OpInfo("embedding_bag", _embedding_bag, ("float16", "float32", "float64"),
           supports_out=False, method=False, supports_gradgrad=False),
]
