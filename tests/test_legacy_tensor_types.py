"""torch's legacy tensor types (torch.FloatTensor ... and torch.cuda's), the legacy constructor
they share with torch.Tensor(...) and Tensor.new(...), and the legacy storage classes, against
live torch: values, dtypes, shapes, reprs, isinstance, exceptions with their messages, and
warnings (dyngrad/_legacy_types.py)."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.ops import legacy_removed, pointwise

from compare import warn_always

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
         "IntTensor", "LongTensor", "BoolTensor"]
DTYPES = ["float32", "float64", "float16", "uint8", "int8", "int16", "int32", "int64", "bool"]


def _describe(L, r, values):
    """A library-neutral description of a result: a tensor's metadata (and values when they
    are initialised), a type object's repr; anything else as it is."""
    if isinstance(r, L.Tensor):
        grad_fn = None if r.grad_fn is None else type(r.grad_fn).__name__
        out = (type(r).__name__, str(r.dtype), tuple(r.shape), r.stride(), r.requires_grad,
               grad_fn)
        return out + (r.detach().tolist(),) if values else out
    if isinstance(r, (tuple, list)):
        return type(r)(_describe(L, x, values) for x in r)
    if isinstance(r, (type, L.dtype)):
        return repr(r)
    return r


def _run(L, fn, values=True):
    """fn(L)'s description or its exception's (type, message), and the warnings it gave."""
    with warnings.catch_warnings(record=True) as w, warn_always(L):
        warnings.simplefilter("always")
        try:
            out = _describe(L, fn(L), values)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            out = (type(e).__name__, str(e))
        finally:
            L.set_default_dtype(L.float32)
    return out, [(x.category.__name__, str(x.message)) for x in w]


def _like_torch(fn, values=True):
    ours, theirs = _run(dyngrad, fn, values), _run(torch, fn, values)
    assert ours == theirs


# -- construction --------------------------------------------------------------------------------
WITH_DATA = {
    "float_list": lambda L: L.FloatTensor([1, 2]),
    "float_nested": lambda L: L.FloatTensor([[1, 2], [3, 4.5]]),
    "float_tuple_is_data": lambda L: L.FloatTensor((2, 3)),
    "float_empty_list": lambda L: L.FloatTensor([]),
    "float_empty_tuple": lambda L: L.FloatTensor(()),
    "float_range": lambda L: L.FloatTensor(range(3)),
    "float_bools": lambda L: L.FloatTensor([True, False]),
    "float_0d_tensors": lambda L: L.FloatTensor([L.tensor(1.), L.tensor(2.)]),
    "float_big_overflows_to_inf": lambda L: L.FloatTensor([1e300]),
    "float_data_kw": lambda L: L.FloatTensor(data=[1, 2]),
    "float_data_device_cpu": lambda L: L.FloatTensor([1., 2.], device="cpu"),
    "long_list": lambda L: L.LongTensor([1, 2]),
    "long_truncates_floats": lambda L: L.LongTensor([1.5, 2.7, -1.5]),
    "long_bools": lambda L: L.LongTensor([True, False]),
    "byte_wraps_negative": lambda L: L.ByteTensor([-1, 1.5]),
    "char": lambda L: L.CharTensor([1, -2]),
    "short": lambda L: L.ShortTensor((1, -2)),
    "int": lambda L: L.IntTensor([1, -2]),
    "bool_from_numbers": lambda L: L.BoolTensor([0.5, 2, 0]),
    "bool_from_complex": lambda L: L.BoolTensor([1 + 1j, 0j]),
    "half_overflows_to_inf": lambda L: L.HalfTensor([1.5, 1e6]),
    "double_nested": lambda L: L.DoubleTensor([[1.5], [2]]),
    "numpy_int_to_float": lambda L: L.FloatTensor(np.array([1, 2])),
    "numpy_float_to_long": lambda L: L.LongTensor(np.array([1.7, -2.5])),
    "numpy_negative_to_byte": lambda L: L.ByteTensor(np.array([-1])),
    "numpy_0d": lambda L: L.FloatTensor(np.array(2.5)),
    "numpy_transposed": lambda L: L.FloatTensor(np.arange(6, dtype=np.float32).reshape(2, 3).T),
    "numpy_list_of_arrays": lambda L: L.FloatTensor([np.ones(2), np.zeros(2)]),
    "long_fill": lambda L: L.LongTensor(3).fill_(1),
    "byte_to_bool": lambda L: L.ByteTensor([1, 0]).bool(),
    "sum_item": lambda L: L.FloatTensor([1, 2]).sum().item(),
    "mixed_promotion": lambda L: L.LongTensor([1, 2]) + L.FloatTensor([0.5, 0.5]),
    "requires_grad_": lambda L: L.FloatTensor([1., 2.]).requires_grad_(),
    "new_of_legacy": lambda L: L.LongTensor(2).new([1.5]),
}


@pytest.mark.parametrize("case", WITH_DATA)
def test_construct_from_data_like_torch(case):
    _like_torch(WITH_DATA[case])


UNINITIALISED = {
    "sizes": lambda L: L.FloatTensor(2, 3),
    "no_args": lambda L: L.FloatTensor(),
    "zero": lambda L: L.FloatTensor(0),
    "torch_size": lambda L: L.FloatTensor(L.Size([2, 3])),
    "torch_size_empty": lambda L: L.FloatTensor(L.Size([])),
    "size_kw_tuple": lambda L: L.FloatTensor(size=(2, 3)),
    "size_kw_list": lambda L: L.FloatTensor(size=[2, 3]),
    "size_kw_empty": lambda L: L.FloatTensor(size=()),
    "size_kw_torch_size": lambda L: L.FloatTensor(size=L.Size([2])),
    "size_kw_device": lambda L: L.FloatTensor(size=(2, 3), device="cpu"),
    "sizes_device": lambda L: L.DoubleTensor(2, 3, device=L.device("cpu")),
    "sizes_device_index": lambda L: L.IntTensor(2, device="cpu:0"),
    "device_none": lambda L: L.FloatTensor(2, device=None),
    "device_only": lambda L: L.LongTensor(device="cpu"),
    "numpy_int_size": lambda L: L.FloatTensor(np.int64(3), 2),
    "numpy_int32_size": lambda L: L.FloatTensor(2, np.int32(2)),
    "numpy_0d_int_array_size": lambda L: L.FloatTensor(np.array(2)),
    "int_tensor_sizes": lambda L: L.FloatTensor(L.tensor(3), L.tensor([2])),
    "int_tensor_2d_size": lambda L: L.FloatTensor(2, L.tensor([[3]])),
    "bool_after_first": lambda L: L.FloatTensor(2, True),
    "each_type": lambda L: [getattr(L, name)(2) for name in NAMES],
    "requires_grad_leaf": lambda L: (lambda t: (t.requires_grad, t.is_leaf, t.is_contiguous()))(
        L.FloatTensor(2, 3)),
    "default_dtype_does_not_matter": lambda L: (L.set_default_dtype(L.float64),
                                                L.FloatTensor(1), L.Tensor(1))[1:],
}


@pytest.mark.parametrize("case", UNINITIALISED)
def test_construct_uninitialised_like_torch(case):
    _like_torch(UNINITIALISED[case], values=False)


def test_result_is_a_plain_tensor():
    for L in (torch, dyngrad):
        x = L.FloatTensor(2, 3)
        assert type(x) is L.Tensor
        assert isinstance(x, L.Tensor) and isinstance(x, L.FloatTensor)


def test_numpy_array_of_the_dtype_is_shared():
    def fn(L):
        a = np.ones(2, dtype=np.float32)
        b = np.ones(2)
        return (L.FloatTensor(a).data_ptr() == a.ctypes.data,
                L.FloatTensor(b).data_ptr() == b.ctypes.data,
                L.Tensor(a).data_ptr() == a.ctypes.data,
                L.zeros(1).new(a).data_ptr() == a.ctypes.data)
    _like_torch(fn)
    assert _run(dyngrad, fn)[0] == (True, False, True, True)


# -- from a tensor: an alias ----------------------------------------------------------------------
ALIASES = {
    "alias_shares_and_counts_versions": lambda L: (lambda t: (
        L.FloatTensor(t).add_(1), t, t._version, L.FloatTensor(t)._base is t))(L.zeros(2)),
    "alias_not_same_object": lambda L: (lambda t: L.FloatTensor(t) is t)(L.ones(2)),
    "alias_0d": lambda L: L.FloatTensor(L.tensor(1.5)),
    "alias_requires_grad": lambda L: L.FloatTensor(L.ones(2, requires_grad=True)),
    "alias_of_non_leaf": lambda L: L.FloatTensor(L.ones(2, requires_grad=True) * 2),
    "alias_no_grad": lambda L: (lambda t: [L.no_grad().__enter__(), L.FloatTensor(t)][1])(
        L.ones(2, requires_grad=True)),
    "alias_other_kw": lambda L: L.LongTensor(other=L.tensor([1, 2])),
    "alias_of_parameter": lambda L: L.FloatTensor(L.nn.Parameter(L.ones(2))),
    "base_keeps_any_dtype": lambda L: L.Tensor(L.tensor([1, 2])),
    "base_keeps_float64": lambda L: L.Tensor(L.tensor([1.5], dtype=L.float64)),
    "new_alias": lambda L: L.zeros(1).new(L.ones(2)),
    "new_alias_requires_grad": lambda L: L.zeros(1).new(L.ones(2, requires_grad=True)),
}


@pytest.mark.parametrize("case", ALIASES)
def test_alias_like_torch(case):
    try:
        _like_torch(ALIASES[case])
    finally:
        torch.set_grad_enabled(True)
        dyngrad.set_grad_enabled(True)


def test_alias_backward_reaches_the_source():
    grads = []
    for L in (torch, dyngrad):
        t = L.tensor([1., 2.], requires_grad=True)
        (L.FloatTensor(t) * 3).sum().backward()
        grads.append(t.grad.tolist())
    assert grads[0] == grads[1] == [3., 3.]


# -- errors ---------------------------------------------------------------------------------------
ERRORS = {
    "str": lambda L: L.FloatTensor("a"),
    "bytes": lambda L: L.FloatTensor(b"ab"),
    "list_of_str": lambda L: L.FloatTensor(["a"]),
    "list_with_str": lambda L: L.FloatTensor([1, "a"]),
    "ragged": lambda L: L.FloatTensor([[1, 2], [3]]),
    "list_of_1d_tensors": lambda L: L.FloatTensor([L.ones(2), L.ones(2)]),
    "float": lambda L: L.FloatTensor(2.5),
    "bool": lambda L: L.FloatTensor(True),
    "none": lambda L: L.FloatTensor(None),
    "numpy_float": lambda L: L.FloatTensor(np.float64(2.0)),
    "numpy_bool": lambda L: L.FloatTensor(np.bool_(True)),
    "object": lambda L: L.FloatTensor(object()),
    "dict": lambda L: L.FloatTensor({1: 2}),
    "set": lambda L: L.FloatTensor({1, 2}),
    "numpy_object_array": lambda L: L.FloatTensor(np.array([1, "a"], dtype=object)),
    "complex_into_float": lambda L: L.FloatTensor([1 + 2j]),
    "complex_into_long": lambda L: L.LongTensor([1 + 2j]),
    "byte_overflow": lambda L: L.ByteTensor([256]),
    "int_overflow": lambda L: L.IntTensor([2 ** 40]),
    "int_nan": lambda L: L.IntTensor([float("nan")]),
    "negative_size": lambda L: L.FloatTensor(-1),
    "negative_second_size": lambda L: L.FloatTensor(2, -1),
    "negative_torch_size": lambda L: L.FloatTensor(L.Size([2, -1])),
    "float_second_size": lambda L: L.FloatTensor(2, 2.5),
    "str_second_size": lambda L: L.FloatTensor(2, "a"),
    "none_second_size": lambda L: L.FloatTensor(2, None),
    "list_second_size": lambda L: L.FloatTensor(2, [3]),
    "torch_size_second": lambda L: L.FloatTensor(2, L.Size([3])),
    "float_tensor_second_size": lambda L: L.FloatTensor(2, L.tensor(2.)),
    "numpy_float_second_size": lambda L: L.FloatTensor(2, np.float64(2)),
    "numpy_bool_second_size": lambda L: L.FloatTensor(2, np.bool_(True)),
    "bool_tensor_size": lambda L: L.FloatTensor(2, L.tensor(True)),
    "size_kw_bad_element": lambda L: L.FloatTensor(size=(2, "a")),
    "size_kw_float": lambda L: L.FloatTensor(size=[2.5]),
    "size_kw_int": lambda L: L.FloatTensor(size=2),
    "size_kw_and_positional": lambda L: L.FloatTensor(2, size=(3,)),
    "size_and_data_kw": lambda L: L.FloatTensor(size=(2,), data=[3]),
    "dtype_kw": lambda L: L.FloatTensor(2, dtype=L.int64),
    "dtype_kw_same_dtype": lambda L: L.FloatTensor(2, dtype=L.float32),
    "dtype_kw_alone": lambda L: L.FloatTensor(dtype=L.float32),
    "dtype_kw_data": lambda L: L.FloatTensor([1], dtype=L.float32),
    "dtype_kw_two_sizes": lambda L: L.FloatTensor(2, 3, dtype=L.float32),
    "dtype_kw_three_sizes": lambda L: L.FloatTensor(2, 3, 4, dtype=L.float32),
    "requires_grad_kw": lambda L: L.FloatTensor(2, requires_grad=True),
    "requires_grad_and_dtype_kw": lambda L: L.FloatTensor([1.], dtype=L.float32,
                                                          requires_grad=True),
    "unknown_kw": lambda L: L.FloatTensor(2, foo=1),
    "unknown_kw_two_sizes": lambda L: L.FloatTensor(2, 3, foo=1),
    "unknown_and_device_kw": lambda L: L.FloatTensor(device="cpu", foo=1),
    "storage_kw_int": lambda L: L.FloatTensor(storage=5),
    "other_kw_int": lambda L: L.FloatTensor(other=5),
    "two_lists": lambda L: L.FloatTensor([1, 2], [3]),
    "three_lists": lambda L: L.FloatTensor([1], [2], [3]),
    "list_then_sizes": lambda L: L.FloatTensor([1], 2, 3),
    "nested_list_and_tuple": lambda L: L.FloatTensor([[1]], (2,)),
    "empty_list_and_tuple": lambda L: L.FloatTensor([], ()),
    "two_strs": lambda L: L.FloatTensor("a", "b"),
    "two_floats": lambda L: L.FloatTensor(2., 3.),
    "two_nones": lambda L: L.FloatTensor(None, None),
    "bool_first_size": lambda L: L.FloatTensor(True, 2),
    "numpy_bool_first": lambda L: L.FloatTensor(np.bool_(True), 2),
    "numpy_array_and_float": lambda L: L.FloatTensor(np.ones(2), 1.5),
    "tuple_then_int": lambda L: L.FloatTensor((2, 3), 4),
    "torch_size_then_int": lambda L: L.FloatTensor(L.Size([2]), 3),
    "two_torch_sizes": lambda L: L.FloatTensor(L.Size([2]), L.Size([3])),
    "tensor_then_int": lambda L: L.FloatTensor(L.ones(2), 3),
    "float_tensor_first_size": lambda L: L.FloatTensor(L.tensor(2.), 2),
    "three_tensors": lambda L: L.FloatTensor(L.ones(1), L.ones(1), L.ones(1)),
    "tensor_other_dtype": lambda L: L.FloatTensor(L.tensor([1, 2])),
    "tensor_float64": lambda L: L.FloatTensor(L.tensor([1.], dtype=L.float64)),
    "long_of_float_tensor": lambda L: L.LongTensor(L.tensor([1., 2.])),
    "int_0d_tensor": lambda L: L.FloatTensor(L.tensor(3)),
    "tensor_and_device": lambda L: L.FloatTensor(L.ones(1), device="cpu"),
    "tensor_and_device_none": lambda L: L.FloatTensor(L.ones(1), device=None),
    "other_kw_and_device": lambda L: L.FloatTensor(other=L.ones(1), device="cpu"),
    "device_cuda": lambda L: L.FloatTensor(2, device="cuda"),
    "device_cuda_alone": lambda L: L.DoubleTensor(device="cuda"),
    "device_meta": lambda L: L.FloatTensor(2, device="meta"),
    "device_cuda_data": lambda L: L.FloatTensor([1], device="cuda"),
    "device_cuda_before_data_error": lambda L: L.FloatTensor("a", device="cuda"),
    "device_cuda_size_kw": lambda L: L.FloatTensor(size=(2,), device="cuda"),
    "device_index": lambda L: L.FloatTensor(2, device=0),
    "device_bad_string": lambda L: L.FloatTensor(2, device="foo"),
    "device_float": lambda L: L.FloatTensor(2, device=1.5),
    "device_float_alone": lambda L: L.FloatTensor(device=1.5),
    "device_float_data": lambda L: L.FloatTensor([1], device=1.5),
    "device_float_size_kw": lambda L: L.FloatTensor(size=(2,), device=1.5),
    # torch.Tensor(...) and x.new(...) are the same constructor
    "base_float": lambda L: L.Tensor(2.5),
    "base_dtype_kw": lambda L: L.Tensor(2, dtype=L.int64),
    "base_tensor_and_device": lambda L: L.Tensor(L.ones(1), device="cpu"),
    "base_device_cuda": lambda L: L.Tensor(2, device="cuda"),
    "new_other_dtype": lambda L: L.zeros(1).new(L.tensor([1, 2])),
    "new_tensor_and_device": lambda L: L.ones(1).new(L.ones(1), device="cpu"),
    "new_device_cuda": lambda L: L.ones(1).new(device="cuda"),
    "new_dtype_kw": lambda L: L.ones(1).new(2, dtype=L.float32),
    "new_none": lambda L: L.zeros(1).new(None),
    "new_numpy_float": lambda L: L.zeros(1).new(np.float64(2.0)),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_like_torch(case):
    ours, theirs = _run(dyngrad, ERRORS[case]), _run(torch, ERRORS[case])
    assert theirs[0][0].endswith("Error"), theirs   # (each case is an error in torch)
    assert ours == theirs


@pytest.mark.parametrize("args", [(2 ** 63,), (2, 2 ** 70)])
def test_size_overflow_error_like_torch(args):
    """torch's message goes on with a C++ stack trace; dyngrad's stops before it."""
    ours, theirs = _run(dyngrad, lambda L: L.FloatTensor(*args)), \
        _run(torch, lambda L: L.FloatTensor(*args))
    assert ours[0][0] == theirs[0][0] == "TypeError"
    assert ours[0][1].endswith('"Overflow when unpacking long long"')
    assert theirs[0][1].startswith(ours[0][1][:-1] + "\n")


# -- the type objects -----------------------------------------------------------------------------
TYPE_FACTS = {
    "repr": lambda L: [repr(getattr(L, name)) for name in NAMES],
    "str": lambda L: str(L.LongTensor),
    "names": lambda L: [(getattr(L, n).__name__, getattr(L, n).__qualname__) for n in NAMES],
    "metaclass_name": lambda L: type(L.FloatTensor).__name__,
    "dtypes": lambda L: [repr(getattr(L, name).dtype) for name in NAMES],
    "layout": lambda L: repr(L.FloatTensor.layout),
    "flags": lambda L: (L.FloatTensor.is_cuda, L.FloatTensor.is_sparse,
                        L.FloatTensor.is_sparse_csr, L.FloatTensor.is_xpu),
    "not_subclasses": lambda L: (issubclass(L.FloatTensor, L.Tensor),
                                 issubclass(L.Tensor, L.FloatTensor),
                                 [repr(c) for c in L.FloatTensor.__mro__]),
    "is_a_class": lambda L: (isinstance(L.FloatTensor, type), callable(L.FloatTensor)),
    "tensor_methods": lambda L: (hasattr(L.FloatTensor, "add"), hasattr(L.FloatTensor, "shape"),
                                 L.FloatTensor.add(L.ones(2), L.ones(2))),
    "no_docstring": lambda L: L.FloatTensor.__doc__,
    "no_bfloat16_complex": lambda L: hasattr(L, "ComplexFloatTensor"),
    "cuda_repr": lambda L: [repr(getattr(L.cuda, name)) for name in NAMES],
    "cuda_facts": lambda L: (repr(L.cuda.FloatTensor.dtype), L.cuda.FloatTensor.is_cuda,
                             repr(L.cuda.LongTensor.layout), L.cuda.FloatTensor.__name__),
    "cuda_distinct": lambda L: L.cuda.FloatTensor is L.FloatTensor,
}


@pytest.mark.parametrize("case", TYPE_FACTS)
def test_type_objects_like_torch(case):
    _like_torch(TYPE_FACTS[case])


def test_type_objects_pickle_and_copy():
    import copy
    for cls in (dyngrad.FloatTensor, dyngrad.cuda.LongTensor, dyngrad.FloatStorage):
        assert pickle.loads(pickle.dumps(cls)) is cls
        assert copy.deepcopy(cls) is cls


def test_bfloat16_types():
    """BFloat16Tensor / BFloat16Storage (and torch.cuda's) as torch's, with ml_dtypes installed."""
    pytest.importorskip("ml_dtypes")
    for name in ("BFloat16Tensor", "BFloat16Storage"):
        assert repr(getattr(dyngrad, name)) == repr(getattr(torch, name))
    assert repr(dyngrad.cuda.BFloat16Tensor) == repr(torch.cuda.BFloat16Tensor)
    assert dyngrad.BFloat16Tensor.dtype is dyngrad.bfloat16
    assert isinstance(dyngrad.zeros(2, dtype=dyngrad.bfloat16), dyngrad.BFloat16Tensor)


def _isinstance_table(L):
    values = [L.zeros(2, dtype=getattr(L, d)) for d in DTYPES]
    values += [L.zeros(2, dtype=L.complex64), L.nn.Parameter(L.zeros(2)), L.zeros(()),
               L.ones(3, requires_grad=True) * 2, L.zeros(4)[::2], 1.0, None,
               np.zeros(2, dtype=np.float32), [1.0]]
    return [[isinstance(v, getattr(L, name)) for name in NAMES] +
            [isinstance(v, getattr(L.cuda, name)) for name in NAMES] for v in values]


def test_isinstance_like_torch():
    ours, theirs = _isinstance_table(dyngrad), _isinstance_table(torch)
    assert ours == theirs
    assert [row[:9] for row in ours[:9]] == np.eye(9, dtype=bool).tolist()


def test_isinstance_tuple_of_types_like_torch():
    _like_torch(lambda L: (isinstance(L.zeros(2), (L.LongTensor, L.FloatTensor)),
                           isinstance(L.zeros(2), (L.LongTensor, L.IntTensor)),
                           isinstance(L.zeros(2), (L.Tensor, L.LongTensor))))


CUDA_CONSTRUCTION = {
    "sizes": lambda L: L.cuda.FloatTensor(2),
    "data": lambda L: L.cuda.FloatTensor([1.]),
    "empty": lambda L: L.cuda.FloatTensor(),
    "long": lambda L: L.cuda.LongTensor(2, 3),
}


@pytest.mark.skipif(dyngrad.cuda.is_available(), reason="the error of a build without CUDA")
@pytest.mark.parametrize("case", CUDA_CONSTRUCTION)
def test_cuda_types_refuse_construction_like_torch(case):
    ours, theirs = _run(dyngrad, CUDA_CONSTRUCTION[case]), _run(torch, CUDA_CONSTRUCTION[case])
    assert theirs[0][0] == "TypeError" and ours == theirs


# -- Tensor.type ------------------------------------------------------------------------------
TYPE_CONVERSIONS = {
    "to_long": lambda L: L.tensor([1.7, -1.2]).type(L.LongTensor),
    "to_int_by_name": lambda L: L.tensor([1.7, -1.2]).type("torch.IntTensor"),
    "to_bool": lambda L: L.tensor([0., 2.]).type(L.BoolTensor),
    "to_half": lambda L: L.tensor([1.5]).type(L.HalfTensor),
    "dtype_kw": lambda L: L.zeros(2).type(dtype=L.LongTensor),
    "non_blocking": lambda L: L.zeros(2).type(L.LongTensor, non_blocking=True),
    "same_type_is_self": lambda L: (lambda x: x.type(L.FloatTensor) is x)(L.zeros(2)),
    "requires_grad": lambda L: L.ones(2, requires_grad=True).type(L.DoubleTensor),
    "tensor_is_default_type": lambda L: L.tensor([1, 2]).type(L.Tensor),
    "tensor_name_is_default_type": lambda L: L.tensor([1, 2]).type("torch.Tensor"),
    "tensor_with_default_float64": lambda L: (L.set_default_dtype(L.float64),
                                              L.tensor([1, 2]).type(L.Tensor))[1],
    "name_after_conversion": lambda L: L.zeros(2).type(L.ShortTensor).type(),
    "other_class": lambda L: L.zeros(2).type(int),
    "numpy_class": lambda L: L.zeros(2).type(np.float32),
    "python_subclass": lambda L: L.zeros(2).type(L.nn.Parameter),
    "storage_class": lambda L: L.zeros(2).type(L.FloatStorage),
    "not_a_type": lambda L: L.zeros(2).type(3),
    "list": lambda L: L.zeros(2).type([1]),
    "bare_name": lambda L: L.zeros(2).type("FloatTensor"),
}


@pytest.mark.parametrize("case", TYPE_CONVERSIONS)
def test_tensor_type_like_torch(case):
    _like_torch(TYPE_CONVERSIONS[case])


def test_tensor_type_cuda_class_raises_as_the_cuda_name_does():
    """torch (CPU build) raises its "Cannot initialize CUDA without ATen_cuda library" error;
    dyngrad raises its own CUDA error, the same for the class and for its name."""
    with pytest.raises(RuntimeError, match="Cannot initialize CUDA"):
        torch.zeros(2).type(torch.cuda.FloatTensor)
    errors = []
    for arg in (dyngrad.cuda.FloatTensor, "torch.cuda.FloatTensor"):
        with pytest.raises((AssertionError, NotImplementedError)) as e:
            dyngrad.zeros(2).type(arg)
        errors.append((type(e.value), str(e.value)))
    assert errors[0] == errors[1]


# -- set_default_tensor_type ------------------------------------------------------------------
DEFAULT_TYPES = {
    "double": lambda L: (L.set_default_tensor_type(L.DoubleTensor), L.get_default_dtype(),
                         L.tensor([1.]), L.FloatTensor(1).dtype, L.DoubleTensor(1).dtype,
                         L.Tensor(1).dtype,
                         L.zeros(1).type(), isinstance(L.zeros(1), L.DoubleTensor)),
    "half": lambda L: (L.set_default_tensor_type(L.HalfTensor), L.get_default_dtype()),
    "float": lambda L: (L.set_default_tensor_type(L.FloatTensor), L.get_default_dtype()),
    "double_by_name": lambda L: (L.set_default_tensor_type("torch.DoubleTensor"),
                                 L.get_default_dtype()),
    "long": lambda L: L.set_default_tensor_type(L.LongTensor),
    "bool": lambda L: L.set_default_tensor_type(L.BoolTensor),
    "long_by_name": lambda L: L.set_default_tensor_type("torch.LongTensor"),
    "cuda": lambda L: L.set_default_tensor_type(L.cuda.FloatTensor),
    "cuda_long": lambda L: L.set_default_tensor_type(L.cuda.LongTensor),
    "cuda_by_name": lambda L: L.set_default_tensor_type("torch.cuda.FloatTensor"),
    "tensor": lambda L: L.set_default_tensor_type(L.Tensor),
    "dtype": lambda L: L.set_default_tensor_type(L.float64),
    "int": lambda L: L.set_default_tensor_type(int),
    "storage": lambda L: L.set_default_tensor_type(L.DoubleStorage),
    "storage_by_name": lambda L: L.set_default_tensor_type("torch.DoubleStorage"),
    "numpy_name": lambda L: L.set_default_tensor_type("numpy.float64"),
    "no_such_name": lambda L: L.set_default_tensor_type("torch.NoSuchTensor"),
    "no_such_cuda_name": lambda L: L.set_default_tensor_type("torch.cuda.NoSuch"),
    "no_such_module": lambda L: L.set_default_tensor_type("foo_no_such_module.Bar"),
}


@pytest.mark.parametrize("case", DEFAULT_TYPES)
def test_set_default_tensor_type_like_torch(case):
    """Values, errors and the deprecation warning (given before any check, as torch's)."""
    _like_torch(DEFAULT_TYPES[case])


def test_set_default_tensor_type_warns_once():
    pointwise._WARNED.discard(legacy_removed._DEFAULT_TYPE_WARNING)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        dyngrad.set_default_tensor_type(dyngrad.DoubleTensor)
        dyngrad.set_default_tensor_type(dyngrad.FloatTensor)
    assert [str(x.message) for x in w] == [legacy_removed._DEFAULT_TYPE_WARNING]
    assert dyngrad.get_default_dtype() is dyngrad.float32


# -- torch.Tensor(...) and Tensor.new(...): the same constructor ------------------------------
BASE_AND_NEW = {
    "base_size_kw": lambda L: L.Tensor(size=(2, 3)).shape,
    "base_torch_size_empty": lambda L: L.Tensor(L.Size([])).shape,
    "base_numpy_int_size": lambda L: L.Tensor(np.int64(2)).shape,
    "base_tensor_int_size_pair": lambda L: L.Tensor(L.tensor(3), 2).shape,
    "base_list": lambda L: L.Tensor([1, 2]),
    "base_default_float64": lambda L: (L.set_default_dtype(L.float64), L.Tensor([1.5]))[1],
    "new_size_kw": lambda L: L.zeros(1, dtype=L.int32).new(size=[2, 3]).shape,
    "new_numpy_int_size": lambda L: L.zeros(1).new(np.int64(2)).shape,
    "new_torch_size_empty": lambda L: L.zeros(1).new(L.Size([])).shape,
    "new_tensor_int_size_pair": lambda L: L.zeros(1).new(L.tensor(3), 2).shape,
    "new_data": lambda L: L.zeros(1, dtype=L.int64).new([1.5, 2]),
}


@pytest.mark.parametrize("case", BASE_AND_NEW)
def test_base_constructor_and_new_like_torch(case):
    _like_torch(BASE_AND_NEW[case])


def test_base_constructor_of_a_subclass():
    class Sub(dyngrad.Tensor):
        pass
    x = Sub([1., 2.])
    y = Sub(dyngrad.ones(2))
    assert type(x) is Sub and x.tolist() == [1., 2.]
    assert type(y) is Sub and y.tolist() == [1., 1.] and Sub(2, 3).shape == (2, 3)


# -- legacy storages ------------------------------------------------------------------------------
STORAGE_NAMES = ["FloatStorage", "DoubleStorage", "HalfStorage", "ByteStorage", "CharStorage",
                 "ShortStorage", "IntStorage", "LongStorage", "BoolStorage",
                 "ComplexFloatStorage", "ComplexDoubleStorage"]
STORAGES = {
    "reprs": lambda L: [repr(getattr(L, name)) for name in STORAGE_NAMES],
    "dtypes": lambda L: [repr(getattr(L, name).dtype) for name in STORAGE_NAMES],
    "subclass": lambda L: (issubclass(L.FloatStorage, L.TypedStorage),
                           type(L.FloatStorage).__name__ == "_LegacyStorageMeta"),
    "empty": lambda L: L.FloatStorage().size(),
    "sized": lambda L: (L.FloatStorage(3).size(), L.FloatStorage(np.int64(2)).size()),
    "data": lambda L: [L.IntStorage([1.5, -2.7]).tolist(), L.ByteStorage([1, 255]).tolist(),
                       L.BoolStorage([0, 2]).tolist(), L.ComplexFloatStorage([1j]).tolist(),
                       L.HalfStorage((1.5,)).tolist(), L.LongStorage(range(3)).tolist()],
    "storage_repr": lambda L: repr(L.DoubleStorage([1.5, 2])),
    "type_name": lambda L: L.LongStorage(2).type(),
    "is_typed_storage": lambda L: isinstance(L.FloatStorage(2), L.TypedStorage),
    "isinstance": lambda L: [isinstance(s, getattr(L, n)) for n in STORAGE_NAMES
                             for s in (L.FloatStorage(1), L.ones(2).storage(),
                                       L.ones(2, dtype=L.int64).storage(), L.ones(2), 1.0)],
    "byte_overflow": lambda L: L.ByteStorage([256]),
    "str": lambda L: L.FloatStorage("a"),
    "two_positional": lambda L: L.FloatStorage(2, 3),
    "float": lambda L: L.FloatStorage(2.5),
    "none": lambda L: L.FloatStorage(None),
    "numpy_array": lambda L: L.FloatStorage(np.ones(2)),
    "dtype_kw": lambda L: L.FloatStorage([1], dtype=L.float64),
    "device_kw": lambda L: L.FloatStorage(device="cpu"),
    "wrap_int": lambda L: L.FloatStorage(wrap_storage=5),
    "wrap_untyped": lambda L: L.LongStorage(wrap_storage=L.ones(4).untyped_storage()).size(),
    "tensor_of_storage": lambda L: L.FloatTensor(L.FloatStorage([1., 2.])),
    "tensor_of_storage_kw": lambda L: L.FloatTensor(storage=L.FloatStorage([3.])),
    "storage_kw_and_device": lambda L: L.FloatTensor(storage=L.FloatStorage([3.]),
                                                     device="cpu"),
    # a storage with device= (or as data=) is read as data: shared all the same
    "storage_and_device": lambda L: (lambda s: (L.FloatTensor(s, device="cpu"), s.data_ptr()
                                                == L.FloatTensor(data=s).data_ptr()))(
        L.FloatStorage([1.5, 2.])),
    "storage_and_device_version": lambda L: L.FloatTensor(L.FloatStorage([1.]), device="cpu")
    ._version,
    "storage_version": lambda L: L.FloatTensor(L.FloatStorage([1.]))._version,
    "other_storage_and_device": lambda L: L.LongTensor(L.FloatStorage([1.]), device="cpu"),
    "other_storage_as_data": lambda L: L.LongTensor(data=L.FloatStorage([1.])),
    "tensor_of_untyped_storage": lambda L: L.ByteTensor(L.ones(1).untyped_storage()),
    "tensor_of_other_storage": lambda L: L.LongTensor(L.FloatStorage([1., 2.])),
    "base_of_other_storage": lambda L: L.Tensor(L.LongStorage([1])),
    "new_of_other_storage": lambda L: L.zeros(1, dtype=L.int32).new(L.LongStorage([1])),
    "tensor_shares_storage": lambda L: (lambda s: (L.FloatTensor(s).fill_(5), s.tolist())[1])(
        L.FloatStorage([1., 2.])),
}


@pytest.mark.parametrize("case", STORAGES)
def test_storages_like_torch(case):
    def fn(L):
        # torch warns about TypedStorage once per process; no test here depends on the order
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return STORAGES[case](L)
    _like_torch(fn)


def test_storage_deprecation_warning_like_torch():
    from dyngrad import _storage
    torch.storage._reset_warn_typed_storage_removal()
    _storage._typed_storage_warned.clear()
    fn = lambda L: (L.FloatStorage([1.]).size(), L.LongStorage(2).size())   # noqa: E731
    ours, theirs = _run(dyngrad, fn), _run(torch, fn)
    assert ours == theirs and len(theirs[1]) == 1 and "TypedStorage" in theirs[1][0][1]


def test_storage_class_dtype_warns_like_torch():
    from dyngrad import _storage
    torch.storage._reset_warn_typed_storage_removal()
    _storage._typed_storage_warned.clear()
    ours, theirs = _run(dyngrad, lambda L: L.FloatStorage.dtype), \
        _run(torch, lambda L: L.FloatStorage.dtype)
    assert ours == theirs and len(theirs[1]) == 1
