"""Convolutions: the primitive ``convolution`` (torch's aten::convolution, ConvolutionBackward0),
its derivative primitive ``convolution_backward`` (ConvolutionBackwardBackward0), and the
public ``conv1d/2d/3d``, ``conv_transpose1d/2d/3d`` and ``nn.grad.conv*_input/weight`` over them.

The kernels live in backends/conv_numpy.py (See Note [Convolution as one BLAS call]).

Note [Convolution derivatives]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
y = conv(I, W) + b is bilinear in (I, W). Its backward, ``convolution_backward(gO, I, W)``,
returns gI = (dy/dI)^T gO (needs W), gW = (dy/dW)^T gO (needs I) and gB = sum(gO). That
function is bilinear too, so its own derivative, for incoming ggI, ggW, ggB, is again made of
the two primitives (as torch's _convolution_double_backward):
  d/dgO = conv(ggI, W, ggB) + conv(I, ggW)
  d/dI  = input part of convolution_backward(gO, I, ggW)
  d/dW  = weight part of convolution_backward(gO, ggI, W)
The same identities hold for the transposed convolution, whose adjoints swap roles.
"""
from __future__ import annotations

from .._promotion import Promote
from ..backends import conv_numpy as _cn
from . import _registry
from ._registry import FUNCTIONS, composite, defop
from ._selection import warn_once_at_caller
from ..autograd.forward_ad import FROM_BACKWARD


def _legacy(arr) -> str:
    from .. import _dtypes as D
    return D.from_np(arr.dtype)._legacy


def _sizes(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _is_channels_last(arr) -> bool:
    """torch's suggest_memory_format(...) is channels_last (4-d) or channels_last_3d (5-d):
    the strides are ordered C fastest, then W, H (, D), N (is_channels_last_strides_2d/3d),
    and the array is not contiguous."""
    if arr.ndim not in (4, 5) or arr.flags.c_contiguous:
        return False
    sizes, strides = arr.shape, [s // arr.itemsize for s in arr.strides]
    if strides[1] == 0:
        return False
    low = 0
    for d in ((1, 3, 2, 0) if arr.ndim == 4 else (1, 4, 3, 2, 0)):
        if sizes[d] == 0 or strides[d] < low or (d == 0 and low == strides[1]):
            return False
        low = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def _check_forward(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                   groups):
    """torch's checks of aten::convolution (check_shape_forward), in its order."""
    nd = weight.ndim - 2
    for name, value in (("stride", stride), ("padding", padding), ("dilation", dilation),
                        ("output_padding", output_padding)):
        if len(value) != nd and len(value) != 1 or nd < 1:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of "
                               f"{max(nd, 0)} values to match the convolution dimensions, but "
                               f"got {name}={list(value)}")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws = _sizes(weight.shape)
    if input.ndim != weight.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {ws}, but got {input.ndim}-dimensional input "
                           f"of size {_sizes(input.shape)} instead")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {ws} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{ws}] instead")
    if not transposed:
        if input.shape[1] != weight.shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input"
                               f"{_sizes(input.shape)} to have {weight.shape[1] * groups} "
                               f"channels, but got {input.shape[1]} channels instead")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
            raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional "
                               f"with {weight.shape[0]} elements, but got bias of size "
                               f"{_sizes(bias.shape)} instead")
        padded = [n + 2 * p for n, p in zip(input.shape[2:], padding)]
        kernel = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
        if any(a < b for a, b in zip(padded, kernel)):
            raise RuntimeError("Calculated padded input size per channel: ("
                               + " x ".join(map(str, padded)) + "). Kernel size: ("
                               + " x ".join(map(str, kernel)) + "). Kernel size can't be "
                               "greater than actual input size")
    else:
        if input.shape[1] != weight.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input"
                               f"{_sizes(input.shape)} to have {weight.shape[0]} channels, but "
                               f"got {input.shape[1]} channels instead")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be "
                               f"1-dimensional with {weight.shape[1] * groups} elements, but "
                               f"got bias of size {_sizes(bias.shape)} instead")
        for op, s, d in zip(output_padding, stride, dilation):
            if op >= s and op >= d:
                names = ("height", "width") if nd == 2 else ("depth", "height", "width")[-nd:]
                raise RuntimeError(
                    "output padding must be smaller than either stride or dilation, but got "
                    + " ".join(f"output_padding_{n}: {v}" for n, v in zip(names, output_padding))
                    + " " + " ".join(f"stride_{n}: {v}" for n, v in zip(names, stride))
                    + " " + " ".join(f"dilation_{n}: {v}" for n, v in zip(names, dilation)))
    def mkldnn():   # (asked only on the way to an error)
        return not transposed and _uses_mkldnn(input, weight, stride, dilation, groups)
    if input.dtype != weight.dtype:
        if mkldnn():
            kind = "CPUBFloat16Type" if input.dtype.kind == "V" else \
                f"torch.{_legacy(input)}Tensor"
            raise RuntimeError(f"Input type ({kind}) and weight type (torch.{_legacy(weight)}"
                               "Tensor) should be the same or input should be a MKLDNN tensor "
                               "and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_legacy(input)} but found {_legacy(weight)}")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({_cpp_name(input)}) and bias type ({_cpp_name(bias)}) "
                           "should be the same")
    if 0 in dilation:   # (the kernel's own check, worded by the kernel torch would pick)
        if transposed:
            names = ("depth", "height", "width")[-max(nd, 2):]
            got = ", ".join(f"dilation_{n}: {v}" for n, v in zip(names, (1,) * (nd == 1)
                                                                   + tuple(dilation)))
            raise RuntimeError(f"dilation should be greater than zero, but got {got}")
        if mkldnn():
            raise RuntimeError("non-positive dilation is not supported")
        raise RuntimeError("dilation should be greater than zero, but got "
                           f"{list((1,) * (nd == 1) + tuple(dilation))}")
    kind = input.dtype.kind
    narrow_int = kind in "iu" and input.dtype.itemsize != 8
    if kind in "bc" or (transposed and narrow_int):
        if transposed:
            name = f"slow_conv_transpose{max(nd, 2)}d_out_cpu"
        else:
            name = "compute_columns3d" if nd == 3 else "slow_conv2d_cpu"
        raise NotImplementedError(f"\"{name}\" not implemented for '{_legacy(input)}'")
    if narrow_int and any(d != 1 for d in dilation):
        raise NotImplementedError(f"\"slow_conv_dilated<>\" not implemented for "
                                  f"'{_legacy(input)}'")


def _uses_mkldnn(input, weight, stride, dilation, groups) -> bool:
    """Whether torch's CPU convolution would take its oneDNN (MKLDNN) kernel, whose checks word
    some errors differently (ConvParams::use_mkldnn): bfloat16 inputs, and float32 ones unless
    the problem is small (one sample, one group, a kernel of at most 3 on a side, a small
    input; a 1-d convolution counts as a 2-d one of height 1)."""
    if input.dtype.kind == "V":
        return True
    if input.dtype.kind != "f" or input.dtype.itemsize != 4:
        return False
    shape = input.shape if input.ndim > 3 else input.shape[:2] + (1,) + input.shape[2:]
    k = weight.shape[2:] if weight.ndim > 3 else (1,) + weight.shape[2:]
    from .._settings import get_num_threads
    return (any(s != 1 for s in stride) or any(d != 1 for d in dilation) or shape[0] >= 16
            or k[-1] != 1 or k[-2] != 1 or get_num_threads() > 1) and (
        groups > 1 or (k[-1] > 3 and k[-2] > 3) or shape[0] > 1
        or shape[0] * shape[1] * shape[2] * shape[3] > 20480)


def _cpp_name(arr) -> str:
    """The C++ name of an array's element type, as torch's conv messages print it."""
    from .linalg import cpp_type_name
    from .. import _dtypes as D
    return cpp_type_name(D.from_np(arr.dtype))


def _expand(value, nd):
    return tuple(value) * nd if len(value) == 1 else tuple(value)


def _transposed_size(in_size, kernel, stride, padding, dilation, output_padding):
    return tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, k, s, p, d, op
                 in zip(in_size, kernel, stride, padding, dilation, output_padding))


@defop("convolution", node="ConvolutionBackward0", promote=Promote.NONE,
       inputs=("input", "weight", "bias"), variants=("function",), saves=("input", "weight"),
       scalars=(), kernel_dtypes=True)
def convolution(xp, input, weight, bias=None, stride=(1,), padding=(0,), dilation=(1,),
                transposed=False, output_padding=(0,), groups=1):
    stride, padding, dilation, output_padding = (tuple(stride), tuple(padding), tuple(dilation),
                                                 tuple(output_padding))
    _check_forward(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                   groups)
    nd = weight.ndim - 2
    stride, padding, dilation, output_padding = (_expand(v, nd) for v in (
        stride, padding, dilation, output_padding))
    cl = _is_channels_last(input) or _is_channels_last(weight)
    if transposed:
        size = _transposed_size(input.shape[2:], weight.shape[2:], stride, padding, dilation,
                                output_padding)
        out = _cn.conv_input_grad(input, weight, size, stride, padding, dilation, groups, cl)
    else:
        out = _cn.conv_forward(input, weight, stride, padding, padding, dilation, groups, cl)
    if bias is not None:
        out = out + bias.reshape((-1,) + (1,) * nd)   # keeps out's layout
    return out.astype(input.dtype, copy=False)


def _bias_sizes(ctx):
    meta = ctx._meta[2]
    return None if meta is None else tuple(meta[0])


# torch shows (0,) for an absent bias
convolution.node_cls._saved_bias_sym_sizes_opt = property(lambda ctx: _bias_sizes(ctx) or (0,))


@convolution.backward
def _(ctx, grad):
    input, weight = ctx.saved_tensors
    nd = weight.ndim - 2
    mask = tuple(ctx.needs_input_grad)
    grads = convolution_backward(grad, input, weight, _bias_sizes(ctx), _expand(ctx.stride, nd),
                                 _expand(ctx.padding, nd), _expand(ctx.dilation, nd),
                                 ctx.transposed, _expand(ctx.output_padding, nd), ctx.groups,
                                 mask)
    # an output left out of the mask is an empty placeholder: no gradient (torch's undefined)
    return tuple(g if wanted else None for g, wanted in zip(grads, mask))


convolution.jvp(FROM_BACKWARD)


@defop("convolution_backward", node="ConvolutionBackwardBackward0", promote=Promote.NONE,
       inputs=("grad_output", "input", "weight"), variants=(),
       saves=("grad_output", "input", "weight"), scalars=(), kernel_dtypes=True)
def convolution_backward(xp, grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """(grad_input, grad_weight, grad_bias); an output not in `output_mask` is an empty array."""
    kind = grad_output.dtype.kind
    if kind not in "fV":   # torch's CPU kernels (complex convolutions decompose into real ones)
        name = ("slow_conv2d_cpu_grad_input" if output_mask[0] else
                "slow_conv2d_cpu" if kind in "bc" else "slow_conv2d_cpu_grad_weight")
        raise NotImplementedError(f"\"{name}\" not implemented for '{_legacy(grad_output)}'")
    cl = _is_channels_last(input) or _is_channels_last(weight) or _is_channels_last(grad_output)
    kernel = weight.shape[2:]
    empty = xp.empty(0, grad_output.dtype)
    gi = gw = gb = empty
    if output_mask[0]:
        if transposed:
            gi = _cn.conv_forward(grad_output, weight, stride, padding, padding, dilation, groups,
                                  cl)
            # an output_padding of a stride or more (possible with a larger dilation) leaves
            # trailing output positions that no input position reaches: the convolution over
            # them runs past the input's size, and those rows are not the input's
            if gi.shape[2:] != input.shape[2:]:
                inside = (slice(None),) * 2 + tuple(slice(0, n) for n in input.shape[2:])
                gi = _cn.channels_last_if(xp.ascontiguousarray(gi[inside]), cl)
        else:
            gi = _cn.conv_input_grad(grad_output, weight, input.shape[2:], stride, padding,
                                     dilation, groups, cl)
    if output_mask[1]:
        if transposed:
            gw = _cn.conv_weight_grad(grad_output, input, kernel, stride, padding, dilation,
                                      groups)
        else:
            gw = _cn.conv_weight_grad(input, grad_output, kernel, stride, padding, dilation,
                                      groups)
        gw = _cn.channels_last_if(gw, cl)   # (in the convolution's memory format, as torch's)
    if len(output_mask) > 2 and output_mask[2] and bias_sizes is not None:
        gb = grad_output.sum(axis=(0,) + tuple(range(2, grad_output.ndim)))
    return tuple(a.astype(grad_output.dtype, copy=False) for a in (gi, gw, gb))


@convolution_backward.backward
def _(ctx, *grads):
    # See Note [Convolution derivatives]; the engine passes grads up to the last used output
    ggi, ggw, ggb = (grads + (None, None, None))[:3]
    grad_output, input, weight = ctx.saved_tensors
    need_go, need_i, need_w = ctx.needs_input_grad
    args = (ctx.stride, ctx.padding, ctx.dilation, ctx.transposed, ctx.output_padding,
            ctx.groups)
    if ggi is not None and not ggi.numel() and input.numel():
        ggi = None
    if ggw is not None and not ggw.numel() and weight.numel():
        ggw = None
    if ggb is not None and not ggb.numel():
        ggb = None
    g_go = g_i = g_w = None
    if need_go:
        if ggi is not None:
            g_go = convolution(ggi, weight, ggb, *args)
        if ggw is not None:
            term = convolution(input, ggw, None if ggi is not None else ggb, *args)
            g_go = term if g_go is None else g_go + term
        if g_go is None and ggb is not None:
            shape = (1, -1) + (1,) * (grad_output.ndim - 2)
            g_go = ggb.reshape(shape).expand(grad_output.shape)
    if need_i and ggw is not None:
        g_i = convolution_backward(grad_output, input, ggw, None, *args,
                                   (True, False, False))[0]
    if need_w and ggi is not None:
        g_w = convolution_backward(grad_output, ggi, weight, None, *args,
                                   (False, True, False))[1]
    return g_go, g_i, g_w


convolution_backward.jvp(FROM_BACKWARD)


# -- public functions --------------------------------------------------------------------------
def _convolution(input, weight, bias, *args):
    """``convolution``, with complex tensors split into real convolutions as torch does."""
    if not (input.is_complex() or weight.is_complex()):
        return convolution(input, weight, bias, *args)
    # Gauss's trick, three real convolutions (torch's complex_convolution):
    # a = conv(xr, wr, br), b = conv(xi, wi), c = conv(xr + xi, wr + wi, br + bi)
    # conv(x, w, b) = a - b + i (c - a - b)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")
    xr, xi, wr, wi = input.real, input.imag, weight.real, weight.imag
    br = bi = None
    if bias is not None:
        br, bi = bias.real, bias.imag
    a = convolution(xr, wr, br, *args)
    b = convolution(xi, wi, None, *args)
    c = convolution(xr + xi, wr + wi, None if bias is None else br + bi, *args)
    return a - b + 1j * (c - a - b)


def _tuple(value, nd):
    if isinstance(value, (list, tuple)):
        return tuple(int(v) for v in value)
    return (int(value),) * nd


def _check_input_dim(name, input, nd):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {_sizes(input.shape)}")
    return input.ndim == nd + 1


def _unbatched(fn, name, input, nd, *args):
    """Run `fn` with a batch dim added to an unbatched input (torch: unsqueeze, squeeze)."""
    if not isinstance(input, _registry._Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, ...)")
    if _check_input_dim(name, input, nd):
        return fn(input.unsqueeze(0), *args).squeeze(0)
    return fn(input, *args)


def _same_padding(input, weight, nd, stride, dilation):
    """torch's padding='same': symmetric padding, plus one extra on the right where needed."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    left = [t // 2 for t in total]
    extra = [t - 2 * lft for t, lft in zip(total, left)]
    if any(extra):
        warn_once_at_caller("Using padding='same' with even kernel lengths and odd dilation may "
                            "require a zero-padded copy of the input be created (Triggered "
                            "internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                            "Convolution.cpp:1101.)")
        pad = []
        for e in reversed(extra):
            pad += [0, e]
        input = FUNCTIONS["constant_pad_nd"](input, pad, 0)
    return input, tuple(left)


def _conv(nd, name):
    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)

        def run(x):
            pad = padding
            if isinstance(pad, str):
                # torch's _convolution_mode passes [0] for 'valid'
                if pad == "valid":
                    return _convolution(x, weight, bias, stride, (0,), dilation, False, (0,),
                                        groups)
                if pad != "same":
                    raise RuntimeError(f"Invalid padding string: '{pad}'")
                x, pad = _same_padding(x, weight, nd, stride, dilation)
            return _convolution(x, weight, bias, stride, _tuple(pad, nd), dilation, False,
                                (0,) * nd, groups)
        return _unbatched(run, name, input, nd)
    conv.__name__ = conv.__qualname__ = name
    conv.__doc__ = f"""{nd}-D convolution (cross-correlation) over an input of shape
    (N, C_in, *spatial) or unbatched (C_in, *spatial); ``padding`` may be ``'same'``/``'valid'``."""
    return conv


def _conv_transpose(nd, name):
    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                       dilation=1):
        args = (_tuple(stride, nd), _tuple(padding, nd), _tuple(dilation, nd), True,
                _tuple(output_padding, nd), groups)
        return _unbatched(lambda x: _convolution(x, weight, bias, *args), name, input, nd)
    conv_transpose.__name__ = conv_transpose.__qualname__ = name
    conv_transpose.__doc__ = f"{nd}-D transposed convolution (the adjoint of conv{nd}d)."
    return conv_transpose


for _nd in (1, 2, 3):
    _f = _conv(_nd, f"conv{_nd}d")
    composite(f"nn.functional.conv{_nd}d")(_f)
    composite(f"conv{_nd}d", method=False)(_f)
    _t = _conv_transpose(_nd, f"conv_transpose{_nd}d")
    composite(f"nn.functional.conv_transpose{_nd}d")(_t)
    composite(f"conv_transpose{_nd}d", method=False)(_t)


# -- nn.grad ------------------------------------------------------------------------------------
def _grad_input(nd):
    def conv_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        """The gradient of conv{nd}d with respect to its input (torch.nn.grad)."""
        zero = FUNCTIONS["zeros"]((), dtype=grad_output.dtype).expand(tuple(input_size))
        return convolution_backward(grad_output, zero, weight, None, _tuple(stride, nd),
                                    _tuple(padding, nd), _tuple(dilation, nd), False,
                                    (0,), groups, (True, False, False))[0]
    conv_input.__name__ = conv_input.__qualname__ = f"conv{nd}d_input"
    return conv_input


def _grad_weight(nd):
    def conv_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        """The gradient of conv{nd}d with respect to its weight (torch.nn.grad)."""
        zero = FUNCTIONS["zeros"]((), dtype=grad_output.dtype).expand(tuple(weight_size))
        return convolution_backward(grad_output, input, zero, None, _tuple(stride, nd),
                                    _tuple(padding, nd), _tuple(dilation, nd), False,
                                    (0,), groups, (False, True, False))[1]
    conv_weight.__name__ = conv_weight.__qualname__ = f"conv{nd}d_weight"
    return conv_weight


for _nd in (1, 2, 3):
    composite(f"nn.grad.conv{_nd}d_input")(_grad_input(_nd))
    composite(f"nn.grad.conv{_nd}d_weight")(_grad_weight(_nd))
