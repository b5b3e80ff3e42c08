"""Small public-API pieces a PyTorch user reaches for, each against live torch: Tensor's
``in``/``reversed``/``__long__``/``__nonzero__``/``__div__``/``__setstate__``, ``as_subclass``,
``storage_type``, ``grad_dtype``; ``torch.version``, ``torch.torch_version``, ``torch.types``,
the ``memory_format``/``layout`` classes, ``torch.Storage``, the ``has_*`` flags, the device
errors, ``torch.utils.swap_tensors``, ``torch.utils.hooks`` and
``torch.autograd.is_view_replay_enabled``."""
import collections
import copy
import io
import pickle
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import dyngrad

from compare import like_torch, same_outcome


# -- Tensor.__contains__ ------------------------------------------------------------------------
CONTAINS = {
    "int_in": lambda L: 2 in L.tensor([1, 2, 3]),
    "int_out": lambda L: 5 in L.tensor([1, 2, 3]),
    "float_in_int": lambda L: 2.0 in L.tensor([1, 2, 3]),
    "bool": lambda L: True in L.tensor([1, 0]),
    "complex": lambda L: (2 + 0j) in L.tensor([1, 2, 3]),
    "numpy_scalar": lambda L: np.int64(2) in L.tensor([1, 2, 3]),
    "numpy_float": lambda L: np.float32(0.5) in L.tensor([0.5, 2.0]),
    "nan": lambda L: float("nan") in L.tensor([float("nan")]),
    "tensor_0d": lambda L: L.tensor(2) in L.tensor([1, 2, 3]),
    "tensor_row": lambda L: L.tensor([1, 2]) in L.tensor([[1, 2], [3, 4]]),
    "tensor_any": lambda L: L.tensor([1, 5]) in L.tensor([[1, 2], [3, 4]]),
    "tensor_none": lambda L: L.tensor([7, 5]) in L.tensor([[1, 2], [3, 4]]),
    "empty": lambda L: 1 in L.tensor([]),
    "method": lambda L: L.tensor([1.5]).__contains__(1.5),
    "mismatch": lambda L: L.tensor([1, 2, 3]) in L.tensor([[1, 2], [3, 4]]),
    "str": lambda L: "a" in L.tensor([1, 2]),
    "none": lambda L: None in L.tensor([1, 2]),
    "list": lambda L: [1] in L.tensor([1, 2]),
    "ndarray": lambda L: np.array(2) in L.tensor([1, 2]),
    "no_arg": lambda L: L.tensor([1]).__contains__(),
    "two_args": lambda L: L.tensor([1]).__contains__(1, 2),
}


@pytest.mark.parametrize("case", sorted(CONTAINS))
def test_contains(case):
    same_outcome(CONTAINS[case])


def test_contains_returns_bool():
    assert type(dyngrad.tensor([1, 2]).__contains__(2)) is bool


# -- reversed, __long__, __nonzero__, __div__, __idiv__ ----------------------------------------
def test_reversed_flips_dim_0():
    like_torch(lambda L: reversed(L.arange(6.).reshape(3, 2)))
    like_torch(lambda L: reversed(L.tensor([1., 2., 3.], requires_grad=True) * 2))
    like_torch(lambda L: L.arange(4).__reversed__())


def test_reversed_0d_is_the_tensor_itself():
    for L in (torch, dyngrad):
        t = L.tensor(3.)
        assert reversed(t) is t


def test_reversed_extra_argument():
    same_outcome(lambda L: L.arange(3).__reversed__(1))


SCALARS = {
    "many": lambda L: L.tensor([1.5, 2.0]),
    "float": lambda L: L.tensor(2.7),
    "negative": lambda L: L.tensor([-2.7]),
    "complex": lambda L: L.tensor(1 + 2j),
    "bool": lambda L: L.tensor(True),
    "empty": lambda L: L.tensor([]),
    "int": lambda L: L.tensor([[7]]),
    "zero": lambda L: L.tensor(0.0),
}


@pytest.mark.parametrize("name", ["__long__", "__nonzero__"])
@pytest.mark.parametrize("case", sorted(SCALARS))
def test_long_and_nonzero(name, case):
    same_outcome(lambda L: getattr(SCALARS[case](L), name)())


def test_long_and_nonzero_types():
    assert type(dyngrad.tensor(2.5).__long__()) is int
    assert type(dyngrad.tensor(2.5).__nonzero__()) is bool


DIV = {
    "div": lambda L: L.tensor([4., 6.]).__div__(2),
    "div_int": lambda L: L.tensor([4, 6]).__div__(4),
    "div_tensor": lambda L: L.tensor([4., 6.], requires_grad=True).__div__(L.tensor([2., 3.])),
    "div_str": lambda L: L.tensor([4., 6.]).__div__("x"),
    "idiv": lambda L: L.tensor([4., 6.]).__idiv__(2),
    "idiv_int": lambda L: L.tensor([4, 6]).__idiv__(4),
}


@pytest.mark.parametrize("case", sorted(DIV))
def test_python2_division(case):
    same_outcome(DIV[case])


def test_idiv_is_in_place():
    for L in (torch, dyngrad):
        a = L.tensor([4., 6.])
        assert a.__idiv__(2) is a and a.tolist() == [2., 3.] and a._version == 1


# -- __setstate__ -------------------------------------------------------------------------------
def _setstate(state):
    def run(L):
        t = L.zeros(3)
        t.__setstate__(state(L))
        return t
    return run


SETSTATE = {
    "grad_state": _setstate(lambda L: (True, False, collections.OrderedDict())),
    "no_grad_state": _setstate(lambda L: (False, False, None)),
    "variable": _setstate(lambda L: (L.ones(2), None, False, True, None)),
    "tensor_untyped": _setstate(lambda L: (L.arange(6.).untyped_storage(), 1, (2,), (2,))),
    "tensor_sizes": _setstate(lambda L: (L.arange(6.).untyped_storage(), 0, (2, 2), (1, 2))),
    "short": _setstate(lambda L: (1, 2)),
    "none": _setstate(lambda L: None),
    "int_requires_grad": lambda L: L.zeros(3, dtype=L.long).__setstate__((True, False, None)),
    "non_leaf": lambda L: (L.zeros(3, requires_grad=True) * 2).__setstate__((True, False, None)),
}


@pytest.mark.parametrize("case", sorted(SETSTATE))
def test_setstate(case):
    same_outcome(SETSTATE[case])


def test_setstate_typed_storage():
    same_outcome(_setstate(lambda L: (L.arange(6.)._typed_storage(), 1, (2,), (2,))))


def test_setstate_hooks_run():
    def run(L):
        hooks = collections.OrderedDict()
        hooks[0] = lambda g: g * 10
        t = L.zeros(2)
        t.__setstate__((True, False, hooks))
        (t * 1).sum().backward()
        return t.grad
    like_torch(run)


# -- as_subclass --------------------------------------------------------------------------------
def _subclass(L):
    return type("M", (L.Tensor,), {})


def _as_subclass_case(make):
    def run(L):
        M = _subclass(L)
        src = make(L)
        m = src.as_subclass(M)
        return (type(m).__name__, m.requires_grad, m.is_leaf, m is src,
                None if m.grad_fn is None else type(m.grad_fn).__name__,
                m.data_ptr() == src.data_ptr(), m._version, m.tolist(), repr(m))
    return run


AS_SUBCLASS = {
    "leaf": _as_subclass_case(lambda L: L.tensor([1., 2.], requires_grad=True)),
    "non_leaf": _as_subclass_case(lambda L: L.tensor([1., 2.], requires_grad=True) * 2),
    "no_grad": _as_subclass_case(lambda L: L.arange(3)),
    "view": _as_subclass_case(lambda L: L.arange(4.)[1:]),
}


@pytest.mark.parametrize("case", sorted(AS_SUBCLASS))
def test_as_subclass(case):
    same_outcome(AS_SUBCLASS[case])


def test_as_subclass_shares_memory_version_and_base():
    for L in (torch, dyngrad):
        M = _subclass(L)
        a = L.ones(3)
        s = a.as_subclass(M)
        s[0] = 5
        assert a.tolist() == [5., 1., 1.] and a._version == s._version == 1
        assert s._base is a
        v = a[1:]
        assert v.as_subclass(M)._base is a
        a.foo = 3
        assert not hasattr(a.as_subclass(M), "foo")


def test_as_subclass_backward():
    def run(L):
        M = _subclass(L)
        x = L.tensor([1., 2.], requires_grad=True)
        x.as_subclass(M).sum().backward()
        m = (x * 2).as_subclass(M)
        (m * m).sum().backward()
        return x.grad
    like_torch(run)


def test_as_subclass_does_not_call_init():
    for L in (torch, dyngrad):
        calls = []

        class N(L.Tensor):
            def __init__(self, *args, **kwargs):
                calls.append(1)

        assert type(L.ones(2).as_subclass(N)) is N and calls == []


def test_as_subclass_of_tensor_and_parameter():
    same_outcome(lambda L: [type(L.ones(2).as_subclass(L.Tensor)).__name__,
                            L.ones(2).as_subclass(L.Tensor) is L.ones(2)])
    same_outcome(lambda L: repr(L.tensor([1., 2.], requires_grad=True)
                                .as_subclass(L.nn.Parameter)))


AS_SUBCLASS_ERRORS = {
    "int_class": lambda L: L.ones(2).as_subclass(int),
    "not_a_type": lambda L: L.ones(2).as_subclass(3),
    "none": lambda L: L.ones(2).as_subclass(None),
    "module": lambda L: L.ones(2).as_subclass(L.nn.Module),
    "missing": lambda L: L.ones(2).as_subclass(),
    "wrong_keyword": lambda L: L.ones(2).as_subclass(c=L.Tensor),
    "two": lambda L: L.ones(2).as_subclass(L.Tensor, 1),
    "keyword": lambda L: type(L.ones(2).as_subclass(cls=L.Tensor)).__name__,
}


@pytest.mark.parametrize("case", sorted(AS_SUBCLASS_ERRORS))
def test_as_subclass_arguments(case):
    same_outcome(AS_SUBCLASS_ERRORS[case])


# -- storage_type -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int8", "int16",
                                   "int32", "int64", "bool", "complex64", "complex128"])
def test_storage_type(dtype):
    same_outcome(lambda L: L.zeros(1, dtype=getattr(L, dtype)).storage_type(), warns=False)


def test_storage_type_arguments_and_warning():
    same_outcome(lambda L: L.zeros(1).storage_type(1))
    for L in (torch, dyngrad):
        t = L.zeros(1)
        code = ("import warnings, sys, {0}; warnings.simplefilter('always');\n"
                "with warnings.catch_warnings(record=True) as w:\n"
                "    warnings.simplefilter('always'); {0}.zeros(1).storage_type(); "
                "{0}.zeros(1).storage_type()\n"
                "print(len(w), str(w[0].message)[:40], w[0].category.__name__)")
        out = subprocess.run([sys.executable, "-c", code.format(L.__name__)],
                             capture_output=True, text=True, check=True).stdout
        assert out == "1 TypedStorage is deprecated. It will be r UserWarning\n"
        assert t.storage_type() is getattr(L, "FloatStorage")


# -- grad_dtype ---------------------------------------------------------------------------------
def _grad_dtype_case(body):
    def run(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        return body(L, x)
    return run


def _set(obj, name, value):
    setattr(obj, name, value)
    return getattr(obj, name) if name != "grad" else obj.grad


GRAD_DTYPE = {
    "default": lambda L, x: x.grad_dtype,
    "int_default": lambda L, x: L.tensor([1, 2]).grad_dtype,
    "no_grad_leaf": lambda L, x: _set(L.tensor([1.0]), "grad_dtype", L.float64),
    "non_leaf_get": lambda L, x: (x * 2).grad_dtype,
    "non_leaf_set": lambda L, x: _set(x * 2, "grad_dtype", L.float16),
    "non_leaf_set_none": lambda L, x: _set(x * 2, "grad_dtype", None),
    "set": lambda L, x: _set(x, "grad_dtype", L.float64),
    "set_none": lambda L, x: _set(x, "grad_dtype", None),
    "set_str": lambda L, x: _set(x, "grad_dtype", "a"),
    "set_int": lambda L, x: _set(x, "grad_dtype", 3),
    "set_int_dtype": lambda L, x: _set(x, "grad_dtype", L.int32),
    "existing_grad": lambda L, x: (_set(x, "grad", L.ones(2)),
                                   _set(x, "grad_dtype", L.float16)),
    "existing_grad_same": lambda L, x: (_set(x, "grad", L.ones(2)),
                                        _set(x, "grad_dtype", L.float32)),
    "existing_half_grad": lambda L, x: (_set(x, "grad_dtype", None),
                                        _set(x, "grad", L.ones(2, dtype=L.float16)),
                                        _set(x, "grad_dtype", L.complex64)),
    "assign_other_dtype_none": lambda L, x: (_set(x, "grad_dtype", None),
                                             _set(x, "grad", L.ones(2, dtype=L.float64))),
    "assign_matching": lambda L, x: (_set(x, "grad_dtype", L.float64),
                                     _set(x, "grad", L.ones(2, dtype=L.float64))),
    "assign_plain_to_double": lambda L, x: (_set(x, "grad_dtype", L.float64),
                                            _set(x, "grad", L.ones(2))),
    "detach": lambda L, x: (_set(x, "grad_dtype", L.float64), x.detach().grad_dtype),
    "deepcopy": lambda L, x: (_set(x, "grad_dtype", L.float64), copy.deepcopy(x).grad_dtype),
    "no_grad_view": lambda L, x: _no_grad_view(L, x),
}


def _no_grad_view(L, x):
    x.grad_dtype = L.float64
    with L.no_grad():
        v = x[:1]
    return v.grad_dtype, x.grad_dtype


@pytest.mark.parametrize("case", sorted(GRAD_DTYPE))
def test_grad_dtype_attribute(case):
    same_outcome(_grad_dtype_case(GRAD_DTYPE[case]))


@pytest.mark.parametrize("dtype", ["float16", "float64", "int64", "bool", "complex64"])
def test_assigned_grad_dtype_message(dtype):
    """torch names the gradient's dtype by its C++ type name ('c10::Half', 'long int')."""
    same_outcome(lambda L: _set(L.tensor([1.0, 2.0], requires_grad=True), "grad",
                                L.ones(2, dtype=getattr(L, dtype))))


def _backward_with(grad_dtype, *, after=False, double=False, existing=None):
    def run(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        if existing is not None:
            x.grad_dtype = None
            x.grad = L.ones(2, dtype=getattr(L, existing))
        seen = []
        x.register_hook(lambda g: seen.append(str(g.dtype)))
        if not after:
            x.grad_dtype = getattr(L, grad_dtype) if grad_dtype else None
        y = ((x.double() if double else x) * 2).sum()
        if after:
            x.grad_dtype = getattr(L, grad_dtype) if grad_dtype else None
        y.backward()
        (x * 3).sum().backward()
        return x.grad, seen
    return run


@pytest.mark.parametrize("run", [
    _backward_with("float64"), _backward_with("float16"), _backward_with("float64", after=True),
    _backward_with(None), _backward_with(None, double=True),
    _backward_with(None, existing="float64"), _backward_with("float64", double=True),
], ids=["double", "half", "set_after_graph", "none", "none_through_double",
        "none_existing_double", "double_through_double"])
def test_grad_dtype_backward(run):
    same_outcome(run)


def test_grad_dtype_autograd_grad():
    def run(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        x.grad_dtype = L.float64
        a = L.autograd.grad(x.sum(), x)
        x.grad_dtype = L.float16
        b = L.autograd.grad((x * 2).sum(), x, create_graph=True)
        return a, b, x.grad
    same_outcome(run)


def test_grad_dtype_custom_function_keeps_its_gradient_with_none():
    """With grad_dtype None the engine does not cast a node's gradient to the leaf's dtype."""
    def run(L):
        class Up(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g.double() / 3

        out = []
        for gd in ("default", None, "float16"):
            x = L.tensor([1.0, 2.0], requires_grad=True)
            if gd != "default":
                x.grad_dtype = gd and getattr(L, gd)
            Up.apply(x).sum().backward()
            out.append(x.grad)
        return out
    same_outcome(run)


# -- torch.version, torch.torch_version -----------------------------------------------------------
def test_version_module():
    import dyngrad.version as dv
    names = {n for n in dir(torch.version) if not n.startswith("_") and n != "Optional"}
    assert names <= set(dir(dv))
    assert (dv.cuda, dv.hip, dv.rocm, dv.xpu, dv.debug) == (None, None, None, None, False)
    assert dv.__version__ == dyngrad.__version__ and type(dv.__version__) is str
    assert isinstance(dv.git_version, str)
    assert dyngrad.version is dv and dyngrad.torch_version.__version__ is dyngrad.__version__


def test_version_is_a_torch_version():
    v = dyngrad.__version__
    assert type(v).__name__ == "TorchVersion" and isinstance(v, str)
    assert v == dyngrad.version.__version__ and hash(v) == hash(str(v))


VERSIONS = ["2.13.0+cpu", "1.10.0a0", "2.0.0rc1", "2.1.0.dev20230801", "0.1.0", "parrot"]
OTHERS = ["2.0", "2.13", "2.13.0", "2.13.0+cpu", "1.10", "1.10.0a0", "1.9.1", "3", "0.1",
          "0.1.0", "2.1.0", "2.1.0rc1", "parrot", "zebra", (2, 0), (2, 13, 0), (1, 10), [0, 1],
          (3,), "2.0.0.post1", "2!1.0", "v2.13.0", "2.13.0-1", "1.10.0a"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("op", ["__gt__", "__lt__", "__eq__", "__ge__", "__le__", "__ne__"])
def test_torch_version_compares(version, op):
    for other in OTHERS:
        t = torch.torch_version.TorchVersion(version)
        d = dyngrad.torch_version.TorchVersion(version)
        try:
            expected = getattr(t, op)(other)
        except Exception as e:   # noqa: BLE001
            with pytest.raises(type(e)):
                getattr(d, op)(other)
            continue
        assert getattr(d, op)(other) == expected, (version, op, other)


def test_torch_version_operators():
    for L in (torch, dyngrad):
        v = L.torch_version.TorchVersion("2.13.0+cpu")
        assert v >= "2.0" and v > (2, 0) and v < "3" and v != "2.13.0" and not v == "2.13.0"
        assert str(v) == "2.13.0+cpu" and repr(v) == "'2.13.0+cpu'"
        assert v.split("+")[0] == "2.13.0" and v.__slots__ == ()


# -- torch.types ----------------------------------------------------------------------------------
TYPES = ["Number", "Device", "_dtype", "_device", "_layout", "_size", "_int", "_float", "_bool",
         "_complex", "_str", "_bytes", "_Number", "Size", "Tensor", "Storage", "FileLike",
         "IntLikeType", "FloatLikeType", "BoolLikeType", "_TensorOrTensors",
         "_TensorOrOptionalTensors", "_symsize"]


def test_types_module():
    import dyngrad.types as T
    for name in TYPES:
        assert hasattr(torch.types, name) and hasattr(T, name), name
    assert T._dtype is dyngrad.dtype and T._device is dyngrad.device
    assert T._layout is dyngrad.layout and T.Size is dyngrad.Size and T.Tensor is dyngrad.Tensor
    assert T._Number == torch.types._Number == (int, float, bool)
    for name in ("_int", "_float", "_bool", "_complex", "_str", "_bytes"):
        assert getattr(T, name) is getattr(torch.types, name)
    assert repr(T.Number) == repr(torch.types.Number)   # int | float | bool
    for v in (1, 2.0, True):
        assert isinstance(v, T.Number) and isinstance(v, torch.types.Number)
    assert isinstance(dyngrad.device("cpu"), T.Device.__args__)
    assert isinstance("cpu", T.Device.__args__) and isinstance(None, T.Device.__args__)
    assert isinstance(T.Storage, type) and "nbytes" in vars(T.Storage)


# -- memory_format and layout ---------------------------------------------------------------------
FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


def test_memory_format_class():
    for L in (torch, dyngrad):
        for name in FORMATS:
            f = getattr(L, name)
            assert isinstance(f, L.memory_format) and type(f) is L.memory_format
            assert repr(f) == str(f) == "torch." + name
            assert copy.deepcopy(f) is f and copy.copy(f) is f
            assert pickle.loads(pickle.dumps(f)) is f
        assert not isinstance(L.strided, L.memory_format)
        assert L.memory_format.__name__ == "memory_format"
        assert L.legacy_contiguous_format is L.contiguous_format
    same_outcome(lambda L: L.memory_format())
    same_outcome(lambda L: L.memory_format("channels_last"))


def test_layout_class():
    for L in (torch, dyngrad):
        assert isinstance(L.strided, L.layout) and type(L.strided) is L.layout
        assert repr(L.strided) == str(L.strided) == "torch.strided"
        assert L.ones(2).layout is L.strided and L.strided == L.strided
        assert copy.deepcopy(L.strided) is L.strided and copy.copy(L.strided) is L.strided
        assert L.layout.__name__ == "layout"
        assert pickle.loads(pickle.dumps(L.strided)) is L.strided
    same_outcome(lambda L: L.layout())


def test_memory_formats_still_work():
    like_torch(lambda L: L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last))
    like_torch(lambda L: L.ones(2, 3, 4, 5).to(memory_format=L.channels_last).clone(
        memory_format=L.preserve_format))


# -- torch.Storage, has_*, errors ------------------------------------------------------------------
def test_storage_follows_the_default_dtype():
    for L in (torch, dyngrad):
        assert repr(L.Storage) == "<class 'torch.FloatStorage'>"
        L.set_default_dtype(L.float64)
        assert repr(L.Storage) == "<class 'torch.DoubleStorage'>"
        L.set_default_dtype(L.float16)
        assert repr(L.Storage) == "<class 'torch.HalfStorage'>"
        L.set_default_dtype(L.float32)
        assert L.Storage is L.FloatStorage
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L.set_default_tensor_type(L.DoubleTensor)
            assert L.Storage is L.DoubleStorage
            L.set_default_tensor_type(L.FloatTensor)
        assert L.Storage is L.FloatStorage


def test_build_flags():
    """dyngrad's honest answers: LAPACK (NumPy's linalg) and FFT (NumPy's fft) are there, MKL
    and OpenMP are not."""
    assert (dyngrad.has_lapack, dyngrad.has_spectral) == (torch.has_lapack, torch.has_spectral)
    assert (dyngrad.has_mkl, dyngrad.has_openmp) == (False, False)
    assert dyngrad.linalg.inv(dyngrad.eye(2)).tolist() == [[1., 0.], [0., 1.]]


def test_device_errors():
    for L in (torch, dyngrad):
        for name in ("OutOfMemoryError", "AcceleratorError"):
            cls = getattr(L, name)
            assert cls.__mro__[1:] == (RuntimeError, Exception, BaseException, object)
            assert cls.__name__ == name and cls.__doc__ == getattr(torch, name).__doc__
            e = cls("msg")
            assert e.args == ("msg",) and str(e) == "msg"
        assert L.cuda.OutOfMemoryError is L.OutOfMemoryError


# -- torch.utils.swap_tensors -------------------------------------------------------------------
def test_swap_tensors_values_types_and_dict():
    def run(L):
        a = L.tensor([1., 2.])
        b = L.nn.Parameter(L.tensor([3., 4., 5.]))
        a.foo = 1
        L.utils.swap_tensors(a, b)
        return (type(a).__name__, a.tolist(), a.requires_grad, hasattr(a, "foo"),
                type(b).__name__, b.tolist(), b.requires_grad, b.foo, a.shape, b.dtype)
    same_outcome(run)


def test_swap_tensors_grads_and_graph():
    def run(L):
        a = L.tensor([1., 2.], requires_grad=True)
        a.grad = L.ones(2)
        b = L.tensor([3., 4.])
        L.utils.swap_tensors(a, b)
        y = L.tensor([1., 2.], requires_grad=True) * 2
        c = L.zeros(2)
        L.utils.swap_tensors(y, c)
        return a.grad, b.grad, y, c, y.grad_fn is None, type(c.grad_fn).__name__
    same_outcome(run)


def test_swap_tensors_poisons_the_accumulator():
    def run(L):
        a = L.tensor([1., 2.], requires_grad=True)
        b = L.tensor([3., 4.])
        y = (a * 2).sum()
        L.utils.swap_tensors(a, b)
        return (a.tolist(), b.tolist(), a.requires_grad, b.requires_grad, y.backward())
    same_outcome(run)


SWAP_ERRORS = {
    "weakref_t1": lambda L: _swap_with_weakref(L, 0),
    "weakref_t2": lambda L: _swap_with_weakref(L, 1),
    "not_a_tensor": lambda L: L.utils.swap_tensors(L.ones(1), 3),
}


def _swap_with_weakref(L, which):
    import weakref
    ts = [L.ones(2), L.zeros(2)]
    ref = weakref.ref(ts[which])   # noqa: F841
    L.utils.swap_tensors(*ts)


@pytest.mark.parametrize("case", sorted(SWAP_ERRORS))
def test_swap_tensors_errors(case):
    same_outcome(SWAP_ERRORS[case])


def test_swap_tensors_of_a_view():
    """An alias (``as_subclass``) or a view swaps with a plain tensor, as in torch: dyngrad's own
    weak references (its base's registry of views) do not count, and the base's later
    requires_grad reaches the tensor that is now the view."""
    def fn(L):
        class M(L.Tensor):
            pass
        base = L.ones(2)
        a, b = base.view(2).as_subclass(M), L.zeros(2)
        L.utils.swap_tensors(a, b)
        base.requires_grad_()
        return (type(a).__name__, type(b).__name__, a.tolist(), b.tolist(), a.requires_grad,
                b.requires_grad, b._base is base, a._base is None)
    assert fn(dyngrad) == fn(torch)


def test_swap_tensors_different_slots():
    for L in (torch, dyngrad):
        class S(L.Tensor):
            __slots__ = ("extra",)
        s = L.ones(2).as_subclass(S)
        with pytest.raises(RuntimeError, match="^Cannot swap t1 and t2 if they have different "
                                               "slots$"):
            L.utils.swap_tensors(s, L.ones(2))


def test_view_replay_flag():
    assert dyngrad.autograd.is_view_replay_enabled() is torch.autograd.is_view_replay_enabled() \
        is False


# -- torch.utils.hooks --------------------------------------------------------------------------
def test_unserializable_hook():
    for L in (torch, dyngrad):
        def f(g):
            return g
        assert L.utils.hooks.unserializable_hook(f) is f and f.__torch_unserializable__ is True


def _hooked(L, decorate=False):
    def hook(g):
        return g
    if decorate:
        hook = L.utils.hooks.unserializable_hook(hook)
    t = L.ones(2, requires_grad=True)
    t.register_hook(hook)
    return t


def _hook_warnings(L, action, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            action(L, _hooked(L, **kw))
            error = None
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            error = (type(e).__name__, str(e))
    return error, [(m.category.__name__, re.sub(" at 0x[0-9a-f]+", "", str(m.message)))
                   for m in w]


@pytest.mark.parametrize("action", [
    lambda L, t: L.utils.hooks.warn_if_has_hooks(t),
    lambda L, t: pickle.dumps(t),
    lambda L, t: L.save(t, io.BytesIO()),
    lambda L, t: copy.deepcopy(t),
    lambda L, t: L.utils.hooks.warn_if_has_hooks(L.ones(2)),
], ids=["warn_if_has_hooks", "pickle", "save", "deepcopy", "no_hooks"])
@pytest.mark.parametrize("kw", [{}, {"decorate": True}], ids=["plain", "unserializable"])
def test_hooks_warn_when_serialized(action, kw):
    assert _hook_warnings(dyngrad, action, **kw) == _hook_warnings(torch, action, **kw)


def test_backward_hook_by_hand():
    """torch.utils.hooks.BackwardHook wired around a module call, as Module.__call__ does."""
    def run(L):
        m = L.nn.Linear(3, 2).double()
        with L.no_grad():
            m.weight.copy_(L.arange(6.).reshape(2, 3) / 7)
            m.bias.fill_(0.5)
        seen = []

        def hook(mod, grad_input, grad_output):
            seen.append((mod is m, grad_input, grad_output))
            return (grad_input[0] * 2, None)

        def pre_hook(mod, grad_output):
            seen.append(("pre", grad_output))

        bh = L.utils.hooks.BackwardHook(m, [hook], [pre_hook])
        x = L.tensor([[1., 2., 3.]], dtype=L.float64, requires_grad=True)
        args = bh.setup_input_hook((x, "not a tensor"))
        out = bh.setup_output_hook(m(args[0]))
        (out * out).sum().backward()
        return seen, x.grad, args[1], bh.n_inputs, bh.n_outputs, bh.input_tensors_index
    same_outcome(run)


def test_backward_hook_is_the_modules():
    from dyngrad.nn.modules import _functions
    assert _functions.BackwardHook is dyngrad.utils.hooks.BackwardHook


def test_submodules_import_in_a_fresh_interpreter():
    code = ("import dyngrad, dyngrad.version, dyngrad.torch_version, dyngrad.types\n"
            "from dyngrad.utils.hooks import BackwardHook, unserializable_hook, "
            "warn_if_has_hooks\n"
            "from dyngrad.utils import swap_tensors\n"
            "from dyngrad.types import Number, Device, _dtype\n"
            "print(dyngrad.__version__ >= '0.0.1', type(dyngrad.strided).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "True layout\n"
