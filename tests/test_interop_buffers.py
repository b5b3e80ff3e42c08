"""frombuffer, from_file, from_dlpack / to_dlpack and Tensor.__dlpack__ against torch: values,
dtypes, shared memory, errors."""
import array
import warnings

import numpy as np
import pytest
import torch

import dyngrad


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach()._data)


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return type(e).__name__, str(e)
    return str(r.dtype), tuple(r.shape), r.stride(), _np(r).tolist(), r.requires_grad


_BUF = bytes(range(1, 25))
_FROMBUFFER = [
    dict(dtype="int32"), dict(dtype="float32", count=2, offset=4), dict(dtype="uint8"),
    dict(dtype="int16", offset=2), dict(dtype="float64", count=3), dict(dtype="int32", count=7),
    dict(dtype="int32", offset=24), dict(dtype="int32", offset=-1), dict(dtype="int32", count=0),
    dict(dtype="int32", offset=1), dict(dtype="float32", requires_grad=True),
    dict(dtype="int64", requires_grad=True), dict(dtype="bool", count=3), dict(dtype="complex64"),
]


@pytest.mark.parametrize("k", range(len(_FROMBUFFER)))
@pytest.mark.parametrize("make", [bytearray, lambda b: array.array("b", b),
                                  lambda b: memoryview(bytearray(b))])
def test_frombuffer_like_torch(k, make):
    def run(L):
        kw = dict(_FROMBUFFER[k])
        kw["dtype"] = getattr(L, kw["dtype"])
        return _outcome(lambda: L.frombuffer(make(_BUF), **kw))
    assert run(dyngrad) == run(torch)


def test_frombuffer_shares_memory_and_errors():
    b = bytearray(8)
    t = dyngrad.frombuffer(b, dtype=dyngrad.int32)
    b[0] = 5
    assert t.tolist() == [5, 0]
    t[1] = 7
    assert b[4] == 7
    for bad in [lambda L: L.frombuffer([1, 2], dtype=L.int32), lambda L: L.frombuffer(b"", dtype=L.float32),
                lambda L: L.frombuffer(b"abcd")]:
        outs = []
        for L in (torch, dyngrad):
            with pytest.raises(Exception) as e:
                bad(L)
            outs.append((type(e.value), str(e.value)))
        assert outs[0] == outs[1]


def test_frombuffer_readonly_warns_like_torch():
    from dyngrad.ops import interop_buffers, pointwise
    pointwise._WARNED.discard(interop_buffers._NOT_WRITABLE_BUFFER)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = dyngrad.frombuffer(b"\x01\x00\x02\x00", dtype=dyngrad.int16)
    assert t.tolist() == [1, 2]
    assert [str(x.message) for x in w] == [interop_buffers._NOT_WRITABLE_BUFFER]


@pytest.mark.parametrize("kw", [dict(size=6), dict(size=3, dtype="float64"), dict(),
                                dict(shared=False, size=2), dict(size=7), dict(size=2, requires_grad=True),
                                dict(size=6, dtype="int32"), dict(size=2, shared=True)])
def test_from_file_like_torch(tmp_path, kw):
    path = tmp_path / "data.bin"
    np.arange(6, dtype=np.float32).tofile(path)

    def run(L):
        k = dict(kw)
        if "dtype" in k:
            k["dtype"] = getattr(L, k["dtype"])
        return _outcome(lambda: L.from_file(str(path), **k))
    assert run(dyngrad) == run(torch)


def test_from_file_shared_writes_through_and_missing(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    t = dyngrad.from_file(str(path), shared=True, size=4)
    t[0] = 10.0
    del t
    assert np.fromfile(path, dtype=np.float32).tolist() == [10.0, 1.0, 2.0, 3.0]
    t = dyngrad.from_file(str(path), shared=False, size=4)
    t[1] = -1.0
    assert np.fromfile(path, dtype=np.float32)[1] == 1.0
    missing = str(tmp_path / "nope.bin")
    for shared in (False,):
        outs = []
        for L in (torch, dyngrad):
            with pytest.raises(RuntimeError) as e:
                L.from_file(missing, shared=shared, size=2)
            outs.append(str(e.value))
        assert outs[0] == outs[1]


@pytest.mark.parametrize("src", [lambda: np.arange(6.).reshape(2, 3), lambda: np.arange(12).reshape(3, 4)[:, ::2],
                                 lambda: np.array([True, False]), lambda: np.zeros((2, 0), np.float32),
                                 lambda: np.arange(4, dtype=np.int8), lambda: np.ones(3, np.complex64),
                                 lambda: np.float64(3.5).reshape(())])
def test_from_dlpack_numpy_like_torch(src):
    ours = _outcome(lambda: dyngrad.from_dlpack(src()))
    theirs = _outcome(lambda: torch.from_dlpack(src()))
    assert ours == theirs


def test_dlpack_shares_memory_both_ways():
    a = np.arange(4.)
    t = dyngrad.from_dlpack(a)
    a[0] = 9
    t[1] = 8
    assert t.tolist() == [9., 8., 2., 3.] and a.tolist() == [9., 8., 2., 3.]
    x = dyngrad.arange(4.)
    n = np.from_dlpack(x)
    n[2] = -1
    assert x.tolist() == [0., 1., -1., 3.]
    # torch reads dyngrad's tensors and dyngrad torch's, without copies
    tt = torch.from_dlpack(x)
    tt[3] = 42
    assert x[3].item() == 42.0
    src = torch.arange(3.)
    d = dyngrad.from_dlpack(src)
    src[0] = 5
    assert d.tolist() == [5., 1., 2.]
    y = dyngrad.arange(6.).reshape(2, 3).t()
    assert torch.from_dlpack(y).stride() == y.stride() == (1, 3)


def test_capsules_like_torch():
    for L in (torch, dyngrad):
        x = L.arange(4.)
        cap = L.utils.dlpack.to_dlpack(x)
        assert type(cap).__name__ == "PyCapsule"
        y = L.utils.dlpack.from_dlpack(cap)
        y[0] = 3
        assert x[0].item() == 3.0
    outs = []
    for L in (torch, dyngrad):
        cap = L.utils.dlpack.to_dlpack(L.arange(2.))
        L.from_dlpack(cap)
        errs = []
        for bad in (lambda: L.from_dlpack(cap), lambda: L.from_dlpack([1]),
                    lambda: L.utils.dlpack.to_dlpack(1),
                    lambda: L.ones(2, requires_grad=True).__dlpack__(),
                    lambda: L.ones(2).__dlpack__(stream=1)):
            try:
                bad()
                errs.append(None)
            except Exception as e:   # noqa: BLE001
                errs.append((type(e).__name__, str(e)))
        outs.append(errs)
    assert outs[0] == outs[1]


def test_dlpack_device_and_versions():
    x, tx = dyngrad.ones(2), torch.ones(2)
    assert x.__dlpack_device__() == tx.__dlpack_device__()
    assert int(x.__dlpack_device__()[0]) == 1
    assert repr(x.__dlpack_device__()[0]) == repr(tx.__dlpack_device__()[0]).replace(
        "DLDeviceType", "DLDeviceType")
    for kw in [{}, dict(max_version=(1, 0)), dict(max_version=(0, 8)), dict(copy=True)]:
        names = [str(o.__dlpack__(**kw)).split('"')[1] for o in (x, tx)]
        assert names[0] == names[1], kw
    assert list(dyngrad.utils.dlpack.DLDeviceType.__members__) == list(
        torch.utils.dlpack.DLDeviceType.__members__)
