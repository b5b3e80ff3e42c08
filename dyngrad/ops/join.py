"""Joining tensors: cat (concat, concatenate), stack, hstack, vstack (row_stack), dstack,
column_stack, and the atleast_1d/2d/3d helpers they use.

``cat`` and ``stack`` are primitives (``CatBackward0``, ``StackBackward0``); the others are
compositions torch itself writes over them, so their graphs show the views they take
(``dstack`` of vectors: ``CatBackward0`` over two ``UnsqueezeBackward0``).

Note [Legacy empty tensors in cat]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Before torch had empty tensors of any shape, ``torch.empty(0)`` stood for "nothing", and cat
still skips 1-D tensors with no elements, whatever the other inputs' rank: ``cat([empty(0),
x], 1)`` is ``x``. They still take part in the dtype promotion and the output layout (a 1-D
tensor suggests the contiguous format), and they keep their edge in the graph, with a gradient
of shape ``(0,)``. ``dim`` is wrapped on the first tensor that is not skipped; when all are
skipped the result is an empty 1-D tensor.

Note [cat's output layout]
~~~~~~~~~~~~~~~~~~~~~~~~~~
cat gives its result the memory format every input suggests (``suggest_memory_format``):
channels_last when all inputs look channels_last, contiguous as soon as one does not. stack is
``cat(tensors, dim).view(...)`` (or, at the last dim, cat of the inputs unsqueezed there), so
it inherits that layout through the view: stacking channels_last images gives a 5-d tensor
with their strides. The format is decided on the inputs as given (before promotion copies
them), so the public functions compute it and pass it to the kernel.
"""
from __future__ import annotations

import operator

from ._arg_parser import type_name as _tp_name
from .._utils import canonical_dim, shape_str
from ..autograd import grad_mode as _gm
from ..backends import numpy_backend as _npb
from . import _dispatch
from . import _geometry as G
from . import shape as S
from . import view_backward as _vb  # noqa: F401  (registers its backward-only cat/stack first)
from ._registry import FUNCTIONS, _promoted, defop
from ..autograd.forward_ad import AUTO_LINEAR
from .creation import suggest_memory_format
from .pointwise import real

# view_backward.py declares backward-only primitives also named "cat" and "stack" (the
# backward of split/unbind) and removes them from OPS; importing it first makes sure the
# public primitives below are the ones OPS keeps.


def _tensor_cls():
    return S._tensor_cls()


# ---------------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------------
def tensor_list(fname: str, tensors) -> list:
    """A TensorList argument (tuple or list of Tensors), with torch's TypeErrors."""
    Tensor = _tensor_cls()
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{_tp_name(t)}")
    return list(tensors)


def int_arg(fname: str, name: str, value, pos: int) -> int:
    """An int argument (``dim``), with torch's TypeError for floats, None, strings..."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(value).__name__}")
    return operator.index(value)


def _skipped(shape) -> bool:
    """A legacy empty tensor cat skips. See Note [Legacy empty tensors in cat]."""
    return len(shape) == 1 and shape[0] == 0


def _format_name(fmt) -> str | None:
    name = getattr(fmt, "name", None) or str(fmt)
    if "channels_last_3d" in name:
        return "channels_last_3d"
    if "channels_last" in name:
        return "channels_last"
    return None


def _output_format(geometries) -> str | None:
    """The format all (shape, stride) inputs suggest, or None. See Note [cat's output layout]."""
    found = None
    for shape, stride in geometries:
        if len(shape) not in (4, 5):
            return None
        fmt = _format_name(suggest_memory_format(tuple(shape), tuple(stride)))
        if fmt is None or (found is not None and fmt != found):
            return None
        found = fmt
    return found


def _format_strides(shape, fmt) -> tuple:
    from .._tensor import channels_last, channels_last_3d
    return G.memory_format_strides(shape, channels_last if fmt == "channels_last"
                                   else channels_last_3d)


def _with_layout(xp, arr, fmt):
    """`arr` (C-contiguous) laid out in `fmt` ("channels_last", ...) when given."""
    if fmt is None or arr.ndim not in (4, 5):
        return arr
    out = S._fresh_strided(xp, arr.shape, _format_strides(arr.shape, fmt), arr.dtype)
    out[...] = arr
    return out


# ---------------------------------------------------------------------------------------------
# cat
# ---------------------------------------------------------------------------------------------
def _check_cat_shapes(arrays, dim: int):
    """torch's checks of cat's inputs; returns (wrapped dim, indices of kept inputs)."""
    for i, a in enumerate(arrays):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [i for i, a in enumerate(arrays) if not _skipped(a.shape)]
    if not kept:
        return dim, kept
    first = arrays[kept[0]].shape
    d = canonical_dim(dim, len(first))
    for i in kept:
        shape = arrays[i].shape
        if len(shape) != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} "
                               f"and {len(shape)}")
        for k, (n, m) in enumerate(zip(first, shape)):
            if k != d and n != m:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {n} but got size {m} for tensor number {i} "
                                   "in the list.")
    return d, kept


def _cat_arrays(xp, arrays, dim, memory_format):
    d, kept = _check_cat_shapes(arrays, dim)
    if not kept:
        return xp.empty(0, arrays[0].dtype)
    out = xp.ascontiguousarray(xp.concatenate([arrays[i] for i in kept], axis=d))
    return _with_layout(xp, out, memory_format)


@defop("cat", node="CatBackward0", inputs=("tensors[]",), variants=())
def _cat(xp, tensors, dim=0, memory_format=None):
    return _cat_arrays(xp, tensors, dim, memory_format)


def _real_if_needed(grad, dtype):
    """The part of a complex gradient that flows to a real input (torch's R -> C rule)."""
    if grad.is_complex() and dtype.kind != "c":
        return real(grad)
    return grad


@_cat.backward
def _(ctx, grad):
    shapes = [ctx.input_metadata(i)[0] for i in range(len(ctx._next))]
    first = next((s for s in shapes if not _skipped(s)), None)
    dim = canonical_dim(ctx.dim, len(first)) if first is not None else 0
    grads = []
    start = 0
    for i, (shape, needed) in enumerate(zip(shapes, ctx.needs_input_grad)):
        g = _real_if_needed(grad, ctx.input_metadata(i)[1])
        if _skipped(shape):
            grads.append(g.new_zeros((0,)) if needed else None)
            continue
        n = shape[dim]
        grads.append(S._slice(g, dim, start, start + n, 1) if needed else None)
        start += n
    return tuple(grads)


_cat.jvp(AUTO_LINEAR)


def _cat_format(tensors):
    return _output_format((t._data.shape, t.stride()) for t in tensors)


def _cat_call(fname, tensors, dim, out):
    """cat with torch's argument checks; `fname` names the caller in TypeErrors."""
    tensors = tensor_list(fname, tensors)
    dim = int_arg(fname, "dim", dim, 2)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    fmt = _cat_format(tensors)
    if out is None:
        return _cat(tensors, dim, fmt)
    return _into_out("cat", tensors, out, fmt, lambda: _cat(tensors, dim, fmt))


def _into_out(op_name, tensors, out, fmt, compute):
    """Run `compute` (no graph) and write its result into ``out`` as cat's out= does."""
    if _gm.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"{op_name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    res = _promoted(tensors)
    if res.category > out.dtype.category:
        raise TypeError("torch.cat(): input types can't be cast to the desired output type "
                        f"{out.dtype._legacy}")
    _dispatch.check_out_overlap(out, tensors, "full")
    with _gm.no_grad():
        result = compute()
    store_out(out, result._data, fmt)
    return out


def store_out(out, arr, fmt=None):
    """Write `arr` into ``out``: resized to its shape (contiguous, or `fmt`) when it differs."""
    if out._data.shape != arr.shape:
        if out._data.size:   # (torch's resize_output warns of a resize of elements)
            from ._selection import resized_warning
            resized_warning(out._data.shape, arr.shape)
        from .._tensor import channels_last, channels_last_3d
        mf = {"channels_last": channels_last, "channels_last_3d": channels_last_3d}.get(fmt)
        if mf is not None and len(arr.shape) in (4, 5):
            out.resize_(arr.shape, memory_format=mf)
        else:
            out.resize_(arr.shape)
    out._check_writeable()
    _npb.xp.copyto(out._data, arr, casting="unsafe")
    out._bump_version()
    return out


def cat(tensors, dim=0, *, out=None, axis=None):
    """Concatenate ``tensors`` along ``dim`` (dtypes promote; 1-D empty tensors are skipped).

    ``axis`` is NumPy's name for ``dim``, accepted as torch does. See Note [Legacy empty
    tensors in cat] and Note [cat's output layout].
    """
    return _cat_call("cat", tensors, dim if axis is None else axis, out)


def concat(tensors, dim=0, *, out=None, axis=None):
    """Alias of :func:`cat`."""
    return _cat_call("concat", tensors, dim if axis is None else axis, out)


def concatenate(tensors, dim=0, *, out=None, axis=None):
    """Alias of :func:`cat`."""
    return _cat_call("concatenate", tensors, dim if axis is None else axis, out)


# ---------------------------------------------------------------------------------------------
# stack
# ---------------------------------------------------------------------------------------------
@defop("stack", node="StackBackward0", inputs=("tensors[]",), variants=())
def _stack(xp, tensors, dim=0, memory_format=None):
    first = tensors[0].shape
    nd = len(first)
    d = canonical_dim(dim, nd + 1)
    for i, a in enumerate(tensors):
        if a.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{shape_str(first)} at entry 0 and {shape_str(a.shape)} at "
                               f"entry {i}")
    shape = first[:d] + (len(tensors),) + first[d:]
    if d == nd:   # torch: cat of the inputs unsqueezed at the end
        return _cat_arrays(xp, [a[..., None] for a in tensors], d, memory_format)
    flat = _cat_arrays(xp, tensors, d, memory_format)   # torch: cat(...).view(shape)
    strides = G.compute_stride(flat.shape, S._elem_strides(flat), shape)
    return _npb.strided(_npb.flat_buffer(flat), shape, strides, 0)


@_stack.backward
def _(ctx, grad):
    grads = []
    for i, needed in enumerate(ctx.needs_input_grad):
        if needed:
            g = _real_if_needed(grad, ctx.input_metadata(i)[1])
            grads.append(S._select(g, ctx.dim, i))
        else:
            grads.append(None)
    return tuple(grads)


_stack.jvp(AUTO_LINEAR)


def stack(tensors, dim=0, *, out=None, axis=None):
    """Join equally shaped ``tensors`` along a new dim ``dim`` (``axis``: NumPy's name)."""
    if axis is not None:
        dim = axis
    tensors = tensor_list("stack", tensors)
    dim = int_arg("stack", "dim", dim, 2)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    nd = tensors[0]._data.ndim
    d = canonical_dim(dim, nd + 1)
    if d == nd:
        geoms = ((t._data.shape + (1,), t.stride() + (1,)) for t in tensors)
    else:
        geoms = ((t._data.shape, t.stride()) for t in tensors)
    fmt = _output_format(geoms)
    if out is None:
        return _stack(tensors, dim, fmt)
    # torch resizes out to the stacked shape first (contiguous), then writes into it
    return _into_out("stack", tensors, out, None,
                     lambda: _stack(tensors, dim, fmt))


# ---------------------------------------------------------------------------------------------
# atleast_nd and the stacks built on them
# ---------------------------------------------------------------------------------------------
def _atleast(n: int, args):
    """torch's atleast_Nd (Python) hands its binding one tensor or the tuple of them: a lone
    argument of another type fails both overloads, a non-tensor in the tuple the list's check."""
    Tensor = _tensor_cls()
    single = len(args) == 1 and isinstance(args[0], Tensor)
    items = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    if not single:
        from ._arg_parser import _invalid_combination, type_name
        name = f"atleast_{n}d"
        if len(args) == 1 and items is args:
            raise TypeError(_invalid_combination(
                name, ["(Tensor input)", "(tuple of Tensors tensors)"], args, {}))
        for i, t in enumerate(items):
            if not isinstance(t, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                                f"{type_name(t)}")
    fn = (atleast_1d_one, atleast_2d_one, atleast_3d_one)[n - 1]
    if single:
        return fn(args[0])
    return tuple(fn(t) for t in items)


def atleast_1d_one(t):
    return S.reshape(t, (1,)) if t._data.ndim == 0 else t


def atleast_2d_one(t):
    nd = t._data.ndim
    if nd == 0:
        return S.reshape(t, (1, 1))
    return S.unsqueeze(t, 0) if nd == 1 else t


def atleast_3d_one(t):
    nd = t._data.ndim
    if nd == 0:
        return S.reshape(t, (1, 1, 1))
    if nd == 1:
        return S.unsqueeze(S.unsqueeze(t, 0), -1)
    return S.unsqueeze(t, -1) if nd == 2 else t


def atleast_1d(*tensors):
    """Each input viewed with at least one dim (a tuple for several inputs)."""
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    """Each input viewed with at least two dims (vectors become rows)."""
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    """Each input viewed with at least three dims (matrices gain a last dim of size 1)."""
    return _atleast(3, tensors)


def _nonempty(fname, tensors, label=None) -> list:
    tensors = tensor_list(fname, tensors)
    if not tensors:
        raise RuntimeError(f"{label or fname} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None):
    """Concatenate column-wise: along dim 1, or dim 0 for vectors (0-dim inputs become 1-D)."""
    tensors = [atleast_1d_one(t) for t in _nonempty("hstack", tensors)]
    dim = 0 if tensors[0]._data.ndim == 1 else 1
    return _cat_call("cat", tensors, dim, out)


def vstack(tensors, *, out=None):
    """Concatenate row-wise (along dim 0), vectors first viewed as rows."""
    tensors = [atleast_2d_one(t) for t in _nonempty("vstack", tensors)]
    return _cat_call("cat", tensors, 0, out)


def row_stack(tensors, *, out=None):
    """Alias of :func:`vstack`."""
    tensors = [atleast_2d_one(t) for t in _nonempty("row_stack", tensors, "vstack")]
    return _cat_call("cat", tensors, 0, out)


def dstack(tensors, *, out=None):
    """Concatenate depth-wise (along dim 2), inputs first viewed with at least three dims."""
    tensors = [atleast_3d_one(t) for t in _nonempty("dstack", tensors)]
    return _cat_call("cat", tensors, 2, out)


def column_stack(tensors, *, out=None):
    """Concatenate along dim 1, 0-dim and 1-D inputs first viewed as columns."""
    tensors = [t if t._data.ndim > 1 else S.reshape(t, (t._data.size, 1))
               for t in _nonempty("column_stack", tensors)]
    return _cat_call("cat", tensors, 1, out)


for _fn in (cat, concat, concatenate, stack, hstack, vstack, row_stack, dstack, column_stack,
            atleast_1d, atleast_2d, atleast_3d):
    FUNCTIONS[_fn.__name__] = _fn
