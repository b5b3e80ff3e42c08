"""``torch.conv_tbc`` (also ``nn.functional.conv_tbc``): a 1-d convolution laid out time, batch,
channel, as fairseq's models use it. ``input`` is (T, B, C_in), ``weight`` (K, C_in, C_out),
``bias`` (C_out,); the output is (T + 2 * pad - K + 1, B, C_out).

torch's kernel starts from the bias and adds, for each kernel tap k, the input rows it meets
times ``weight[k]`` (one matrix product per tap over the flattened time-batch rows); this one
does the same, so the sums run in torch's order. The gradient is torch's conv_tbc_backward:
each tap's ``grad @ weight[k].T`` shifted into place for the input, ``input rows.T @ grad``
for ``weight[k]``, and the sum over time and batch for the bias, written with dyngrad ops so
that it can be differentiated again.
"""
from __future__ import annotations

from .._promotion import Promote
from ..autograd.forward_ad import fw_not_implemented
from ._registry import FUNCTIONS, defop
from .linalg import _check_bool, _legacy


def _taps(ilen: int, olen: int, k: int, pad: int):
    """(input start, output start, rows) of tap `k`: torch's iShift, oShift and t."""
    i_shift = max(0, k - pad)
    o_shift = max(0, pad - k)
    return i_shift, o_shift, min(ilen + pad - k, olen) - o_shift


def _view_error():
    return RuntimeError("view size is not compatible with input tensor's size and stride (at "
                        "least one dimension spans across two contiguous subspaces). Use "
                        ".reshape(...) instead.")


@defop("conv_tbc", node="ConvTbcBackward0", promote=Promote.NONE,
       inputs=("self", "weight", "bias"), variants=("function",), saves=("self", "weight", "bias"),
       scalars=(), complex_autograd=False)
def conv_tbc(xp, self, weight, bias, pad=0):
    if self.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    ilen, batch, planes = self.shape
    kw, w_in, out_planes = weight.shape
    if planes != w_in:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.shape[0] != out_planes:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    olen = ilen + 2 * pad - kw + 1
    if olen < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {olen}: "
                           f"[{olen}, {batch}, {out_planes}]")
    out = xp.empty((olen, batch, out_planes), self.dtype)
    out[...] = bias.astype(self.dtype, copy=False)   # torch's output.copy_(bias.expand(...))
    for k in range(kw):
        i_shift, o_shift, t = _taps(ilen, olen, k, pad)
        if t <= 0:
            continue
        _check_bool(self, "addmm_impl_cpu_")
        rows = self[i_shift:i_shift + t]
        if t > 1 and batch > 1 and rows.strides[0] != rows.strides[1] * batch:
            raise _view_error()   # torch views these rows as (t * batch, C_in)
        if weight.dtype != self.dtype:
            raise RuntimeError("self and mat2 must have the same dtype, but got "
                               f"{_legacy(self)} and {_legacy(weight)}")
        product = rows.reshape(t * batch, planes) @ weight[k]
        out[o_shift:o_shift + t] += product.reshape(t, batch, out_planes).astype(out.dtype)
    return out


@conv_tbc.backward
def _(ctx, grad):
    self, weight, bias = ctx.saved_tensors
    need_input, need_weight, need_bias = ctx.needs_input_grad
    pad = ctx.pad
    ilen, batch, planes = self.shape
    kw = weight.shape[0]
    olen = grad.shape[0]
    from .creation import zeros_like
    from .join import stack
    grad_input = zeros_like(self) if need_input else None
    taps = []
    for k in range(kw):
        i_shift, o_shift, t = _taps(ilen, olen, k, pad)
        g = grad.narrow(0, o_shift, t).reshape(t * batch, -1) if t > 0 else None
        if need_input and t > 0:   # this tap's share, added at the input rows it read
            part = g.mm(weight[k].t()).view(t, batch, planes)
            grad_input = grad_input.index_add(0, _arange(i_shift, t), part)
        if need_weight:
            taps.append(self.narrow(0, i_shift, t).reshape(t * batch, planes).t().mm(g)
                        if t > 0 else zeros_like(weight[k]))
    grad_weight = stack(taps) if need_weight else None
    grad_bias = grad.sum((0, 1)) if need_bias else None
    return grad_input, grad_weight, grad_bias


def _arange(start: int, n: int):
    return FUNCTIONS["arange"](start, start + n)


conv_tbc.jvp(fw_not_implemented("conv_tbc"))   # (torch has no forward-mode formula)
FUNCTIONS["nn.functional.conv_tbc"] = FUNCTIONS["conv_tbc"]
