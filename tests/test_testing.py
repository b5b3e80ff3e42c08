"""dyngrad.testing against torch.testing: assert_close's verdicts and messages, make_tensor's
values (same seed, same numbers), assert_allclose's deprecation; and the top-level constants."""
import math
import warnings

import numpy as np
import pytest
import torch

import dyngrad


def _names(text: str) -> str:
    """A message with dyngrad's class paths spelled as torch's."""
    return (text.replace("dyngrad.Tensor", "torch.Tensor")
            .replace("dyngrad.nn.parameter.Parameter", "torch.nn.parameter.Parameter"))


def _cases(L):
    t = L.tensor
    nan, inf = float("nan"), float("inf")
    return [
        (t([1., 2., 3.]), t([1., 2.5, 3.1]), {}),
        (t([1., 2., 3.]), t([1., 2., 3.]), {}),
        (t([1, 2]), t([1, 3]), {}),
        (t([[1., 2.], [3., 4.]]), t([[1., 2.], [3., 5.]]), {}),
        (L.arange(24.).reshape(2, 3, 4), L.arange(24.).reshape(2, 3, 4) * 1.01, {}),
        (t(1.), t(2.), {}),
        (t([1., nan]), t([1., nan]), {}),
        (t([1., nan]), t([1., nan]), dict(equal_nan=True)),
        (t([1., inf]), t([1., inf]), {}),
        (t([1., inf]), t([1., -inf]), {}),
        (t([1., 2.]), t([1., 2.], dtype=L.float64), {}),
        (t([1., 2.]), t([1., 2.], dtype=L.float64), dict(check_dtype=False)),
        (t([1., 2.]), t([1., 2.1], dtype=L.float64), dict(check_dtype=False)),
        (t([1, 2], dtype=L.int32), t([1., 2.5]), dict(check_dtype=False)),
        (t([1., 2.]), t([1., 2., 3.]), {}),
        (t([[1., 2.], [3., 4.]]).t(), t([[1., 3.], [2., 4.]]), dict(check_stride=True)),
        (t([[1., 2.], [3., 4.]]).t(), t([[1., 3.], [2., 4.]]), {}),
        (t([1., 2.]), t([1., 2.2]), dict(rtol=0.2, atol=0)),
        (t([1., 2.]), t([1., 2.2]), dict(rtol=0.01, atol=0.0)),
        (t([1., 2.]), t([1., 2.2]), dict(rtol=0.01)),
        (t([1., 2.]), t([1., 2.2]), dict(atol=0.01)),
        (t([1., 2.]), t([1., 2.2]), dict(rtol=0, atol=0)),
        (t([1., 2.]), t([1., 2.2]), dict(msg="custom")),
        (t([1., 2.]), t([1., 2.2]), dict(msg=lambda m: "X" + m)),
        (t([1., 2.]), t([1., 2.]), dict(check_device=True, check_layout=True)),
        ({"a": [t(1.)], "b": t(2.)}, {"a": [t(2.)], "b": t(2.)}, {}),
        ({"a": [t(1.)], "b": t(2.)}, {"a": [t(2.)], "b": t(2.)}, dict(msg="m")),
        ({"a": [t(1.)], "b": t(2.)}, {"a": [t(2.)], "b": t(2.)}, dict(msg=str.upper)),
        ({"a": 1}, {"b": 1}, {}),
        ({"a": 1}, {"b": 1}, dict(msg="ignored for structure errors")),
        ([t(1.), t(2.)], [t(1.)], {}),
        ([t(1.), t(2.)], (t(1.), t(2.5)), dict(msg="m")),
        ([[t([1., 2.])], {"k": (1, 2.0)}], [[t([1., 2.])], {"k": (1, 2.5)}], {}),
        (1, 2.0, {}),
        (1, 1.0, dict(check_dtype=False)),
        (1, 2, {}),
        (1.0, 1.0 + 1e-9, {}),
        (1.0, 1.1, {}),
        (1.0, 0.0, {}),
        (complex(1, 2), complex(1, 2.1), {}),
        (np.float32(1.0), np.float32(1.5), {}),
        (True, False, {}),
        (True, True, {}),
        (np.bool_(True), False, {}),
        (None, None, {}),
        (None, 1, {}),
        (t([1.]), [1.], {}),
        (np.array([1., 2.]), np.array([1., 2.5]), {}),
        (np.array([1., 2.]), np.array([1., 2.]), {}),
        (t([1, 2], dtype=L.int32), t([1, 2]), {}),
        (t([True, False]), t([True, True]), {}),
        (t([1., 2.], dtype=L.float16), t([1., 2.01], dtype=L.float16), {}),
        (t([1 + 1j, 2j]), t([1 + 1j, 2.5j]), {}),
        (t([0., 1.]), t([1e-6, 1.]), {}),
        (t([0., 1.]), t([1.0, 1.]), {}),
        (t([-3, 7], dtype=L.uint8), t([4, 7], dtype=L.uint8), {}),
        ("ab", "ab", {}),
        ("ab", "ac", {}),
        (t([1.], requires_grad=True) * 2, t([2.5]), {}),
        (L.zeros(0), L.zeros(0), {}),
        (L.zeros(2, 0), L.zeros(0, 2), {}),
        (L.nn.Parameter(t([1.])), t([1.]), {}),
        (L.nn.Parameter(t([1.])), t([1.]), dict(allow_subclasses=False)),
        (nan, nan, {}),
        (nan, nan, dict(equal_nan=True)),
        (t([1.]), t([1.]), dict(rtol=None, atol=1e-3)),
    ]


def _outcome(L, case):
    a, b, kw = case
    try:
        L.testing.assert_close(a, b, **kw)
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return type(e).__name__, _names(str(e))
    return None


@pytest.mark.parametrize("i", range(len(_cases(torch))))
def test_assert_close_like_torch(i):
    ours = _outcome(dyngrad, _cases(dyngrad)[i])
    theirs = _outcome(torch, _cases(torch)[i])
    assert ours == theirs


def test_assert_close_msg_callable_gets_generated_message():
    seen = []
    with pytest.raises(AssertionError, match="^done$"):
        dyngrad.testing.assert_close(dyngrad.tensor([1.]), dyngrad.tensor([2.]),
                                     msg=lambda m: seen.append(m) or "done")
    assert seen[0].startswith("Tensor-likes are not close!")


@pytest.mark.parametrize("kw", [{}, dict(rtol=0.5, atol=0.0), dict(equal_nan=False)])
@pytest.mark.parametrize("pair", [([1., 2.], [1., 2.00001]), ([1., 2.], [1., 2.1]),
                                  ([1., float("nan")], [1., float("nan")]),
                                  ([1, 2], [1, 2]), (2.0, 2.0005)])
def test_assert_allclose_like_torch(pair, kw):
    def run(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                L.testing.assert_allclose(L.tensor(pair[0]), pair[1], **kw)
                out = None
            except Exception as e:   # noqa: BLE001
                out = (type(e).__name__, str(e))
        return out, [(x.category, str(x.message)) for x in w]
    assert run(dyngrad) == run(torch)


_MAKE = [
    dict(), dict(noncontiguous=True), dict(low=-1, high=1, exclude_zero=True), dict(low=3),
    dict(low=-1e300, high=1e300), dict(high=0.5), dict(low=0, high=1, exclude_zero=True),
    dict(memory_format="channels_last"), dict(requires_grad=True), dict(low=2, high=2),
    dict(low=float("nan")), dict(low=5, high=1), dict(noncontiguous=True,
                                                      memory_format="channels_last"),
]
_DTYPES = ["float32", "float64", "float16", "complex64", "complex128", "int64", "int32",
           "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("k", range(len(_MAKE)))
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (7,), ()])
def test_make_tensor_like_torch(dtype, k, shape):
    def run(L):
        kw = dict(_MAKE[k])
        if "memory_format" in kw:
            if len(shape) != 4:
                return "skip"
            kw["memory_format"] = getattr(L, kw["memory_format"])
        L.manual_seed(1234)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = L.testing.make_tensor(*shape, dtype=getattr(L, dtype), device="cpu", **kw)
            except Exception as e:   # noqa: BLE001
                return type(e).__name__, str(e).replace("dyngrad.", "torch.")
        return (np.asarray(r.detach().numpy() if L is torch else r.detach()._data).copy(),
                r.stride(), r.requires_grad, str(r.dtype), r.is_contiguous(),
                [x.category for x in w], r.grad_fn is None)
    ours, theirs = run(dyngrad), run(torch)
    if isinstance(theirs, tuple) and len(theirs) == 7:
        assert isinstance(ours, tuple) and len(ours) == 7, ours
        np.testing.assert_array_equal(ours[0], theirs[0])
        assert ours[0].dtype == theirs[0].dtype
        assert ours[1:] == theirs[1:]
    else:
        assert ours == theirs


def test_make_tensor_shape_forms():
    for shape in [((2, 3),), ([2, 3],), (dyngrad.Size([2, 3]),), (2, 3)]:
        r = dyngrad.testing.make_tensor(*shape, dtype=dyngrad.float32, device="cpu")
        assert tuple(r.shape) == (2, 3)
    with pytest.raises(TypeError, match="not supported by torch.testing.make_tensor"):
        dyngrad.testing.make_tensor(2, dtype=None, device="cpu")


def test_constants_are_torchs():
    for name in ["e", "pi", "inf"]:
        assert getattr(dyngrad, name) is getattr(torch, name)
        assert getattr(dyngrad, name) is getattr(math, name)
    assert math.isnan(dyngrad.nan) and dyngrad.nan is torch.nan
    assert dyngrad.newaxis is None is torch.newaxis
    x = dyngrad.arange(3.)
    assert tuple(x[dyngrad.newaxis].shape) == (1, 3)
