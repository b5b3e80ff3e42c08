"""Sums at indices along a dim as one flat ``add.at`` (Note [Row sums as one flat add.at] in
dyngrad/backends/numpy_backend.py): the same sums as NumPy's ``add.at`` along the dim, bit for
bit; an embedding's gradient, index_add and an accumulating index_put equal to torch's bit for
bit, repeated indices included."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.backends import numpy_backend as npb


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("out_shape,n_rows", [((1000, 64), 640), ((10, 64), 640), ((5, 3, 4), 50),
                                              ((7, 1), 30), ((7,), 30), ((4, 8), 0), ((0, 3), 0),
                                              ((256, 1024), 512), ((300, 2, 64), 400),
                                              ((20, 200), 400), ((1, 128), 3)])
def test_same_sums_as_rowwise_add_at(dtype, out_shape, n_rows):
    rng = np.random.default_rng(1)
    index = rng.integers(0, max(out_shape[0], 1), n_rows) if out_shape[0] else \
        np.zeros(0, np.int64)
    rows = (rng.standard_normal((n_rows,) + out_shape[1:]) * 100).astype(dtype)
    start = (rng.standard_normal(out_shape) * 100).astype(dtype)
    want, got = start.copy(), start.copy()
    np.add.at(want, index, rows)
    npb.add_at_axis(got, 0, index, rows)
    assert got.tobytes() == want.tobytes()


def test_int32_indices_and_a_strided_row_block():
    rng = np.random.default_rng(2)
    index = rng.integers(0, 6, 40).astype(np.int32)
    rows = rng.standard_normal((40, 10)).astype(np.float32)[:, ::2]   # (not contiguous)
    want, got = np.zeros((6, 5), np.float32), np.zeros((6, 5), np.float32)
    np.add.at(want, index, rows)
    npb.add_at_axis(got, 0, index, rows)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("num,dim", [(1000, 64), (10, 64), (50, 3), (7, 1), (256, 130)])
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


@pytest.mark.parametrize("shape,axis", [((6, 5, 4), 0), ((6, 5, 4), 1), ((6, 5, 4), 2),
                                        ((3, 7), 1), ((1, 7, 1), 1)])
@pytest.mark.parametrize("broadcast", [False, True])
def test_along_any_axis_with_negative_indices(shape, axis, broadcast):
    rng = np.random.default_rng(5)
    n = shape[axis]
    index = rng.integers(-n, n, 25)
    vshape = shape[:axis] + (25,) + shape[axis + 1:]
    values = rng.standard_normal((1,) + vshape[1:] if broadcast else vshape).astype(np.float32)
    want = rng.standard_normal(shape).astype(np.float32)
    got = want.copy()
    np.add.at(want, (slice(None),) * axis + (index,), values)
    npb.add_at_axis(got, axis, index, values)
    assert got.tobytes() == want.tobytes()


def _same_bits(fn):
    """`fn(lib, x, index, values)` gives the same bits on both libraries: x (30, 8, 5), 50
    indices in [-8, 8), values (50, 30, 5)."""
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal((30, 8, 5)).astype(np.float32),
              rng.integers(-8, 8, 50), rng.standard_normal((50, 30, 5)).astype(np.float32)]
    outs = [fn(lib, *[lib.tensor(a) for a in arrays]).detach().numpy() for lib in (dyngrad, torch)]
    assert outs[0].tobytes() == outs[1].tobytes()


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_index_add_is_torchs_bit_for_bit(dim):
    def fn(lib, x, i, v):
        shape = list(x.shape)
        shape[dim] = 50
        source = lib.cat([v.reshape(-1)] * 2)[:int(np.prod(shape))].reshape(shape)
        return x.index_add(dim, i % x.shape[dim], source * 1.37, alpha=0.5)
    _same_bits(fn)


def test_index_put_accumulate_is_torchs_bit_for_bit():
    _same_bits(lambda lib, x, i, v: x.index_put((i + 8,), v[:, :8], accumulate=True))
    _same_bits(lambda lib, x, i, v: x.index_put((i + 8,), v[0, :8], accumulate=True))
    _same_bits(lambda lib, x, i, v: x.transpose(0, 1).index_put((i,), v, accumulate=True))


@pytest.mark.parametrize("where", ["rows", "columns"])
def test_gradient_of_indexing_is_torchs_bit_for_bit(where):
    def fn(lib, x, i, v):
        x = x.clone().requires_grad_()
        if where == "rows":
            (x[i + 8] * v[:, :8]).sum().backward()
        else:
            (x[:, i] * v.transpose(0, 1)).sum().backward()
        return x.grad
    _same_bits(fn)


@pytest.mark.parametrize("repeats", [1, 8, 9, 40])
def test_wide_rows_by_rounds_or_flat(repeats, monkeypatch):
    """Wide rows go in by rounds while no index repeats more than _ROUNDS times, else flat:
    the same bits either way."""
    calls = []
    real = npb._add_rows_by_rounds
    monkeypatch.setattr(npb, "_add_rows_by_rounds",
                        lambda *a: calls.append(real(*a)) or calls[-1])
    rng = np.random.default_rng(7)
    index = np.repeat(np.arange(5), repeats)
    rng.shuffle(index)
    index[0] = -1   # (counted from the end)
    rows = rng.standard_normal((index.size, 130)).astype(np.float32)
    want, got = np.zeros((6, 130), np.float32), np.zeros((6, 130), np.float32)
    np.add.at(want, index, rows)
    npb.add_at_axis(got, 0, index, rows)
    assert got.tobytes() == want.tobytes()
    assert calls == [repeats <= npb._ROUNDS]


@pytest.mark.parametrize("case", ["plain", "alpha", "source is self", "source overlaps",
                                  "source beside it", "into a view", "into a transposed view",
                                  "0-dim", "int64"])
def test_index_add_in_place_like_torch(case):
    """index_add_ writes into its target where nothing is recorded: torch's values, the
    target's identity, strides and version, a source sharing the target's memory included."""
    rng = np.random.default_rng(8)
    base = rng.standard_normal((6, 4)).astype(np.float32)
    index = np.array([1, 4, 1, 0, 5, 1])
    src = rng.standard_normal((6, 4)).astype(np.float32)
    results = []
    for lib in (dyngrad, torch):
        x = lib.tensor(base if case != "int64" else (base * 10).astype(np.int64))
        i, s = lib.tensor(index), lib.tensor(src if case != "int64" else (src * 10).astype(
            np.int64))
        target = {"into a view": lambda: x[1:], "into a transposed view": lambda: x.t(),
                  "0-dim": lambda: x[2, 3], "source beside it": lambda: x[:3]}.get(
                      case, lambda: x)()
        v0 = target._version
        if case in ("source is self", "source overlaps"):   # (refused by torch's checks)
            with pytest.raises(RuntimeError) as e:
                target.index_add_(0, i[:5], x[1:] if case == "source overlaps" else target)
            results.append((str(e.value), x.numpy().copy(), target._version - v0, None))
            continue
        if case == "source beside it":   # (the same storage, other elements)
            out = target.index_add_(0, i[:3] % 3, x[3:])
        elif case == "into a view":
            out = target.index_add_(0, i[:5] % 5, s[:5], alpha=2)
        elif case == "into a transposed view":
            out = target.index_add_(1, i[:4], s[:4].t())
        elif case == "0-dim":
            out = target.index_add_(0, i[:1] * 0, s[0, 0])
        else:
            out = target.index_add_(0, i, s, alpha=0.5 if case == "alpha" else 1)
        results.append((out is target, x.numpy().copy(), target._version - v0, out.stride()))
    (same_d, xd, vd, sd), (same_t, xt, vt, st) = results
    assert same_d == same_t and vd == vt and sd == st
    assert same_d is True or same_d.endswith(same_t)
    np.testing.assert_array_equal(xd, xt)


def test_wide_rows_by_rounds_are_torchs_bit_for_bit():
    """index_add_ of 512 rows of 1024 (by rounds) and of 30 rows repeating one index (flat)."""
    rng = np.random.default_rng(9)
    base = rng.standard_normal((256, 1024)).astype(np.float32)
    for index in (rng.integers(0, 256, 512), np.full(30, 3)):
        src = rng.standard_normal((index.size, 1024)).astype(np.float32)
        outs = [lib.tensor(base).index_add_(0, lib.tensor(index), lib.tensor(src)).numpy()
                for lib in (dyngrad, torch)]
        assert outs[0].tobytes() == outs[1].tobytes()
