"""Changing the memory format of convolution weights in place
(torch.nn.utils.memory_format): every Conv2d/ConvTranspose2d (Conv3d/ConvTranspose3d) in the
module tree gets its ``weight.data`` re-laid out in ``memory_format``; the Parameter objects
stay the same."""
from __future__ import annotations

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    from .. import modules
    classes = tuple(getattr(modules, name) for name in kinds)
    if isinstance(module, classes):
        weight_data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = weight_data.resize_(weight_data.size(),
                                                 memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lay out the weights of every ``Conv2d``/``ConvTranspose2d`` in ``module`` (recursively)
    in ``memory_format`` (e.g. ``channels_last``); returns ``module``.

    Example::

        >>> model = convert_conv2d_weight_memory_format(model, torch.channels_last)
    """
    return _convert(module, memory_format, ("Conv2d", "ConvTranspose2d"))


def convert_conv3d_weight_memory_format(module, memory_format):
    """As ``convert_conv2d_weight_memory_format``, for ``Conv3d``/``ConvTranspose3d``
    (e.g. ``channels_last_3d``)."""
    return _convert(module, memory_format, ("Conv3d", "ConvTranspose3d"))
