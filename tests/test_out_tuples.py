"""``out=`` of functions returning several tensors (a tuple of outs), and keywords that only
some overloads take: torch's results and errors, against torch."""
from __future__ import annotations

import warnings

import pytest
import torch

import dyngrad


def _outcome(lib, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = call(lib)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            return type(e).__name__, str(e)
    return "ok", type(r).__name__


def _f64(lib, n):
    return lib.empty(0, dtype=lib.float64) if n == 1 else \
        tuple(lib.empty(0, dtype=lib.float64) for _ in range(n))


def _spd(lib):
    return lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=lib.float64)


_CALLS = {
    "qr": lambda L, o: L.qr(_spd(L), out=o),
    "linalg.qr": lambda L, o: L.linalg.qr(_spd(L), out=o),
    "linalg.svd": lambda L, o: L.linalg.svd(_spd(L), out=o),
    "svd": lambda L, o: L.svd(_spd(L), out=o),
    "linalg.slogdet": lambda L, o: L.linalg.slogdet(_spd(L), out=o),
    "slogdet": lambda L, o: L.slogdet(_spd(L), out=o),
    "triangular_solve": lambda L, o: L.triangular_solve(_spd(L)[:, :2], _spd(L), out=o),
    "native_batch_norm": lambda L, o: L.native_batch_norm(
        _spd(L), None, None, None, None, True, 0.1, 1e-5, out=o),
}
_BAD_OUTS = {
    "an int": lambda L, n: 1,
    "one tensor": lambda L, n: _f64(L, 1),
    "too short": lambda L, n: _f64(L, n)[:-1],
    "a number inside": lambda L, n: _f64(L, n)[:-1] + (2,),
}
_N_OUTS = {"linalg.svd": 3, "svd": 3, "native_batch_norm": 3}


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_out_tuple_written(name):
    """The outs hold the results (as the call without out= gives them), and are returned."""
    n = _N_OUTS.get(name, 2)
    for lib in (torch, dyngrad):
        outs = _f64(lib, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _CALLS[name](lib, outs)
        if lib is torch:
            want = [(tuple(o.shape), o.stride(), type(got).__name__) for o in outs]
            values = [o.clone() for o in outs]
        else:
            assert [(tuple(o.shape), o.stride(), type(got).__name__) for o in outs] == want
            assert all(r is o for r, o in zip(got, outs))
            for o, v in zip(outs, values):
                assert torch.allclose(torch.from_numpy(o.numpy()).abs(), v.abs())


@pytest.mark.parametrize("bad", sorted(_BAD_OUTS))
@pytest.mark.parametrize("name", sorted(_CALLS))
def test_out_tuple_errors(name, bad):
    n = _N_OUTS.get(name, 2)
    assert _outcome(dyngrad, lambda L: _CALLS[name](L, _BAD_OUTS[bad](L, n))) == \
        _outcome(torch, lambda L: _CALLS[name](L, _BAD_OUTS[bad](L, n)))


@pytest.mark.parametrize("call", [
    lambda L: L.lu(_spd(L), get_infos=True, out=_f64(L, 2)),
    lambda L: L.lu(_spd(L), out=_f64(L, 3)),
    lambda L: L.split_with_sizes_copy(_spd(L), [1, 2], out=list(_f64(L, 2))),
    lambda L: L.diff(_spd(L), out=_f64(L, 1)),
    lambda L: L.diff(_spd(L).requires_grad_(), n=2, out=_f64(L, 1)),
    lambda L: L.nn.functional.linear(_spd(L), _spd(L), out=_f64(L, 1)),
    lambda L: L.nn.functional.linear(_spd(L)[None], _spd(L), _spd(L)[0], out=_f64(L, 1)),
    lambda L: L.nn.functional.linear(_spd(L), _spd(L).requires_grad_(), out=_f64(L, 1)),
    lambda L: L.nn.functional.avg_pool2d(_spd(L)[None], 2, out=_f64(L, 1)),
])
def test_out_other_forms(call):
    assert _outcome(dyngrad, call) == _outcome(torch, call)


@pytest.mark.parametrize("call", [
    lambda L: L.normal(L.ones(2), dtype=L.float64),
    lambda L: L.normal(L.ones(2), device="cpu"),
    lambda L: L.normal(L.ones(2), 1.0, requires_grad=True),
    lambda L: L.normal(L.ones(2), L.ones(2), pin_memory=False),
    lambda L: L.normal(1.0, L.ones(2), layout=L.strided),
    lambda L: L.normal(0.0),
    lambda L: L.normal(0.0, dtype=L.float64),
    lambda L: L.normal(0.0, 1.0),
])
def test_normal_factory_keywords_need_the_size_overload(call):
    """torch's parser refuses dtype= & co. with a tensor mean or std, even at their defaults
    (dyngrad ignored them)."""
    assert _outcome(dyngrad, call) == _outcome(torch, call)


def test_normal_size_overload_takes_them():
    t = dyngrad.normal(0.0, 1.0, (3,), dtype=dyngrad.float64, requires_grad=True)
    assert t.dtype == dyngrad.float64 and t.requires_grad and tuple(t.shape) == (3,)


@pytest.mark.parametrize("call", [
    lambda L: L.sort(L.tensor([3.0, 1.0]), out=(L.empty(0),)),
    lambda L: L.topk(L.tensor([3.0, 1.0]), 1, out=(L.empty(0),) * 3),
    lambda L: L.kthvalue(L.tensor([3.0, 1.0]), 1, out=[L.empty(0)]),
    lambda L: L.cummax(L.tensor([3.0, 1.0]), 0, out=(L.empty(0),)),
    lambda L: L.max(L.tensor([3.0, 1.0]), 0, out=(L.empty(0),)),
    lambda L: L.frexp(L.ones(2), out=(L.empty(0), 1)),
    lambda L: L.frexp(L.ones(2), out=(L.empty(0),)),
])
def test_out_tuple_length_and_elements(call):
    """A tuple of the wrong length: "expected tuple of 2 elements but got 1", as torch."""
    assert _outcome(dyngrad, call) == _outcome(torch, call)


def test_where_of_one_argument_takes_no_out():
    call = lambda L: L.where(L.ones(2) > 0, out=L.empty(0))   # noqa: E731
    assert _outcome(dyngrad, call) == _outcome(torch, call)
