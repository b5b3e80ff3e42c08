"""The layout of pointwise results against torch (Note [Output layout of pointwise ops]): the
strides of broadcast results, size-1 dims included, for contiguous and permuted operands."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import dyngrad


def _operand(lib, shape, order):
    a = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32)
    t = lib.tensor(a.reshape([shape[i] for i in order]))
    inverse = [order.index(i) for i in range(len(order))]
    return t.permute(*inverse) if order else t


@st.composite
def _broadcast_pair(draw):
    nd = draw(st.integers(1, 4))
    out = draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
    shapes = []
    for _ in range(2):
        k = draw(st.integers(0, nd))
        shape = [draw(st.sampled_from([1, n])) for n in out[nd - k:]]
        order = draw(st.permutations(range(k))) if draw(st.booleans()) else list(range(k))
        shapes.append((shape, list(order)))
    return shapes


@settings(max_examples=300, deadline=None)
@given(_broadcast_pair(), st.sampled_from(["add", "mul", "where"]))
def test_broadcast_result_strides_like_torch(pair, op):
    got = []
    for lib in (dyngrad, torch):
        a, b = (_operand(lib, shape, order) for shape, order in pair)
        if op == "where":
            r = lib.where(a > 2, a, b)
        else:
            r = getattr(lib, op)(a, b)
        got.append((tuple(r.shape), r.stride(), r.numpy().tolist()))
    assert got[0] == got[1]


def _odd_strides(lib, dtype=np.float32):
    """A (1, 2) tensor whose size-1 dim has stride 1 (a permuted (2, 1)): NumPy calls it
    contiguous, torch's TensorIterator lets that stride decide where shapes differ."""
    return lib.tensor(np.array([[1, 2]], dtype).reshape(2, 1)).permute(1, 0)


SCALAR_CALLS = {
    "add": lambda lib, a: a + 1, "radd": lambda lib, a: 1 + a, "sub": lambda lib, a: a - 1,
    "rsub": lambda lib, a: 1 - a, "mul": lambda lib, a: a * 2, "div": lambda lib, a: a / 2,
    "rdiv": lambda lib, a: 2 / a, "floor_divide": lambda lib, a: a // 2,
    "remainder": lambda lib, a: a % 2, "fmod": lambda lib, a: lib.fmod(a, 2),
    "pow": lambda lib, a: a ** 2, "rpow": lambda lib, a: 2 ** a,
    "float_power": lambda lib, a: lib.float_power(a, 2),
    "eq": lambda lib, a: a == 1, "ne": lambda lib, a: a != 1, "lt": lambda lib, a: a < 2,
    "le": lambda lib, a: a <= 2, "gt": lambda lib, a: a > 1, "ge": lambda lib, a: a >= 1,
    "where_other": lambda lib, a: lib.where(a > 1, a, 0.0),
    "where_self": lambda lib, a: lib.where(a > 1, 0.0, a),
    "clamp": lambda lib, a: a.clamp(0, 1.5), "lerp": lambda lib, a: lib.lerp(a, a, 0.5),
    "add_alpha": lambda lib, a: lib.add(a, a, alpha=2), "copysign": lambda lib, a: a.copysign(-1),
    "xlogy": lambda lib, a: lib.xlogy(a, 2), "atan2": lambda lib, a: a.atan2(a),
    "bitwise_and": lambda lib, a: a.long() & 1, "bitwise_or": lambda lib, a: a.long() | 1,
    "bitwise_xor": lambda lib, a: a.long() ^ 1, "mul_int": lambda lib, a: a.long() * 3,
}


@pytest.mark.parametrize("name", list(SCALAR_CALLS))
def test_scalar_operand_layout_like_torch(name):
    ours, theirs = (SCALAR_CALLS[name](lib, _odd_strides(lib)) for lib in (dyngrad, torch))
    assert (tuple(ours.shape), ours.stride(), ours.dtype) == \
        (tuple(theirs.shape), theirs.stride(), getattr(dyngrad, str(theirs.dtype)[6:]))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_remembered_layouts_are_kept_apart():
    # _layout remembers each answer by the operands' shapes, strides and item sizes
    from dyngrad import _layout
    c = np.ones((3, 4))
    f, f32 = np.asfortranarray(c), np.asfortranarray(c, dtype=np.float32)
    for _ in range(2):   # the second round reads the remembered answers
        assert _layout.elementwise_strides((3, 4), [f, f]) == (1, 3)
        assert _layout.elementwise_strides((3, 4), [c, c]) == (4, 1)
        assert _layout.elementwise_strides((3, 4), [f32, f32]) == (1, 3)
        assert _layout.elementwise_strides((3, 4), [c, f]) == (4, 1)
        assert _layout.elementwise_strides((3, 4), [f, c]) == (1, 3)


@pytest.mark.parametrize("name", ["nan_to_num", "nan_to_num int", "put", "clone", "add"])
def test_results_laid_out_like_their_input_keep_a_size_1_dims_stride(name):
    """Ops whose result torch allocates as empty_like(self) (nan_to_num, put's clone) keep even
    a size-1 dim's stride of a dense input, which NumPy's results do not; torch's TensorIterator
    ops (add) do the same, unary ufuncs (exp) do not (checked elsewhere)."""
    fns = {"nan_to_num": lambda L, t: t.nan_to_num(),
           "nan_to_num int": lambda L, t: (t * 10).long().nan_to_num(),
           "put": lambda L, t: t.put(L.tensor([0, 4]), L.tensor([1.0, 2.0], dtype=L.float64)),
           "clone": lambda L, t: t.clone(), "add": lambda L, t: t + 1}
    x = np.random.default_rng(0).standard_normal((6, 7, 3))
    for perm, d in [((1, 0, 2), 1), ((2, 0, 1), 1), ((0, 2, 1), 2)]:
        ours = fns[name](dyngrad, dyngrad.tensor(x).permute(*perm).narrow(d, 0, 1))
        theirs = fns[name](torch, torch.tensor(x).permute(*perm).narrow(d, 0, 1))
        assert ours.stride() == theirs.stride(), (perm, d)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
