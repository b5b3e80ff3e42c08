"""``x[index]`` and ``x[index] = value`` against live torch: values, dtype, shape, strides (of
views *and* of advanced-indexing copies), storage offsets, aliasing, version bumps, warnings and
errors. Also index_select / masked_select / take / index_put_.
"""
import warnings

import numpy as np
import pytest
import torch

import dyngrad

LIBS = (dyngrad, torch)


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


def _ptr(t):
    return t.untyped_storage().data_ptr()


def _root(t):
    b = getattr(t, "_base", None)
    return t if b is None else b


def _arange(lib, n, shape, dtype="float32"):
    return lib.tensor(np.arange(n, dtype=dtype).reshape(shape))


BASES = {
    "contiguous": lambda lib: _arange(lib, 120, (2, 3, 4, 5)),
    "transposed": lambda lib: _arange(lib, 120, (5, 3, 4, 2)).transpose(0, 3),
    "permuted": lambda lib: _arange(lib, 120, (5, 4, 3, 2)).permute(3, 2, 1, 0),
    "channels_last": lambda lib: _arange(lib, 120, (2, 3, 4, 5)).contiguous(
        memory_format=lib.channels_last),
    "sliced": lambda lib: _arange(lib, 240, (2, 6, 4, 5))[:, ::2],
    "expanded": lambda lib: _arange(lib, 40, (2, 1, 4, 5)).expand(2, 3, 4, 5),
}


def _mask(lib, shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).random(shape) > 0.4)


# index makers: fn(lib) -> index (built per library so tensors belong to it)
GET_CASES = [
    ("int", lambda lib: 1),
    ("neg_int", lambda lib: -1),
    ("ints", lambda lib: (0, 1)),
    ("slice", lambda lib: slice(1, None)),
    ("slice_step", lambda lib: slice(None, None, 2)),
    ("full_slice", lambda lib: slice(None)),
    ("slice_then_int", lambda lib: (slice(None), 1)),
    ("ellipsis_int", lambda lib: (Ellipsis, 0)),
    ("ellipsis", lambda lib: Ellipsis),
    ("none", lambda lib: None),
    ("none_int_none", lambda lib: (None, 0, None)),
    ("int_ellipsis_none", lambda lib: (0, Ellipsis, None)),
    ("slice_none_int", lambda lib: (slice(1, 3), None, 2)),
    ("full_slices", lambda lib: (slice(None), slice(None))),
    ("empty_tuple", lambda lib: ()),
    ("neg_start", lambda lib: (slice(-2, None),)),
    ("big_stop", lambda lib: (slice(0, 100), slice(1, 2))),
    ("past_end", lambda lib: (slice(None), slice(5, 7))),
    ("mixed", lambda lib: (1, slice(None, 2), Ellipsis, slice(1, None, 3))),
    ("two_ellipses", lambda lib: (Ellipsis, 0, Ellipsis)),
    ("tensor0d_int", lambda lib: lib.tensor(1)),
    ("tensor0d_in_tuple", lambda lib: (0, lib.tensor(-1))),
    ("numpy_int", lambda lib: np.int64(1)),
    ("true", lambda lib: True),
    ("false", lambda lib: False),
    ("int_true", lambda lib: (0, True)),
    ("tensor0d_bool", lambda lib: lib.tensor(True)),
    ("list", lambda lib: [1, 0]),
    ("list_neg", lambda lib: [-1, -2, 0]),
    ("long_tensor", lambda lib: lib.tensor([1, 0, 1])),
    ("tensor2d", lambda lib: lib.tensor([[0, 1], [1, 0]])),
    ("tensor2d_t", lambda lib: lib.tensor([[0, 1, 1], [1, 0, 0]]).t()),
    ("expanded_index", lambda lib: lib.tensor([0, 1]).expand(3, 2)),
    ("int32_index", lambda lib: lib.tensor([1, 0], dtype=lib.int32)),
    ("int32_expanded", lambda lib: (slice(None), lib.tensor([[0], [2]], dtype=lib.int32),
                                    lib.tensor([0, 1, 3], dtype=lib.int32))),
    ("slice_list", lambda lib: (slice(None), [0, 2])),
    ("two_lists", lambda lib: ([0, 1], [1, 2])),
    ("separated", lambda lib: ([0, 1], slice(None), [0, 3])),
    ("separated_by_int", lambda lib: (0, [0, 1], slice(None), [1, 2])),
    ("broadcast_lists", lambda lib: ([[0], [1]], [0, 2])),
    ("adv_after_slices", lambda lib: (slice(None), slice(None), [3, 0], [1, 4])),
    ("adv_with_sliced", lambda lib: (slice(1, None), [0, 2], slice(None, None, 2))),
    ("none_between", lambda lib: ([0, 1], None, [0, 1])),
    ("none_first", lambda lib: (None, [0, 1])),
    ("ellipsis_list", lambda lib: (Ellipsis, [0, 1])),
    ("true_list", lambda lib: (True, [0, 1])),
    ("empty_list", lambda lib: []),
    ("slice_empty_list", lambda lib: (slice(None), [])),
    ("float_list", lambda lib: [0.7, 1.2]),
    ("bool_list", lambda lib: [True, False]),
    ("numpy_array", lambda lib: np.array([1, 0])),
    ("mask_full", lambda lib: _mask(lib, (2, 3, 4, 5))),
    ("mask_2d", lambda lib: _mask(lib, (2, 3))),
    ("mask_mid", lambda lib: (slice(None), _mask(lib, (3, 4)))),
    ("mask_last", lambda lib: (Ellipsis, _mask(lib, (5,)))),
    ("mask_then_int", lambda lib: (_mask(lib, (2, 3)), 0)),
    ("mask_then_list", lambda lib: (_mask(lib, (2,), 3), slice(None), [0, 1, 3, 0, 2][:1])),
    ("two_masks", lambda lib: (lib.tensor([True, False]), slice(None),
                               lib.tensor([True, False, True, True]))),
    ("list_then_mask", lambda lib: ([0, 1], _mask(lib, (3,), 5))),
    ("uint8_mask", lambda lib: lib.tensor([1, 0], dtype=lib.uint8)),
    ("list_of_lists", lambda lib: [[0, 1], [1, 2]]),
    ("list_with_tensor", lambda lib: [lib.tensor(0), 1]),
    ("list_with_slice", lambda lib: [0, slice(1, None)]),
]


def _get(lib, base_name, make):
    x = BASES[base_name](lib)
    idx = make(lib)
    v0 = x._version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = x[idx]
        except Exception as e:   # noqa: BLE001 (compared across libraries)
            return (type(e), str(e))
    return ((tuple(r.shape), r.stride(), r.storage_offset(), str(r.dtype).split(".")[-1],
             r.is_contiguous(), _ptr(r) == _ptr(x), getattr(r, "_base", None) is _root(x),
             r is x, x._version - v0), _np(r).tolist())


@pytest.mark.parametrize("base_name", list(BASES))
@pytest.mark.parametrize("name,make", GET_CASES, ids=[c[0] for c in GET_CASES])
def test_getitem_like_torch(base_name, name, make):
    assert _get(dyngrad, base_name, make) == _get(torch, base_name, make)


def test_getitem_other_dtypes():
    for dtype in ("int64", "bool", "float64", "uint8", "complex64"):
        res = []
        for lib in LIBS:
            x = lib.tensor(np.arange(12).reshape(3, 4).astype(dtype))
            r1, r2 = x[1:, [0, 2]], x[x.real > 0 if dtype == "complex64" else x != 0]
            res.append([(str(r.dtype), tuple(r.shape), r.stride(), _np(r).tolist())
                        for r in (r1, r2, x[0])])
        assert res[0] == res[1], dtype


def test_getitem_0d_and_1d():
    cases = [lambda x: x[None], lambda x: x[...], lambda x: x[True], lambda x: x[False],
             lambda x: x[lib_tensor_bool(x)], lambda x: x[None, None]]
    for fn in cases:
        res = []
        for lib in LIBS:
            x = lib.tensor(3.5)
            r = fn(x)
            res.append((tuple(r.shape), r.stride(), _np(r).tolist()))
        assert res[0] == res[1]


def lib_tensor_bool(x):
    return (torch if isinstance(x, torch.Tensor) else dyngrad).tensor(True)


GET_ERRORS = [
    ("float", lambda lib, x: x[0.5]),
    ("float_tensor", lambda lib, x: x[lib.tensor([0.0])]),
    ("float_tensor_0d", lambda lib, x: x[lib.tensor(0.0)]),
    ("int8_tensor", lambda lib, x: x[lib.tensor([0], dtype=lib.int8)]),
    ("oob_int", lambda lib, x: x[2]),
    ("oob_neg", lambda lib, x: x[:, -4]),
    ("oob_tensor0d", lambda lib, x: x[lib.tensor(7)]),
    ("oob_list", lambda lib, x: x[[0, 2]]),
    ("oob_list_dim1", lambda lib, x: x[:, [0, 5]]),
    ("oob_list_neg", lambda lib, x: x[[0, 1], [-4, 0]]),
    ("mask_shape", lambda lib, x: x[lib.tensor([True, False, True])]),
    ("mask_shape_dim1", lambda lib, x: x[:, lib.tensor([True, False])]),
    ("mask_too_long", lambda lib, x: x[0, 0, 0, lib.tensor([True, False])]),
    ("broadcast", lambda lib, x: x[[0, 1], [0, 1, 2]]),
    ("false_and_list", lambda lib, x: x[0, False, [0, 1]]),
    ("too_many", lambda lib, x: x[0, 0, 0, 0, 0]),
    ("too_many_lists", lambda lib, x: x[[0], [0], [0], [0], [0]]),
    ("neg_step", lambda lib, x: x[::-1]),
    ("zero_step", lambda lib, x: x[..., ::0]),
    ("str", lambda lib, x: x[0, "a"]),
    ("slice_float", lambda lib, x: x[0.5:]),
    ("0d_int", lambda lib, x: x[0, 0, 0, 0][0]),
    ("0d_int1", lambda lib, x: x[0, 0, 0, 0][1]),
    ("0d_tuple", lambda lib, x: x[0, 0, 0, 0][0,]),
    ("0d_slice", lambda lib, x: x[0, 0, 0, 0][:]),
    ("0d_list", lambda lib, x: x[0, 0, 0, 0][[0]]),
    ("empty_dim_oob", lambda lib, x: x[:, :0][:, [0]]),
]


@pytest.mark.parametrize("name,fn", GET_ERRORS, ids=[c[0] for c in GET_ERRORS])
def test_getitem_errors_like_torch(name, fn):
    errs = []
    for lib in LIBS:
        x = _arange(lib, 120, (2, 3, 4, 5))
        with pytest.raises(Exception) as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(lib, x)
        errs.append((info.type, str(info.value)))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("make", [
    lambda lib: [[0, 1], [1, 2]],
    lambda lib: lib.tensor([1, 0], dtype=lib.uint8),
    lambda lib: [lib.tensor(0), 1],
])
def test_getitem_warnings_like_torch(make):
    msgs = []
    for lib in LIBS:
        x = _arange(lib, 24, (2, 3, 4))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x[make(lib)]
        msgs.append([(x.category, str(x.message)) for x in w])
    assert msgs[0] == msgs[1] and msgs[0]


# ---------------------------------------------------------------------------------------------
# setitem
# ---------------------------------------------------------------------------------------------
# fn(lib, x) performs one assignment on x (a (2, 3, 4, 5) float32 tensor, or as given)
SET_CASES = [
    ("int_scalar", lambda lib, x: x.__setitem__(0, 1)),
    ("slice_float", lambda lib, x: x.__setitem__((slice(None), 1), 2.5)),
    ("ellipsis", lambda lib, x: x.__setitem__(Ellipsis, 7)),
    ("none", lambda lib, x: x.__setitem__(None, -1)),
    ("true_f64_tensor", lambda lib, x: x.__setitem__(True, lib.ones(3, 4, 5, dtype=lib.float64))),
    ("false", lambda lib, x: x.__setitem__(False, 3.0)),
    ("full_slice", lambda lib, x: x.__setitem__(slice(None), 4.0)),
    ("tensor_bcast", lambda lib, x: x.__setitem__((0, 1), lib.arange(5.0))),
    ("tensor_lead_ones", lambda lib, x: x.__setitem__((0, 0), lib.arange(20.0).reshape(1, 1, 4, 5))),
    ("tensor_other_dtype", lambda lib, x: x.__setitem__(slice(1, None), lib.ones(3, 4, 5,
                                                                             dtype=lib.int64))),
    ("tensor_0d", lambda lib, x: x.__setitem__((Ellipsis, 0), lib.tensor(9.0))),
    ("tensor_0d_f64", lambda lib, x: x.__setitem__(1, lib.tensor(9.5, dtype=lib.float64))),
    ("tensor_int0d_index", lambda lib, x: x.__setitem__(lib.tensor(1), 3.0)),
    ("bool_value", lambda lib, x: x.__setitem__(0, True)),
    ("numpy_int_index", lambda lib, x: x.__setitem__(np.int64(1), 2)),
    ("step_slice", lambda lib, x: x.__setitem__((slice(None), slice(None, None, 2)), 0.5)),
    ("no_overlap_copy", lambda lib, x: x.__setitem__((slice(None), 0), x[:, 1])),
    ("self_full", lambda lib, x: x.__setitem__(Ellipsis, x)),
    ("self_0d_alias", lambda lib, x: x.__setitem__((0, 0), x[1, 2, 3, 4])),
    ("adv_scalar", lambda lib, x: x.__setitem__([0, 1], 3)),
    ("adv_two_lists", lambda lib, x: x.__setitem__(([0, 1], [1, 2]), lib.arange(5.0))),
    ("adv_tensor_val", lambda lib, x: x.__setitem__((slice(None), [0, 2]),
                                                    lib.arange(80.0).reshape(2, 2, 4, 5))),
    ("adv_separated", lambda lib, x: x.__setitem__(([0, 1], slice(None), [1, 2]),
                                                   lib.arange(30.0).reshape(2, 3, 5))),
    ("adv_lead_ones", lambda lib, x: x.__setitem__([1], lib.ones(1, 1, 3, 4, 5))),
    ("mask_scalar", lambda lib, x: x.__setitem__(x > 50, 0)),
    ("mask_0d_f64", lambda lib, x: x.__setitem__(x > 50, lib.tensor(-1.0, dtype=lib.float64))),
    ("mask_values", lambda lib, x: x.__setitem__(x > 100, -lib.arange(19.0))),
    ("mask_mid", lambda lib, x: x.__setitem__((slice(None), _mask(lib, (3, 4))), 2.0)),
    ("mask_and_list", lambda lib, x: x.__setitem__((lib.tensor([True, False]), [0, 2]), 5.0)),
    ("true_in_tuple", lambda lib, x: x.__setitem__((0, True), 8.0)),
    ("int32_index", lambda lib, x: x.__setitem__(lib.tensor([2, 0], dtype=lib.int32), 1.0)),
    ("accumulate_free_dupes", lambda lib, x: x.__setitem__(([0, 1], [2, 2]), 6.0)),
]


def _set(lib, fn, base=None):
    x = _arange(lib, 120, (2, 3, 4, 5)) if base is None else base(lib)
    alias = x[1]
    v0 = x._version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(lib, x)
        except Exception as e:   # noqa: BLE001
            return (type(e), str(e), x._version - v0, _np(x).tolist())
    return (x._version - v0, alias._version - v0, str(x.dtype), _np(x).tolist(),
            _np(alias).tolist())


@pytest.mark.parametrize("name,fn", SET_CASES, ids=[c[0] for c in SET_CASES])
def test_setitem_like_torch(name, fn):
    assert _set(dyngrad, fn) == _set(torch, fn)


@pytest.mark.parametrize("base_name", ["transposed", "channels_last", "sliced"])
def test_setitem_noncontiguous_bases(base_name):
    for _, fn in SET_CASES[:4] + SET_CASES[19:25]:
        assert _set(dyngrad, fn, BASES[base_name]) == _set(torch, fn, BASES[base_name])


def test_setitem_dtypes():
    cases = [
        ("int64", lambda lib, x: x.__setitem__(0, 2.7)),
        ("int64", lambda lib, x: x.__setitem__(0, lib.tensor(-2.7))),
        ("uint8", lambda lib, x: x.__setitem__(0, -1)),
        ("bool", lambda lib, x: x.__setitem__(0, 0.5)),
        ("bool", lambda lib, x: x.__setitem__([0], 2)),
        ("float64", lambda lib, x: x.__setitem__(0, 1e300)),
        ("float16", lambda lib, x: x.__setitem__(0, 1e10)),
        ("complex64", lambda lib, x: x.__setitem__(0, 1 + 2j)),
        ("int32", lambda lib, x: x.__setitem__((0, 0), 70000.0)),
    ]
    for dtype, fn in cases:
        base = (lambda lib, d=dtype: lib.tensor(np.arange(12).reshape(3, 4).astype(d)))
        assert _set(dyngrad, fn, base) == _set(torch, fn, base), dtype


SET_ERRORS = [
    ("shape_mismatch", lambda lib, x: x.__setitem__(0, lib.arange(3.0))),
    ("shape_mismatch_2d", lambda lib, x: x.__setitem__((0, 0), lib.arange(20.0).reshape(5, 4))),
    ("too_many_dims", lambda lib, x: x.__setitem__((0, 0, 0), lib.zeros(2, 5))),
    ("adv_shape", lambda lib, x: x.__setitem__(([0, 1], [0, 2]), lib.arange(3.0))),
    ("adv_dtype", lambda lib, x: x.__setitem__([0, 1], lib.zeros(5, dtype=lib.float64))),
    ("adv_dtype_before_oob", lambda lib, x: x.__setitem__([0, 5], lib.zeros(5, dtype=lib.int64))),
    ("adv_oob", lambda lib, x: x.__setitem__([0, 5], 1.0)),
    ("mask_shape_fill", lambda lib, x: x.__setitem__(lib.tensor([True, False, True]), 1.0)),
    ("uint8_mask_fill", lambda lib, x: x.__setitem__(lib.tensor([1, 0], dtype=lib.uint8), 1.0)),
    ("mask_complex_fill", lambda lib, x: x.__setitem__(lib.tensor([True, False]),
                                                       lib.tensor(1 + 1j))),
    ("str_value", lambda lib, x: x.__setitem__(0, "a")),
    ("none_value", lambda lib, x: x.__setitem__(0, None)),
    ("list_value", lambda lib, x: x.__setitem__(0, [1, 2])),
    ("complex_into_float", lambda lib, x: x.__setitem__(0, 1 + 2j)),
    ("float_overflow", lambda lib, x: x.__setitem__(0, 1e300)),
    ("int_overflow", lambda lib, x: x.__setitem__(0, 2 ** 64)),
    ("partial_overlap", lambda lib, x: x.__setitem__((slice(None), slice(1, None)), x[:, :-1])),
    ("adv_overlap", lambda lib, x: x.__setitem__([0], x[1:])),
    ("expanded_dst", lambda lib, x: x[:, :1].expand(2, 3, 4, 5).__setitem__(0, 1.0)),
    ("neg_step", lambda lib, x: x.__setitem__(slice(None, None, -1), 1.0)),
    ("index_oob", lambda lib, x: x.__setitem__(3, 1.0)),
    ("delete", lambda lib, x: x.__delitem__(0)),
]


@pytest.mark.parametrize("name,fn", SET_ERRORS, ids=[c[0] for c in SET_ERRORS])
def test_setitem_errors_like_torch(name, fn):
    assert _set(dyngrad, fn)[:3] == _set(torch, fn)[:3]


def test_setitem_expanded_advanced_warns():
    msgs = []
    for lib in LIBS:
        x = lib.zeros(3).expand(4, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x[[0]] = 1.0
        msgs.append([(m.category, str(m.message)) for m in w])
    assert msgs[0] == msgs[1] and msgs[0]


# ---------------------------------------------------------------------------------------------
# index_select / masked_select / take / index_put_
# ---------------------------------------------------------------------------------------------
OTHER = [
    lambda lib, x: x.index_select(1, lib.tensor([2, 0, 2])),
    lambda lib, x: lib.index_select(x.transpose(0, 2), 0, lib.tensor([1], dtype=lib.int32)),
    lambda lib, x: x.index_select(-1, lib.tensor(3)),
    lambda lib, x: x[0, 0, 0, 0].index_select(0, lib.tensor([0])),
    lambda lib, x: x.index_select(1, lib.tensor([0.0])),
    lambda lib, x: x.index_select(1, lib.tensor([[0]])),
    lambda lib, x: x.index_select(1, lib.tensor([3])),
    lambda lib, x: x.masked_select(x > 60),
    lambda lib, x: lib.masked_select(x.transpose(1, 3), lib.tensor([True, False, True])),
    lambda lib, x: x.masked_select(lib.tensor([1, 0, 1, 1, 0])),
    lambda lib, x: x.masked_select(lib.tensor([True, False])),
    lambda lib, x: x.take(lib.tensor([[0, 7], [-1, 100]])),
    lambda lib, x: lib.take(x.permute(3, 2, 1, 0), lib.tensor([1, 2, 3])),
    lambda lib, x: x.take(lib.tensor([120])),
    lambda lib, x: x.take(lib.tensor([0], dtype=lib.int32)),
    lambda lib, x: x.index_put_((lib.tensor([0, 1]), lib.tensor([2, 0])), lib.tensor(5.0)),
    lambda lib, x: x.index_put_((lib.tensor([0, 0]), lib.tensor([2, 2])), lib.ones(5), True),
    lambda lib, x: x.index_put((lib.tensor([1]),), lib.zeros(3, 4, 5)),
    lambda lib, x: x.index_put_((lib.tensor([True, False]),), lib.tensor(-1.0)),
    lambda lib, x: x.index_put_((None, lib.tensor([True, False, True])), lib.tensor(-1.0)),
    lambda lib, x: x.index_put_(lib.tensor([0]), lib.tensor(-1.0)),
    lambda lib, x: x.index_put_([lib.tensor([0])], -1.0),
]


@pytest.mark.parametrize("k", range(len(OTHER)))
def test_other_indexing_ops_like_torch(k):
    res = []
    for lib in LIBS:
        x = _arange(lib, 120, (2, 3, 4, 5))
        try:
            r = OTHER[k](lib, x)
            res.append((tuple(r.shape), r.stride(), str(r.dtype), _np(r).tolist(), r is x,
                        x._version, _np(x).tolist()))
        except Exception as e:   # noqa: BLE001
            res.append((type(e), str(e)))
    assert res[0] == res[1]


@pytest.mark.parametrize("index", [0, [0], Ellipsis, None, True, slice(1, None), (slice(None), [0])],
                         ids=["int", "list", "ellipsis", "none", "true", "slice", "slice_list"])
def test_setitem_on_leaf_requiring_grad_like_torch(index):
    res = []
    for lib in LIBS:
        x = lib.tensor(np.zeros((2, 3), np.float32), requires_grad=True)
        with lib.enable_grad(), pytest.raises(RuntimeError) as info:
            x[index] = 1.0
        with lib.no_grad():
            x[index] = 2.0
        res.append((str(info.value), x._version, _np(x).tolist()))
    assert res[0] == res[1]
