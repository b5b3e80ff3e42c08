"""Row sums at indices as one flat ``add.at`` (Note [Row sums as one flat add.at] in
dyngrad/backends/numpy_backend.py): the same sums as NumPy's row-wise ``add.at``, bit for bit,
and an embedding's gradient equal to torch's bit for bit, repeated indices included."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.backends import numpy_backend as npb


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("out_shape,n_rows", [((1000, 64), 640), ((10, 64), 640), ((5, 3, 4), 50),
                                              ((7, 1), 30), ((7,), 30), ((4, 8), 0), ((0, 3), 0)])
def test_same_sums_as_rowwise_add_at(dtype, out_shape, n_rows):
    rng = np.random.default_rng(1)
    index = rng.integers(0, max(out_shape[0], 1), n_rows) if out_shape[0] else \
        np.zeros(0, np.int64)
    rows = (rng.standard_normal((n_rows,) + out_shape[1:]) * 100).astype(dtype)
    start = (rng.standard_normal(out_shape) * 100).astype(dtype)
    want, got = start.copy(), start.copy()
    np.add.at(want, index, rows)
    npb.add_rows_at(got, index, rows)
    assert got.tobytes() == want.tobytes()


def test_int32_indices_and_a_strided_row_block():
    rng = np.random.default_rng(2)
    index = rng.integers(0, 6, 40).astype(np.int32)
    rows = rng.standard_normal((40, 10)).astype(np.float32)[:, ::2]   # (not contiguous)
    want, got = np.zeros((6, 5), np.float32), np.zeros((6, 5), np.float32)
    np.add.at(want, index, rows)
    npb.add_rows_at(got, index, rows)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("num,dim", [(1000, 64), (10, 64), (50, 3), (7, 1)])
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_gradient_is_torchs_bit_for_bit(num, dim, padding_idx):
    """torch adds each row's gradient into its weight row in the order of the indices; so
    does the flat add.at, element by element."""
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((num, dim)).astype(np.float32)
    index = rng.integers(0, num, (32, 20))
    grad = rng.standard_normal((32, 20, dim)).astype(np.float32)
    grads = []
    for lib in (dyngrad, torch):
        w = lib.tensor(weight, requires_grad=True)
        lib.nn.functional.embedding(lib.tensor(index), w, padding_idx).backward(lib.tensor(grad))
        grads.append(w.grad.numpy())
    assert grads[0].tobytes() == grads[1].tobytes()


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_like_torch(mode):
    rng = np.random.default_rng(4)
    weight = rng.standard_normal((20, 16)).astype(np.float32)
    index = rng.integers(0, 20, 60)
    offsets = np.array([0, 7, 7, 30, 41])
    outs = []
    for lib in (dyngrad, torch):
        w = lib.tensor(weight, requires_grad=True)
        out = lib.nn.functional.embedding_bag(lib.tensor(index), w, lib.tensor(offsets),
                                              mode=mode)
        out.backward(lib.ones_like(out))
        outs.append((out.detach().numpy(), w.grad.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6, atol=1e-6)
