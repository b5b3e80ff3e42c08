"""Conversions and interop against live torch: to/type/type_as and the dtype shorthands,
cpu/cuda, copy_/fill_/zero_, new_*, and the Python/NumPy protocols of Tensor (numpy(),
__array__, tolist, item, __float__/__int__/__bool__/__len__/__iter__/__index__).

Each case is an expression over ``t`` (the library) and ``np``, evaluated with both libraries;
results (or exception type and message) and the warnings raised must agree.
"""
import operator
import warnings

import numpy as np
import pytest
import torch

import dyngrad


def run(expr, lib):
    ns = {"t": lib, "np": np, "operator": operator}
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            result = eval(expr, ns)
        return "ok", result, [str(x.message) for x in w]
    except Exception as e:   # noqa: BLE001 - the exception is the result under test
        return "err", type(e).__name__, str(e)


def assert_same(d, t):
    if isinstance(t, torch.Tensor):
        assert isinstance(d, dyngrad.Tensor), f"expected a Tensor, got {type(d)}"
        assert str(d.dtype) == str(t.dtype)
        assert tuple(d.shape) == tuple(t.shape)
        assert d.stride() == t.stride(), (d.stride(), t.stride())
        assert d.requires_grad == t.requires_grad
        assert (d.grad_fn is None) == (t.grad_fn is None)
        if t.grad_fn is not None:
            assert type(d.grad_fn).__name__ == type(t.grad_fn).__name__
        np.testing.assert_array_equal(d.detach().numpy(), t.detach().numpy())
    elif isinstance(t, (tuple, list)) and not isinstance(t, torch.Size):
        assert type(d) is type(t) and len(d) == len(t)
        for a, b in zip(d, t):
            assert_same(a, b)
    elif isinstance(t, np.ndarray):
        assert isinstance(d, np.ndarray) and d.dtype == t.dtype and d.strides == t.strides
        np.testing.assert_array_equal(d, t)
    elif isinstance(t, (torch.dtype, torch.device)):
        assert str(d) == str(t)
    elif isinstance(t, torch.Size):
        assert isinstance(d, dyngrad.Size) and tuple(d) == tuple(t)
    else:
        assert type(d) is type(t), (d, t)
        assert d == t or (d != d and t != t)


def check(expr, warns=True):
    d, t = run(expr, dyngrad), run(expr, torch)
    if t[0] == "err":
        assert d[0] == "err", f"torch raised {t[1]}: {t[2]!r}; dyngrad returned {d[1]!r}"
        assert d[1:] == t[1:]
        return
    assert d[0] == "ok", f"dyngrad raised {d[1]}: {d[2]}"
    assert_same(d[1], t[1])
    if warns:
        assert d[2] == t[2]


CONVERSION_CASES = [
    '(lambda x: x.to(t.float32) is x)(t.ones(3))',
    '(lambda x: x.to(t.float64) is x)(t.ones(3))',
    "(lambda x: x.to('cpu') is x)(t.ones(3))",
    "(lambda x: x.to(t.device('cpu')) is x)(t.ones(3))",
    "(lambda x: x.to('cpu', t.float32) is x)(t.ones(3))",
    '(lambda x: x.to(t.ones(2, dtype=t.float32)) is x)(t.ones(3))',
    '(lambda x: x.to(t.ones(2, dtype=t.int32)))(t.ones(3))',
    '(lambda x: x.to(t.float32, copy=True) is x)(t.ones(3))',
    '(lambda x: x.to(dtype=t.int32))(t.ones(3))',
    "(lambda x: x.to(device='cpu', dtype=t.int32))(t.ones(3))",
    "(lambda x: x.to('cpu', dtype=t.int32))(t.ones(3))",
    '(lambda x: x.to(t.float32, non_blocking=True) is x)(t.ones(3))',
    '(lambda x: x.to(t.float32, False, True) is x)(t.ones(3))',
    "(lambda x: x.to('cuda'))(t.ones(3))",
    '(lambda x: x.to(0))(t.ones(3))',
    "(lambda x: x.to('foo'))(t.ones(3))",
    '(lambda x: x.to())(t.ones(3))',
    '(lambda x: x.to(t.float64))(t.ones(2,3).t())',
    '(lambda x: x.to(t.float64))(t.ones(2,3)[:, ::2])',
    '(lambda x: x.to(t.float64, memory_format=t.contiguous_format))(t.ones(2,3).t())',
    '(lambda x: x.to(t.float64, memory_format=t.channels_last))(t.ones(2,3,4,5))',
    '(lambda x: x.to(t.float32, memory_format=t.channels_last))(t.ones(2,3,4,5))',
    '(lambda x: x.to(memory_format=t.channels_last))(t.ones(2,3))',
    '(lambda x: x.to(t.float32, memory_format=t.contiguous_format) is x)(t.ones(2,3).t())',
    '(lambda x: x.to(memory_format=t.contiguous_format))(t.ones(2,3,4,5).permute(0,2,3,1))',
    '(lambda x: x.to(memory_format=t.channels_last) is x)(t.ones(2,3,4,5).permute(0,2,3,1))',
    '(lambda x: x.to(t.float64))(t.ones(3, requires_grad=True))',
    '(lambda x: x.to(t.float64).requires_grad)(t.ones(3, requires_grad=True))',
    '(lambda x: x.to(t.int64).grad_fn)(t.ones(3, requires_grad=True))',
    '(lambda x: x.to(t.int64).requires_grad)(t.ones(3, requires_grad=True))',
    '(lambda x: x.to(t.float32, copy=True))(t.ones(3, requires_grad=True))',
    '(lambda x: x.double())(t.ones(3, requires_grad=True))',
    '(lambda x: x.type(t.float64))(t.ones(3, requires_grad=True))',
    '(lambda x: x.type_as(t.ones(1, dtype=t.float64)))(t.ones(3, requires_grad=True))',
    '(lambda x: x.to(t.complex64))(t.ones(3))',
    '(lambda x: x.to(t.float32))(t.tensor([1+2j]))',
    '(lambda x: x.to(t.int64))(t.tensor([1+2j, 3.7-1j]))',
    '(lambda x: x.to(t.bool))(t.tensor([1j, 0j]))',
    '(lambda x: x.to(t.uint8))(t.tensor([300, -1]))',
    '(lambda x: x.to(t.bool))(t.tensor([0.5, 0.]))',
    '(lambda x: x.to(t.float16))(t.tensor([1 + 2**-11 + 2**-40], dtype=t.float64))',
    "(lambda x: x.to(t.int32))(t.tensor([float('nan'), float('inf'), 1e20, -3.7, 300.7]))",
    '(lambda x: x.to(t.uint8))(t.tensor([1.5, 300.7, -3.2]))',
    '(lambda x: x.to(t.int8))(t.tensor([1.5, 300.7, -3.2, 127.9, -128.9]))',
    '(lambda x: x.type())(t.ones(3))',
    '(lambda x: x.type())(t.ones(3, dtype=t.int64))',
    '(lambda x: x.type())(t.ones(3, dtype=t.bool))',
    '(lambda x: x.type())(t.ones(3, dtype=t.complex64))',
    '(lambda x: x.type())(t.ones(3, dtype=t.complex128))',
    '(lambda x: x.type())(t.ones(3, dtype=t.float16))',
    '(lambda x: x.type())(t.ones(3, dtype=t.uint8))',
    '(lambda x: x.type())(t.ones(3, dtype=t.int8))',
    '(lambda x: x.type())(t.ones(3, dtype=t.int16))',
    '(lambda x: x.type())(t.ones(3, dtype=t.float64))',
    '(lambda x: x.type(t.int32))(t.ones(3))',
    "(lambda x: x.type('torch.IntTensor'))(t.ones(3))",
    "(lambda x: x.type('torch.FooTensor'))(t.ones(3))",
    "(lambda x: x.type('float'))(t.ones(3))",
    '(lambda x: x.type(t.float32) is x)(t.ones(3))',
    "(lambda x: x.type('torch.FloatTensor') is x)(t.ones(3))",
    '(lambda x: x.type(dtype=t.int32))(t.ones(3))',
    '(lambda x: x.type(t.int32, non_blocking=True))(t.ones(3))',
    '(lambda x: x.type(t.float64))(t.ones(2,3).t())',
    '(lambda x: x.type_as(t.ones(1, dtype=t.int32)))(t.ones(3))',
    '(lambda x: x.type_as(t.ones(1)) is x)(t.ones(3))',
    '(lambda x: x.type_as(3))(t.ones(3))',
    '(lambda x: x.float() is x)(t.ones(3))',
    '(lambda x: x.half())(t.ones(3))',
    '(lambda x: x.int())(t.ones(3))',
    '(lambda x: x.long())(t.ones(3))',
    '(lambda x: x.short())(t.ones(3))',
    '(lambda x: x.bool())(t.ones(3))',
    '(lambda x: x.byte())(t.ones(3))',
    '(lambda x: x.char())(t.ones(3))',
    '(lambda x: x.cfloat())(t.ones(3))',
    '(lambda x: x.cdouble())(t.ones(3))',
    '(lambda x: x.double())(t.ones(2,3).t())',
    '(lambda x: x.float(memory_format=t.contiguous_format) is x)(t.ones(2,3).t())',
    '(lambda x: x.double(memory_format=t.contiguous_format))(t.ones(2,3).t())',
    '(lambda x: x.cpu() is x)(t.ones(3))',
    '(lambda x: x.cpu(memory_format=t.contiguous_format) is x)(t.ones(2,3).t())',
    '(lambda x: x.cuda())(t.ones(3))',
    '(lambda x: x.cuda(0))(t.ones(3))',
    '(lambda x: x.float(3))(t.ones(3))',
    '(lambda x: x.long(memory_format=t.channels_last))(t.ones(2,3,4,5))',
]


CONVERSION_CASES += [
    "(lambda x: x.to(float))(t.ones(2))", "(lambda x: x.to(int))(t.ones(2))",
    "(lambda x: x.to('cpu', complex))(t.ones(2))", "(lambda x: x.to(dtype=bool))(t.ones(2))",
    "t.ones(2).new_zeros(2, dtype=int)", "t.ones(2).new_tensor([1, 2], dtype=float)",
]


@pytest.mark.parametrize("expr", CONVERSION_CASES)
def test_conversion(expr):
    check(expr, warns=False)


WRITER_CASES = [
    't.zeros(2,3).copy_(t.ones(3))',
    't.zeros(2,3).copy_(t.ones(2))',
    't.zeros(3).copy_(t.ones(2,3))',
    't.zeros(3).copy_(t.ones(1,3))',
    't.zeros(3).copy_(t.ones(()))',
    't.zeros(3, dtype=t.int64).copy_(t.tensor([1.7, -1.7, 2.5]))',
    't.zeros(3, dtype=t.uint8).copy_(t.tensor([300, -1, 2]))',
    't.zeros(3).copy_(t.tensor([1j, 2, 3]))',
    't.zeros(3, dtype=t.bool).copy_(t.tensor([0.5, 0, 2]))',
    't.zeros(3).copy_([1,2,3])',
    't.zeros(3).copy_(3)',
    't.zeros(3, dtype=t.int64).copy_(2.7)',
    't.zeros(3).copy_(np.ones(3))',
    't.zeros(3).copy_(t.ones(3), non_blocking=True)',
    't.zeros(3).copy_(t.ones(3), True)',
    't.zeros(3).copy_(src=t.ones(3))',
    't.zeros(3).expand(2,3).copy_(t.ones(2,3))',
    't.zeros(2,3).t().copy_(t.arange(6.).reshape(3,2))',
    't.zeros(3, dtype=t.float16).copy_(t.tensor([1 + 2**-11 + 2**-40], dtype=t.float64))',
    '(lambda x: (x.copy_(x.t()), x)[1])(t.arange(9.).reshape(3,3))',
    't.zeros(3, requires_grad=True).copy_(t.ones(3))',
    't.zeros(2).fill_(1e300)',
    't.zeros(2, dtype=t.uint8).fill_(300)',
    't.zeros(2, dtype=t.int32).fill_(2**40)',
    't.zeros(2, dtype=t.bool).fill_(2)',
    't.zeros(2, dtype=t.complex128).fill_(2j)',
    't.zeros(2, dtype=t.float64).fill_(2j)',
    't.zeros(2).fill_(t.tensor(3.))',
    't.zeros(2).fill_(t.tensor([3.]))',
    't.zeros(2).fill_(t.tensor(3.5, dtype=t.float64))',
    't.zeros(2, dtype=t.int64).fill_(t.tensor(3.5, dtype=t.float64))',
    't.zeros(2, dtype=t.uint8).fill_(t.tensor(300))',
    't.zeros(2).fill_("a")',
    't.zeros(2).fill_(None)',
    't.zeros(2).fill_(np.float64(2))',
    't.zeros(2).expand(3,2).fill_(1)',
    't.ones(2).zero_()',
    't.ones(2).expand(3,2).zero_()',
    't.ones(2, dtype=t.bool).zero_()',
    't.ones(2,3).t().zero_()',
    't.ones(3, requires_grad=True).zero_()',
    't.ones(3, requires_grad=True).fill_(2)',
]


@pytest.mark.parametrize("expr", WRITER_CASES)
def test_copy_fill_zero(expr):
    check(expr, warns=False)


NEW_CASES = [
    't.ones(2, dtype=t.float64).new_tensor([1, 2])',
    't.ones(2, dtype=t.float64).new_tensor([1j])',
    't.ones(2, dtype=t.int32).new_tensor([1.5, 2])',
    't.ones(2, dtype=t.int32).new_tensor([1.5, 2], dtype=t.float32)',
    't.ones(2, dtype=t.float64).new_tensor(t.tensor([1, 2]))',
    't.ones(2, dtype=t.float64).new_tensor(np.array([1, 2], dtype=np.int32))',
    't.ones(2, dtype=t.float64).new_tensor(3)',
    't.ones(2, dtype=t.float64).new_tensor([1,2], requires_grad=True)',
    't.ones(2, dtype=t.int64).new_tensor([1,2], requires_grad=True)',
    't.ones(2, dtype=t.float64, requires_grad=True).new_tensor([1,2])',
    't.ones(2, dtype=t.float64).new_zeros(2, 3)',
    't.ones(2, dtype=t.float64).new_zeros((2, 3))',
    't.ones(2, dtype=t.float64).new_zeros([2, 3], dtype=t.int32)',
    't.ones(2, dtype=t.float64).new_zeros(2, -1)',
    't.ones(2, dtype=t.float64).new_zeros()',
    't.ones(2, dtype=t.float64).new_zeros(size=(2,))',
    't.ones(2, dtype=t.float64).new_ones(2)',
    't.ones(2, dtype=t.int64).new_ones(2, requires_grad=True)',
    't.ones(2, dtype=t.int64).new_full((2,), 1.5)',
    't.ones(2, dtype=t.int64).new_full((2,), 300.0, dtype=t.uint8)',
    't.ones(2, dtype=t.int64).new_full(2, 1)',
    't.ones(2, dtype=t.int64).new_full([2], 1)',
    't.ones(2, dtype=t.float64).new_empty(2, 3).dtype',
    't.ones(2, dtype=t.float64).new_empty((2, 3)).shape',
    't.ones(2, dtype=t.float64).new_empty(()).shape',
    't.ones(2,3).t().new_zeros(3,2)',
    "t.ones(2, dtype=t.float64).new_ones(2, device='cpu')",
    't.ones(2, dtype=t.float64).new_empty_strided((2,3),(1,2)).stride()',
    't.ones(2).new_tensor([1,2])',
    't.ones(2, dtype=t.float16).new_tensor([[1,2],[3,4]])',
    't.ones(2, dtype=t.bool).new_tensor([1.5, 0])',
    't.ones(2, dtype=t.uint8).new_tensor([300])',
]


@pytest.mark.parametrize("expr", NEW_CASES)
def test_new_constructors(expr):
    check(expr)


# ---------------------------------------------------------------------------------------------
# In-place writers: storage, views, versions, autograd nodes
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("write", [
    lambda v: v.copy_(dyngrad.arange(4.0).reshape(2, 2)), lambda v: v.copy_(dyngrad.ones(2)),
    lambda v: v.copy_(dyngrad.tensor([1, 2], dtype=dyngrad.int64)), lambda v: v.copy_(3),
    lambda v: v.fill_(2.5), lambda v: v.fill_(dyngrad.tensor(4.0)), lambda v: v.zero_(),
])
def test_writers_go_through_views_and_bump_once(write):
    base = dyngrad.full((3, 4), -1.0)
    view = base[1:, ::2]
    v0 = base._version
    assert write(view) is view
    assert base._version == v0 + 1 and view._version == base._version
    arr = base.numpy()
    assert (arr[0] == -1).all() and (arr[1:, 1::2] == -1).all()
    assert (arr[1:, ::2] != -1).all()


def test_fill_and_zero_write_through_expanded_views():
    for lib in (dyngrad, torch):
        b = lib.zeros(3)
        e = b.expand(2, 3)
        v = b._version
        e.fill_(7)
        assert b.tolist() == [7.0, 7.0, 7.0] and b._version == v + 1
        e.zero_()
        assert b.tolist() == [0.0, 0.0, 0.0] and b._version == v + 2


def test_copy_onto_itself():
    for lib in (dyngrad, torch):
        x = lib.arange(4.0)
        v = x._version
        assert x.copy_(x) is x and x._version == v + 1 and x.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("expr", [
    "(lambda x: x.copy_(t.ones(3)))(t.zeros(3, requires_grad=True) * 1)",
    "(lambda y: y.copy_(t.ones(3, requires_grad=True)))(t.zeros(3, dtype=t.float64))",
    "(lambda x: x.fill_(2.))(t.zeros(3, requires_grad=True) * 1)",
    "(lambda x: x.fill_(t.tensor(2.)))(t.zeros(3, requires_grad=True) * 1)",
    "(lambda x: x.zero_())(t.zeros(3, requires_grad=True) * 1)",
    "(lambda x: x.copy_(t.ones(3)))(t.zeros(3, requires_grad=True))",
])
def test_writer_nodes(expr):
    check(expr, warns=False)


def test_complex_to_real_warns_like_torch():
    from dyngrad.ops import creation, pointwise
    pointwise._WARNED.discard(creation._COMPLEX_WARNING)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = dyngrad.tensor([1 + 2j]).to(dyngrad.float32)
        dyngrad.zeros(1).copy_(dyngrad.tensor([3j]))
    assert out.tolist() == [1.0]
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 1      # torch warns once per process (TORCH_WARN_ONCE)
    assert msgs[0].startswith("Casting complex values to real discards the imaginary part")


# ---------------------------------------------------------------------------------------------
# Python and NumPy protocols (implemented in _tensor.py)
# ---------------------------------------------------------------------------------------------
PROTOCOL_CASES = [
    "t.ones(3, requires_grad=True).numpy()", "t.ones(3, requires_grad=True).numpy(force=True)",
    "t.ones(3).numpy(True)",
    "t.ones(2, 3).t().numpy()", "t.tensor(3.5).numpy()",
    "np.asarray(t.ones(3, requires_grad=True))", "np.array(t.ones(3, requires_grad=True))",
    "np.asarray(t.ones(3), dtype=np.float64)", "np.asarray(t.ones(2, 3).t())",
    "np.array(t.ones(2, 3).t())",
    "np.asarray(t.tensor([1, 2], dtype=t.int16))", "np.asarray(t.tensor(True))",
    "t.ones(2, 3).tolist()", "t.tensor(3.5).tolist()", "t.tensor([1 + 2j]).tolist()",
    "t.tensor([True]).tolist()",
    "t.tensor([1.5], dtype=t.float16).tolist()", "t.tensor([1], dtype=t.uint8).tolist()",
    "t.tensor(0.1).tolist()", "t.ones(2, 0).tolist()", "t.tensor(3.5).item()",
    "t.tensor([3.5]).item()",
    "t.tensor([[3]]).item()", "t.ones(2).item()", "t.ones(0).item()",
    "t.tensor(1, dtype=t.int32).item()",
    "t.tensor(True).item()", "t.tensor(1j).item()", "t.tensor(1., dtype=t.float16).item()",
    "t.tensor(0.1).item()", "t.tensor(-7, dtype=t.int8).item()",
    "float(t.tensor(3.5))", "float(t.tensor([3.5]))", "float(t.ones(2))", "float(t.ones(0))",
    "float(t.tensor(1 + 2j))", "float(t.tensor(1 + 0j))", "float(t.tensor(3))",
    "float(t.tensor(True))",
    "float(t.tensor(float('nan')))", "int(t.tensor(3.7))", "int(t.tensor(-3.7))", "int(t.ones(2))",
    "int(t.tensor(float('nan')))", "int(t.tensor(float('inf')))", "int(t.tensor(1 + 2j))",
    "int(t.tensor(2 + 0j))", "int(t.tensor(True))", "complex(t.tensor(1 + 2j))",
    "complex(t.tensor(2.))",
    "complex(t.ones(2))", "complex(t.tensor(3))", "bool(t.tensor(0.))", "bool(t.tensor([2]))",
    "bool(t.ones(2))", "bool(t.ones(0))", "bool(t.tensor(float('nan')))", "bool(t.tensor(0j))",
    "bool(t.tensor([[0]]))", "len(t.ones(3, 2))", "len(t.tensor(3.))", "len(t.ones(0, 2))",
    "list(t.ones(2, 2))", "list(t.tensor(3.))", "[x.shape for x in t.ones(3, 2)]",
    "[1, 2, 3][t.tensor(1)]", "[1, 2, 3][t.tensor([1])]", "[1, 2, 3][t.tensor(1.)]",
    "[1, 2, 3][t.tensor(True)]",
    "[1, 2, 3][t.tensor([1, 2])]", "[1, 2, 3][t.tensor(1, dtype=t.uint8)]",
    "range(10)[t.tensor(3)]",
    "hex(t.tensor(3))", "operator.index(t.tensor([[3]]))", "t.ones(2).__index__()",
    "'{:.2f}'.format(t.tensor(3.14159))", "'%d' % t.tensor(3)", "'%.1f' % t.tensor(2.25)",
    "t.tensor([1.0, 2.0]).numpy().dtype",
    "t.tensor(np.array([1, 2], dtype=np.int32)).numpy().dtype",
    "t.tensor(2.5) + np.float64(1.0)", "np.float64(1.0) * t.tensor([2.5])", "np.sum(t.ones(3))",
]


@pytest.mark.parametrize("expr", PROTOCOL_CASES)
def test_protocols(expr):
    check(expr, warns=False)


def test_numpy_shares_memory():
    x = dyngrad.arange(6.0).reshape(2, 3)
    a = x.numpy()
    a[0, 0] = 9
    assert x[0, 0].item() == 9
    x.add_(1)
    assert a[0, 0] == 10
    b = np.asarray(x)
    assert np.shares_memory(a, b)
    b[1, 1] = -1
    assert x[1, 1].item() == -1
    t = x.t()
    assert np.shares_memory(t.numpy(), a) and t.numpy().strides == (8 // 2, 12)[:0] + (4, 12)
    assert np.asarray(x.detach()).ctypes.data == x.data_ptr()


def test_tensor_of_numpy_copies_and_from_numpy_shares():
    a = np.arange(4.0)
    c = dyngrad.tensor(a)
    s = dyngrad.from_numpy(a)
    a[0] = 100
    assert c[0].item() == 0 and s[0].item() == 100
    assert not np.shares_memory(np.asarray(c), a)


def test_array_protocol_copy_and_dtype():
    x = dyngrad.arange(3.0)
    assert not np.shares_memory(np.array(x), x.numpy())
    assert np.array(x, dtype=np.float64).dtype == np.float64
    assert np.asarray(x, dtype=np.float32) is not None


# ---------------------------------------------------------------------------------------------
# dyngrad.cuda
# ---------------------------------------------------------------------------------------------
def test_cuda_module():
    import importlib
    import dyngrad.cuda as cuda
    assert cuda is dyngrad.cuda
    has_cupy = importlib.util.find_spec("cupy") is not None
    if not has_cupy:
        assert cuda.is_available() is False
        assert cuda.device_count() == 0
    assert cuda.manual_seed(1) is None and cuda.manual_seed_all(1) is None
    assert cuda.is_initialized() is False
    if not cuda.is_available():
        for lib in (dyngrad, torch):
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                lib.ones(2).cuda()
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                lib.zeros(2, device="cuda")
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                lib.cuda.current_device()
