"""Reordering, repetition and broadcasting: flip, roll, rot90, repeat, repeat_interleave, tile,
broadcast_to/broadcast_tensors/broadcast_shapes, meshgrid, cartesian_prod, combinations,
and block_diag. (atleast_1d/2d/3d live with the stacking ops in join.py.)

torch gives ``flip``, ``roll``, ``rot90``, ``repeat`` and ``block_diag`` nodes of their own
(``FlipBackward0``…): they are primitives here, each with its derivative written with the op
itself (the gradient of a flip is the same flip, of a roll the opposite roll, of a rotation the
opposite rotation). The others are compositions in torch too (``tile`` records
``RepeatBackward0``, ``broadcast_to`` an ``ExpandBackward0``, ``repeat_interleave`` with an int
a view/expand/clone chain, ``cartesian_prod`` a ``StackBackward0`` over flattened meshgrids):
they are plain functions over primitives and record exactly torch's graph.

Output layouts follow ATen: ``flip`` keeps a dense input's strides (empty_like with
preserve_format), ``rot90`` is a flip followed by a transpose (so its strides are transposed
ones), ``roll``, ``repeat`` and ``block_diag`` give contiguous results.
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import Size, canonical_dim, canonical_dims, shape_str
from .._utils import broadcast_shapes as _infer_size
from ..backends import numpy_backend as _npb
from . import shape as S
from . import view_backward as _vb
from ._registry import FUNCTIONS, METHODS, defop
from ._selection import tensor_shape_cpp, warn_once_at_caller
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD
from .creation import check_size, copy_with_strides, preserve_strides
from .indexing import _index_select, masked_select
from ._arg_parser import type_name as _tp_name


def _tensor_cls():
    return S._tensor_cls()


def _check_tensor(fname, value):
    if not isinstance(value, _tensor_cls()):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(value)}")


def _elem_strides(arr) -> tuple:
    return tuple(s // arr.itemsize for s in arr.strides)


# ---------------------------------------------------------------------------------------------
# Parsing int lists as torch's argument parser does
# ---------------------------------------------------------------------------------------------
def _int_list(fname: str, arg: str, value, pos: int, allow_int: bool = False) -> tuple:
    """An ``int[]`` argument given as a tuple or list (or, with `allow_int`, one int)."""
    if allow_int and _is_int(value):
        return (operator.index(value),)
    if not isinstance(value, (tuple, list, Size)):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be tuple of ints, "
                        f"not {type(value).__name__}")
    out = []
    for i, v in enumerate(value):
        if type(v) is bool:
            raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be tuple of "
                            f"ints, but found element of type bool at pos {i}")
        if not _is_int(v):
            raise TypeError(f"{fname}(): argument '{arg}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(v).__name__}\"")
        out.append(operator.index(v))
    return tuple(out)


def _is_int(v) -> bool:
    """An int for torch's parser: Python/NumPy ints, one-element integer tensors; not bool."""
    if isinstance(v, _tensor_cls()):
        return v.dtype.category == D.INT and v.numel() == 1
    return type(v) is not bool and not isinstance(v, float) and hasattr(v, "__index__")


def _varargs(fname: str, arg: str, args) -> tuple:
    """Method-style ints: ``x.flip(0, 1)`` or ``x.flip((0, 1))`` (torch's position 1)."""
    if not args:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "{arg}"')
    if len(args) == 1 and not _is_int(args[0]):
        return _int_list(fname, arg, args[0], 1)
    for i, v in enumerate(args):
        if not _is_int(v):
            if len(args) == 1:
                raise TypeError(f"{fname}(): argument '{arg}' (position 1) must be tuple of "
                                f"ints, not {type(v).__name__}")
            raise TypeError(f"{fname}(): argument '{arg}' (position 1) must be tuple of ints, "
                            f"but found element of type {type(v).__name__} at pos {i}")
    return tuple(operator.index(v) for v in args)


def _method_ints(fname: str, arg: str, args, kwargs) -> tuple:
    """The ints of ``x.op(1, 2)``, ``x.op((1, 2))`` or ``x.op(arg=(1, 2))``."""
    extra = [k for k in kwargs if k != arg]
    if extra:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{extra[0]}'")
    if arg in kwargs:
        if args:
            raise TypeError(f"{fname}() got multiple values for argument '{arg}'")
        return _int_list(fname, arg, kwargs[arg], 1)
    return _varargs(fname, arg, args)


def _dim_of(shape, dim: int) -> int:
    """TensorImpl::size(dim)'s wrapping: a 0-dim tensor has no dims to name."""
    if not shape:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return canonical_dim(dim, len(shape))


# ---------------------------------------------------------------------------------------------
# flip / fliplr / flipud
# ---------------------------------------------------------------------------------------------
@defop("flip", node="FlipBackward0", promote=Promote.NONE, variants=())
def _flip(xp, self, dims):
    axes = canonical_dims(dims, self.ndim)
    if self.dtype.kind == "u" and self.itemsize > 1 and self.size > 1:
        _unsigned_flip_check(self, axes)
    flipped = xp.flip(self, axis=axes) if self.ndim else self
    return copy_with_strides(flipped, self.dtype,
                             preserve_strides(self.shape, _elem_strides(self)))


def _unsigned_flip_check(arr, axes) -> None:
    """torch flips uint16/32/64 only where no kernel of the dtype is needed: when the
    innermost dim in memory is not reversed, rows are copied whole (Note [Limited unsigned
    dtypes] in _promotion.py)."""
    moving = [a for a in axes if arr.shape[a] > 1 and arr.strides[a] != 0]
    if moving:
        inner = min((a for a in range(arr.ndim) if arr.shape[a] > 1),
                    key=lambda a: abs(arr.strides[a]))
        if inner in moving:
            from ._unsigned import refuse
            raise refuse("flip_cpu", arr.dtype)


@_flip.backward
def _(ctx, grad):
    return _flip(grad, ctx.dims)


_flip.jvp(AUTO_LINEAR)


def flip(input, dims):
    """Reverse the order of the elements along each dim in ``dims`` (a copy)."""
    _check_tensor("flip", input)
    return _flip(input, _int_list("flip", "dims", dims, 2))


def _flip_method(self, *dims, **kwargs):
    return _flip(self, _method_ints("flip", "dims", dims, kwargs))


def fliplr(input):
    """Flip the columns (dim 1); needs at least 2 dims."""
    _check_tensor("fliplr", input)
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


def flipud(input):
    """Flip the rows (dim 0); needs at least 1 dim."""
    _check_tensor("flipud", input)
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


# ---------------------------------------------------------------------------------------------
# roll
# ---------------------------------------------------------------------------------------------
@defop("roll", node="RollBackward0", promote=Promote.NONE, variants=())
def _roll(xp, self, shifts, dims=()):
    # ATen's roll_common / roll_cpu, checks in their order
    if len(dims) != 1 or len(shifts) != 1:
        if not shifts:
            raise RuntimeError("`shifts` required")
        if not dims and len(shifts) == 1:   # roll the flattened tensor, restore the shape
            return xp.roll(self.reshape(-1), shifts[0]).reshape(self.shape)
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}")
    out = self
    for shift, dim in zip(shifts, dims):
        if out.size == 0:
            return copy_with_strides(out, out.dtype,
                                     preserve_strides(out.shape, _elem_strides(out)))
        out = xp.roll(out, shift, axis=_dim_of(out.shape, dim))
    return _npb.c_contiguous(out)


@_roll.backward
def _(ctx, grad):
    return _roll(grad, tuple(-s for s in ctx.shifts), ctx.dims)


_roll.jvp(AUTO_LINEAR)


def _roll_args(shifts, dims, pos):
    shifts = _int_list("roll", "shifts", shifts, pos, allow_int=True)
    return shifts, () if dims is None else _int_list("roll", "dims", dims, pos + 1,
                                                     allow_int=True)


def roll(input, shifts, dims=None):
    """Shift the elements along ``dims`` cyclically by ``shifts`` (of the flattened tensor,
    shape restored, when ``dims`` is not given)."""
    _check_tensor("roll", input)
    return _roll(input, *_roll_args(shifts, dims, 2))


def _roll_method(self, shifts, dims=None):
    return _roll(self, *_roll_args(shifts, dims, 1))


# ---------------------------------------------------------------------------------------------
# rot90
# ---------------------------------------------------------------------------------------------
@defop("rot90", node="Rot90Backward0", promote=Promote.NONE, variants=())
def _rot90(xp, self, k=1, dims=(0, 1)):
    nd = self.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = canonical_dim(dims[0], nd), canonical_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    k %= 4
    if k == 0:   # ATen: clone(contiguous_format)
        return xp.array(self, order="C", copy=True)
    # ATen: k=1 flips d1 then transposes, k=2 flips both, k=3 flips d0 then transposes
    axes = {1: (d1,), 2: (d0, d1), 3: (d0,)}[k]
    if self.dtype.kind == "u" and self.itemsize > 1 and self.size > 1:
        _unsigned_flip_check(self, axes)   # (ATen's flip)
    flipped = copy_with_strides(xp.flip(self, axis=axes), self.dtype,
                                preserve_strides(self.shape, _elem_strides(self)))
    return flipped if k == 2 else xp.swapaxes(flipped, d0, d1)


@_rot90.backward
def _(ctx, grad):
    return _rot90(grad, -ctx.k, ctx.dims)


_rot90.jvp(FROM_BACKWARD)


def _rot90_args(k, dims, pos):
    if not _is_int(k):
        raise TypeError(f"rot90(): argument 'k' (position {pos}) must be int, not "
                        f"{type(k).__name__}")
    return operator.index(k), _int_list("rot90", "dims", dims, pos + 1)


def rot90(input, k: int = 1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first towards the
    second."""
    _check_tensor("rot90", input)
    return _rot90(input, *_rot90_args(k, dims, 2))


def _rot90_method(self, k: int = 1, dims=(0, 1)):
    return _rot90(self, *_rot90_args(k, dims, 1))


# ---------------------------------------------------------------------------------------------
# repeat / tile
# ---------------------------------------------------------------------------------------------
@defop("repeat", node="RepeatBackward0", promote=Promote.NONE, variants=())
def _repeat(xp, self, repeats):
    if len(repeats) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - self.ndim) + self.shape
    check_size(tuple(n * r for n, r in zip(padded, repeats)))
    if not repeats:   # a 0-dim tensor repeated over no dims (numpy.tile would make it 1-d)
        return self.copy()
    return _npb.c_contiguous(xp.tile(self, repeats))


@_repeat.backward
def _(ctx, grad):
    # the output is the input tiled: view each dim as (repeat, size) and sum the repeats away
    shape, repeats = ctx.self_shape, ctx.repeats
    if 0 in repeats:
        return grad.new_zeros(shape)
    lead = len(repeats) - len(shape)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    split, summed = [], []
    for n, r in zip(shape, repeats[lead:]):
        if r != 1:
            summed.append(len(split))
            split.append(r)
        split.append(n)
    if summed:
        grad = S.reshape(grad, tuple(split)).sum(tuple(summed))
    return grad


_repeat.jvp(AUTO_LINEAR)


def _repeat_method(self, *repeats, **kwargs):
    """``x.repeat(2, 3)``: the tensor tiled ``repeats`` times (leading dims added)."""
    if len(repeats) > 1 and not all(_is_int(r) for r in repeats):
        raise TypeError(f"repeat() takes 1 positional argument but {len(repeats)} were given")
    return _repeat(self, _method_ints("repeat", "repeats", repeats, kwargs))


def _tile(input, reps):
    lead = input.ndim - len(reps)
    return _repeat(input, (1,) * lead + reps if lead > 0 else reps)


def tile(input, dims):
    """Repeat ``input`` ``dims`` times per dim, as ``numpy.tile`` (``Tensor.repeat`` with 1s
    prepended to ``dims`` when it is shorter than the tensor's dims)."""
    _check_tensor("tile", input)
    return _tile(input, _int_list("tile", "dims", dims, 2))


def _tile_method(self, *dims, **kwargs):
    return _tile(self, _method_ints("tile", "dims", dims, kwargs))


# ---------------------------------------------------------------------------------------------
# repeat_interleave
# ---------------------------------------------------------------------------------------------
@defop("repeat_interleave.Tensor", promote=Promote.NONE, inputs=("repeats",), variants=())
def _repeat_index(xp, repeats, *, output_size=None):
    """``torch.repeat_interleave(repeats)``: index ``i`` written ``repeats[i]`` times."""
    if repeats.dtype not in (xp.int64, xp.int32):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{D.from_np(repeats.dtype)._legacy}'")
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.size == 0:
        return xp.empty(0, repeats.dtype)
    total = int(repeats.astype(xp.int64).sum())
    if output_size is not None:
        if output_size != total:
            raise RuntimeError("allocated size does not match required size")
    if (repeats < 0).any():
        raise RuntimeError("repeats can not be negative")
    return xp.repeat(xp.arange(repeats.size, dtype=repeats.dtype), repeats)


def _repeat_interleave_int(input, repeats, dim, output_size):
    # ATen: unsqueeze after `dim`, expand the new dim to `repeats`, clone, merge the two dims
    d = canonical_dim(0 if dim is None else dim, input.ndim)
    inp = S.flatten(input) if dim is None else input
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    inp = S._unsqueeze(inp, d + 1)
    sizes = list(inp.shape)
    sizes[d + 1] = repeats
    inp = S._expand(inp, tuple(sizes), S._type_name(inp))
    if output_size is not None and output_size != repeats * sizes[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{repeats * sizes[d]} but got {output_size}")
    contiguous_format = S._memory_formats()[0]
    return S.flatten(S.clone(inp, memory_format=contiguous_format), d, d + 1)


def _repeat_interleave_tensor(input, repeats, dim, output_size):
    inp, d = (S.flatten(input), 0) if dim is None else (input, dim)
    n = inp.shape[canonical_dim(d, inp.ndim)]
    if repeats.ndim == 0 or (repeats.ndim == 1 and repeats.shape[0] == 1):
        repeats = S._expand(S.reshape(repeats, (1,)), (n,), S._type_name(repeats))
    elif repeats.ndim == 1:
        if repeats.shape[0] != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = {n}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return _index_select(inp, _repeat_index(repeats, output_size=output_size), d)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times along ``dim`` (of the flattened tensor when
    ``dim`` is None). ``repeats`` is an int or a tensor of counts; with only a tensor of counts,
    the indices ``0, 0, 1, …`` that such a repetition reads."""
    Tensor = _tensor_cls()
    if repeats is None:
        if not isinstance(input, Tensor):
            raise TypeError(f"repeat_interleave(): argument 'repeats' (position 1) must be "
                            f"Tensor, not {type(input).__name__}")
        return _repeat_index(input, output_size=output_size)
    if isinstance(repeats, Tensor) and isinstance(input, Tensor):
        return _repeat_interleave_tensor(input, repeats, dim, output_size)
    if not _is_int(repeats) or not isinstance(input, Tensor):
        got = ", ".join(type(a).__name__ for a in (input, repeats))
        raise TypeError(
            f"repeat_interleave() received an invalid combination of arguments - got ({got}), "
            "but expected one of:\n"
            " * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n"
            " * (Tensor repeats, *, int output_size = None)\n"
            " * (Tensor input, int repeats, int dim = None, *, int output_size = None)\n")
    return _repeat_interleave_int(input, operator.index(repeats), dim, output_size)


def _repeat_interleave_method(self, repeats=None, dim=None, *, output_size=None):
    if repeats is None or not isinstance(repeats, _tensor_cls()) and not _is_int(repeats):
        if repeats is None:
            got = "" if output_size is None else "output_size=int, "
        else:
            got = type(repeats).__name__
        raise TypeError(
            f"repeat_interleave() received an invalid combination of arguments - got "
            f"({got}), but expected one of:\n"
            " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
            " * (int repeats, int dim = None, *, int output_size = None)\n")
    return repeat_interleave(self, repeats, dim, output_size=output_size)


# ---------------------------------------------------------------------------------------------
# broadcasting
# ---------------------------------------------------------------------------------------------
def broadcast_to(input, size):
    """``input`` expanded to ``size`` (a view; -1 keeps a dim), as ``Tensor.expand``."""
    _check_tensor("broadcast_to", input)
    return S._expand(input, _int_list("broadcast_to", "size", size, 2), S._type_name(input))


def _broadcast_to_method(self, *size, **kwargs):
    size = _method_ints("broadcast_to", "size", size, kwargs)
    return S._expand(self, size, S._type_name(self))


def _check_tensors(tensors) -> None:
    Tensor = _tensor_cls()
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{_tp_name(t)}")


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape; those already of that shape come back as
    they are (the same objects, as torch's expand_outplace)."""
    _check_tensors(tensors)
    if not tensors:
        return ()
    shape = _infer_size(*(t.shape for t in tensors))
    return tuple(t if tuple(t.shape) == tuple(shape)
                 else S._expand(t, tuple(shape), S._type_name(t)) for t in tensors)


def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of these shapes broadcast to (ints count as 1-d shapes)."""
    Tensor = _tensor_cls()
    shapes = [(s,) if _is_int(s) and not isinstance(s, Tensor) else s
              for s in shapes if s is not None]
    if not shapes:
        return Size(())
    for s in shapes:
        if not isinstance(s, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s}")
    common = [1] * max(len(s) for s in shapes)
    for index, s in enumerate(shapes):
        for i in range(-1, -1 - len(s), -1):
            n = s[i]
            if n == common[i]:
                continue
            if common[i] == 1:
                if n < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = n
            if n != 1 and common[i] != n:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {i}! "
                                   f"Mismatching argument at index {index} had {s}; but expected "
                                   f"shape should be broadcastable to {common}")
    return Size(common)


# ---------------------------------------------------------------------------------------------
# meshgrid / cartesian_prod / combinations
# ---------------------------------------------------------------------------------------------
MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the "
                    "indexing argument." + tensor_shape_cpp(4215))


def meshgrid(*tensors, indexing: str | None = None):
    """Coordinate grids from 0-d/1-d tensors: output ``i`` varies along dim ``i`` (``"ij"``),
    or with the first two dims swapped (``"xy"``, cartesian). Each grid is a view (an expand).

    Without ``indexing``, ``"ij"`` is used and torch's UserWarning is given, once per process.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    _check_tensors(tensors)
    if indexing is None:
        warn_once_at_caller(MESHGRID_WARNING)
        indexing = "ij"
    return _meshgrid(list(tensors), indexing)


def _meshgrid(tensors, indexing):
    n = len(tensors)
    if not n:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors, tensors[1:]):
        if a.dtype is not b.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = False
    if indexing == "xy":
        swap = n >= 2
        if swap:
            tensors[0], tensors[1] = tensors[1], tensors[0]
    elif indexing != "ij":
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {_cpp_str(t)}")
    shape = tuple(t.numel() for t in tensors)
    grids = []
    for i, t in enumerate(tensors):
        view_shape = [1] * n
        view_shape[i] = -1
        grids.append(S._expand(S._view(t, tuple(view_shape)), shape, S._type_name(t)))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _stack(tensors, dim):
    fn = FUNCTIONS.get("stack")
    return (fn or _vb.stack)(tensors, dim)


def cartesian_prod(*tensors):
    """All tuples of one element from each 1-d tensor, as rows (a single tensor comes back
    as it is)."""
    _check_tensors(tensors)
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {shape_str(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(list(tensors), "ij")
    return _stack([S.flatten(g) for g in grids], 1)


def combinations(input, r: int = 2, with_replacement: bool = False):
    """The length-``r`` combinations of a 1-d tensor's elements, as rows (in the order of
    ``itertools.combinations``, or ``combinations_with_replacement``)."""
    _check_tensor("combinations", input)
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {shape_str(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    grids = _meshgrid([input] * r, "ij")
    mask = _ordered_mask(input.numel(), r, with_replacement)
    return _stack([masked_select(g, mask) for g in grids], 1)


def _ordered_mask(n: int, r: int, with_replacement: bool):
    """Bool mask over an ``n``**r grid: True where the indices increase (or never decrease)."""
    index = _meshgrid([FUNCTIONS["arange"](n)] * r, "ij")
    mask = FUNCTIONS["ones"](index[0].shape, dtype=D.bool_)
    for a, b in zip(index, index[1:]):
        mask = FUNCTIONS["logical_and"](mask, a <= b if with_replacement else a < b)
    return mask


# ---------------------------------------------------------------------------------------------
# block_diag
# ---------------------------------------------------------------------------------------------
def _block_shape(shape) -> tuple:
    """(rows, columns) a 0-d, 1-d or 2-d tensor takes in block_diag (a vector is one row)."""
    if len(shape) == 2:
        return shape
    return (1, shape[0]) if len(shape) == 1 else (1, 1)


@defop("block_diag", node="BlockDiagBackward0", promote=Promote.DEFAULT, inputs=("tensors[]",),
       variants=())
def _block_diag(xp, tensors):
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.ndim} dimensions")
    blocks = [_block_shape(t.shape) for t in tensors]
    out = xp.zeros((sum(b[0] for b in blocks), sum(b[1] for b in blocks)), tensors[0].dtype)
    row = col = 0
    for t, (m, n) in zip(tensors, blocks):
        out[row:row + m, col:col + n] = t.reshape(m, n)
        row += m
        col += n
    return out


@_block_diag.backward
def _(ctx, grad):
    grads = []
    real = None
    row = col = 0
    for i, needed in enumerate(ctx.needs_input_grad):
        shape, np_dtype = ctx.input_metadata(i)
        if len(shape) == 1 and shape[0] == 0:
            # torch's block_diag_backward skips an empty vector without moving down the one row
            # it took in the forward: later blocks read their gradient one row too high. Kept,
            # since the gradients must be torch's (FunctionsManual.cpp block_diag_backward).
            grads.append(grad.new_zeros((0,)) if needed else None)
            continue
        m, n = _block_shape(shape)
        if needed:
            g = grad
            if grad.is_complex() and np_dtype.kind != "c":
                real = FUNCTIONS["real"](grad) if real is None else real
                g = real
            g = S._slice(S._slice(g, 0, row, row + m, 1), 1, col, col + n, 1)
            grads.append(S.reshape(g, tuple(shape)) if len(shape) < 2 else g)
        else:
            grads.append(None)
        row += m
        col += n
    return tuple(grads)


_block_diag.jvp(AUTO_LINEAR)


def block_diag(*tensors):
    """A block-diagonal matrix with the tensors (0-d, 1-d as one row, or 2-d) as blocks, in the
    promoted dtype."""
    _check_tensors(tensors)
    if not tensors:
        return FUNCTIONS["empty"]((1, 0))
    return _block_diag(list(tensors))


# ---------------------------------------------------------------------------------------------
# the C++ printing of a tensor, for meshgrid's message
# ---------------------------------------------------------------------------------------------
def _cpp_str(t) -> str:
    """A tensor of 2 or more dims as ATen's ``operator<<`` prints it (torch quotes it in a few
    error texts): each matrix formatted on its own (Formatting.cpp's __printFormat), whole
    numbers as integers, others with 4 decimals, a common scale or scientific notation for wide
    ranges, and the type and sizes at the end."""
    shape = tuple(t.shape)
    values = [float(v.real) if isinstance(v, complex) else float(v)
              for v in t.detach().reshape(-1).tolist()]
    rows, cols = shape[-2], shape[-1]
    per = rows * cols
    if len(shape) == 2:
        body = _cpp_matrix(values, rows, cols, 0)
    else:
        parts = []
        lead = shape[:-2]
        for k in range(len(values) // per if per else 0):
            index, rest, at = [], k, 0     # ATen counts the leading dims first-fastest
            for n in lead:
                index.append(rest % n)
                rest //= n
            for i, n in zip(index, lead):
                at = at * n + i
            head = "(" + "".join(f"{i + 1}," for i in index) + ".,.) = \n"
            parts.append(head + _cpp_matrix(values[at * per:(at + 1) * per], rows, cols, 1))
        body = "\n".join(parts)
    return f"{body}[ {S._type_name(t)}{{{','.join(str(n) for n in shape)}}} ]"


def _cpp_format(values):
    """(scale, width, formatter) as __printFormat chooses them for these values."""
    import math
    finite = [abs(v) for v in values if math.isfinite(v)]
    int_mode = all(v == math.ceil(v) for v in values if math.isfinite(v))
    exp_min = exp_max = 1
    if finite:
        lo, hi = min(finite), max(finite)
        exp_min = math.floor(math.log10(lo)) + 1 if lo else 1
        exp_max = math.floor(math.log10(hi)) + 1 if hi else 1
    scale = 1.0
    if int_mode:
        if exp_max > 9:
            return scale, 11, lambda v: f"{v:.4e}"
        return scale, exp_max + 1, lambda v: f"{v:g}"
    if exp_max - exp_min > 4:
        return scale, 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11, \
            lambda v: f"{v:.4e}"
    if exp_max > 5 or exp_max < 0:
        return 10.0 ** (exp_max - 1), 7, lambda v: f"{v:.4f}"
    return scale, 7 if exp_max == 0 else exp_max + 6, lambda v: f"{v:.4f}"


def _cpp_matrix(values, rows, cols, indent):
    """One matrix as __printMatrix writes it (80-character lines, split into column blocks)."""
    scale, width, fmt = _cpp_format(values)

    def cell(v):
        v = v / scale
        text = "nan" if v != v else ("inf" if v > 0 else "-inf") if v in (_INF, -_INF) \
            else fmt(v)
        return text.rjust(width)

    out = []
    per_line = (80 - indent) // (width + 1)
    first = 0
    while first < cols:
        last = min(first + per_line, cols) - 1
        if per_line < cols:
            if first:
                out.append("\n")
            out.append(f"Columns {first + 1} to {last + 1}" + " " * indent)
        if scale != 1:
            out.append(f"{scale:g} *\n" + " " * indent)
        for r in range(rows):
            out.append(" ".join(cell(values[r * cols + c]) for c in range(first, last + 1)))
            out.append("\n")
            if r != rows - 1:
                out.append(" " * indent + (" " if scale != 1 else ""))
        first = last + 1
    return "".join(out)


_INF = float("inf")


# ---------------------------------------------------------------------------------------------
# the public table
# ---------------------------------------------------------------------------------------------
FUNCTIONS.update(
    flip=flip, fliplr=fliplr, flipud=flipud, roll=roll, rot90=rot90, tile=tile,
    repeat_interleave=repeat_interleave, broadcast_to=broadcast_to,
    broadcast_tensors=broadcast_tensors, broadcast_shapes=broadcast_shapes, meshgrid=meshgrid,
    cartesian_prod=cartesian_prod, combinations=combinations, block_diag=block_diag)
METHODS.update(
    flip=_flip_method, fliplr=fliplr, flipud=flipud, roll=_roll_method, rot90=_rot90_method,
    repeat=_repeat_method, tile=_tile_method, repeat_interleave=_repeat_interleave_method,
    broadcast_to=_broadcast_to_method)
