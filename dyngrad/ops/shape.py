"""View and shape ops: view/reshape, flatten/ravel, transpose/permute, expand,
squeeze/unsqueeze, movedim, plus clone/contiguous. (The views that take part of a tensor —
select, slice, narrow, diagonal, unfold, as_strided — are in shape_select.py, split/chunk/unbind
in split.py, the in-place view ops and resize_ in shape_inplace.py.)

A view kernel maps the input's geometry ``(shape, stride, storage_offset)`` (in elements) to the
output's; the dispatcher (``_run_view``) makes the tensor that shares storage and version counter.
Every geometry below is computed as ATen computes it (TensorShape.cpp; the shared helpers, such
as the view stride rule, are in _geometry.py), so ``stride()`` and ``storage_offset()`` agree
with torch's, size-0 and size-1 dims included.

The view primitives are declared with no variants and called positionally by small public
functions with torch's signatures (``x.view(2, 3)``, ``x.view((2, 3))``, ``torch.permute(x,
dims)``), which parse the sizes once.

Each primitive's derivative follows it: the re-shaping views apply the inverse view to the
gradient; the views that select part of their input scatter it back (see Note [View backward
as a scatter] in view_backward.py).
"""
from __future__ import annotations

import operator
import sys

from ._arg_parser import type_name as _tp_name
from .. import _dtypes as D
from .._promotion import Promote
from .._utils import (canonical_dim, canonical_dims, contiguous_strides, dims_spelled_out,
                      plain_int, shape_str)
from ..backends import numpy_backend as _npb
from ._geometry import (  # noqa: F401  (geometry as ATen computes it; see _geometry.py)
    _memory_formats, _numel, compute_stride, expand_geometry, infer_dense_strides, infer_size,
    is_non_overlapping_and_dense, memory_format_strides, storage_extent,
)
from ._autograd_utils import arrays_only, from_array, unobserved
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR

_ndarray = _npb.xp.ndarray

_Tensor = None


def _tensor_cls():
    global _Tensor
    if _Tensor is None:
        from .._tensor import Tensor
        _Tensor = Tensor
    return _Tensor


# ---------------------------------------------------------------------------------------------
# Parsing sizes and dims
# ---------------------------------------------------------------------------------------------
def _as_int(v, name: str, arg: str, pos: int):
    if type(v) is int:
        return v
    if isinstance(v, bool) or isinstance(v, float) or not hasattr(v, "__index__"):
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be tuple of ints, but "
                        f"found element of type {type(v).__name__} at pos {pos}")
    return operator.index(v)


def _int_tuple(name: str, arg: str, args) -> tuple:
    """Sizes or dims given as ints or as one sequence (``view(2, 3)`` / ``view((2, 3))``)."""
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "{arg}"')
    if len(args) == 1 and not isinstance(args[0], int) and not hasattr(args[0], "__index__"):
        seq = args[0]
        if not isinstance(seq, (tuple, list)):
            raise TypeError(f"{name}(): argument '{arg}' (position 1) must be tuple of ints, "
                            f"not {type(seq).__name__}")
        args = seq
    for v in args:
        if type(v) is not int:
            return tuple(_as_int(v, name, arg, i) for i, v in enumerate(args))
    return tuple(args)   # plain ints: the common case


def _elem_strides(arr) -> tuple:
    itemsize = arr.itemsize
    return tuple(s // itemsize for s in arr.strides)


def _fresh_strided(xp, shape, strides, dtype):
    """An uninitialised array with exactly these (dense) strides, owning its memory."""
    return _npb.strided(xp.empty(_numel(shape), dtype), shape, strides, 0)


# ---------------------------------------------------------------------------------------------
# view / reshape
# ---------------------------------------------------------------------------------------------
VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


@defop("view", node="ViewBackward0", view=True, variants=())
def _view(geom, size):
    shape, stride, offset = geom
    size = infer_size(size, _numel(shape))
    new_stride = compute_stride(shape, stride, size)
    if new_stride is None:
        raise RuntimeError(VIEW_ERROR)
    return size, new_stride, offset


@_view.numpy_view
def _(a, size):
    # a C-contiguous array without size-1 dims has exactly the contiguous strides, and NumPy
    # views it as any other shape of its size with C strides, as torch's computeStride does.
    # Anything else takes the kernel: an empty tensor, a bad size, the same shape (NumPy keeps
    # the strides) and size-1 dims (their strides may hold anything, which torch carries on)
    if (a.flags.c_contiguous and a.size and 1 not in a.shape and size != a.shape
            and size.count(-1) <= 1 and min(size, default=0) >= -1):
        try:
            return a.reshape(size)
        except ValueError:
            return None
    return None


@_view.backward
def _(ctx, grad):
    return reshape(grad, ctx.self_shape)


_view.jvp(AUTO_LINEAR)


@defop("alias", node="AliasBackward0", view=True, variants=())
def alias(geom):
    return geom


@alias.backward
def _(ctx, grad):
    return grad


alias.jvp(AUTO_LINEAR)


@defop("_unsafe_view", node="UnsafeViewBackward0", promote=Promote.NONE, variants=())
def _unsafe_view(xp, self, size):
    # `self` is usually a fresh contiguous result (matmul's), which NumPy reshapes as torch
    # does. Otherwise (kron's permuted inputs) the strides are computeStride's: NumPy picks its
    # own for size-1 dims, and a layout no view can serve is copied (callers raise view's
    # error before that: see linalg_products._unsafe_view)
    if self.size and not (self.flags.c_contiguous and 1 not in self.shape):
        itemsize = self.itemsize
        stride = compute_stride(self.shape, [s // itemsize for s in self.strides], size)
        if stride is not None:
            return xp.lib.stride_tricks.as_strided(self, size, [s * itemsize for s in stride])
    out = self.reshape(size)
    if out.size == 0:   # NumPy gives empty arrays 0 strides, torch contiguous ones
        out = _npb.strided(out, size, contiguous_strides(size), 0)
    return out


@_unsafe_view.backward
def _(ctx, grad):
    return reshape(grad, ctx.self_shape)


_unsafe_view.jvp(AUTO_LINEAR)


@defop("_reshape_alias", node="ReshapeAliasBackward0", view=True, variants=())
def _reshape_alias(geom, size, stride):
    """``reshape`` of a non-contiguous tensor that a view can serve (strides precomputed)."""
    return tuple(size), tuple(stride), geom[2]


@_reshape_alias.backward
def _(ctx, grad):
    return reshape(grad, ctx.self_shape)


_reshape_alias.jvp(AUTO_LINEAR)


def _view_error_args(args):
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"view() received an invalid combination of arguments - got ({got}), but "
                     "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n")


def view(self, *shape, dtype=None, size=None):
    """A view with another shape (one -1 is inferred), or the same bytes as another dtype."""
    if dtype is not None or (len(shape) == 1 and isinstance(shape[0], D.dtype)):
        return view_dtype(self, dtype if dtype is not None else shape[0])
    if size is not None:
        shape = (size,)
    if not shape:
        raise _view_error_args(shape)
    try:
        shape = _int_tuple("view", "size", shape)
    except TypeError:
        raise _view_error_args(shape) from None
    return _view(self, shape)


def view_dtype(self, dtype):
    """``x.view(dtype)``: reinterpret the storage bytes (torch's rules for size changes).

    As in torch the result shares storage and version counter but is not an autograd view
    (``_base`` is None) and has no ``grad_fn``.
    """
    old = self.dtype
    shape, stride, offset = list(self._data.shape), list(self.stride()), self._offset
    a, b = old.itemsize, dtype.itemsize
    what = f"to view {old._legacy} as {dtype._legacy} (different element sizes)"
    if a != b:
        nd = len(shape)
        if nd == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if a > b:
            ratio = a // b
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            stride = [s * ratio for s in stride[:-1]] + [1]
            shape[-1] *= ratio
            offset *= ratio
        else:
            ratio = b // a
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, "
                                   f"but got {shape[-1]}")
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            for i in range(nd - 1):
                if stride[i] % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, "
                                       f"but got {stride[i]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, "
                                   f"but got {offset}")
            stride = [s // ratio for s in stride[:-1]] + [1]
            shape[-1] //= ratio
            offset //= ratio
    v = self._make_view(self._data.shape, self.stride(), self._offset)
    v._data = _npb.strided(v._storage.buffer, tuple(shape), tuple(stride), offset, dtype.np)
    v._offset = offset
    v._base = None
    return v


def reshape(input, *args, shape=None):
    """Same data in another shape: a view when ``view`` could make one, else a copy."""
    shape = _int_tuple("reshape", "shape", args if shape is None else (shape,))
    size = infer_size(shape, input._data.size)
    if input._data.flags.c_contiguous and input._data.size:
        return _view(input, size)   # a contiguous tensor always has the view
    stride = compute_stride(input._data.shape, input.stride(), size)
    if stride is None:
        return _unsafe_view(clone(input, memory_format=_memory_formats()[0]), size)
    if input.is_contiguous():
        return _view(input, size)
    return _reshape_alias(input, size, stride)   # torch's node differs: ReshapeAliasBackward0


def view_as(self, other):
    return view(self, other._data.shape)


def reshape_as(self, other):
    return reshape(self, other._data.shape)


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    """Merge dims ``start_dim..end_dim`` into one (a view when possible; ``input`` if none)."""
    nd = input._data.ndim
    start = canonical_dim(start_dim, nd)
    end = canonical_dim(end_dim, nd)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if nd == 0:
        return reshape(input, 1)
    if start == end:
        return input
    shape = input._data.shape
    merged = _numel(shape[start:end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1:])


def ravel(input):
    """The elements in row-major order as a 1-d tensor: a view of a contiguous input, a copy
    otherwise (torch's ``contiguous().view(-1)``, so ViewBackward0 over CloneBackward0)."""
    if not isinstance(input, _tensor_cls()):
        raise TypeError("ravel(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")
    return input.contiguous().view(-1)


def _ravel_method(self, *args):
    if args:   # (torch's method is a C function with no parameters)
        raise TypeError(f"TensorBase.ravel() takes no arguments ({len(args)} given)")
    return ravel(self)


def unflatten(input, dim: int, sizes):
    """Split dim ``dim`` into ``sizes`` (one -1 is inferred)."""
    nd = input._data.ndim
    d = canonical_dim(dim, nd)
    sizes = _int_tuple("unflatten", "sizes", (sizes,))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input._data.shape[d]
    try:
        inferred = infer_size(sizes, n)
    except RuntimeError as e:
        if "invalid for input" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {shape_str(sizes)} don't multiply up "
                               f"to the size of dim {d} ({n}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    shape = input._data.shape
    return _view(input, shape[:d] + inferred + shape[d + 1:])


# ---------------------------------------------------------------------------------------------
# transpose / permute / movedim
# ---------------------------------------------------------------------------------------------
@defop("transpose.int", node="TransposeBackward0", view=True, variants=())
def _transpose(geom, dim0, dim1):
    shape, stride, offset = geom
    nd = len(shape)
    d0 = canonical_dim(dim0, nd)
    d1 = canonical_dim(dim1, nd)
    if nd == 0 or d0 == d1:
        return geom
    shape, stride = list(shape), list(stride)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return tuple(shape), tuple(stride), offset


@_transpose.numpy_view
def _(a, dim0, dim1):
    nd = a.ndim
    if type(dim0) is int and type(dim1) is int and -nd <= dim0 < nd and -nd <= dim1 < nd:
        return a.swapaxes(dim0, dim1)
    return None


@_transpose.backward
def _(ctx, grad):
    return _transpose(grad, ctx.dim0, ctx.dim1)


_transpose.jvp(AUTO_LINEAR)


def transpose(input, dim0: int, dim1: int):
    """Swap dims ``dim0`` and ``dim1`` (a view)."""
    return _transpose(input, dim0, dim1)


def swapaxes(input, axis0: int, axis1: int):
    return _transpose(input, axis0, axis1)


def swapdims(input, dim0: int, dim1: int):
    return _transpose(input, dim0, dim1)


_getrefcount = sys.getrefcount


def _t_geom(geom, name="t"):
    shape, stride, offset = geom
    if len(shape) > 2:
        raise RuntimeError(f"{name}() expects a tensor with <= 2 dimensions, but self is "
                           f"{len(shape)}D")
    return tuple(reversed(shape)), tuple(reversed(stride)), offset


@defop("t", node="TBackward0", view=True, variants=())
def _t(geom):
    return _t_geom(geom)


@_t.numpy_view
def _(a):
    return a.T if a.ndim <= 2 else None


@_t.backward
def _(ctx, grad):
    d = grad._data
    if unobserved(ctx, 0) and arrays_only(grad) and grad._base is None \
            and grad._storage is None and _sole_owner(grad, d):
        return from_array(d.T)   # Note [Transposed gradients as arrays]
    return _t(grad)


def _sole_owner(grad, d) -> bool:
    """Whether the engine's gradient `grad` (its array `d`) is the only way to its memory: the
    engine's reference and this frame's reach the tensor, the tensor alone holds its array,
    and that array alone holds the array owning the memory, if it is a view (sys.getrefcount
    counts its own argument, and the frames' names: the counts below). A gradient passed to
    two nodes (AddBackward0's), kept by a hook or saved, has more."""
    if _getrefcount(grad) > 4 or _getrefcount(d) > 4:
        return False
    owner = d.base
    return owner is None or (owner.base is None and _getrefcount(owner) == 3)


_t.jvp(AUTO_LINEAR)


def t(input):
    """Transpose of a matrix; 0-d and 1-d tensors are returned as views of themselves."""
    return _t(input)


@defop("permute", node="PermuteBackward0", view=True, variants=())
def _permute(geom, dims):
    shape, stride, offset = geom
    nd = len(shape)
    if len(dims) != nd:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = [canonical_dim(d, nd) for d in dims]
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return tuple(shape[d] for d in dims), tuple(stride[d] for d in dims), offset


@_permute.numpy_view
def _(a, dims):
    nd = a.ndim
    if type(dims) is tuple and len(dims) == nd and nd > 0:
        for d in dims:
            if type(d) is not int or not -nd <= d < nd:
                return None
        if len({d % nd for d in dims}) == nd:
            return a.transpose(dims)
    return None


@_permute.backward
def _(ctx, grad):
    nd = len(ctx.dims)
    inverse = [0] * nd
    for i, d in enumerate(ctx.dims):
        inverse[canonical_dim(d, nd)] = i
    return _permute(grad, tuple(inverse))


_permute.jvp(AUTO_LINEAR)


def permute(input, *args, dims=None):
    """Reorder the dims (a view): ``x.permute(2, 0, 1)`` or ``torch.permute(x, (2, 0, 1))``."""
    return _permute(input, _int_tuple("permute", "dims", args if dims is None else (dims,)))


def movedim(input, source, destination):
    """Move dims ``source`` to positions ``destination``; the others keep their order."""
    nd = input._data.ndim
    source, destination = plain_int(source), plain_int(destination)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({shape_str(src)} dims) should contain the same number of dims as "
                           f"destination ({shape_str(dst)} dims)")
    nsrc = [canonical_dim(d, nd) for d in src]
    ndst = [canonical_dim(d, nd) for d in dst]
    if len(set(nsrc)) != len(nsrc):
        raise RuntimeError(f"movedim: repeated dim in `source` ({shape_str(src)})")
    if len(set(ndst)) != len(ndst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({shape_str(dst)})")
    if nd == 0:
        return alias(input)
    order = [-1] * nd
    for s, d in zip(nsrc, ndst):
        order[d] = s
    rest_src = iter(d for d in range(nd) if d not in nsrc)
    for i in range(nd):
        if order[i] == -1:
            order[i] = next(rest_src)
    return _permute(input, tuple(order))


moveaxis = movedim


# ---------------------------------------------------------------------------------------------
# expand / squeeze / unsqueeze
# ---------------------------------------------------------------------------------------------
@defop("expand", node="ExpandBackward0", view=True, variants=())
def _expand(geom, size, type_name="torch.Tensor"):
    shape, stride, offset = geom
    out_shape, out_stride = expand_geometry(shape, stride, size, type_name)
    return out_shape, out_stride, offset


@_expand.numpy_view
def _(a, size, type_name="torch.Tensor"):
    # the kernel's geometry, over the array's own memory: an array NumPy can take as a buffer
    # (C-contiguous, not empty) with the expanded strides in bytes. Its strides are the
    # tensor's, size-1 dims included, so the geometry is the kernel's exactly
    if type(size) is not tuple or not a.flags.c_contiguous or not a.size:
        return None
    itemsize = a.itemsize
    shape, stride = expand_geometry(a.shape, tuple([s // itemsize for s in a.strides]), size,
                                    type_name)
    if 0 in shape:
        return None
    return _ndarray(shape, a.dtype, a, 0, tuple([s * itemsize for s in stride]))


@_expand.backward
def _(ctx, grad):
    if not ctx.self_shape:
        return grad.sum()   # as torch's at::sum_to does for a 0-dim target (SumBackward0)
    from ._autograd_utils import sum_to_size
    return sum_to_size(grad, ctx.self_shape)


_expand.jvp(AUTO_LINEAR)


_TYPE_NAMES: dict = {}   # NumPy dtype -> torch's type name (expand passes one on every call)


def _type_name(t) -> str:
    """Tensor::toString(): the legacy type name, CPU<Name>Type for dtypes that have none."""
    name = _TYPE_NAMES.get(t._data.dtype)
    if name is None:
        legacy = t.dtype._legacy
        if legacy in ("Bool", "ComplexFloat", "ComplexDouble", "BFloat16", "UInt16", "UInt32",
                      "UInt64"):
            name = f"CPU{legacy}Type"
        else:
            name = f"torch.{legacy}Tensor"
        _TYPE_NAMES[t._data.dtype] = name
    return name


def expand(self, *sizes, size=None):
    """A view repeating size-1 dims (stride 0) to ``sizes``; -1 keeps a dim's size."""
    size = _int_tuple("expand", "size", sizes if size is None else (size,))
    return _expand(self, size, _type_name(self))


def expand_as(self, other):
    return _expand(self, tuple(other._data.shape), _type_name(self))


def _unsqueeze_to(grad, self_shape, dims=None):
    """Put back the size-1 dims (among `dims`, or all) squeeze removed (torch's unsqueeze_to)."""
    nd = len(self_shape)
    wanted = range(nd) if dims is None else canonical_dims(dims, nd) if nd else ()
    for d in sorted(wanted):
        if self_shape[d] == 1:
            grad = _unsqueeze(grad, d)
    return grad


@defop("squeeze", node="SqueezeBackward0", view=True, variants=())
def _squeeze_all(geom):
    shape, stride, offset = geom
    keep = [i for i, n in enumerate(shape) if n != 1]
    return tuple(shape[i] for i in keep), tuple(stride[i] for i in keep), offset


@_squeeze_all.backward
def _(ctx, grad):
    return _unsqueeze_to(grad, ctx.self_shape)


_squeeze_all.jvp(AUTO_LINEAR)


@defop("squeeze.dim", node="SqueezeBackward1", view=True, variants=())
def _squeeze_dim(geom, dim):
    shape, stride, offset = geom
    d = canonical_dim(dim, len(shape))
    if not shape or shape[d] != 1:
        return geom
    return shape[:d] + shape[d + 1:], stride[:d] + stride[d + 1:], offset


@_squeeze_dim.numpy_view
def _(a, dim):
    # dropping the one size-1 dim of a C-contiguous array: NumPy's C strides are the kept ones
    nd = a.ndim
    if (type(dim) is int and -nd <= dim < nd and a.shape[dim] == 1 and a.flags.c_contiguous
            and a.size and a.shape.count(1) == 1):
        return a.reshape(a.shape[:dim % nd] + a.shape[dim % nd + 1:])
    return None


@_squeeze_dim.backward
def _(ctx, grad):
    return _unsqueeze_to(grad, ctx.self_shape, (ctx.dim,))


_squeeze_dim.jvp(AUTO_LINEAR)


@defop("squeeze.dims", node="SqueezeBackward2", view=True, variants=())
def _squeeze_dims(geom, dim):
    shape, stride, offset = geom
    drop = {d for d in canonical_dims(dim, len(shape)) if shape and shape[d] == 1}
    keep = [i for i in range(len(shape)) if i not in drop]
    return tuple(shape[i] for i in keep), tuple(stride[i] for i in keep), offset


@_squeeze_dims.backward
def _(ctx, grad):
    return _unsqueeze_to(grad, ctx.self_shape, ctx.dim)


_squeeze_dims.jvp(AUTO_LINEAR)


def squeeze(input, dim=None):
    """Drop size-1 dims: all of them, or those among ``dim`` (an int or a tuple)."""
    if dim is None:
        return _squeeze_all(input)
    if isinstance(dim, (tuple, list)):
        return _squeeze_dims(input, tuple(dim))
    return _squeeze_dim(input, dim)


def _squeeze_method(self, *args, **kwargs):
    if len(args) > 1:
        if kwargs:
            raise TypeError(f"squeeze() got {len(args)} dims and keyword arguments")
        return squeeze(self, dims_spelled_out("squeeze", args))
    return squeeze(self, *args, **kwargs)


_squeeze_method.__name__ = _squeeze_method.__qualname__ = "squeeze"


@defop("unsqueeze", node="UnsqueezeBackward0", view=True, variants=())
def _unsqueeze(geom, dim):
    shape, stride, offset = geom
    nd = len(shape)
    d = canonical_dim(dim, nd + 1)
    new_stride = 1 if d >= nd else shape[d] * stride[d]
    return shape[:d] + (1,) + shape[d:], stride[:d] + (new_stride,) + stride[d:], offset


@_unsqueeze.numpy_view
def _(a, dim):
    # a C-contiguous array without size-1 dims has the contiguous strides, and the new dim's
    # stride is then torch's size * stride of the dim it lands before (1 at the end)
    nd = a.ndim
    if type(dim) is int and -nd - 1 <= dim <= nd and a.flags.c_contiguous and a.size \
            and 1 not in a.shape:
        d = dim % (nd + 1)
        return a.reshape(a.shape[:d] + (1,) + a.shape[d:])
    return None


@_unsqueeze.backward
def _(ctx, grad):
    return _squeeze_dim(grad, ctx.dim)


_unsqueeze.jvp(AUTO_LINEAR)


def unsqueeze(input, dim: int):
    """Insert a size-1 dim at ``dim`` (a view)."""
    return _unsqueeze(input, dim)


# ---------------------------------------------------------------------------------------------
# clone / contiguous (resize_ and the in-place view ops: shape_inplace.py)
# ---------------------------------------------------------------------------------------------
def clone_strides(shape, stride, memory_format) -> tuple:
    """The strides torch's clone/empty_like give: same layout for dense inputs when preserving."""
    if memory_format is None or memory_format is _memory_formats()[3]:
        if is_non_overlapping_and_dense(shape, stride):
            return tuple(stride)
        return infer_dense_strides(shape, stride)
    return memory_format_strides(shape, memory_format)


@defop("clone", node="CloneBackward0", promote=Promote.NONE, variants=(), scalars=())
def _clone(xp, self, *, memory_format=None):
    strides = clone_strides(self.shape, _elem_strides(self), memory_format)
    if self.size and strides == contiguous_strides(self.shape):
        return self.copy(order="C")
    out = _fresh_strided(xp, self.shape, strides, self.dtype)
    xp.copyto(out, self)
    return out


@_clone.backward
def _(ctx, grad):
    return grad


_clone.jvp(AUTO_LINEAR)


def clone(input, *, memory_format=None):
    """A copy with its own storage; ``preserve_format`` (default) keeps a dense layout."""
    if memory_format is None:
        return _clone(input)
    return _clone(input, memory_format=memory_format)


def contiguous(self, memory_format=None):
    """``self`` if already contiguous in ``memory_format``, else a copy that is."""
    contiguous_format, _, _, preserve = _memory_formats()
    if memory_format is None:
        memory_format = contiguous_format
    if memory_format is preserve:   # torch's is_contiguous(preserve) is plain contiguity
        if self.is_contiguous():
            return self
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if self.is_contiguous(memory_format=memory_format):
        return self
    return _clone(self, memory_format=memory_format)


# the views that take part of a tensor live in shape_select.py (they use the helpers above)
from .shape_select import (  # noqa: E402,F401
    _as_strided, _as_strided_args, _diagonal, _select, _select_geom, _slice, _slice_geom,
    _unfold, as_strided, as_strided_view, diagonal, narrow, select, unfold,
)


# ---------------------------------------------------------------------------------------------
# the public table
# ---------------------------------------------------------------------------------------------
_BOTH = (reshape, transpose, swapaxes, swapdims, t, permute, squeeze, unsqueeze, flatten,
         ravel, unflatten, narrow, select, diagonal, as_strided, movedim, moveaxis, clone)
_METHOD_ONLY = (view, expand, expand_as, view_as, reshape_as, unfold, contiguous)

for _fn in _BOTH:
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
FUNCTIONS["moveaxis"] = METHODS["moveaxis"] = movedim
for _fn in _METHOD_ONLY:
    METHODS[_fn.__name__] = _fn
METHODS["ravel"] = _ravel_method
METHODS["squeeze"] = _squeeze_method   # (also x.squeeze(0, 1))
METHODS["t"] = _t    # the OpSpec itself: Tensor.t() is on every linear layer's path

# the backward primitives, and the view ops that live in files of their own
from . import view_backward as _vb  # noqa: E402,F401
from . import split as _split_ops  # noqa: E402,F401
from . import shape_inplace as _shape_inplace  # noqa: E402,F401
