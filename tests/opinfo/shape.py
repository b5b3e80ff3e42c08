"""OpInfo entries for dyngrad/ops/shape.py (views, reshapes, clone/contiguous).

View ops work the same for every dtype, so each op keeps a few samples: a contiguous input,
the non-contiguous layouts of core.py (transposed, sliced, expanded, permuted) and 0-dim /
empty inputs where they mean something. Invalid calls are samples too: torch's error must match.
"""
from __future__ import annotations

from .core import (ALL_DTYPES, DType, OP_DB, OpInfo, SampleInput, expanded, make_array,
                   permuted3, sliced, transposed)


def _gen(build):
    """A sample generator from ``build(x, dtype, rng)``, ``x(shape)`` making an array."""
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), dtype, rng)
    return gen


def _layouts(dtype, rng):
    return [transposed((3, 4), dtype, rng), sliced((3, 4), dtype, rng),
            expanded((3, 4), dtype, rng)]


def _view(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), 12), SampleInput(x((3, 4)), -1, 2), SampleInput(x((3, 4)), (2, 6)),
            SampleInput(x(()), 1), SampleInput(x((0, 3)), -1), SampleInput(t, 12),
            SampleInput(t, 4, 1, 3), SampleInput(s, 3, 2, 2), SampleInput(e, 12),
            SampleInput(permuted3(dtype, rng), 4, 6), SampleInput(x((3, 4)), 5, -1),
            SampleInput(x((3, 4)), DType("uint8")), SampleInput(x((2, 4)), DType("int16")),
            SampleInput(t, DType("int8"))]


def _reshape(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), (4, 3)), SampleInput(x((3, 4)), (-1,)),
            SampleInput(x(()), (1, 1)), SampleInput(x((0, 3)), (3, 0)), SampleInput(t, (12,)),
            SampleInput(t, (4, 1, 3)), SampleInput(s, (6, 2)), SampleInput(e, (2, 6)),
            SampleInput(permuted3(dtype, rng), (8, 3)), SampleInput(x((3, 4)), (5, 2))]


def _two_dims(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), 0, 1), SampleInput(t, -1, 0), SampleInput(s, 1, 1),
            SampleInput(e, 0, -1), SampleInput(permuted3(dtype, rng), 0, 2),
            SampleInput(x(()), 0, -1), SampleInput(x((3, 4)), 0, 2)]


def _t(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(t), SampleInput(e), SampleInput(x((5,))),
            SampleInput(x(())), SampleInput(x((2, 3, 4)))]


def _permute(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((2, 3, 4)), (2, 0, 1)), SampleInput(t, (1, 0)), SampleInput(s, (-1, 0)),
            SampleInput(permuted3(dtype, rng), (1, 2, 0)), SampleInput(x(()), ()),
            SampleInput(x((3, 4)), (0, 0)), SampleInput(x((3, 4)), (0,))]


def _expand(x, dtype, rng):
    return [SampleInput(x((3, 1)), 3, 4), SampleInput(x((3, 1)), 2, -1, 5),
            SampleInput(x(()), 2, 3), SampleInput(x((1, 4)), (0, 4)),
            SampleInput(transposed((4, 1), dtype, rng), 2, 4, 3), SampleInput(x((3, 4)), 4, 4),
            SampleInput(x((3, 4)), 4)]


def _squeeze(x, dtype, rng):
    e = expanded((1, 4), dtype, rng)
    return [SampleInput(x((3, 1, 4, 1))), SampleInput(x((3, 1, 4))), SampleInput(x((3, 1, 4)), 1),
            SampleInput(x((3, 1, 4)), 0), SampleInput(x((1, 3, 1)), (0, 2)),
            SampleInput(x((1, 3, 1)), dim=-1), SampleInput(x(())), SampleInput(x(()), 0),
            SampleInput(e), SampleInput(x((3, 4)), 2)]


def _unsqueeze(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), 0), SampleInput(x((3, 4)), -1), SampleInput(t, 1),
            SampleInput(s, 2), SampleInput(e, 1), SampleInput(x(()), 0), SampleInput(x((3,)), 2)]


def _flatten(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((2, 3, 4))), SampleInput(x((2, 3, 4)), 1), SampleInput(t),
            SampleInput(permuted3(dtype, rng), 0, 1), SampleInput(x(())), SampleInput(x((5,))),
            SampleInput(x((2, 3, 4)), 1, 1), SampleInput(x((2, 3, 4)), 2, 1)]


def _ravel(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((2, 3, 4))), SampleInput(t), SampleInput(s), SampleInput(e),
            SampleInput(permuted3(dtype, rng)), SampleInput(x(())), SampleInput(x((2, 0))),
            SampleInput(x((2, 3)), 1)]


def _unflatten(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((2, 12)), 1, (3, 4)), SampleInput(x((2, 12)), -1, (2, -1, 3)),
            SampleInput(t, 0, (3, 1)), SampleInput(x((2, 12)), 1, (5, 2))]


def _narrow(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), 1, 1, 2), SampleInput(t, 0, -2, 2), SampleInput(s, 1, 0, 0),
            SampleInput(x((3, 4)), 0, 2, 2), SampleInput(x(()), 0, 0, 1)]


def _select(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), 1, 2), SampleInput(t, 0, -1), SampleInput(e, 0, 2),
            SampleInput(permuted3(dtype, rng), 2, 0), SampleInput(x((3, 4)), 0, 3),
            SampleInput(x(()), 0, 0)]


def _unbind(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(t, 1), SampleInput(s, -1),
            SampleInput(x((0, 2)), 1), SampleInput(x(()))]


def _split(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((5, 4)), 2), SampleInput(x((5, 4)), [1, 4]), SampleInput(t, 3, 1),
            SampleInput(s, [2, 0, 2], -1), SampleInput(x((5, 4)), 0), SampleInput(x((5, 4)), [1, 1])]


def _chunk(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((5, 4)), 2), SampleInput(t, 3, 1), SampleInput(x((0, 4)), 3),
            SampleInput(x((5, 4)), 0)]


def _tensor_split(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((7, 4)), 3), SampleInput(t, [1, 3], 1), SampleInput(s, (0, 2, 9), -1),
            SampleInput(x((7, 4)), 0)]


def _diagonal(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(x((3, 4)), 1), SampleInput(t, -2),
            SampleInput(e, 0, 1, 0), SampleInput(permuted3(dtype, rng), 1, 2, 0),
            SampleInput(x((3, 4)), 7), SampleInput(x((3, 4)), 0, 1, 1)]


def _unfold(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 5)), 1, 2, 1), SampleInput(t, 0, 2, 2), SampleInput(s, 1, 4, 1),
            SampleInput(x(()), 0, 1, 1), SampleInput(x((3, 5)), 1, 6, 1)]


def _as_strided(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), (2, 2), (1, 2)), SampleInput(x((3, 4)), (3,), (4,), 1),
            SampleInput(s, (2, 3), (3, 1)), SampleInput(x((3, 4)), (4, 4), (4, 1))]


def _movedim(x, dtype, rng):
    return [SampleInput(x((2, 3, 4)), 0, 2), SampleInput(x((2, 3, 4)), (0, 1), (2, 0)),
            SampleInput(permuted3(dtype, rng), -1, 0), SampleInput(x(()), 0, 0),
            SampleInput(x((2, 3, 4)), (0, 0), (1, 2))]


def _clone(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    cl = DType("channels_last")
    return [SampleInput(x((3, 4))), SampleInput(t), SampleInput(s), SampleInput(e),
            SampleInput(permuted3(dtype, rng)), SampleInput(x(())), SampleInput(x((0, 3))),
            SampleInput(x((2, 3, 2, 2)), memory_format=cl),
            SampleInput(t, memory_format=DType("contiguous_format"))]


def _contiguous(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(t), SampleInput(s), SampleInput(e),
            SampleInput(permuted3(dtype, rng)),
            SampleInput(x((2, 3, 2, 2)), memory_format=DType("channels_last")),
            SampleInput(x((3, 4)), memory_format=DType("channels_last"))]


def _like(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), x((2, 6))), SampleInput(t, x((12,))),
            SampleInput(x((1, 4)), x((3, 4)))]


def _expand_as(x, dtype, rng):
    return [SampleInput(x((3, 1)), x((3, 4))), SampleInput(x(()), x((2, 2))),
            SampleInput(x((3, 4)), x((2, 2)))]


def _entry(name, build, **kw):
    return OpInfo(name, _gen(build), ALL_DTYPES, **kw)


OP_DB += [
    _entry("Tensor.view", _view),
    _entry("reshape", _reshape),
    _entry("transpose", _two_dims),
    _entry("swapaxes", _two_dims),
    _entry("swapdims", _two_dims),
    _entry("t", _t),
    _entry("permute", _permute),
    _entry("Tensor.expand", _expand),
    _entry("Tensor.expand_as", _expand_as),
    _entry("Tensor.view_as", _like),
    _entry("Tensor.reshape_as", _like),
    _entry("squeeze", _squeeze),
    _entry("unsqueeze", _unsqueeze),
    _entry("flatten", _flatten),
    _entry("ravel", _ravel),
    _entry("unflatten", _unflatten),
    _entry("narrow", _narrow),
    _entry("select", _select),
    _entry("unbind", _unbind),
    _entry("split", _split),
    _entry("chunk", _chunk),
    _entry("tensor_split", _tensor_split),
    _entry("diagonal", _diagonal),
    _entry("Tensor.unfold", _unfold),
    _entry("as_strided", _as_strided),
    _entry("movedim", _movedim),
    _entry("moveaxis", _movedim),
    _entry("clone", _clone),
    _entry("Tensor.contiguous", _contiguous),
]
