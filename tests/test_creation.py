"""Creation functions against live torch: values, dtypes, shapes, strides, errors.

Each case is an expression over ``t`` (the library: dyngrad or torch) and ``np``; it is
evaluated with both and the results (or the exceptions: type and message) must agree.
"""
import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import dyngrad

AVX2 = torch.backends.cpu.get_cpu_capability() == "AVX2"


def run(expr, lib, env=None):
    ns = {"t": lib, "np": np, "math": math, **(env or {})}
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            result = eval(expr, ns)
        return "ok", result, [str(x.message) for x in w]
    except Exception as e:   # noqa: BLE001 - the exception is the result under test
        return "err", type(e).__name__, str(e)


def assert_same(d, t, values=True):
    if isinstance(t, torch.Tensor):
        assert isinstance(d, dyngrad.Tensor), f"expected a Tensor, got {type(d)}"
        assert str(d.dtype) == str(t.dtype)
        assert tuple(d.shape) == tuple(t.shape)
        assert d.stride() == t.stride(), (d.stride(), t.stride())
        assert d.requires_grad == t.requires_grad
        if values:
            np.testing.assert_array_equal(d.detach().numpy(), t.detach().numpy())
    elif isinstance(t, (tuple, list)):
        assert len(d) == len(t)
        for a, b in zip(d, t):
            assert_same(a, b, values)
    elif isinstance(t, torch.dtype):
        assert str(d) == str(t)
    else:
        assert d == t or (isinstance(t, float) and math.isnan(t) and math.isnan(d))


def check(expr, values=True, env=None, warns=False):
    d, t = run(expr, dyngrad, env), run(expr, torch, env)
    if t[0] == "err":
        assert d[0] == "err", f"torch raised {t[1]}: {t[2]!r}, dyngrad returned {d[1]!r}"
        assert d[1:] == t[1:]
        return
    assert d[0] == "ok", f"dyngrad raised {d[1]}: {d[2]}"
    assert_same(d[1], t[1], values)
    if warns:
        assert d[2] == t[2]


# ---------------------------------------------------------------------------------------------
# tensor()
# ---------------------------------------------------------------------------------------------
TENSOR_CASES = [
    # dtype inference
    "t.tensor([1, 2.0])", "t.tensor([1, True])", "t.tensor([True, False])", "t.tensor([1j, 2])",
    "t.tensor(1j)", "t.tensor(3)", "t.tensor(3.5)", "t.tensor(True)", "t.tensor([])",
    "t.tensor([[]])", "t.tensor([[], []])", "t.tensor([[[]]])", "t.tensor([[], [1]])",
    "t.tensor([[1, 2], [3, 4.0]])", "t.tensor([[1, 2.], [3j, 4]])", "t.tensor((1, 2))",
    "t.tensor(range(3))", "t.tensor([range(3)])", "t.tensor([[1, 2], (3, 4)])",
    "t.tensor([True, 2.5])",
    # numpy scalars keep their dtype, and promote
    "t.tensor(np.float64(1.0))", "t.tensor([np.float64(1.0)])", "t.tensor([np.float64(1.0), 2.0])",
    "t.tensor([np.float16(1.0), np.float32(1.0)])", "t.tensor([np.int32(1), 2])",
    "t.tensor([np.int32(1), np.int16(2)])", "t.tensor([np.int32(1), 2.5])",
    "t.tensor([1j, np.float64(1)])", "t.tensor(np.bool_(True))", "t.tensor(np.float32(2.5))",
    "t.tensor(np.complex64(2.5))", "t.tensor(np.int8(3))", "t.tensor(np.array(5))",
    "t.tensor([np.float16(1.1)], dtype=t.float64)", "t.tensor(np.float16(1.1), dtype=t.float64)",
    # 0-dim tensors inside lists are scalars
    "t.tensor([t.tensor(1.), t.tensor(2.)])",
    "t.tensor([t.tensor(1, dtype=t.int32), t.tensor(2.)])",
    "t.tensor([t.tensor(1, dtype=t.int32), 2])", "t.tensor([t.tensor(1, dtype=t.float64), 2])",
    "t.tensor([t.tensor([1.])])", "t.tensor([t.tensor([1.]), t.tensor([2.])])",
    "t.tensor([[t.tensor(1.)]])", "t.tensor([t.tensor(1.5)])", "t.tensor([t.tensor(2j)])",
    "t.tensor([t.tensor(1., dtype=t.float16), 2.5])",
    "t.tensor([t.tensor(1., dtype=t.float16), 2])",
    "t.tensor([t.tensor(True), 2])", "t.tensor([t.tensor(True), t.tensor(False)])",
    "t.tensor([t.tensor(1, dtype=t.uint8), t.tensor(1, dtype=t.int8)])",
    "t.tensor([[t.tensor(2.), 3]], dtype=t.float64)", "t.tensor([t.tensor(2.)], dtype=t.complex64)",
    "t.tensor([t.tensor(2)], dtype=t.bool)", "t.tensor([t.tensor(1., requires_grad=True)])",
    # explicit dtypes and conversions
    "t.tensor([1, 2], dtype=t.float64)", "t.tensor([1.5, 2], dtype=t.complex128)",
    "t.tensor([1.5, 2], dtype=t.bool)", "t.tensor([1j], dtype=t.bool)",
    "t.tensor([1j, 0j], dtype=t.bool)", "t.tensor(-1, dtype=t.uint8)",
    "t.tensor(-255, dtype=t.uint8)",
    "t.tensor(-200, dtype=t.uint8)", "t.tensor(1.5, dtype=t.uint8)", "t.tensor(1.5, dtype=t.int64)",
    "t.tensor(1e300, dtype=t.float32)", "t.tensor(1e10, dtype=t.float16)",
    "t.tensor(70000, dtype=t.float16)", "t.tensor(2, dtype=t.bool)",
    "t.tensor(2**70, dtype=t.float32)",
    "t.tensor(2**63, dtype=t.float64)", "t.tensor(-2**63)", "t.tensor([1, 2**70], dtype=t.float32)",
    "t.tensor([True, 2], dtype=t.uint8)", "t.tensor([np.float64(1.5)], dtype=t.int64)",
    "t.tensor([0.1], dtype=t.float16)", "t.tensor(1 + 2**-11 + 2**-40, dtype=t.float16)",
    "t.tensor([1.7, -1.7, 2.5, -0.5], dtype=t.int32)", "t.tensor([[1.5, 2], [3, 4]], dtype=t.int8)",
    "t.tensor([-1, 255, -255], dtype=t.uint8)", "t.tensor([127, -128], dtype=t.int8)",
    "t.tensor(np.array(300), dtype=t.uint8)", "t.tensor(np.float64(1), dtype=t.float32)",
    # errors
    "t.tensor([[1, 2], [3]])", "t.tensor([[1, 2], [3, 4, 5]])", "t.tensor([[1, 2], []])",
    "t.tensor([[[1, 2], [3, 4]], [[1, 2], [3]]])", "t.tensor([[1, 2], 3])", "t.tensor([1, [2, 3]])",
    "t.tensor([1., [2, 3]])", "t.tensor([1, [2, 3]], dtype=t.complex64)",
    "t.tensor([1, [2, 3]], dtype=t.bool)", "t.tensor([[1, 2], 3], dtype=t.float32)",
    "t.tensor([t.tensor([1., 2])])", "t.tensor([t.tensor(1.5)], dtype=t.int64)",
    "t.tensor([t.tensor(2.)], dtype=t.bool)", "t.tensor('abc')", "t.tensor(['abc'])",
    "t.tensor(None)", "t.tensor([None])", "t.tensor([1, None])", "t.tensor([1, 'a'])",
    "t.tensor({1: 2})", "t.tensor({1, 2})", "t.tensor(2**63)", "t.tensor(2**64)",
    "t.tensor([1, 2**63])",
    "t.tensor(2**63, dtype=t.uint8)", "t.tensor([2**2000], dtype=t.float32)",
    "t.tensor(300, dtype=t.uint8)", "t.tensor(-256, dtype=t.uint8)", "t.tensor(200, dtype=t.int8)",
    "t.tensor(-129, dtype=t.int8)", "t.tensor(1e20, dtype=t.int64)",
    "t.tensor(float('nan'), dtype=t.int64)", "t.tensor([1.5, -1.0], dtype=t.uint8)",
    "t.tensor([300], dtype=t.uint8)", "t.tensor([np.int64(300)], dtype=t.uint8)",
    "t.tensor(np.int64(300), dtype=t.uint8)", "t.tensor([t.tensor(300)], dtype=t.uint8)",
    "t.tensor(1.5j, dtype=t.float32)", "t.tensor([np.float32(1.5)], dtype=t.int64)",
    "t.tensor([np.bool_(True), 1])", "t.tensor([np.array(1.0, dtype=np.float32)])",
    "t.tensor(3, requires_grad=True)", "t.tensor([1, 2], requires_grad=True)",
    "t.tensor([True], requires_grad=True)",
    # requires_grad
    "t.tensor([1., 2.], requires_grad=True)",
    "t.tensor([1, 2], dtype=t.float64, requires_grad=True)",
    "t.tensor([1, 2], dtype=t.complex64, requires_grad=True)",
]


@pytest.mark.parametrize("expr", TENSOR_CASES)
def test_tensor(expr):
    check(expr)


NUMPY_CASES = [
    "t.tensor(np.array([1, 2], dtype=np.int32))", "t.tensor(np.arange(12).reshape(3, 4).T)",
    "t.tensor(np.arange(12).reshape(3, 4).T, dtype=t.float32)",
    "t.tensor(np.arange(12).reshape(3, 4)[:, ::2])",
    "t.tensor(np.arange(12).reshape(3, 4)[:, ::2].T)",
    "t.tensor(np.ones((2, 3, 4)).transpose(2, 0, 1))",
    "t.tensor(np.broadcast_to(np.arange(3), (2, 3)))",
    "t.tensor(np.ones((3, 1)).T)", "t.tensor(np.zeros((0, 3)))", "t.tensor(np.zeros((2, 0, 3)))",
    "t.tensor(np.arange(6.).reshape(2, 3), requires_grad=True)",
    "t.tensor(np.array([1.5, -2.5, 300.7]), dtype=t.uint8)",
    "t.tensor(np.array([1 + 2j]), dtype=t.complex64)",
    "t.tensor(np.arange(4)[::-1])", "t.tensor(np.zeros(3, dtype='>f4'))",
    "t.tensor(np.array(['a']))", "t.tensor(np.zeros(3, dtype=object))",
    "t.tensor([np.array([1, 2], dtype=np.int32), np.array([1, 2], dtype=np.int16)])",
    "t.tensor(np.arange(6, dtype=np.float16).reshape(2, 3).T, dtype=t.float64)",
]


@pytest.mark.parametrize("expr", NUMPY_CASES)
def test_tensor_from_numpy_arrays(expr):
    check(expr)


@pytest.mark.parametrize("expr", [
    "t.tensor(t.arange(4.))", "t.tensor(t.tensor([1, 2]), dtype=t.float64)",
    "t.tensor(t.arange(12).reshape(3, 4).t())", "t.tensor(t.arange(12).reshape(3, 4)[:, ::2])",
    "t.tensor(t.tensor(1., requires_grad=True))",
    "t.tensor(t.tensor(1., requires_grad=True), requires_grad=True)",
])
def test_tensor_from_tensor_warns_and_copies(expr):
    check(expr, warns=True)


def test_tensor_copies_its_inputs():
    a = np.arange(3.0)
    t = dyngrad.tensor(a)
    t[0] = 5
    assert a[0] == 0
    src = dyngrad.arange(3.0)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        c = dyngrad.tensor(src)
    c.add_(1)
    assert src.tolist() == [0.0, 1.0, 2.0]


def test_tensor_is_a_leaf():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    assert x.is_leaf and x.grad_fn is None and x.requires_grad


def test_list_of_arrays_warns_once():
    from dyngrad.ops import pointwise   # (the once-per-process warnings given so far)
    pointwise._WARNED.discard(next(m for m in list(pointwise._WARNED) + [None]
                                   if m is None or m.startswith("Creating")))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        dyngrad.tensor([np.array([1, 2])])
    assert any(str(x.message).startswith("Creating a tensor from a list of numpy.ndarrays")
               for x in w)


# fast path (plain nested lists through NumPy) and the element-by-element path agree with torch
_scalars = st.one_of(st.booleans(), st.integers(-300, 300),
                     st.floats(-1e6, 1e6, allow_nan=False, width=32))
_DTYPES = [None, "float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
           "bool", "complex64"]


@settings(max_examples=80, deadline=None)
@given(data=st.lists(st.lists(_scalars, min_size=2, max_size=2), min_size=0, max_size=4),
       dtype=st.sampled_from(_DTYPES))
def test_tensor_nested_lists_hypothesis(data, dtype):
    expr = "t.tensor(data)" if dtype is None else f"t.tensor(data, dtype=t.{dtype})"
    check(expr, env={"data": data})


def test_tensor_default_dtype_float64():
    for lib in (dyngrad, torch):
        lib.set_default_dtype(lib.float64)
    try:
        for expr in ["t.tensor([1.5])", "t.tensor(1j)", "t.tensor([1, 2])", "t.tensor([])",
                     "t.arange(1.5)", "t.full((2,), 1.5)", "t.linspace(0, 1, 3)",
                     "t.zeros(2)", "t.tensor([np.float32(1), 2.5])"]:
            check(expr)
    finally:
        for lib in (dyngrad, torch):
            lib.set_default_dtype(lib.float32)


# ---------------------------------------------------------------------------------------------
# as_tensor / from_numpy
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "t.as_tensor([1, 2.5])", "t.as_tensor(np.arange(3), dtype=t.float32)", "t.as_tensor(3)",
    "t.as_tensor(t.arange(3), dtype=t.float32)", "t.as_tensor(np.arange(12).reshape(3, 4).T)",
    "t.as_tensor(np.arange(12).reshape(3, 4).T, dtype=t.float32)", "t.as_tensor(np.float64(2.0))",
    "t.as_tensor(np.int32(2))", "t.as_tensor([t.tensor(1.), 2])", "t.as_tensor('x')",
    "t.as_tensor(None)", "t.as_tensor(np.arange(4)[::-1])", "t.as_tensor(np.zeros(3, dtype='>f4'))",
    "t.as_tensor(np.arange(3), requires_grad=True)",
    "t.from_numpy(np.zeros((0, 3)))", "t.from_numpy(np.zeros((2, 0, 3)))",
    "t.from_numpy(np.zeros((3, 1)).T)",
    "t.from_numpy(np.arange(4)[::2])", "t.from_numpy(np.arange(4)[::-1])",
    "t.from_numpy(np.zeros(3, dtype='U3'))", "t.from_numpy(np.zeros(3, dtype=object))",
    "t.from_numpy(np.zeros(3, dtype=np.longdouble))", "t.from_numpy(np.zeros(3, dtype='>f4'))",
    "t.from_numpy([1, 2])", "t.from_numpy(np.float64(1.0))",
    "t.from_numpy(np.ndarray((2,), dtype=np.int32, buffer=np.zeros(9, np.int8), offset=1,"
    " strides=(3,)))",
    "t.from_numpy(np.zeros((2, 2), dtype=[('a', 'f4')]))",
    "t.from_numpy(np.arange(6.).reshape(2, 3))",
])
def test_as_tensor_from_numpy(expr):
    check(expr)


@pytest.mark.parametrize("expr", [
    "t.asarray([1, 2.5])", "t.asarray(np.arange(3))", "t.asarray(np.arange(3), dtype=t.float32)",
    "t.asarray(np.arange(3), copy=False, dtype=t.float32)", "t.asarray(np.arange(3.), copy=True)",
    "t.asarray(t.arange(3.), requires_grad=True)", "t.asarray([1, 2], requires_grad=True)",
    "t.asarray(3.5)", "t.asarray(t.arange(3.), dtype=t.float64)",
])
def test_asarray(expr):
    check(expr)


def test_asarray_shares_unless_copy():
    a = np.arange(3.0)
    t = dyngrad.asarray(a)
    t[0] = 9
    assert a[0] == 9
    c = dyngrad.asarray(a, copy=True)
    c[1] = 7
    assert a[1] == 1
    x = dyngrad.arange(3.0)
    assert dyngrad.asarray(x) is x


def test_from_numpy_and_as_tensor_share_memory():
    a = np.arange(3.0)
    t = dyngrad.from_numpy(a)
    t[0] = 5
    assert a[0] == 5
    a[1] = 7
    assert t[1].item() == 7
    t.add_(1)
    assert a.tolist() == [6.0, 8.0, 3.0] and t._version == 2
    b = np.arange(3.0)
    assert dyngrad.as_tensor(b).data_ptr() == b.ctypes.data
    assert dyngrad.as_tensor(b, dtype=dyngrad.float64).data_ptr() == b.ctypes.data
    assert dyngrad.as_tensor(b, dtype=dyngrad.float32).data_ptr() != b.ctypes.data
    x = dyngrad.arange(3.0)
    assert dyngrad.as_tensor(x) is x and dyngrad.as_tensor(x, dtype=dyngrad.float32) is x
    assert dyngrad.as_tensor(x, device="cpu") is x


def test_from_numpy_views_keep_sharing():
    a = np.arange(12.0).reshape(3, 4)
    t = dyngrad.from_numpy(a)
    v = t[1]
    v.zero_()
    assert (a[1] == 0).all()


# ---------------------------------------------------------------------------------------------
# Factories
# ---------------------------------------------------------------------------------------------
FACTORY_CASES = [
    "t.zeros(2, 3)", "t.zeros((2, 3))", "t.zeros([2, 3])", "t.zeros(t.Size([2, 3]))", "t.zeros(())",
    "t.zeros([])", "t.zeros()", "t.zeros(0, 3)", "t.zeros(2, 0, 3)", "t.zeros(2, -1)",
    "t.zeros((2, -1))",
    "t.zeros(2.5)", "t.zeros(2, 2.5)", "t.zeros((2, 2.5))", "t.zeros('a')", "t.zeros(np.int64(3))",
    "t.zeros(t.tensor(3))", "t.zeros(t.tensor(3.))", "t.zeros((t.tensor(3), 2))", "t.zeros(True)",
    "t.zeros((True, 2))", "t.zeros(2, 3, dtype=t.int32)", "t.zeros(2, size=(3,))",
    "t.zeros(size=(3,))",
    "t.zeros((2, 3), (4,))", "t.zeros(3, dtype=t.complex64)",
    "t.ones(3, dtype=t.bool)", "t.ones(3, requires_grad=True)",
    "t.ones(3, dtype=t.int64, requires_grad=True)",
    "t.ones(3, device='cpu')", "t.ones(3, device=t.device('cpu'))", "t.ones(3, device=0)",
    "t.ones(3, device='cuda')", "t.ones(3, device='foo')", "t.ones(3, layout=t.strided)",
    "t.ones(3, memory_format=t.contiguous_format)", "t.ones(2, -1)", "t.ones(0, 2, dtype=t.uint8)",
    "t.full((2, 3), 1.5)", "t.full((2, 3), 1)", "t.full((2, 3), True)", "t.full((2, 3), 1j)",
    "t.full((2, 3), np.float64(1))", "t.full((2, 3), np.int32(1))", "t.full((2, 3), t.tensor(2.))",
    "t.full((2, 3), t.tensor(2))", "t.full((2, 3), t.tensor(2, dtype=t.int32))",
    "t.full((2,), t.tensor(True))", "t.full((2,), np.bool_(True))",
    "t.full((2, 3), t.tensor([2.]))",
    "t.full(2, 1.)", "t.full([2], 1.)", "t.full(size=(2,), fill_value=3)",
    "t.full((2, 3), 300, dtype=t.uint8)", "t.full((2, 3), 1.5, dtype=t.int64)",
    "t.full((2, 3), 1e300)",
    "t.full((2, 3), 1e300, dtype=t.float16)", "t.full((2, 3), float('nan'), dtype=t.int64)",
    "t.full((2, 3), 2**63)", "t.full((2,), 2**64)", "t.full((2, 3), 1j, dtype=t.float32)",
    "t.full((2, 3), None)", "t.full((2, 3), 'a')", "t.full((2,), 3, requires_grad=True)",
    "t.full((2, -1), 3)", "t.full((2,), 2, dtype=t.bool)", "t.full((2,), -1, dtype=t.bool)",
    "t.full((2,), 0.5, dtype=t.bool)", "t.full((2,), 300, dtype=t.int8)",
    "t.full((2,), 70000, dtype=t.int16)",
    "t.full((2,), 2**40, dtype=t.int32)", "t.full((2,), 1e300, dtype=t.float64)",
    "t.full((2,), float('inf'), dtype=t.float32)", "t.full((2,), float('nan'), dtype=t.float32)",
    "t.full((2,), 1e300, dtype=t.complex64)", "t.full((2,), 1+0j, dtype=t.float32)",
    "t.full((2,), 1+1j, dtype=t.int64)", "t.full((2,), 2**63, dtype=t.float32)",
    "t.full((2,), -255, dtype=t.uint8)", "t.full((2,), -256, dtype=t.uint8)",
    "t.full((2,), 1e20, dtype=t.int64)", "t.full((2,), 3.5, dtype=t.uint8)",
    "t.full((2,), -3.5, dtype=t.uint8)",
    "t.full((2,), 255.5, dtype=t.uint8)", "t.full((2,), -1.0, dtype=t.uint8)",
    "t.full((2,), True, dtype=t.float32)",
    "t.full((1,), 1 + 2**-11 + 2**-40, dtype=t.float16)",
    "t.eye(3)", "t.eye(2, 3)", "t.eye(3, 2, dtype=t.int64)", "t.eye(0)", "t.eye(-1)",
    "t.eye(2, -1)",
    "t.eye(3, dtype=t.bool)", "t.eye(3, requires_grad=True)", "t.eye(2.5)", "t.eye(n=2, m=3)",
    "t.eye(3, dtype=t.complex64)",
    "t.scalar_tensor(3)", "t.scalar_tensor(3.5)", "t.scalar_tensor(True)", "t.scalar_tensor(1j)",
    "t.scalar_tensor(3, dtype=t.int32)", "t.scalar_tensor(t.tensor(2))",
    "t.scalar_tensor(t.tensor([2]))",
    "t.scalar_tensor('a')", "t.scalar_tensor(3, requires_grad=True)",
    "t.scalar_tensor(np.float64(3))",
    "t.scalar_tensor(300, dtype=t.uint8)",
    "t.numel(t.ones(2, 3))", "t.numel([1, 2])", "t.is_tensor(t.ones(2))", "t.is_tensor(3)",
    "t.is_floating_point(t.ones(2))", "t.is_floating_point(t.ones(2, dtype=t.int32))",
    "t.is_floating_point(3.0)", "t.is_complex(t.ones(2, dtype=t.complex64))", "t.is_complex(1j)",
    "t.is_complex(t.ones(2))", "t.is_nonzero(t.tensor([1]))", "t.is_nonzero(t.tensor([0.]))",
    "t.is_nonzero(t.ones(2))", "t.is_nonzero(t.ones(0))",
]


FACTORY_CASES += [
    "t.zeros(2, dtype=float)", "t.tensor([1.5], dtype=int)", "t.arange(3, dtype=float)",
    "t.zeros(2, dtype=str)", "t.zeros(2, dtype='float32')", "t.ones(2, dtype=bool)",
    "t.full((2,), 1, dtype=complex)", "t.zeros_like(t.ones(2), dtype=float)",
    "t.linspace(0, 1, 3, dtype=float)", "t.eye(2, dtype=int)",
]


@pytest.mark.parametrize("expr", FACTORY_CASES)
def test_factories(expr):
    check(expr)


@pytest.mark.parametrize("expr", [
    "t.empty(2, 3)", "t.empty((2, 3))", "t.empty(2, 3, dtype=t.float64)", "t.empty(0, 3)",
    "t.empty(2, -1)", "t.empty((2, -3))", "t.empty(2, 3, 4, 5, memory_format=t.channels_last)",
    "t.empty(2, 3, 4, memory_format=t.channels_last)",
    "t.empty(2, 3, 4, 5, 6, memory_format=t.channels_last_3d)",
    "t.empty(2, memory_format=t.channels_last_3d)",
    "t.empty(2, 3, memory_format=t.preserve_format)",
    "t.empty(2, 3, requires_grad=True)", "t.empty(2, 3, dtype=t.int64, requires_grad=True)",
    "t.empty_strided((2, 3), (1, 2))", "t.empty_strided((2, 3), (3, 1), dtype=t.int32)",
    "t.empty_strided((2, 3), (3,))", "t.empty_strided((2, 3), (-1, 1))", "t.empty_strided((), ())",
    "t.empty_strided((2, 3), (3, 1), requires_grad=True)", "t.empty_strided(2, 1)",
    "t.empty_strided((2, -1), (1, 1))", "t.empty_strided((2, 3), (0, 1))",
    "t.empty_strided((2, 3), (1, 2)).untyped_storage().nbytes()",
    "t.empty_strided((2, 3), (0, 1)).untyped_storage().nbytes()",
    "t.empty_strided((2, 0), (5, 1)).untyped_storage().nbytes()",
])
def test_empty(expr):
    check(expr, values=False)


LIKE_CASES = [
    "t.zeros_like(t.ones(2, 3).t())", "t.zeros_like(t.ones(2, 3)[:, ::2])",
    "t.zeros_like(t.ones(2, 3, 4, 5).permute(0, 2, 3, 1))",
    "t.zeros_like(t.ones(2, 3, 4, 5).permute(0, 2, 3, 1), memory_format=t.contiguous_format)",
    "t.zeros_like(t.ones(2, 3, 4, 5), memory_format=t.channels_last)",
    "t.zeros_like(t.ones(2, 3), memory_format=t.channels_last)",
    "t.zeros_like(t.ones(2, 3), memory_format=t.channels_last_3d)",
    "t.zeros_like(t.ones(3).expand(2, 3))", "t.zeros_like(t.ones(3, 1).expand(3, 4))",
    "t.zeros_like(t.ones(4, 1, 3).transpose(0, 2))", "t.zeros_like(t.ones(2, 3).t()[:, :1])",
    "t.zeros_like(t.ones(2, 3), dtype=t.int64)", "t.zeros_like(t.ones(2, 3), requires_grad=True)",
    "t.zeros_like(t.ones(2, 3, requires_grad=True))",
    "t.zeros_like(t.ones(2, 3, dtype=t.int64), requires_grad=True)",
    "t.zeros_like([1, 2])", "t.ones_like(t.ones(2, 3).t())", "t.full_like(t.ones(2, 3).t(), 7)",
    "t.full_like(t.ones(2, 3, dtype=t.int64), 7.5)",
    "t.full_like(t.ones(2, 3, dtype=t.uint8), 300)",
    "t.full_like(t.ones(2, 3), 7, dtype=t.int32)", "t.full_like(t.ones(2, 3), t.tensor(7.))",
    "t.zeros_like(t.ones(2, 3).t(), memory_format=t.preserve_format)",
    "t.zeros_like(t.ones(1, 3, 1, 1))", "t.zeros_like(t.empty_strided((2, 3, 4), (1, 8, 2)))",
    "t.zeros_like(t.empty_strided((2, 3, 4), (12, 1, 3)))", "t.zeros_like(t.ones(6)[::2])",
    "t.zeros_like(t.ones(2, 0, 3).transpose(0, 2))",
    "t.zeros_like(t.ones(2, 1, 3).transpose(0, 1))",
    "t.zeros_like(t.ones(3, 1).t())", "t.ones_like(t.ones(2, 3, 4, 5).permute(0, 2, 3, 1)[:, ::2])",
    "t.zeros_like(t.empty_strided((2, 3, 4), (12, 0, 3)))", "t.ones_like(t.ones(3), dtype=t.bool)",
]


@pytest.mark.parametrize("expr", LIKE_CASES)
def test_like(expr):
    check(expr)


def test_empty_like_layout():
    check("t.empty_like(t.ones(2, 3).t())", values=False)
    check("t.empty_like(t.ones(2, 3, 4, 5).permute(0, 2, 3, 1)[:, 1:])", values=False)


@pytest.mark.parametrize("expr", [
    "t.zeros((2,), dtype=t.int64, out=t.empty(0))", "t.zeros(3, out=t.empty(0, dtype=t.int64))",
    "t.ones(3, out=t.empty(5, dtype=t.int64), dtype=t.float32)",
    "t.full((2, 3), 1.5, out=t.empty(0, dtype=t.int64))",
    "t.arange(3, out=t.empty(0, dtype=t.float64))", "t.arange(3.5, out=t.empty(0, dtype=t.int64))",
    "t.linspace(0, 1, 3, out=t.empty(0, dtype=t.float64))",
    "t.eye(2, out=t.empty(0, dtype=t.int64))",
    "t.zeros(2, 3, out=t.empty(3, 2).t())",
])
def test_out(expr):
    check(expr)


def test_out_is_returned_and_bumped():
    o = dyngrad.empty(3)
    v = o._version
    r = dyngrad.zeros(3, out=o)
    assert r is o and o._version == v + 1 and o.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------------------------------------
# arange / linspace / logspace
# ---------------------------------------------------------------------------------------------
ARANGE_CASES = [
    "t.arange(5)", "t.arange(5.)", "t.arange(1, 5)", "t.arange(1, 5, 2)", "t.arange(0, 1, 0.1)",
    "t.arange(1, 2.5, 0.5)", "t.arange(True)", "t.arange(np.int32(5))", "t.arange(np.float64(5))",
    "t.arange(t.tensor(5))", "t.arange(t.tensor(5.))", "t.arange(t.tensor(5., dtype=t.float64))",
    "t.arange(5, dtype=t.float64)", "t.arange(0.5, 5, dtype=t.int64)",
    "t.arange(-0.5, 5, dtype=t.int64)",
    "t.arange(0, 5, 0.5, dtype=t.int64)", "t.arange(0, 5, 1.5, dtype=t.int32)", "t.arange(5, 0)",
    "t.arange(5, 0, -1)", "t.arange(0, 5, -1)", "t.arange(0, 5, 0)", "t.arange(0, 5, 0.)",
    "t.arange(0, 0)",
    "t.arange(0, float('inf'))", "t.arange(0, float('nan'))",
    "t.arange(0, float('inf'), dtype=t.int64)",
    "t.arange(5, dtype=t.bool)", "t.arange(5, dtype=t.uint8)", "t.arange(5, dtype=t.complex64)",
    "t.arange(5, dtype=t.float16)", "t.arange(1j)", "t.arange(5, requires_grad=True)",
    "t.arange(5., requires_grad=True)", "t.arange(start=1, end=4)", "t.arange(end=4)",
    "t.arange(1, 4, step=2)", "t.arange(0, 10, 3)", "t.arange(0, -10, -3)",
    "t.arange(-1.0, 1.0, 0.25)",
    "t.arange(0.1, 0.5, 0.1)", "t.arange(1e9, 1e9 + 5)", "t.arange(0, 300, dtype=t.uint8)",
    "t.arange(250, 260, dtype=t.uint8)", "t.arange(1, 10, 3, dtype=t.float32)",
    "t.arange(0, 1, 1/3)",
    "t.arange(0, 1, 1/3, dtype=t.float64)", "t.arange(2**53, 2**53 + 4, dtype=t.float64)",
    "t.arange(10**10, 10**10 + 3)", "t.arange(0, 5, 2.)", "t.arange(0., 5, 2)", "t.arange('a')",
    "t.arange(None)", "t.arange(0, 10, dtype=t.int8)", "t.arange(0, 200, 100, dtype=t.int8)",
    "t.arange(1.5, 3, dtype=t.int64)", "t.arange(0, 5, 0.5, dtype=t.int32)",
    "t.arange(0, 5, 0.3, dtype=t.int32)",
    "t.arange(0, 5, -0.5, dtype=t.int32)", "t.arange(0.5, 5.5, dtype=t.float16)",
    "t.arange(0, 1e10, 1e-10)", "t.arange(1e20, dtype=t.int64)",
    "t.arange(0.7, 5, 1.3, dtype=t.int32)",
    "t.arange(0.7, 5, 1.3, dtype=t.int64)", "t.arange(-0.7, 5, 1.3, dtype=t.int16)",
    "t.arange(-2.5, 5, 1, dtype=t.int16)", "t.arange(-2.5, 5, 1, dtype=t.int64)",
    "t.arange(0, 5, 1.5, dtype=t.uint8)", "t.arange(5, 0, -1.5, dtype=t.int64)",
    "t.arange(5, 0, -1.5, dtype=t.int8)", "t.arange(0, 10, 1.5, dtype=t.float16)",
    "t.arange(0, 2**40, 2**37, dtype=t.int32)", "t.arange(0, 1000, 0.37)", "t.arange(-3, 7, 0.013)",
    "t.arange(1e3, 1e3 + 5, 0.001)", "t.arange(0.3, 100, 0.7, dtype=t.float64)",
]


@pytest.mark.parametrize("expr", ARANGE_CASES)
def test_arange(expr):
    check(expr, values=AVX2)
    if not AVX2:
        check(expr.replace("t.arange", "t.arange") + ".shape")


def _ulp_close(a, b, ulps=1):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "iub":
        np.testing.assert_array_equal(a, b)
        return
    tol = ulps * np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    assert (np.abs(a.astype(np.float64) - b.astype(np.float64)) <= tol).all()


@settings(max_examples=100, deadline=None)
@given(start=st.floats(-100, 100), step=st.floats(1e-3, 3), count=st.integers(0, 3000),
       frac=st.floats(0, 1), neg=st.booleans(),
       dtype=st.sampled_from(["float32", "float64", "float16", "int64", "int32"]))
def test_arange_values_hypothesis(start, step, count, frac, neg, dtype):
    if neg:
        step = -step
    if dtype == "float16":
        start, step, count = start / 4, step * 10, count // 20
    end = start + step * count + step * frac
    expr = f"t.arange({start!r}, {end!r}, {step!r}, dtype=t.{dtype})"
    d, t = run(expr, dyngrad), run(expr, torch)
    assert d[0] == t[0], (d, t)
    if t[0] == "err":
        assert d[1:] == t[1:]
        return
    d, t = d[1], t[1]
    assert tuple(d.shape) == tuple(t.shape)
    if AVX2:
        np.testing.assert_array_equal(d.numpy(), t.numpy())
    else:
        _ulp_close(d.numpy(), t.numpy())


LINSPACE_CASES = [
    "t.linspace(0, 1, 5)", "t.linspace(0, 1, 1)", "t.linspace(0, 1, 0)", "t.linspace(0, 1, -1)",
    "t.linspace(0, 10, 5, dtype=t.int64)", "t.linspace(0, 10, 4, dtype=t.int64)",
    "t.linspace(0, 10, 4, dtype=t.int32)", "t.linspace(0, 10, 7, dtype=t.uint8)",
    "t.linspace(10, 0, 7, dtype=t.uint8)", "t.linspace(-5, 5, 7, dtype=t.int8)",
    "t.linspace(0, 10, 5, dtype=t.bool)", "t.linspace(0, 1, 5, dtype=t.float64)",
    "t.linspace(0, 1, 5, dtype=t.complex64)", "t.linspace(0, 1j, 5)", "t.linspace(1j, 2, 3)",
    "t.linspace(t.tensor(0.), t.tensor(1.), 3)", "t.linspace(t.tensor(0), t.tensor(1), 3)",
    "t.linspace(t.tensor(0, dtype=t.float64), t.tensor(1), 3)", "t.linspace(t.tensor([0.]), 1, 3)",
    "t.linspace(t.tensor([0.]), t.tensor(1.), 3)", "t.logspace(t.tensor(0.), t.tensor([1.]), 3)",
    "t.logspace(0, t.tensor([1.]), 3)",
    "t.linspace(0, 1, t.tensor(3))", "t.linspace(0, 1, 5, requires_grad=True)",
    "t.linspace(0, 1, 5, dtype=t.float16)",
    "t.linspace(0, 1, 5, dtype=t.int64, requires_grad=True)",
    "t.linspace(0, 1, steps=5)", "t.linspace(start=0, end=1, steps=5)",
    "t.linspace(0, 300, 5, dtype=t.uint8)", "t.linspace(0.7, 9.9, 5, dtype=t.int64)",
    "t.linspace(1e300, 1e301, 5)", "t.linspace(0.3, 7.9, 37)", "t.linspace(-3, 100, 1001)",
    "t.linspace(-1e6, 1, 257, dtype=t.float64)", "t.linspace(3, -7, 50, dtype=t.float16)",
    "t.linspace(0, 1 + 2j, 7)", "t.linspace(-1 - 1j, 3 + 2j, 7, dtype=t.complex128)",
    "t.linspace(0, 10**12, 7, dtype=t.int64)",
    "t.logspace(0, 2, 3)", "t.logspace(0, 2, 3, base=2)", "t.logspace(0, 2, 3, dtype=t.int64)",
    "t.logspace(0, 2, 3, base=2, dtype=t.int64)", "t.logspace(0, 3, 4, dtype=t.uint8)",
    "t.logspace(0, 1, 1)", "t.logspace(0, 1, 0)", "t.logspace(0, 1, -2)",
    "t.logspace(0, 2, 3, dtype=t.float64)",
    "t.logspace(-1, 1, 3, base=0.5)", "t.logspace(0, 2, 3, base=-2)",
    "t.logspace(0, 2, 3, dtype=t.bool)",
    "t.logspace(-3, 3, 77)", "t.logspace(-3, 3, 77, dtype=t.float64)",
    "t.logspace(-2, 1, 40, dtype=t.float16)",
    "t.logspace(1, 0, 1)",
]


@pytest.mark.parametrize("expr", LINSPACE_CASES)
def test_linspace_logspace(expr):
    if "1j" in expr or "2j" in expr:   # complex: within rounding
        d, t = run(expr, dyngrad), run(expr, torch)
        assert_same(d[1], t[1], values=False)
        np.testing.assert_allclose(d[1].numpy(), t[1].numpy(), rtol=1e-6, atol=1e-6)
        return
    check(expr, values="logspace" not in expr)
    if "logspace" in expr and run(expr, torch)[0] == "ok":   # values within 2 ulp (see below)
        _assert_logspace_close(run(expr, dyngrad)[1].numpy(), run(expr, torch)[1].numpy())


def _assert_logspace_close(ours, theirs):
    """logspace is base ** linspace: the powers come from the CPU's vectorised pow, in NumPy
    (SVML on AVX-512) and in torch alike, which differ in the last bit between AVX2 and AVX-512
    machines; so floating results agree within 2 ulp, integer ones exactly."""
    if ours.dtype.kind not in "fc":
        np.testing.assert_array_equal(ours, theirs)
        return
    np.testing.assert_allclose(ours, theirs, rtol=2 * np.finfo(ours.dtype).eps, atol=0)


@settings(max_examples=80, deadline=None)
@given(start=st.floats(-100, 100), end=st.floats(-1000, 1000), steps=st.integers(2, 600),
       dtype=st.sampled_from(["float32", "float64", "float16", "int64", "int16"]))
def test_linspace_values_hypothesis(start, end, steps, dtype):
    if dtype == "int16":
        start, end = int(start), int(end)
    d = dyngrad.linspace(start, end, steps, dtype=getattr(dyngrad, dtype))
    t = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
    np.testing.assert_array_equal(d.numpy(), t.numpy())


@settings(max_examples=60, deadline=None)
@given(start=st.floats(-3, 3), end=st.floats(-3, 3), steps=st.integers(1, 300),
       base=st.floats(0.1, 12), dtype=st.sampled_from(["float32", "float64", "float16"]))
def test_logspace_values_hypothesis(start, end, steps, base, dtype):
    d = dyngrad.logspace(start, end, steps, base=base, dtype=getattr(dyngrad, dtype))
    t = torch.logspace(start, end, steps, base=base, dtype=getattr(torch, dtype))
    _assert_logspace_close(d.numpy(), t.numpy())


_fma_floats = st.one_of(st.floats(-1e30, 1e30, allow_nan=False),
                        st.integers(-3000, 3000).map(float),
                        st.integers(-80, 10).map(lambda k: 2.0 ** k))


@settings(max_examples=100, deadline=None)
@given(a=_fma_floats, b=_fma_floats, c=_fma_floats)
def test_fma_emulation_is_correctly_rounded(a, b, c):
    from fractions import Fraction
    from dyngrad.ops.range_factories import _fma, _fma32
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    assert float(_fma(np.array([a]), b, c)[0]) == float(exact)
    a32, b32, c32 = (float(np.float32(v)) for v in (a, b, c))
    exact32 = Fraction(a32) * Fraction(b32) + Fraction(c32)
    got = np.float32(_fma32(np.array([a32]), b32, c32)[0])
    if np.isfinite(got):
        below, above = np.nextafter(got, np.float32(-np.inf)), np.nextafter(got, np.float32(np.inf))
        err = abs(Fraction(float(got)) - exact32)
        assert err <= abs(Fraction(float(below)) - exact32) and \
            err <= abs(Fraction(float(above)) - exact32)


@pytest.mark.parametrize("expr", [
    "t.ones(3)", "t.tensor([1.])", "t.arange(3)", "t.rand(2)", "t.zeros_like(t.ones(2))",
    "t.from_numpy(np.ones(2))", "t.full((2,), 3)", "t.linspace(0, 1, 3)", "t.empty(2)",
])
def test_factories_make_inference_tensors_in_inference_mode(expr):
    for lib in (dyngrad, torch):
        with lib.inference_mode():
            x = eval(expr, {"t": lib, "np": np})
        flag = x.is_inference() if callable(x.is_inference) else x.is_inference
        assert flag is True
        y = eval(expr, {"t": lib, "np": np})
        flag = y.is_inference() if callable(y.is_inference) else y.is_inference
        assert flag is False


# -- out= of the factories: the range factories keep out's shape when the count matches ----------
@pytest.mark.parametrize("factory", [
    lambda L, o: L.arange(0.0, 1.0, 0.25, out=o),
    lambda L, o: L.linspace(0, 1, 4, out=o),
    lambda L, o: L.logspace(0, 1, 4, out=o),
    lambda L, o: L.range(0, 3, out=o),
    lambda L, o: L.zeros(4, out=o),
    lambda L, o: L.full((4,), 2.0, out=o),
    lambda L, o: L.arange(0.0, 1.0, 0.5, out=o),
], ids=["arange", "linspace", "logspace", "range", "zeros", "full", "arange fewer"])
@pytest.mark.parametrize("layout", ["matrix", "transposed matrix"])
def test_factory_out_shape_like_torch(factory, layout):
    import warnings
    got = []
    for L in (torch, dyngrad):
        o = L.zeros(2, 2) if layout == "matrix" else L.zeros(2, 2).t()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # (range's deprecation; arange's resize notice)
            r = factory(L, o)
        got.append((r is o, tuple(o.shape), o.stride(), o.tolist()))
    assert got[1] == got[0]
