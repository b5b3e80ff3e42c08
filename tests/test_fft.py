"""torch.fft against live torch beyond the op database (tests/opinfo/fft.py): a wide sweep of
values, dtypes, strides and graph node names, gradients of the complex-valued transforms through
real losses (the database compares real results only), second derivatives, forward mode,
out=, the frequency helpers, stft and istft.

Most losses here are sums of weighted squares of ``view_as_real`` of the results, which test
the FFT nodes alone (exact adjoints: torch's formulas); test_spectrum_losses goes through the
complex elementwise formulas too (``abs``/``imag``/``angle`` of a spectrum, differentiated
twice), and the stft/istft tests differentiate a real window multiplied into complex data."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
import torch

import dyngrad


def _fft(lib, name):
    """``lib.fft.<name>``."""
    return getattr(lib.fft, name)


def _nodes(t):
    """Node names depth first from t.grad_fn (one list for the whole graph)."""
    out, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None:
            continue
        out.append(fn.name())
        stack.extend(f for f, _ in reversed(fn.next_functions))
    return out


def _array(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        return rng.integers(-5, 5, shape)
    values = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _call(lib, name, arr, kwargs, grad):
    x = lib.from_numpy(arr.copy())
    if grad:
        x.requires_grad_()
    try:
        return x, _fft(lib, name)(x, **kwargs), None
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return x, None, e


def _numpy(t):
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else \
        t.detach().numpy()


ONE_DIM = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_DIM = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn",
         "irfftn", "hfftn", "ihfftn")
ONE_DIM_KW = ({}, {"n": 8}, {"n": 3}, {"dim": 0}, {"norm": "ortho"}, {"norm": "forward"},
              {"n": 1}, {"n": 0}, {"norm": "bad"}, {"dim": 3})
N_DIM_KW = ({}, {"s": (3,)}, {"dim": (0,)}, {"dim": (-1, 0)}, {"s": (2, 5), "dim": (0, -1)},
            {"norm": "ortho"}, {"s": (-1, 4)}, {"dim": (1, 1)}, {"s": (2, 2), "dim": (0,)},
            {"s": (1, 1, 1, 1)})
SHAPES = ((6,), (5,), (2, 3, 4), (4, 1, 3))


@pytest.mark.parametrize("name", ONE_DIM + N_DIM)
@pytest.mark.parametrize("dtype", ("float32", "float64", "complex64", "complex128", "int64"))
def test_matches_torch(name, dtype):
    """Values, dtype, shape, strides and node names; errors with torch's type and text."""
    for shape in SHAPES:
        arr = _array(shape, dtype, zlib.crc32(f"{name}{dtype}{shape}".encode()))
        for kwargs in (ONE_DIM_KW if name in ONE_DIM else N_DIM_KW):
            grad = dtype != "int64"
            where = f"{name} {shape} {dtype} {kwargs}"
            _, expected, texc = _call(torch, name, arr, kwargs, grad)
            _, got, exc = _call(dyngrad, name, arr, kwargs, grad)
            if texc is not None:
                assert exc is not None, f"{where}: torch raised {texc!r}"
                assert (type(exc), str(exc)) == (type(texc), str(texc)), where
                continue
            assert exc is None, f"{where}: dyngrad raised {exc!r}"
            assert str(got.dtype) == str(expected.dtype), where
            assert tuple(got.shape) == tuple(expected.shape), where
            assert got.stride() == expected.stride(), where
            assert _nodes(got) == _nodes(expected), where
            tol = 1e-4 if dtype in ("float32", "complex64", "int64") else 1e-10
            np.testing.assert_allclose(_numpy(got), _numpy(expected), rtol=tol, atol=tol,
                                       err_msg=where)


def _real_view(lib, t):
    """A real tensor holding t's values: view_as_real of a complex result (torch's inverse
    real transforms return a conjugate view, which view_as_real refuses: resolved first)."""
    if not t.is_complex():
        return t
    return lib.view_as_real(t.resolve_conj() if lib is torch else t)


def _weighted(lib, t, w):
    """sum(w * real_view(t)**2): a real loss free of complex elementwise formulas."""
    return (_real_view(lib, t).pow(2) * lib.from_numpy(w)).sum()


GRAD_CASES = [(n, kw) for n in ONE_DIM for kw in ({}, {"n": 8}, {"n": 3}, {"norm": "ortho"},
                                                  {"norm": "forward", "dim": 0})] + \
             [(n, kw) for n in N_DIM for kw in ({}, {"s": (2, 5), "dim": (0, -1)},
                                                {"dim": (-1, 0), "norm": "ortho"})]


@pytest.mark.parametrize("name,kwargs", GRAD_CASES,
                         ids=[f"{n}-{kw}" for n, kw in GRAD_CASES])
@pytest.mark.parametrize("dtype", ("float64", "complex128"))
def test_first_and_second_derivatives(name, kwargs, dtype):
    """FftR2C/C2R/C2CBackward0 (and the pads, slices and conjugates around them): gradients
    and the gradient of a weighted sum of the gradient, created with create_graph."""
    arr = _array((3, 4, 5), dtype, zlib.crc32(f"grad{name}{kwargs}{dtype}".encode()))
    _, _, texc = _call(torch, name, arr, kwargs, True)
    if texc is not None:   # e.g. rfft of complex input: the same error, nothing to differentiate
        _, _, exc = _call(dyngrad, name, arr, kwargs, True)
        assert (type(exc), str(exc)) == (type(texc), str(texc))
        return
    results = []
    for lib in (torch, dyngrad):
        x, y, exc = _call(lib, name, arr, kwargs, True)
        assert exc is None, f"{lib.__name__} raised {exc!r}"
        rng = np.random.default_rng(1)
        w = rng.standard_normal(tuple(_real_view(lib, y).shape))
        g, = lib.autograd.grad(_weighted(lib, y, w), x, create_graph=True)
        v = rng.standard_normal(tuple(_real_view(lib, g).shape))
        gg, = lib.autograd.grad((_real_view(lib, g) * lib.from_numpy(v)).sum(), x)
        results.append((g, gg))
    for (g, gg), (tg, tgg) in zip(results[1:], results[:1]):
        assert str(g.dtype) == str(tg.dtype)
        np.testing.assert_allclose(_numpy(g), _numpy(tg), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(_numpy(gg), _numpy(tgg), rtol=1e-9, atol=1e-9)


SPECTRUM_LOSSES = {
    "abs": lambda s: s.abs().sum(),
    "imag": lambda s: (s.imag * s.imag.cos()).sum(),
    # (linear in angle: its value at a real spectrum entry, +-pi by the sign of a zero
    # imaginary part, is left out)
    "angle": lambda s: (s.angle() + s.abs().pow(2)).sum(),
    "conj_mul": lambda s: (s * s.conj()).real.sum() + (s * s).imag.sum(),
}


@pytest.mark.parametrize("loss", SPECTRUM_LOSSES)
@pytest.mark.parametrize("name,dtype", [("fft", "float64"), ("fft", "complex128"),
                                        ("rfft", "float64"), ("ihfft", "float64"),
                                        ("fft2", "complex128")])
def test_spectrum_losses(loss, name, dtype):
    """Real losses of a spectrum through the complex elementwise formulas (abs, imag, angle,
    conj, mul): first derivatives and the derivative of a weighted sum of them."""
    arr = _array((3, 6), dtype, zlib.crc32(f"spec{name}{dtype}{loss}".encode()))
    out = []
    for lib in (torch, dyngrad):
        x = lib.from_numpy(arr.copy()).requires_grad_()
        g, = lib.autograd.grad(SPECTRUM_LOSSES[loss](_fft(lib, name)(x)), x, create_graph=True)
        v = np.random.default_rng(4).standard_normal(tuple(_real_view(lib, g).shape))
        gg, = lib.autograd.grad((_real_view(lib, g) * lib.from_numpy(v)).sum(), x)
        out.append((g, gg))
    for ours, theirs in zip(out[1], out[0]):
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-9, atol=1e-9)


def test_masked_spectrum_round_trip():
    """irfft(rfft(x) * real_mask): a low-pass filter, differentiated twice."""
    arr = _array((2, 9), "float64", 7)
    mask = np.array([1.0, 1.0, 0.5, 0.0, 0.0])
    out = []
    for lib in (torch, dyngrad):
        x = lib.from_numpy(arr.copy()).requires_grad_()
        y = _fft(lib, "irfft")(_fft(lib, "rfft")(x) * lib.from_numpy(mask), n=9)
        g, = lib.autograd.grad(y.pow(3).sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        out.append((y, g, gg))
    assert _nodes(out[1][0]) == _nodes(out[0][0])
    for ours, theirs in zip(out[1], out[0]):
        np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ("fft", "rfft", "ihfft", "fft2", "rfftn", "ihfftn", "hfft"))
def test_gradcheck(name):
    """dyngrad's own numerical check of the real-input transforms (through view_as_real)."""
    x = dyngrad.from_numpy(_array((3, 4), "float64", 3)).requires_grad_()
    fn = _fft(dyngrad, name)
    assert dyngrad.autograd.gradcheck(lambda t: _real_view(dyngrad, fn(t)), (x,))
    assert dyngrad.autograd.gradgradcheck(lambda t: _real_view(dyngrad, fn(t)), (x,))


@pytest.mark.parametrize("name", ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn",
                                  "irfftn", "ihfftn"))
def test_forward_mode(name):
    """The JVP of a real input's transform: the transform of the tangent."""
    arr, tangent = _array((3, 4), "float64", 5), _array((3, 4), "float64", 6)
    out = []
    for lib in (torch, dyngrad):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            dual = fwAD.make_dual(lib.from_numpy(arr.copy()), lib.from_numpy(tangent.copy()))
            y = _fft(lib, name)(dual)
            out.append(fwAD.unpack_dual(y).tangent)
    np.testing.assert_allclose(_numpy(out[1]), _numpy(out[0]), rtol=1e-10, atol=1e-10)


OUT_CASES = [("fft", "complex64", {}), ("fft", "complex128", {"n": 8}),
             ("ifft", "complex64", {"dim": 1}), ("rfft", "complex64", {}),
             ("ihfft", "complex64", {"dim": 0}), ("irfft", "float32", {}),
             ("hfft", "float64", {"n": 5}), ("fftn", "complex64", {"dim": (0, 2)}),
             ("ihfftn", "complex64", {"dim": (0, 2)}), ("ihfftn", "complex64", {"dim": (1,)}),
             ("rfft", "float32", {}), ("irfft", "complex64", {}), ("hfftn", "float32", {}),
             ("rfft2", "complex64", {"s": (4, 4)})]


@pytest.mark.parametrize("name,out_dtype,kwargs", OUT_CASES)
def test_out(name, out_dtype, kwargs):
    """out=: written (resized from empty as torch does, or refused with torch's error)."""
    arr = _array((2, 3, 4), "float32", 11)
    res = []
    for lib in (torch, dyngrad):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        try:
            r = _fft(lib, name)(lib.from_numpy(arr.copy()), out=out, **kwargs)
            res.append((r is out, out, None))
        except Exception as e:   # noqa: BLE001
            res.append((None, None, (type(e), str(e))))
    (same, ours, exc), (tsame, theirs, texc) = res[1], res[0]
    assert exc == texc
    if texc is None:
        assert same and tsame
        assert str(ours.dtype) == str(theirs.dtype) and ours.stride() == theirs.stride()
        np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ("fft", "ifft", "irfft", "fftn", "ihfftn", "rfft"))
def test_out_with_grad(name):
    """out= with an input requiring grad: torch's error names the primitive (none for the
    inverse real transforms, whose out= is conj_physical's)."""
    errors = []
    for lib in (torch, dyngrad):
        x = lib.from_numpy(_array((3, 4), "float64", 2)).requires_grad_()
        out_dtype = lib.float64 if name == "irfft" else lib.complex128
        try:
            _fft(lib, name)(x, out=lib.empty(0, dtype=out_dtype))
            errors.append(None)
        except RuntimeError as e:
            errors.append(str(e))
    assert errors[1] == errors[0]


FREQ_CASES = [(5, {}), (6, {"d": 0.5}), (1, {}), (0, {}), (7, {"dtype": "float64"}),
              (4, {"dtype": "float16"}), (3, {"d": 0.0}), (-1, {}), (-3, {}),
              (4, {"dtype": "int64"}), (3, {"dtype": "complex64"}), (5, {"requires_grad": True})]


@pytest.mark.parametrize("name", ("fftfreq", "rfftfreq"))
@pytest.mark.parametrize("n,kwargs", FREQ_CASES)
def test_frequencies(name, n, kwargs):
    res = []
    for lib in (torch, dyngrad):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(lib, kw["dtype"])
        try:
            res.append((_fft(lib, name)(n, **kw), None))
        except Exception as e:   # noqa: BLE001
            res.append((None, (type(e).__name__, str(e))))
    (ours, exc), (theirs, texc) = res[1], res[0]
    assert exc == texc
    if theirs is not None:
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.requires_grad == theirs.requires_grad
        np.testing.assert_array_equal(_numpy(ours), _numpy(theirs))


@pytest.mark.parametrize("name", ("fftshift", "ifftshift"))
@pytest.mark.parametrize("kwargs", ({}, {"dim": 0}, {"dim": (0, -1)}, {"dim": -1}))
def test_shifts(name, kwargs):
    arr = _array((3, 4, 5), "float64", 4)
    x, y, _ = _call(torch, name, arr, kwargs, True)
    ours, got, _ = _call(dyngrad, name, arr, kwargs, True)
    assert _nodes(got) == _nodes(y) == ["RollBackward0", "torch::autograd::AccumulateGrad"]
    np.testing.assert_array_equal(_numpy(got), _numpy(y))


def test_round_trips():
    """ifft(fft(x)) = x, irfft(rfft(x), n) = x, hfft(ihfft(x), n) = x, for each norm."""
    x = dyngrad.from_numpy(_array((4, 7), "float64", 9))
    for norm in (None, "ortho", "forward"):
        f = lambda name: _fft(dyngrad, name)   # noqa: E731
        for back in (f("ifft")(f("fft")(x, norm=norm), norm=norm).real,
                     f("irfft")(f("rfft")(x, norm=norm), 7, norm=norm),
                     f("hfft")(f("ihfft")(x, norm=norm), 7, norm=norm),
                     f("irfftn")(f("rfftn")(x, norm=norm), (4, 7), norm=norm)):
            np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)


STFT_CASES = [((20,), dict(n_fft=8, return_complex=True)),
              ((2, 15), dict(n_fft=4, hop_length=2, return_complex=True, normalized=True)),
              ((20,), dict(n_fft=8, hop_length=3, win_length=6, return_complex=True)),
              ((20,), dict(n_fft=8, center=False, onesided=False, return_complex=True)),
              ((20,), dict(n_fft=8, pad_mode="replicate", return_complex=False)),
              ((20,), dict(n_fft=8, hop_length=2, win_length=4, center=False,
                           align_to_window=True, return_complex=True))]


@pytest.mark.parametrize("shape,kwargs", STFT_CASES)
@pytest.mark.parametrize("dtype", ("float64", "complex128"))
def test_stft_gradients(shape, kwargs, dtype):
    """stft's graph and the gradients of the signal and the window (Tensor.stft as well)."""
    if dtype == "complex128" and kwargs.get("onesided", None) is None and \
            not kwargs.get("return_complex") is False:
        kwargs = dict(kwargs, onesided=False)
    arr = _array(shape, dtype, 21)
    win = np.hanning(kwargs.get("win_length", kwargs["n_fft"]) + 2)[1:-1] + 0.1
    res = []
    for lib in (torch, dyngrad):
        x, w = lib.from_numpy(arr.copy()).requires_grad_(), lib.from_numpy(win.copy())
        leaves = (x, w.requires_grad_())   # a real window beside complex data: real gradient
        try:
            y = x.stft(window=w, **kwargs)
        except RuntimeError as e:
            res.append(str(e))
            continue
        wts = np.random.default_rng(2).standard_normal(tuple(_real_view(lib, y).shape))
        res.append((_nodes(y), y, lib.autograd.grad(_weighted(lib, y, wts), leaves)))
    if isinstance(res[0], str):
        assert res[1] == res[0]
        return
    (nodes, y, grads), (tnodes, ty, tgrads) = res[1], res[0]
    assert nodes == tnodes and y.stride() == ty.stride()
    np.testing.assert_allclose(_numpy(y), _numpy(ty), rtol=1e-10, atol=1e-10)
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(_numpy(g), _numpy(tg), rtol=1e-9, atol=1e-9)


ISTFT_CASES = [((5, 7), dict(n_fft=8)), ((2, 5, 7), dict(n_fft=8, length=30)),
               ((5, 7), dict(n_fft=8, hop_length=2, win_length=6, length=8)),
               ((8, 7), dict(n_fft=8, onesided=False, normalized=True, center=False)),
               ((8, 7), dict(n_fft=8, onesided=False, return_complex=True))]


@pytest.mark.parametrize("shape,kwargs", ISTFT_CASES)
def test_istft_gradients(shape, kwargs):
    """istft's graph, values, and the gradients of the spectrum (through view_as_real) and
    of the window, first and second order; stft then istft gives the signal back."""
    arr = _array(shape, "complex128", 23)
    win = np.hanning(kwargs.get("win_length", kwargs["n_fft"]) + 2)[1:-1] + 0.1
    res = []
    for lib in (torch, dyngrad):
        z, w = lib.from_numpy(arr.copy()).requires_grad_(), lib.from_numpy(win.copy())
        w.requires_grad_()
        y = lib.istft(z, window=w, **kwargs)
        wts = np.random.default_rng(3).standard_normal(tuple(_real_view(lib, y).shape))
        gz, gw = lib.autograd.grad(_weighted(lib, y, wts), (z, w), create_graph=True)
        ggw, = lib.autograd.grad((_real_view(lib, gz).sum() + gw.pow(2).sum()), w)
        res.append((_nodes(y), y, gz, gw, ggw))
    assert res[1][0] == res[0][0]
    for ours, theirs in zip(res[1][1:], res[0][1:]):
        assert ours.stride() == theirs.stride()
        np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-9, atol=1e-9)


def test_stft_istft_round_trip():
    x = dyngrad.from_numpy(_array((2, 40), "float64", 8))
    w = dyngrad.from_numpy(np.hanning(18)[1:-1].copy())
    spec = dyngrad.stft(x, 16, 4, window=w, return_complex=True)
    back = dyngrad.istft(spec, 16, 4, window=w, length=40)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)


ARG_CASES = [("fft", ([1, 2],), {}), ("fft", ("T", 2.5), {}), ("fft", ("T",), {"dim": 1.5}),
             ("fft", ("T",), {"norm": 3}), ("fft", ("T",), {"foo": 1}),
             ("fftn", ("T",), {"s": 2.5}), ("fftn", ("T",), {"dim": "a"}),
             ("fftn", ("T",), {"s": [2.5]}), ("fftshift", ([1],), {}), ("fftfreq", (2.5,), {}),
             ("fftfreq", (4, "a"), {}), ("rfft", ("T", True), {}),
             ("fft", ("T", None, -1, None), {"out": 3}), ("fft2", ("T",), {"dim": 0}),
             ("fftn", ("T",), {"s": 3}), ("fftshift", ("T",), {"dim": 1.5}),
             ("ifftshift", ("T",), {"dim": [0, 0]}), ("fft", ("T", 3, 0, None), {}),
             ("fftfreq", (4,), {"d": 2}), ("fftfreq", (5,), {"out": "F"}),
             ("rfftfreq", (5,), {"out": "F", "dtype": "float32"}),
             ("fftfreq", (6,), {"out": "F", "d": 0.5})]


@pytest.mark.parametrize("name,args,kwargs", ARG_CASES)
def test_arguments(name, args, kwargs):
    """torch's argument parser: types, positions and unknown keywords, as its messages say."""
    out = []
    for lib in (torch, dyngrad):
        def value(v):
            return lib.ones(4, 4) if v == "T" else lib.empty(0, dtype=lib.float64) \
                if v == "F" else getattr(lib, v) if v == "float32" else v
        a = tuple(value(v) for v in args)
        kw = {k: value(v) for k, v in kwargs.items()}
        try:
            r = _fft(lib, name)(*a, **kw)
            out.append(("OK", tuple(r.shape), str(r.dtype), _numpy(r).tolist()))
        except Exception as e:   # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    assert out[1] == out[0]
