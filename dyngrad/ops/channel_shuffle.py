"""Channel shuffling (``torch.nn.functional.channel_shuffle`` and ``native_channel_shuffle``).

``channel_shuffle`` is an ATen primitive (``ChannelShuffleBackward0``, whose gradient is a
channel shuffle with ``C / groups`` groups); ``native_channel_shuffle`` is the same kernel
with torch's ``NotImplemented`` node.
"""
from __future__ import annotations

from .._promotion import Promote
from .._utils import shape_str
from ..autograd.forward_ad import AUTO_LINEAR, fw_not_implemented
from ._geometry import memory_format_strides
from ._registry import FUNCTIONS, defop
from .creation import copy_with_strides, suggest_memory_format
from .join import int_arg
from .pooling import _is_tensor, _strides_of
from ._arg_parser import type_name as _tp_name


def _shuffle(xp, self, groups):
    """(N, C, *) viewed as (N, g, C / g, *), the two group dims swapped, laid out as the
    input suggests (channels_last stays so)."""
    if self.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {shape_str(self.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c = self.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    rest = tuple(self.shape[2:])
    out = self.reshape((n, groups, c // groups) + rest).swapaxes(1, 2).reshape(self.shape)
    fmt = suggest_memory_format(self.shape, _strides_of(self))
    return copy_with_strides(out, out.dtype, memory_format_strides(out.shape, fmt))


@defop("channel_shuffle", node="ChannelShuffleBackward0", promote=Promote.NONE,
       variants=("function",))
def _channel_shuffle(xp, self, groups):
    return _shuffle(xp, self, groups)


@_channel_shuffle.backward
def _(ctx, grad):
    return (_channel_shuffle(grad, grad.shape[1] // ctx.groups),)


_channel_shuffle.jvp(AUTO_LINEAR)


@defop("native_channel_shuffle", node="NotImplemented", promote=Promote.NONE,
       variants=("function",))
def _native_channel_shuffle(xp, self, groups):
    return _shuffle(xp, self, groups)


@_native_channel_shuffle.backward
def _(ctx, grad):
    raise RuntimeError("derivative for aten::native_channel_shuffle is not implemented")


_native_channel_shuffle.jvp(fw_not_implemented("aten::native_channel_shuffle", short=True))


def _shuffle_call(op, fname):
    def call(input, groups):
        if not _is_tensor(input):
            raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                            f"{_tp_name(input)}")
        return op(input, int_arg(fname, "groups", groups, 2))
    call.__name__ = fname
    call.__doc__ = f"torch.{fname}: (N, C, *) channels split into ``groups`` and interleaved."
    return call


channel_shuffle = _shuffle_call(_channel_shuffle, "channel_shuffle")
native_channel_shuffle = _shuffle_call(_native_channel_shuffle, "native_channel_shuffle")


FUNCTIONS.update({
    "nn.functional.channel_shuffle": channel_shuffle,
    "nn.functional.native_channel_shuffle": native_channel_shuffle,
    "channel_shuffle": channel_shuffle,
    "native_channel_shuffle": native_channel_shuffle,
})
