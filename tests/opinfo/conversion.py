"""OpInfo entries for dyngrad/ops/conversion.py: ``to`` and the dtype shorthands (the
``_to_copy`` primitive, ``ToCopyBackward0``), and the in-place writers ``copy_``, ``fill_``
and ``zero_`` (in-place-only entries: the input is written, through views too).

Gradients: ``to`` casts the gradient back to the input's dtype; ``copy_`` gives ``src`` the
gradient (cast and summed to its shape) and ``self`` zeros; ``fill_``/``zero_`` give ``self``
zeros and a tensor ``value`` the sum of the gradient. tests/ops/test_inplace_writers.py adds
the cases the generic tests cannot express (a destination that does not require grad).
"""
from __future__ import annotations

from .core import (ALL_DTYPES, COMPLEX, DType, OP_DB, OpInfo, SampleInput, expanded, make_array,
                   permuted3, sliced, transposed)


def _layouts(dtype, rng):
    """Contiguous, 0-dim, empty and non-contiguous inputs of `dtype`."""
    return [make_array((3, 4), dtype, rng), make_array((), dtype, rng),
            make_array((2, 0, 3), dtype, rng), transposed((3, 4), dtype, rng),
            sliced((3, 4), dtype, rng), permuted3(dtype, rng)]


# -- to / shorthands ---------------------------------------------------------------------------
_TARGETS = ("float64", "float32", "float16", "int64", "int8", "uint8", "bool", "complex64")


def _to(dtype, rng):
    x = make_array((3, 4), dtype, rng)
    out = [SampleInput(x, DType(t)) for t in _TARGETS]
    out += [SampleInput(v, DType("float64")) for v in _layouts(dtype, rng)[1:]]
    out += [SampleInput(expanded((3, 4), dtype, rng), DType("float32")),
            SampleInput(x, dtype=DType("float64")), SampleInput(x, "cpu", DType("float32")),
            SampleInput(x, DType(dtype), desc="same dtype: self"),
            SampleInput(x, DType(dtype), copy=True, desc="same dtype, copy"),
            SampleInput(transposed((3, 4), dtype, rng), DType("float64"),
                        memory_format=DType("contiguous_format")),
            SampleInput(x, make_array((2,), "float64", rng), desc="like a tensor"),
            SampleInput(x, float), SampleInput(x, "cpu"), SampleInput(x, "bad")]
    return out


def _no_args(dtype, rng):
    return [SampleInput(v) for v in _layouts(dtype, rng)] + \
        [SampleInput(expanded((3, 4), dtype, rng))]


# -- copy_ -------------------------------------------------------------------------------------
def _copy(dtype, rng):
    def x(shape=(3, 4), dt=dtype):
        return make_array(shape, dt, rng)

    out = [SampleInput(x(), x()), SampleInput(x(), x((4,)), desc="broadcast src"),
           SampleInput(x(), x(()), desc="0-dim src"), SampleInput(x(()), x(())),
           SampleInput(x((0, 3)), x((3,))), SampleInput(x(), x((3, 1)), True),
           SampleInput(x(), x(), non_blocking=False),
           SampleInput(transposed((3, 4), dtype, rng), x(), desc="non-contiguous self"),
           SampleInput(sliced((3, 4), dtype, rng), transposed((3, 4), dtype, rng)),
           SampleInput(permuted3(dtype, rng), x((3,))),
           SampleInput(x(), expanded((3, 4), dtype, rng), desc="expanded src"),
           SampleInput(x(), x((5,)), desc="shape mismatch"),
           SampleInput(x((4,)), x((3, 4)), desc="src bigger than self"),
           SampleInput(x(), 2, desc="a number")]
    for other in ("float32", "float64", "int64", "bool", "complex128"):
        if other != dtype:
            out.append(SampleInput(x(), x((4,), other), desc="mixed dtypes"))
    return out


# -- fill_ / zero_ -----------------------------------------------------------------------------
def _fill(dtype, rng):
    out = [SampleInput(v, 1) for v in _layouts(dtype, rng)]
    out += [SampleInput(expanded((3, 4), dtype, rng), True, desc="expanded self"),
            SampleInput(make_array((3, 4), dtype, rng), 2.5),
            SampleInput(make_array((3, 4), dtype, rng), -3),
            SampleInput(make_array((3, 4), dtype, rng), 1 - 2j),
            SampleInput(make_array((3, 4), dtype, rng), 300, desc="overflow of small ints"),
            SampleInput(make_array((3, 4), dtype, rng), make_array((), dtype, rng)),
            SampleInput(transposed((3, 4), dtype, rng), make_array((), dtype, rng)),
            SampleInput(make_array((3, 4), dtype, rng), make_array((), "float64", rng),
                        desc="value of another dtype"),
            SampleInput(make_array((3, 4), dtype, rng), make_array((), "int32", rng)),
            SampleInput(make_array((3, 4), dtype, rng), make_array((1,), dtype, rng),
                        desc="1-d value"),
            SampleInput(make_array((3, 4), dtype, rng), "a")]
    if dtype in COMPLEX:
        out.append(SampleInput(make_array((3, 4), dtype, rng), make_array((), dtype, rng)))
    return out


OP_DB += [
    OpInfo("Tensor.to", _to, ALL_DTYPES, supports_out=False),
    *[OpInfo(f"Tensor.{name}", _no_args, ALL_DTYPES, supports_out=False)
      for name in ("double", "float", "half", "long", "bool")],
    OpInfo("Tensor.cdouble", _no_args, ALL_DTYPES, supports_out=False),
    OpInfo("Tensor.copy_", _copy, ALL_DTYPES, inplace_only=True),
    OpInfo("Tensor.fill_", _fill, ALL_DTYPES, inplace_only=True),
    OpInfo("Tensor.zero_", _no_args, ALL_DTYPES, inplace_only=True),
]
