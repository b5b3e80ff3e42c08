"""diff: the n-th forward difference along a dim (``torch.diff``).

A composite, as in ATen: ``prepend`` and ``append`` are concatenated on first, then each of the
n rounds is ``narrow(dim, 1, len - 1) - narrow(dim, 0, len - 1)`` (``logical_xor`` for bool),
so the graph holds torch's SubBackward0 over two SliceBackward0 nodes per round. n is capped at
the dim's length, and a dim of length 0 gives the input itself back; n = 0 gives a copy
(CopyBackwards) and leaves prepend and append out, as ATen's diff does.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._utils import canonical_dim
from . import _registry
from ._registry import FUNCTIONS, METHODS
from .join import int_arg
from ._arg_parser import type_name as _tp_name


def _check(input, n, dim, prepend, append, pos):
    """torch's argument parser (from the n-th argument's position `pos`), then ATen's checks,
    in their order; returns (n, dim) as ints."""
    n = int_arg("diff", "n", n, pos)
    dim = int_arg("diff", "dim", dim, pos + 1)
    others = (("prepend", prepend), ("append", append))
    for k, (name, other) in enumerate(others):
        if other is not None and not isinstance(other, _registry._Tensor):
            raise TypeError(f"diff(): argument '{name}' (position {pos + 2 + k}) must be Tensor, "
                            f"not {type(other).__name__}")
    if input.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for _, other in others:
        if other is None:
            continue
        d = canonical_dim(dim, input.dim())
        if other.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        for i in range(other.dim()):
            if i != d and other.shape[i] != input.shape[i]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of "
                    "input except along the differencing dimension; input.size("
                    f"{i}) = {input.shape[i]}, but got tensor.size({i}) = {other.shape[i]}")
    return n, dim


def _diff(input, n, dim, prepend, append, pos):
    n, dim = _check(input, n, dim, prepend, append, pos)
    if n == 0:
        result = FUNCTIONS["zeros_like"](input)
        result.copy_(input)
        return result
    if prepend is not None or append is not None:
        input = FUNCTIONS["cat"]([t for t in (prepend, input, append) if t is not None], dim)
    length = input.size(dim)
    is_bool = input.dtype is D.bool_
    result, out_len = input, length - 1
    for _ in range(min(n, length)):
        later, earlier = result.narrow(dim, 1, out_len), result.narrow(dim, 0, out_len)
        result = FUNCTIONS["logical_xor"](later, earlier) if is_bool else later - earlier
        out_len -= 1
    return result


def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """The n-th forward difference along ``dim``, ``prepend`` and ``append`` concatenated
    first: ``input[1:] - input[:-1]`` for n = 1 (``logical_xor`` for bool)."""
    if not isinstance(input, _registry._Tensor):
        raise TypeError("diff(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")
    result = _diff(input, n, dim, prepend, append, 2)
    if out is None:
        return result
    from .reduction import write_out   # (torch's diff_out ends in the op of the last step)
    return write_out("logical_xor" if result.dtype == D.bool_ else "sub", out, result)


def _diff_method(self, n=1, dim=-1, prepend=None, append=None):
    return _diff(self, n, dim, prepend, append, 1)


FUNCTIONS["diff"] = diff
METHODS["diff"] = _diff_method
