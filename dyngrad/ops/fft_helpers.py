"""The primitives behind ``torch.fft`` (the public functions are in fft.py), and ``stft`` /
``istft``, which ATen composes from them.

``_fft_c2c`` (complex to complex), ``_fft_r2c`` (real to complex, optionally one-sided: the
Hermitian half of the last transformed dim) and ``_fft_c2r`` (one-sided complex to real) are the
nodes torch's graphs show (FftC2CBackward0, FftR2CBackward0, FftC2RBackward0). Each takes the
dims, a normalisation mode (0: none, 1: by sqrt(n), 2: by n: ATen's ``fft_norm_mode``) and its
direction. Their derivatives are transforms again (below), so higher derivatives follow.
The public functions (fft.py) check arguments, promote dtypes, pad or trim to the
requested sizes (ConstantPadNdBackward0, SliceBackward0) and pick the primitive, as ATen's
SpectralOps.cpp does; inverse real-input transforms conjugate the result (``conj``,
ConjBackward0, or ``conj_physical``, ConjPhysicalBackward0: see _tensor_extras.py).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from . import _registry
from ._arg_parser import check_binding
from ._registry import FUNCTIONS, METHODS, defop
from ._signatures import SIGNATURES
from ._selection import fresh
from .view_backward import unfold_backward

# numpy.fft's ``norm`` string that scales as ATen's mode does, by direction (forward: e^-i)
_FORWARD_NORM = ("backward", "ortho", "forward")
_INVERSE_NORM = ("forward", "ortho", "backward")


# Note [FFT output layout]
# ATen's MKL kernels (_exec_fft) write the result in a buffer laid out as (batch, signal...):
# the dims not transformed come first, ordered by the input's strides (largest first), then the
# transformed dims in the order the kernel is given them. c2c sorts all its dims by the input's
# strides; r2c and c2r sort all but the last (the Hermitian dim stays innermost). A multi-dim
# c2r first runs a c2c over the other dims and lays out its 1-dim c2r over that result.
def _by_stride(dims, strides):
    return sorted(dims, key=lambda d: -strides[d])   # (stable, as std::sort on few dims)


def _laid_out(values, in_strides, dims, np_dtype):
    """``values`` copied into a fresh array with the layout of Note [FFT output layout]."""
    batch = _by_stride([d for d in range(values.ndim) if d not in dims], in_strides)
    order = batch + list(dims)
    strides = [0] * values.ndim
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= values.shape[d]
    out = fresh(values.shape, strides, np_dtype)
    out[...] = values
    return out


def _elem_strides(a):
    return tuple(s // a.itemsize if a.itemsize else 0 for s in a.strides)


def _complex_np(np_dtype):
    return D.from_np(np_dtype).to_complex().np if np_dtype.kind != "c" else np_dtype


def _check_nonempty(a):
    # torch's CPU build (MKL) refuses a transform of an empty tensor (an empty batch)
    if a.size == 0:
        raise RuntimeError("MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration "
                           "parameters")


def _c2c(xp, a, dims, normalization, forward):
    dims = _by_stride(list(dims), _elem_strides(a))
    if not dims:
        return _laid_out(a, _elem_strides(a), (), a.dtype)
    _check_nonempty(a)
    if forward:
        values = xp.fft.fftn(a, axes=dims, norm=_FORWARD_NORM[normalization])
    else:
        values = xp.fft.ifftn(a, axes=dims, norm=_INVERSE_NORM[normalization])
    return _laid_out(values, _elem_strides(a), dims, a.dtype)


@defop("_fft_c2c", node="FftC2CBackward0", promote=Promote.NONE, variants=(),
       kernel_dtypes=True)
def _fft_c2c(xp, self, dim, normalization, forward):
    """The complex-to-complex transform over ``dim`` (forward: e^-i), scaled by
    ``normalization``."""
    return _c2c(xp, self, tuple(dim), normalization, forward)


@_fft_c2c.backward
def _(ctx, grad):
    return _fft_c2c(grad, ctx.dim, ctx.normalization, not ctx.forward)


_fft_c2c.jvp(lambda ctx, t: _fft_c2c(t, ctx.dim, ctx.normalization, ctx.forward))


@defop("_fft_r2c", node="FftR2CBackward0", promote=Promote.NONE, variants=(),
       kernel_dtypes=True)
def _fft_r2c(xp, self, dim, normalization, onesided):
    """The forward transform of a real tensor over ``dim``; ``onesided`` keeps the first
    n // 2 + 1 entries of the last dim (the rest is their Hermitian mirror)."""
    _check_nonempty(self)
    dims = list(dim)
    strides = _elem_strides(self)
    dims = _by_stride(dims[:-1], strides) + dims[-1:]
    norm = _FORWARD_NORM[normalization]
    values = xp.fft.rfftn(self, axes=dims, norm=norm) if onesided else \
        xp.fft.fftn(self, axes=dims, norm=norm)
    return _laid_out(values, strides, dims, _complex_np(self.dtype))


@_fft_r2c.backward
def _(ctx, grad):
    # the adjoint of the (one-sided) transform: the half spectrum zero-padded to full length,
    # transformed back unnormalised-as-forward, real part
    dim = list(ctx.dim)
    last = dim[-1] % grad.dim()
    full = ctx.self_shape[last]
    if ctx.onesided and full > grad.shape[last]:
        pad = [0] * (2 * grad.dim())
        pad[2 * (grad.dim() - 1 - last) + 1] = full - grad.shape[last]
        grad = FUNCTIONS["constant_pad_nd"](grad, pad, 0)
    return FUNCTIONS["real"](_fft_c2c(grad, dim, ctx.normalization, False))


_fft_r2c.jvp(lambda ctx, t: _fft_r2c(t, ctx.dim, ctx.normalization, ctx.onesided))


@defop("_fft_c2r", node="FftC2RBackward0", promote=Promote.NONE, variants=(),
       kernel_dtypes=True)
def _fft_c2r(xp, self, dim, normalization, last_dim_size):
    """The inverse transform (e^+i) of a one-sided Hermitian spectrum over ``dim`` into a real
    tensor whose last transformed dim has ``last_dim_size`` entries."""
    _check_nonempty(self)
    dims = list(dim)
    a = self
    if len(dims) > 1:   # (Note [FFT output layout]: ATen's c2c over the others first)
        a = _c2c(xp, a, dims[:-1], normalization, False)
    values = xp.fft.irfft(a, n=last_dim_size, axis=dims[-1], norm=_INVERSE_NORM[normalization])
    real = D.from_np(self.dtype).to_real().np
    return _laid_out(values, _elem_strides(a), dims[-1:], real)


@_fft_c2r.backward
def _(ctx, grad):
    # the adjoint: a one-sided forward transform, the entries that stand for two (their
    # mirror included) doubled
    dim = list(ctx.dim)
    gI = _fft_r2c(grad, dim, ctx.normalization, True)
    last = dim[-1] % grad.dim()
    double = grad.shape[last] - gI.shape[last]
    if double > 0:
        shape = [1] * grad.dim()
        shape[last] = gI.shape[last]
        weights = grad.new_ones(shape)
        weights.narrow(last, 1, double).fill_(2)
        gI = gI * weights
    return gI


_fft_c2r.jvp(lambda ctx, t: _fft_c2r(t, ctx.dim, ctx.normalization, ctx.last_dim_size))


# -- short-time Fourier transforms ------------------------------------------------------------
def _stft_repr(input, n_fft, hop, win, window, normalized, onesided, return_complex, align):
    """The call as ATen's stft errors write it."""
    def opt(v):
        return "None" if v is None else str(int(v))
    def name(t):   # (Tensor::toString: complex types have no legacy class name)
        return f"CPU{t.dtype._legacy}Type" if t.is_complex() else f"torch.{t.dtype._legacy}Tensor"
    win_text = "None" if window is None else \
        f"{name(window)}{{[{', '.join(map(str, window.shape))}]}}"
    return (f"stft({name(input)}[{', '.join(map(str, input.shape))}], "
            f"n_fft={n_fft}, hop_length={hop}, win_length={win}, window={win_text}, "
            f"normalized={int(bool(normalized))}, onesided={opt(onesided)}, "
            f"return_complex={opt(return_complex)}, align_to_window={opt(align)}) ")


_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known to "
              "cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
              "device=<device>)`. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
              "native/SpectralOps.cpp:835.)")
_REAL_STFT = ("stft with return_complex=False is deprecated. In a future pytorch release, stft "
              "will return complex tensors for all inputs, and return_complex=False will raise "
              "an error.\nNote: you can still call torch.view_as_real on the complex output to "
              "recover the old return format. (Triggered internally at /__w/pytorch/pytorch/"
              "aten/src/ATen/native/SpectralOps.cpp:874.)")


def _padded_window(window, n_fft, win_length, like):
    """The window centred in n_fft entries (ones when none is given), as ATen pads it."""
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    padded = FUNCTIONS["zeros"](n_fft, dtype=(window if window is not None else like).dtype)
    if window is not None:
        padded.narrow(0, left, win_length).copy_(window)
    else:
        padded.narrow(0, left, win_length).fill_(1)
    return padded


# the binding that torch's stft calls (torchgen's: tests/test_tensor_python_methods.py checks
# it), and the table's entry of istft, which is a binding in torch
STFT = ("stft(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, "
         'Tensor? window=None, bool center=True, str pad_mode="reflect", bool normalized=False, '
         "bool? onesided=None, bool? return_complex=None, bool? align_to_window=None)",
         "stft(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, "
         "Tensor? window=None, bool normalized=False, bool? onesided=None, "
         "bool? return_complex=None, bool? align_to_window=None)")
ISTFT = SIGNATURES["istft"]


def _plain_args(ints, optional_ints, bools, optional_bools, window) -> bool:
    """Every argument of the type the binding takes (the cheap test before its parser's)."""
    return all(type(v) is int for v in ints) and all(
        v is None or type(v) is int for v in optional_ints) and all(
        type(v) is bool for v in bools) and all(
        v is None or type(v) is bool for v in optional_bools) and (
        window is None or isinstance(window, _registry._Tensor))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform: frames of n_fft samples every hop_length (the signal
    padded by n_fft // 2 each side with ``pad_mode`` when ``center``), windowed, transformed
    (``_fft_r2c``, or ``_fft_c2c`` for complex data): (freq, frames), batched for 2-D input.
    torch composes it from view/pad, as_strided, mul and the transform, then transposes."""
    from .pointwise import _warn_once
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        ndim = input.dim()
        pad = int(n_fft // 2)
        input = FUNCTIONS["nn.functional.pad"](input.view([1] * (3 - ndim) + list(input.shape)),
                                               [pad, pad], pad_mode)
        input = input.view(input.shape[input.dim() - ndim:])
    if not _plain_args((n_fft,), (hop_length, win_length), (normalized,),
                       (onesided, return_complex, align_to_window), window):
        # torch/functional.py hands these on to the binding, whose parser refuses first
        check_binding(STFT, (input, n_fft, hop_length, win_length, window, normalized,
                              onesided, return_complex, align_to_window))
    if window is None:
        _warn_once(_NO_WINDOW)
    complex_data = input.is_complex() or (window is not None and window.is_complex())
    if not (complex_data if return_complex is None else return_complex):
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        _warn_once(_REAL_STFT)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    where = _stft_repr(input, n_fft, hop, win, window, normalized, onesided, return_complex,
                       align_to_window)
    if input.dim() not in (1, 2):
        raise RuntimeError(where + ": expected a 1D or 2D tensor")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(where + ": expected a tensor of floating point or complex values")
    frames = input.unsqueeze(0) if input.dim() == 1 else input
    length = frames.shape[1]
    if n_fft <= 0 or n_fft > length:   # (ATen's message shows win_length as n_fft)
        raise RuntimeError(where + f": expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(where + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(where + f": expected 0 < win_length <= n_fft, but got "
                           f"win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(where + f": expected a 1D window tensor of size equal to "
                           f"win_length={win}, but got window with size "
                           f"[{', '.join(map(str, window.shape))}]")
    window = _padded_window(window, n_fft, win, input)
    n_frames = 1 + (length - n_fft) // hop
    if align_to_window and win < n_fft:
        # frames start where the (unpadded) window does: the signal is zero-padded by the
        # window's left margin on both sides (when n_fft - win_length is odd, ATen's frames
        # overrun the padded signal and as_strided raises, as here)
        left = (n_fft - win) // 2
        frames = FUNCTIONS["constant_pad_nd"](frames, [left, left], 0)
        n_frames = 1 + (length - win) // hop
    s0, s1 = frames.stride()
    frames = frames.as_strided((frames.shape[0], n_frames, n_fft), (s0, hop * s1, s1))
    if window is not None:
        frames = frames.mul(window)
    if frames.dtype is D.float16:
        raise RuntimeError("MKL FFT doesn't support tensors of type: Half")
    mode = 1 if normalized else 0
    if frames.is_complex():
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _fft_c2c(frames, [2], mode, True)
    else:
        out = _fft_r2c(frames, [2], mode, True if onesided is None else onesided)
    out.transpose_(1, 2)
    if input.dim() == 1:
        out.squeeze_(0)
    return out if (complex_data if return_complex is None else return_complex) \
        else FUNCTIONS["view_as_real"](out)


FUNCTIONS["stft"] = stft
METHODS["stft"] = stft


_NO_ISTFT_WINDOW = ("A window was not provided. A rectangular window will be applied.Please "
                    "provide the same window used by stft to make the inversion lossless.To "
                    "suppress this warning and use a rectangular window, explicitly set "
                    "`window=torch.ones(n_fft, device=<device>)`. (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1035.)")
_SHORT_SIGNAL = ("The length of signal is shorter than the length parameter. Result is being "
                 "padded with zeros in the tail. Please check your center and hop_length "
                 "settings. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                 "SpectralOps.cpp:1199.)")


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of ``stft`` (least squares: overlap-add of the inverse transforms of the
    frames, times the window, divided by the summed squared window). ATen composes it from
    view_as_real/transpose/view_as_complex, ``_fft_c2r`` (``_fft_c2c`` with
    return_complex), mul, unfold_backward (the overlap-add), slice and div."""
    from .join import int_arg
    from .pointwise import _warn_once
    if not isinstance(input, _registry._Tensor) or not _plain_args(
            (n_fft,), (hop_length, win_length, length), (center, normalized, return_complex),
            (onesided,), window):
        # (torch's istft is the binding: the public function's wrapper words this TypeError
        # as its parser, from the arguments given; the method hands them on as torch's does)
        check_binding(ISTFT, (input, n_fft, hop_length, win_length, window, center,
                              normalized, onesided, length), {"return_complex": return_complex})
    n_fft = int_arg("istft", "n_fft", n_fft, 2)   # (an int the parser takes: a NumPy int...)
    if window is None:
        _warn_once(_NO_ISTFT_WINDOW)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    win_text = "None" if window is None else f"torch.{window.dtype._legacy}Tensor{{[" \
        f"{', '.join(map(str, window.shape))}]}}" if not window.is_complex() else \
        f"CPU{window.dtype._legacy}Type{{[{', '.join(map(str, window.shape))}]}}"
    where = (f"istft(CPU{input.dtype._legacy}Type[{', '.join(map(str, input.shape))}], "
             f"n_fft={n_fft}, hop_length={hop}, win_length={win}, window={win_text}, "
             f"center={int(bool(center))}, normalized={int(bool(normalized))}, onesided="
             f"{'None' if onesided is None else int(bool(onesided))}, length="
             f"{'None' if length is None else length}, return_complex="
             f"{int(bool(return_complex))}) ")
    x = FUNCTIONS["view_as_real"](input)
    ndim = x.dim()
    if x.numel() == 0:
        raise RuntimeError(where + ": input tensor cannot be empty.")
    if ndim not in (3, 4):
        raise RuntimeError(where + f": expected a tensor with 3 or 4 dimensions, but got {ndim}")
    n_frames, fft_size = x.shape[-2], x.shape[-3]
    signal_len = n_fft + hop * (n_frames - 1)
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(where + ": expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError(where + ": expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(where + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(where + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(where + ": Invalid window shape. window has to be 1D and length of "
                           "`win_length`")
    w = window if window is not None else FUNCTIONS["ones"](win, dtype=x.dtype)
    if win != n_fft:
        left = (n_fft - win) // 2
        w = FUNCTIONS["constant_pad_nd"](w, [left, n_fft - win - left], 0)
    if ndim == 3:
        x = x.unsqueeze(0)
    x = FUNCTIONS["view_as_complex"](x.transpose(1, 2))
    mode = 1 if normalized else 2
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        x = _fft_c2c(x, [x.dim() - 1], mode, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        x = _fft_c2r(x, [x.dim() - 1], mode, n_fft)
    y = unfold_backward(x * w.view(1, 1, n_fft), [x.shape[0], signal_len], 1, n_fft, hop)
    envelope = unfold_backward(w.pow(2).expand(1, n_frames, n_fft), [1, signal_len], 1, n_fft,
                               hop)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else signal_len
    stop = min(end if end >= 0 else signal_len + end, signal_len)
    y = y.narrow(1, start, max(stop - start, 0))
    envelope = envelope.narrow(1, start, max(stop - start, 0))
    if bool(envelope.abs().min() < 1e-11):
        raise RuntimeError(where + "window overlap add min: 1\n[ CPUBoolType{} ]")
    y = y / envelope
    if ndim == 3:
        y = y.squeeze(0)
    if end > signal_len:
        _warn_once(_SHORT_SIGNAL)
        y = FUNCTIONS["constant_pad_nd"](y, [0, end - signal_len], 0)
    return y


FUNCTIONS["istft"] = istft
METHODS["istft"] = istft
