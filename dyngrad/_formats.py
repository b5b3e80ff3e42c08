"""``torch.memory_format`` and ``torch.layout``: the classes and their only instances.

A memory format (``contiguous_format``, ``channels_last``, ``channels_last_3d``,
``preserve_format``) says how a dense tensor orders its dims in memory; a layout says how a
tensor stores its elements, and dyngrad's are all ``strided``. As in torch, the classes make no
new instances, the instances print as ``torch.channels_last``, and they pickle and copy as
themselves (by name). The classes belong to ``dyngrad`` (``<class 'dyngrad.layout'>``).
"""
from __future__ import annotations


class memory_format:
    """``torch.memory_format``: how a dense tensor orders its dims in memory. Its instances are
    ``contiguous_format``, ``channels_last``, ``channels_last_3d`` and ``preserve_format``;
    torch makes no others, and pickles each by name."""

    __slots__ = ("name",)
    __module__ = "dyngrad"

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.memory_format' instances")

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return self.name


class layout:
    """``torch.layout``: how a tensor stores its elements: ``strided`` (an array over a
    storage), or ``sparse_coo`` (addresses and values: Note [Sparse COO tensors] in
    backends/sparse_coo.py); torch makes no others here, and pickles them by name."""

    __slots__ = ("name",)
    __module__ = "dyngrad"

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.layout' instances")

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return self.name


def _named(cls, name: str):
    obj = object.__new__(cls)
    obj.name = name
    return obj


contiguous_format = _named(memory_format, "contiguous_format")
channels_last = _named(memory_format, "channels_last")
channels_last_3d = _named(memory_format, "channels_last_3d")
preserve_format = _named(memory_format, "preserve_format")
strided = _named(layout, "strided")
sparse_coo = _named(layout, "sparse_coo")
