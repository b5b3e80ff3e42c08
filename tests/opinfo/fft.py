"""OpInfo entries for dyngrad/ops/fft.py: the ``torch.fft`` transforms over every dtype they
take (integers and bool promote to the default dtype; float16 raises torch's "Unsupported
dtype Half"; the real-input transforms refuse complex input), with n / s, dim and norm,
padding and trimming, strided inputs, and the invalid calls whose errors must be torch's;
fftfreq / rfftfreq and fftshift / ifftshift; stft and istft (windows, centring and padding
modes, one- and two-sided, normalized, length).

The harness compares gradients of real results of real inputs only, so only the transforms with
real output (irfft, hfft and their n-dim forms: FftC2RBackward0 behind a real input's
ToCopyBackward0) and the shifts run the gradient tests here; tests/test_fft.py differentiates
the others (and stft / istft).
"""
from __future__ import annotations

import dyngrad.fft  # noqa: F401  (makes ``dyngrad.fft`` resolve before the package imports it)

from .core import (ALL_DTYPES, COMPLEX, FLOATS, OP_DB, DType, OpInfo, SampleInput,
                   make_array, permuted3, sliced, transposed)

_NO_HALF = tuple(d for d in ALL_DTYPES if d != "float16")
_REAL_NO_HALF = tuple(d for d in _NO_HALF if d not in COMPLEX)


def _one_dim(hermitian=False):
    """Samples of the one-dim transforms; `hermitian`: the input is a one-sided spectrum."""
    def gen(dtype, rng):
        def x(shape):
            return make_array(shape, dtype, rng)
        out = [SampleInput(x((6,))), SampleInput(x((5,))), SampleInput(x((3, 4))),
               SampleInput(x((2, 3, 4)), dim=1), SampleInput(x((6,)), 8),
               SampleInput(x((6,)), 3), SampleInput(x((3, 4)), 5, 0),
               SampleInput(x((3, 4)), n=2, dim=-2), SampleInput(x((6,)), norm="ortho"),
               SampleInput(x((6,)), None, -1, "forward"), SampleInput(x((6,)), norm="backward"),
               SampleInput(x((6,)), 1), SampleInput(transposed((3, 4), dtype, rng)),
               SampleInput(sliced((3, 4), dtype, rng), dim=0),
               SampleInput(permuted3(dtype, rng), 6, 0, "ortho"), SampleInput(x((0, 4)))]
        if hermitian:
            out += [SampleInput(x((3, 1)))]            # default n = 0: invalid
        # invalid: torch's errors
        out += [SampleInput(x(())), SampleInput(x((6,)), 0), SampleInput(x((6,)), -2),
                SampleInput(x((6,)), dim=1), SampleInput(x((6,)), norm="bad"),
                SampleInput(x((6,)), 2.5), SampleInput(x((6,)), norm=1)]
        return out
    return gen


def _n_dim(two=False):
    def gen(dtype, rng):
        def x(shape):
            return make_array(shape, dtype, rng)
        out = [SampleInput(x((3, 4))), SampleInput(x((2, 3, 4))),
               SampleInput(x((2, 3, 4)), (3, 5)), SampleInput(x((2, 3, 4)), dim=(0, 2)),
               SampleInput(x((2, 3, 4)), (4, -1), (-1, 0)),
               SampleInput(x((2, 3, 4)), norm="ortho"),
               SampleInput(x((2, 3, 4)), None, (2, 1), "forward"),
               SampleInput(transposed((3, 4), dtype, rng)),
               SampleInput(sliced((3, 4), dtype, rng), (2, 6)),
               SampleInput(permuted3(dtype, rng), dim=(1, 0))]
        if not two:
            out += [SampleInput(x((5,))), SampleInput(x((2, 3, 4)), (6,)),
                    SampleInput(x((2, 3, 4)), dim=1), SampleInput(x((2, 3, 4)), dim=-1)]
        # invalid: torch's errors
        out += [SampleInput(x((3, 4)), dim=(0, 0)), SampleInput(x((3, 4)), (2, 2, 2)),
                SampleInput(x((3, 4)), (2,), (0, 1)), SampleInput(x((3, 4)), (0, 2)),
                SampleInput(x((3, 4)), dim=(0, 2)), SampleInput(x((3, 4)), norm="Ortho"),
                SampleInput(x((4,))), SampleInput(x(())), SampleInput(x((3, 4)), dim=()),
                SampleInput(x((3, 4)), 2.5)]
        return out
    return gen


def _freq(dtype, rng):
    dt = DType(dtype)
    return [SampleInput(5, dtype=dt), SampleInput(6, dtype=dt), SampleInput(1, dtype=dt),
            SampleInput(0, dtype=dt), SampleInput(8, 0.25, dtype=dt), SampleInput(7, d=3.0),
            SampleInput(4, dtype=DType("int64")), SampleInput(-1, dtype=dt)]


def _shift(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((5,))), SampleInput(x((6,))), SampleInput(x((3, 4))),
            SampleInput(x((3, 4)), 0), SampleInput(x((2, 3, 5)), (0, -1)),
            SampleInput(transposed((3, 4), dtype, rng), dim=1), SampleInput(x(())),
            SampleInput(x((3, 4)), dim=2)]


def _stft(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    window = make_array((6,), "float64", rng, 0.5, 1.5)
    return [SampleInput(x((20,)), 8, return_complex=True), SampleInput(x((2, 15)), 4, 2,
                                                                     return_complex=True),
            SampleInput(x((20,)), 8, 3, 6, window, return_complex=True),
            SampleInput(x((20,)), 8, center=False, return_complex=True),
            SampleInput(x((20,)), 8, pad_mode="constant", normalized=True, onesided=False,
                        return_complex=True),
            SampleInput(x((20,)), 8, pad_mode="replicate", return_complex=False),
            SampleInput(sliced((2, 12), dtype, rng), 4, return_complex=True),
            SampleInput(x((20,)), 8, 2, 6, window, center=False, align_to_window=True,
                        return_complex=True),
            SampleInput(x((20,)), 8, 2, center=False, align_to_window=False,
                        return_complex=True),
            # invalid: torch's errors
            SampleInput(x((20,)), 8), SampleInput(x((20,)), 30, center=False,
                                                  return_complex=True),
            SampleInput(x((20,)), 8, 0, return_complex=True),
            SampleInput(x((20,)), 8, None, 9, return_complex=True),
            SampleInput(x((20,)), 8, 3, 5, window, return_complex=True),
            SampleInput(x((1, 2, 10)), 4, center=False, return_complex=True),
            SampleInput(x((21,)), 8, 2, 5, center=False, align_to_window=True,
                        return_complex=True),
            SampleInput(x((20,)), 8, align_to_window=False, return_complex=True),
            SampleInput(x((20,)), 8, onesided=True, window=window.astype("complex128")[:1],
                        return_complex=True)]


def _istft(dtype, rng):
    def z(shape):
        return make_array(shape, dtype, rng)
    window = make_array((8,), "float64", rng, 0.5, 1.5)
    return [SampleInput(z((5, 7)), 8), SampleInput(z((2, 5, 7)), 8, window=window),
            SampleInput(z((5, 7)), 8, center=False), SampleInput(z((5, 7)), 8, length=30),
            SampleInput(z((5, 7)), 8, 2, 6, window[1:7], length=8),
            SampleInput(z((8, 7)), 8, onesided=False, normalized=True),
            SampleInput(z((8, 7)), 8, window=window, onesided=False, return_complex=True),
            SampleInput(z((5, 7)), 9), SampleInput(transposed((5, 7), dtype, rng), 8),
            # invalid: torch's errors
            SampleInput(z((5, 7)), 8, 0), SampleInput(z((5, 7)), 8, None, 9),
            SampleInput(z((5, 7)), 8, window=window[:5]), SampleInput(z((5, 7)), 8, onesided=False),
            SampleInput(z((5, 7)), 8, return_complex=True), SampleInput(z((1, 1, 5, 7)), 8),
            SampleInput(z((5, 0)), 8), SampleInput(z((5, 7)), 8, 8, window=window * 0)]


_COMPLEX_OUT = dict(supports_out=True, supports_autograd=False)   # test_fft.py differentiates
OP_DB += [
    OpInfo("fft.fft", _one_dim(), _NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.ifft", _one_dim(), _NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.rfft", _one_dim(), _REAL_NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.ihfft", _one_dim(), _REAL_NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.irfft", _one_dim(True), _NO_HALF, gradgrad_samples=4),
    OpInfo("fft.hfft", _one_dim(True), _NO_HALF, gradgrad_samples=4),
    OpInfo("fft.fft2", _n_dim(True), _NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.ifft2", _n_dim(True), _NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.fftn", _n_dim(), _NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.ifftn", _n_dim(), _NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.rfft2", _n_dim(True), _REAL_NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.rfftn", _n_dim(), _REAL_NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.ihfft2", _n_dim(True), _REAL_NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.ihfftn", _n_dim(), _REAL_NO_HALF, **_COMPLEX_OUT),
    OpInfo("fft.irfft2", _n_dim(True), _NO_HALF, gradgrad_samples=3),
    OpInfo("fft.irfftn", _n_dim(), _NO_HALF, gradgrad_samples=3),
    OpInfo("fft.hfft2", _n_dim(True), _NO_HALF, gradgrad_samples=3),
    OpInfo("fft.hfftn", _n_dim(), _NO_HALF, gradgrad_samples=3),
    OpInfo("stft", _stft, FLOATS[1:] + COMPLEX, supports_out=False, supports_autograd=False),
    OpInfo("istft", _istft, COMPLEX, supports_out=False, supports_autograd=False),
    OpInfo("fft.fftfreq", _freq, FLOATS + COMPLEX, supports_autograd=False),
    OpInfo("fft.rfftfreq", _freq, FLOATS + COMPLEX, supports_autograd=False),
    OpInfo("fft.fftshift", _shift, ALL_DTYPES, supports_out=False, gradgrad_samples=3),
    OpInfo("fft.ifftshift", _shift, ALL_DTYPES, supports_out=False, gradgrad_samples=3),
]
