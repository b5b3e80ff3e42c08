"""repr/str of tensors against live torch, character for character."""
import numpy as np
import pytest
import torch

import dyngrad

# (dyngrad dtype, torch dtype, numpy dtype)
DTYPES = {
    name: (getattr(dyngrad, name), getattr(torch, name), np.dtype(name))
    for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                 "float64", "complex64", "complex128")
}

SHAPES = [
    (), (1,), (5,), (3, 4), (2, 3, 4), (2, 2, 2, 3),
    (0,), (0, 3), (2, 0, 3),
    (1100,), (40, 30), (3, 400), (12, 12, 12), (2, 3, 3, 50),  # > 1000 elements: summarised
    (1, 30), (2, 50), (3, 2, 25),  # rows wider than 80 characters wrap
]


def _real_values(rng, kind, size):
    if kind == "small":
        return rng.randn(size)
    if kind == "mixed":
        return rng.randn(size) * 10.0 ** rng.randint(-3, 4, size)
    if kind == "tiny":
        return rng.randn(size) * 1e-5
    if kind == "huge":
        return rng.randn(size) * 1e10
    if kind == "negative":
        return -np.abs(rng.randn(size)) * 100
    if kind == "nonfinite":
        values = rng.randn(size) * 3
        values[rng.rand(size) < 0.3] = np.nan
        values[rng.rand(size) < 0.2] = np.inf
        values[rng.rand(size) < 0.2] = -np.inf
        return values
    if kind == "integral":
        return np.round(rng.randn(size) * 100)
    if kind == "integral_huge":
        return np.round(rng.randn(size) * 1e9)
    if kind == "zeros":
        values = np.zeros(size)
        values[rng.rand(size) < 0.5] = -0.0
        return values
    raise ValueError(kind)


def make_values(shape, np_dtype, kind, seed=0):
    rng = np.random.RandomState(seed)
    size = int(np.prod(shape))
    if np_dtype.kind == "b":
        values = rng.rand(size) > 0.5
    elif np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        if kind == "small":
            low, high = max(info.min, -5), 10
        else:  # "wide": the whole range of the type
            low, high = info.min, info.max
        values = rng.randint(low, high, size=size, dtype=np.int64)
    elif np_dtype.kind == "f":
        values = _real_values(rng, kind, size)
    else:
        values = _real_values(rng, kind, size) + 1j * _real_values(rng, kind, size)[::-1]
    return values.astype(np_dtype).reshape(shape)


KINDS = (
    [("bool", "small")]
    + [(d, k) for d in ("uint8", "int8", "int16", "int32", "int64") for k in ("small", "wide")]
    + [(d, k) for d in ("float16", "float32", "float64")
       for k in ("small", "mixed", "tiny", "huge", "negative", "nonfinite", "integral",
                 "integral_huge", "zeros")]
    + [(d, k) for d in ("complex64", "complex128")
       for k in ("small", "mixed", "tiny", "nonfinite", "integral")]
)


def both(arr, **kwargs):
    return dyngrad.tensor(arr, **kwargs), torch.tensor(arr, **kwargs)


def assert_same_repr(ours, theirs):
    expected = repr(theirs)
    assert repr(ours) == expected, f"\nours:\n{ours!r}\ntorch:\n{expected}"
    assert str(ours) == expected


@pytest.fixture(autouse=True)
def _restore_printoptions():
    yield
    dyngrad.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype,kind", KINDS)
def test_repr_grid(shape, dtype, kind):
    arr = make_values(shape, DTYPES[dtype][2], kind)
    assert_same_repr(*both(arr))


@pytest.mark.parametrize("seed", range(20))
def test_repr_random_2d_float32(seed):
    rng = np.random.RandomState(seed)
    shape = tuple(rng.randint(1, 9, size=rng.randint(1, 4)))
    scale = 10.0 ** rng.randint(-6, 10)
    arr = (rng.randn(*shape) * scale).astype(np.float32)
    assert_same_repr(*both(arr))


@pytest.mark.parametrize("values", [
    [1.0, 2.0], [0.5], [1e-4, 1.0], [9.99996, 1.0], [0.1, 1000.0], [0.1, 100.0], [1e8, 1.0],
    [1.1e8, 1.0], [-0.0, 1.0], [float("nan")], [float("inf"), float("-inf")], [0.0],
    [123456789.0], [1e-300, 1e300], [99999.5, 0.25],
], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_repr_edge_values(values, dtype):
    arr = np.array(values, dtype=dtype)
    assert_same_repr(*both(arr))
    assert_same_repr(*both(arr[0]))  # 0-dim


@pytest.mark.parametrize("value", [1.0, -2.5, 1e-7, 3e12, float("nan"), 1 + 2j, -1.5 - 0.25j,
                                   complex(0.0, -0.0), True, 7, -3])
def test_repr_python_scalars(value):
    assert_same_repr(dyngrad.tensor(value), torch.tensor(value))


def test_repr_noncontiguous():
    arr = make_values((6, 8), np.dtype("float32"), "small")
    assert_same_repr(*both(arr.T))
    assert_same_repr(*both(arr[::2, 1::3]))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 40), (0,), (0, 2), (1100,)], ids=str)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_repr_requires_grad(shape, dtype):
    arr = make_values(shape, DTYPES[dtype][2], "small")
    assert_same_repr(*both(arr, requires_grad=True))


class _FakeNode:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 40), (13,)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_repr_grad_fn(shape, dtype):
    arr = make_values(shape, DTYPES[dtype][2], "small")
    x = torch.tensor(arr, requires_grad=True)
    theirs = x * 2
    ours = dyngrad.tensor(theirs.detach().numpy())
    ours._requires_grad = True
    ours._grad_fn = _FakeNode(type(theirs.grad_fn).__name__)
    assert_same_repr(ours, theirs)


def test_repr_grad_fn_long_suffix_wraps():
    arr = np.arange(11, dtype=np.float64) + 0.5  # a last line close to 80 characters
    theirs = torch.tensor(arr, requires_grad=True) * 2
    ours = dyngrad.tensor(theirs.detach().numpy())
    ours._grad_fn = _FakeNode("MulBackward0")
    assert_same_repr(ours, theirs)


def test_repr_tensor_contents():
    ours, theirs = both(np.array([1.5, 2.0]))
    assert ours.__repr__(tensor_contents="[abc]") == theirs.__repr__(tensor_contents="[abc]")


def test_repr_subclass_prefix():
    class MyTensor(torch.Tensor):
        pass

    class MyTensorD(dyngrad.Tensor):
        pass

    MyTensorD.__name__ = MyTensor.__name__
    assert_same_repr(MyTensorD([1.0, 2.5]), MyTensor([1.0, 2.5]))


# -- set_printoptions ------------------------------------------------------------------------
PRINT_CASES = [
    dict(precision=2), dict(precision=0), dict(precision=8),
    dict(sci_mode=True), dict(sci_mode=False),
    dict(threshold=5), dict(threshold=0), dict(threshold=5, edgeitems=1),
    dict(threshold=5, edgeitems=0), dict(edgeitems=0), dict(edgeitems=5, threshold=20),
    dict(linewidth=40), dict(linewidth=10), dict(linewidth=200),
    dict(profile="full"), dict(profile="short"), dict(profile="default"),
    dict(profile="short", precision=6), dict(profile="full", linewidth=120),
]

PRINT_SAMPLES = [
    ((5,), "float32", "small"), ((3, 4), "float64", "mixed"), ((2, 3, 4), "int64", "small"),
    ((1100,), "float32", "small"), ((40, 30), "int32", "wide"), ((12, 12, 12), "float32", "tiny"),
    ((), "float32", "small"), ((7,), "complex64", "small"), ((6, 6), "complex128", "mixed"),
    ((4,), "float32", "zeros"), ((9,), "float64", "integral"), ((2, 50), "float32", "huge"),
    ((5,), "float16", "nonfinite"), ((0, 3), "float32", "small"), ((30,), "bool", "small"),
]


@pytest.mark.parametrize("options", PRINT_CASES, ids=str)
@pytest.mark.parametrize("shape,dtype,kind", PRINT_SAMPLES, ids=str)
def test_set_printoptions(options, shape, dtype, kind):
    arr = make_values(shape, DTYPES[dtype][2], kind, seed=1)
    dyngrad.set_printoptions(**options)
    torch.set_printoptions(**options)
    assert dyngrad.get_printoptions() == torch._tensor_str.get_printoptions()
    assert_same_repr(*both(arr))


def test_printoptions_full_large():
    arr = make_values((1200,), np.dtype("float32"), "small")
    dyngrad.set_printoptions(profile="full")
    torch.set_printoptions(profile="full")
    assert_same_repr(*both(arr))


def test_get_printoptions_roundtrip():
    assert dyngrad.get_printoptions() == torch._tensor_str.get_printoptions()
    for options in PRINT_CASES:
        dyngrad.set_printoptions(**options)
        torch.set_printoptions(**options)
        assert dyngrad.get_printoptions() == torch._tensor_str.get_printoptions()
    saved = dyngrad.get_printoptions()
    dyngrad.set_printoptions(precision=1)
    dyngrad.set_printoptions(**saved)
    assert dyngrad.get_printoptions() == saved
    assert list(saved) == list(torch._tensor_str.get_printoptions())


def test_sci_mode_reset_by_every_call():
    dyngrad.set_printoptions(sci_mode=True)
    torch.set_printoptions(sci_mode=True)
    dyngrad.set_printoptions(precision=3)
    torch.set_printoptions(precision=3)
    assert dyngrad.get_printoptions() == torch._tensor_str.get_printoptions()
    assert_same_repr(*both(np.array([1.5, 2.25], dtype=np.float32)))


# -- default dtype and the dtype suffix ------------------------------------------------------
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("shape", [(), (3,), (0,), (2, 0)], ids=str)
def test_dtype_suffix_default_float64(dtype, shape):
    arr = make_values(shape, DTYPES[dtype][2], "small")
    dyngrad.set_default_dtype(dyngrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        assert_same_repr(*both(arr))
        assert_same_repr(*both(arr, requires_grad=True) if arr.dtype.kind in "fc" else both(arr))
    finally:
        dyngrad.set_default_dtype(dyngrad.float32)
        torch.set_default_dtype(torch.float32)


def test_creation_functions():
    for name in ("zeros", "ones"):
        for shape in [(2, 3), (0,), (1100,)]:
            assert_same_repr(getattr(dyngrad, name)(*shape), getattr(torch, name)(*shape))
    assert_same_repr(dyngrad.arange(10), torch.arange(10))
    assert_same_repr(dyngrad.arange(0.0, 2.0, 0.25), torch.arange(0.0, 2.0, 0.25))
    assert_same_repr(dyngrad.zeros(2, 3, dtype=dyngrad.int32), torch.zeros(2, 3, dtype=torch.int32))
