"""``nn.CrossMapLRN2d``: torch's legacy (Lua torch) cross-channel local response normalisation.

torch keeps it as a Python ``autograd.Function`` (torch/nn/modules/_functions.py) that fills
its buffers in place with ``out=`` ops; this is the same algorithm written with dyngrad's
tensor ops, so values, the node's name (``CrossMapLRN2dBackward``) and its limits match:
inputs must be 4-d, and ``create_graph=True`` fails as torch's does (``out=`` ops refuse
inputs that require grad). The running window of the forward is torch's, including its
asymmetry: channel c's sum drops channel ``c - pre_pad`` only once ``c > pre_pad``.
"""
from __future__ import annotations

from ...autograd.function import Function
from .module import Module

__all__ = ["CrossMapLRN2d"]


def _lib():
    import dyngrad
    return dyngrad


class CrossMapLRN2d(Function):   # the Function; the Module below takes the name
    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        dg = _lib()
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        ctx.scale = None
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             f"instead.")
        ctx.scale = ctx.scale or input.new()
        output = input.new()
        channels = input.size(1)
        output.resize_as_(input)
        ctx.scale.resize_as_(input)
        input_square = output            # the output's storage is the squares' buffer
        dg.pow(input, 2, out=input_square)
        pre_pad = int((ctx.size - 1) / 2 + 1)
        pre_pad_crop = min(pre_pad, channels)
        scale_first = ctx.scale.select(1, 0)
        scale_first.zero_()
        for c in range(pre_pad_crop):
            scale_first.add_(input_square.select(1, c))
        for c in range(1, channels):     # slide the window: add the next map, drop one behind
            scale_current = ctx.scale.select(1, c)
            scale_current.copy_(ctx.scale.select(1, c - 1))
            if c < channels - pre_pad + 1:
                scale_current.add_(input_square.select(1, c + pre_pad - 1), alpha=1)
            if c > pre_pad:
                scale_current.add_(input_square.select(1, c - pre_pad), alpha=-1)
        ctx.scale.mul_(ctx.alpha / ctx.size).add_(ctx.k)
        dg.pow(ctx.scale, -ctx.beta, out=output)
        output.mul_(input)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        dg = _lib()
        input, output = ctx.saved_tensors
        grad_input = grad_output.new()
        batch_size, channels, height, width = (input.size(i) for i in range(4))
        padded_ratio = input.new(channels + ctx.size - 1, height, width)
        accum_ratio = input.new(height, width)
        cache_ratio_value = 2 * ctx.alpha * ctx.beta / ctx.size
        inverse_pre_pad = int(ctx.size - (ctx.size - 1) / 2)
        grad_input.resize_as_(input)
        dg.pow(ctx.scale, -ctx.beta, out=grad_input).mul_(grad_output)
        padded_ratio.zero_()
        center = padded_ratio.narrow(0, inverse_pre_pad, channels)
        for n in range(batch_size):
            dg.mul(grad_output[n], output[n], out=center)
            center.div_(ctx.scale[n])
            dg.sum(padded_ratio.narrow(0, 0, ctx.size - 1), 0, keepdim=False,
                      out=accum_ratio)
            for c in range(channels):
                accum_ratio.add_(padded_ratio[c + ctx.size - 1])
                grad_input[n][c].addcmul_(input[n][c], accum_ratio, value=-cache_ratio_value)
                accum_ratio.add_(padded_ratio[c], alpha=-1)
        return grad_input, None, None, None, None


_cross_map_lrn2d = CrossMapLRN2d   # as torch imports it: the node is CrossMapLRN2dBackward


class CrossMapLRN2d(Module):  # noqa: F811
    r"""Local response normalisation across channels of a 4-d (N, C, H, W) input, the legacy
    form: ``x / (k + alpha / size * sum of squares over a window of channels) ** beta``.

    Args:
        size (int): the channel window. alpha (float): scale (default 1e-4).
        beta (float): exponent (default 0.75). k (float): additive constant (default 1).
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
