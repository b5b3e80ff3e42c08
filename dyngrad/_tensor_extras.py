"""torch.Tensor's rarer utility methods: the legacy ``new``/``resize``, storages, ``set_``,
``apply_``/``map_``/``map2_``, ``dim_order``, ``as_strided_scatter``, ``nonzero_static``, the
conjugate family (``conj``, ``conj_physical``, ``is_conj``...) and the layout flags.

_tensor.py imports this module once the ops exist; its functions enter the registry's
``FUNCTIONS``/``METHODS`` like any op module's, and ``install`` adds the properties.

Note [No conjugate bit]
~~~~~~~~~~~~~~~~~~~~~~~
torch's ``conj()`` of a complex tensor is a lazy view (the conj bit): no copy, and writes through
it reach the input, conjugated. NumPy has no such views, so dyngrad's ``conj`` copies the
conjugated values (node ``ConjBackward0``, as torch's): writes through the result do not reach
the input. No tensor carries the conj or neg bit, so ``is_conj``/``is_neg`` are False and
``resolve_conj``/``resolve_neg`` return their input, as torch does for tensors without the bits.
"""
from __future__ import annotations

import operator
from functools import reduce

from . import _dtypes as D
from . import _shared_memory
from ._promotion import Promote
from ._storage import Storage, TypedStorage, warn_typed_storage_removal
from ._utils import contiguous_strides
from .autograd import forward_ad as _fwad
from .autograd.forward_ad import AUTO_LINEAR
from .autograd.function import Function
from .backends import numpy_backend as _npb
from .ops import _dispatch, _registry
from .ops._arg_parser import check_tensors
from .ops._record import _record
from .ops._registry import FUNCTIONS, METHODS, defop
from .autograd import grad_mode as _gm
from .ops._selection import warn_at_caller

# c10's names of the scalar types, which torch's messages print ("long int")
_C10_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
              "uint16": "short unsigned int", "uint32": "unsigned int",
              "uint64": "long unsigned int"}


# -- legacy constructor (in _legacy_types.py) and resizes ---------------------------------
def new(self, *args, **kwargs):
    """``Tensor.new``: torch's legacy constructor, in ``self``'s dtype. ``new()`` is empty,
    ``new(2, 3)`` or ``new(Size)`` uninitialised, ``new(sequence)`` the data (cast),
    ``new(tensor)`` an alias of that tensor (its dtype must be ``self``'s)."""
    from ._legacy_types import legacy_new
    return legacy_new(self.dtype, args, kwargs, "new")


def resize_as_(self, the_template, memory_format=None):
    """``self.resize_(the_template.size())`` (see Tensor.resize_)."""
    from ._tensor import Tensor
    if not isinstance(the_template, Tensor):
        raise TypeError("resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    return self.resize_(tuple(the_template.shape), memory_format=memory_format)


class Resize(Function):
    """torch's deprecated out-of-place ``resize``: a reshape that keeps the element count
    (node ``ResizeBackward``, a Python autograd Function in torch too)."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        numel = reduce(operator.mul, sizes, 1)
        if tensor.numel() != numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), "
                f"but the given tensor has a size of {'x'.join(map(str, tensor.size()))} "
                f"({tensor.numel()} elements). autograd's resize can only change the shape of "
                "a given tensor, while preserving the number of elements. ")
        ctx.input_sizes = tensor.size()
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None


def resize(self, *sizes):
    warn_at_caller("non-inplace resize is deprecated")
    return Resize.apply(self, sizes)


def resize_as(self, tensor):
    warn_at_caller("non-inplace resize_as is deprecated")
    return Resize.apply(self, tensor.size())


# -- storages and memory ---------------------------------------------------------------------
def _typed_storage(self) -> TypedStorage:
    return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype, _internal=True)


def storage(self) -> TypedStorage:
    """The TypedStorage over this tensor's memory (torch's deprecation warning, once)."""
    warn_typed_storage_removal()
    return _typed_storage(self)


def is_shared(self) -> bool:
    return self.untyped_storage().is_shared()


def share_memory_(self):
    """Move the storage's bytes into memory shared between processes, with this tensor and
    the views of it that can be found (Note [Shared memory] in _shared_memory.py)."""
    _shared_memory.share_tensor(self)
    return self


def is_pinned(self, device=None) -> bool:
    """False: dyngrad has no pinned memory. A device given is torch's deprecated argument; an
    index names an accelerator, which a CPU-only build has not."""
    if device is not None:
        from ._device import device as device_type
        from .ops._arg_parser import _is_long
        if _is_long(device):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(device, (str, device_type)):
            raise TypeError("is_pinned(): argument 'device' must be torch.device, not "
                            f"{type(device).__name__}")
        warn_at_caller("The argument 'device' of Tensor.is_pinned() is deprecated. Please do "
                       "not pass this argument. (Triggered internally at "
                       "/__w/pytorch/pytorch/aten/src/ATen/native/Memory.cpp:31.)",
                       DeprecationWarning)
    return False


def pin_memory(self, device=None):
    raise RuntimeError("Cannot access accelerator device when none is available.")


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Make ``self`` look at ``source``'s memory: a tensor's (its geometry, unless given) or a
    storage's (``size`` defaults to all of it). ``set_()`` makes ``self`` empty.

    As torch, ``self`` keeps its own version counter (bumped): it gets a new Storage object over
    the same buffer (Note [Version counters]), so ``untyped_storage()`` is not the source's
    object, though ``data_ptr`` and the memory are shared.

    Differences from torch: where self keeps its strides (a size it has already) and they
    reach past the storage's end, torch lets self read beyond it; dyngrad raises the bounds
    check's RuntimeError, since a NumPy view cannot reach past its buffer.
    """
    from ._tensor import Tensor
    from .backends import numpy_backend as npb
    from .ops import shape_select
    if (storage_offset is None) != (size is None) or stride is not None and size is None \
            or storage_offset is not None and type(storage_offset) is not int:
        # (torch's overloads take an offset and a size together, or neither: the method's
        # wrapper words this as its parser, from the arguments given)
        raise TypeError("set_(): no overload takes these arguments")
    _dispatch.check_inference_inplace(self)
    if self._requires_grad and self.grad_fn is None and _gm.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if _fwad._state.active and any(isinstance(t, Tensor) and t._fw_grad is not None
                                   for t in (self, source)):
        raise _fwad.not_implemented_error("set_", explicit=True)   # torch has no formula
    if isinstance(source, TypedStorage):
        source = source.untyped()
    version = (0 if self._storage is None else self._storage.version) + 1   # (inference too)
    if source is None:
        st, shape, strides, offset = Storage(npb.xp.empty(0, self._data.dtype), self.device), \
            (0,), (1,), 0
    elif isinstance(source, Tensor):
        if source.dtype != self.dtype:
            raise RuntimeError(f"Could not set tensor of type {_C10_NAMES[source.dtype.name]} "
                               f"to a tensor of type {_C10_NAMES[self.dtype.name]}")
        src = source._storage_obj()
        st = Storage(src.buffer, src.device)
        if size is None:
            shape, strides, offset = source.shape, source.stride(), source._offset
        else:
            shape, offset = tuple(size), storage_offset
    elif isinstance(source, Storage):
        st = Storage(source.buffer, source.device)
        itemsize = self._data.itemsize
        shape = (source.nbytes() // itemsize,) if size is None else tuple(size)
        offset = storage_offset or 0
    else:
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                        f"{type(source).__name__}")
    if size is not None or isinstance(source, Storage):
        if stride is not None:
            strides = tuple(stride)
        elif tuple(shape) == self._data.shape:
            # (torch resizes self to the new size, which keeps its strides where the size is
            # the one it has: x.t().set_(y, 0, (3, 2)) keeps strides (1, 3))
            strides = self.stride()
        else:
            strides = tuple(contiguous_strides(shape))
    st.version = version
    probe = object.__new__(Tensor)
    probe._data, probe._storage, probe._offset = self._data, st, offset
    shape_select._as_strided_args(probe, shape, strides, offset)   # torch's bounds check
    before = self.detach()   # what the node links to: self's history before the call
    before._requires_grad, before._grad_fn = self._requires_grad, self.grad_fn
    before._output_nr = self._output_nr
    self._data = npb.strided(st.buffer, tuple(shape), tuple(strides), offset, self._data.dtype)
    self._storage, self._offset = st, offset
    for name in ("_base", "_view_replay", "_view_version", "_view_creation", "_rg_inherited"):
        self.__dict__.pop(name, None)   # no longer a view of anything
    inputs = (before, source if isinstance(source, Tensor) else None)
    if _gm.is_grad_enabled() and any(t is not None and t._requires_grad for t in inputs):
        _record(_set_source, inputs, (), {}, (self,))
    return self


# set_ records torch's NotImplemented node, linked to self's history and to the source tensor;
# it is kept out of OPS (no OpInfo can call set_ without changing its sample), and
# tests/test_tensor_extras.py checks it against torch.
@defop("set_.source_Tensor", node="NotImplemented", inputs=("self", "source"), variants=())
def _set_source(xp, self, source):
    raise AssertionError("set_ runs in Tensor.set_; the spec only names its node")


_set_source.link_requiring_only = False   # torch links both inputs, requiring grad or not
del _registry.OPS[_set_source.name]


@_set_source.backward
def _(ctx, grad):
    raise RuntimeError("derivative for set_ is not implemented")


def is_set_to(self, tensor) -> bool:
    """Whether both tensors look at the same memory with the same geometry (never when empty)."""
    a, b = self._data, tensor._data
    return (self.numel() > 0 and a.dtype == b.dtype and a.shape == b.shape
            and a.strides == b.strides and self.data_ptr() == tensor.data_ptr()
            and self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr())


# -- Python callables over the elements (CPU-only legacy methods) ----------------------------
def _no_grad_check(name, *tensors) -> None:
    if any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")


def _same_type(name, self, other, arg) -> None:
    if other.dtype != self.dtype:
        raise TypeError(f"{name}: expected torch.{self.dtype._legacy}Tensor for '{arg}' (got "
                        f"torch.{other.dtype._legacy}Tensor)")


def _python_value(dtype, v):
    """A callable's result as torch stores it: through the dtype's Python type."""
    kind = dtype.np.kind
    if kind == "b":
        return bool(v)
    if kind in "iu":
        return int(v)
    if kind in "fV":
        return float(v)
    return complex(v)


def _apply_elementwise(name, self, others, fn):
    """``self[i] = fn(self[i], *others[i])`` in place, ``others`` broadcast to ``self``.
    Like torch's, these writes do not bump the version counter."""
    _no_grad_check(name, self, *others)
    if not callable(fn):
        raise TypeError(f"'{type(fn).__name__}' object is not callable")
    for o, arg in zip(others, ("other", "other") if len(others) == 1 else ("x", "y")):
        _same_type(name, self, o, arg)
    arrays = [o.expand(self.shape)._data for o in others]
    data = self._data
    for index in _ndindex(data.shape):
        data[index] = _python_value(self.dtype, fn(data[index].item(),
                                                    *(a[index].item() for a in arrays)))
    return self


def _ndindex(shape):
    from .backends import numpy_backend as npb
    return npb.xp.ndindex(*shape)


def apply_(self, callable):
    """Replaces each element by ``callable(element)`` (CPU only, slow, in place)."""
    return _apply_elementwise("apply_", self, (), callable)


def map_(self, tensor, callable):
    """``self[i] = callable(self[i], tensor[i])`` with ``tensor`` broadcast (in place)."""
    return _apply_elementwise("map_", self, (tensor,), callable)


def map2_(self, x, y, callable):
    """``self[i] = callable(self[i], x[i], y[i])`` with ``x``, ``y`` broadcast (in place)."""
    return _apply_elementwise("map2_", self, (x, y), callable)


# -- layout ----------------------------------------------------------------------------------
def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (torch's elementwise-output permutation).
    ``ambiguity_check=True`` raises when several orders fit (a size-1 dim, equal strides); a
    list of memory formats accepts a tensor that is contiguous in exactly one of them."""
    from ._tensor import memory_format
    if not isinstance(ambiguity_check, bool) and (
            not isinstance(ambiguity_check, list)
            or not all(isinstance(m, memory_format) for m in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    sizes, strides = self.shape, self.stride()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    ambiguous = any(a == b for a, b in zip(strides, strides[1:])) or 1 in sizes
    if check and ambiguous and sum(self.is_contiguous(memory_format=m) for m in formats) != 1:
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    perm, unsure = _logical_to_physical(self, bool(ambiguity_check))
    if unsure:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)


def _logical_to_physical(t, check):
    """torch's elementwise output permutation for one tensor, outermost dim first; with
    ``check``, also whether some neighbouring dims are not strictly ordered by stride."""
    from ._layout import dims_fastest_first
    from ._tensor import channels_last, contiguous_format
    ndim, stride = t.dim(), t.stride()
    if ndim < 2:
        return list(range(ndim)), False
    contiguous = t.is_contiguous(memory_format=contiguous_format)
    last = t.is_contiguous(memory_format=channels_last)
    if contiguous and not last:
        return list(range(ndim)), False
    if last and not contiguous:
        return [0, *range(2, ndim), 1], False
    perm = dims_fastest_first(t.shape, [stride])
    unsure = check and not all(0 < stride[a] < stride[b] for a, b in zip(perm, perm[1:]))
    return perm[::-1], unsure


# -- as_strided_scatter ---------------------------------------------------------------------
# Note [as_strided_scatter's storage]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch copies ``self``'s whole storage keeping self's strides and offset (densely, when
# self's elements overlap), writes ``src`` at ``as_strided(size, stride, storage_offset)`` of
# that copy, and returns the copy viewed as ``self``. Only the elements ``self`` shows reach the
# result, so the kernel needs just the geometry: a buffer of the storage's length holding
# self's values, src written into it, the result read at self's geometry. The backward is in
# the same terms (a gradient laid out over such a storage, then read at either geometry), with
# dyngrad ops. Difference from torch: the result's storage_offset() is 0.
def _scatter_geometry(input):
    """(storage length, strides, offset) of the copy torch makes of ``input``'s storage."""
    strides = input.stride()
    if any(s == 0 and n > 1 for n, s in zip(input.shape, strides)):
        return input.numel(), tuple(contiguous_strides(input.shape)), 0
    return input.untyped_storage().nbytes() // input.element_size(), strides, input._offset


@defop("as_strided_scatter", node="AsStridedScatterBackward0", promote=Promote.NONE,
       inputs=("self", "src"), variants=(), scalars=())
def _as_strided_scatter(xp, self, src, size, stride, storage_offset=None, geometry=None):
    length, strides, offset = geometry
    at = offset if storage_offset is None else storage_offset
    buffer = xp.zeros(length, self.dtype)
    _npb.strided(buffer, self.shape, strides, offset)[...] = self
    view = _npb.strided(buffer, size, stride, at)
    if tuple(src.shape) != tuple(size):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    view[...] = src.astype(self.dtype, copy=False)
    return _npb.strided(buffer, self.shape, strides, offset)


@_as_strided_scatter.backward
def _(ctx, grad):
    length, strides, offset = ctx.geometry
    at = offset if ctx.storage_offset is None else ctx.storage_offset
    flat = length, (1,), 0
    laid = _as_strided_scatter(grad.new_zeros(length), grad, ctx.self_shape, strides, offset,
                               geometry=flat)   # the gradient over the storage copy
    need_self, need_src = ctx.needs_input_grad
    g_self = g_src = None
    if need_self:
        g_self = _as_strided_scatter(laid, grad.new_zeros(ctx.src_shape), ctx.size, ctx.stride,
                                     at, geometry=flat).as_strided(ctx.self_shape, strides,
                                                                   offset)
    if need_src:
        g_src = laid.as_strided(ctx.size, ctx.stride, at)
    return g_self, g_src


_as_strided_scatter.jvp(AUTO_LINEAR)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written at ``input.as_strided(size, stride,
    storage_offset)``: Note [as_strided_scatter's storage]."""
    from .ops import shape_select
    geometry = _scatter_geometry(input)
    dense = geometry[1] != input.stride() or input.numel() == 0
    # torch's bounds check, against the storage of the copy (Note [as_strided_scatter's ...])
    size, stride, _ = shape_select._as_strided_args(input.contiguous() if dense else input,
                                                    size, stride, storage_offset)
    return _as_strided_scatter(input, src, size, stride, storage_offset, geometry=geometry)


# -- nonzero_static -------------------------------------------------------------------------
def nonzero_static(input, *, size, fill_value=-1, out=None):
    """``nonzero`` with a fixed number of rows: the first ``size`` index rows, padded with
    ``fill_value`` rows when there are fewer (row-major, whatever ``nonzero``'s layout)."""
    from .ops import creation
    from .ops._selection import write_out
    for name, value in (("size", size), ("fill_value", fill_value)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"nonzero_static(): argument '{name}' must be int, not "
                            f"{type(value).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    if out is not None and out.dtype is not D.int64:
        raise RuntimeError("nonzero_static: Expected out tensor to have scalar type Long but got "
                           f"scalar type{out.dtype._legacy}")
    xp = _npb.xp
    found = FUNCTIONS["nonzero"](input.detach())._data
    result = xp.full((size, input.dim()), fill_value, xp.int64)
    n = min(size, found.shape[0])
    result[:n] = found[:n]
    if out is None:
        return creation.finish(result)
    write_out(out, creation.finish(result))
    return out


# -- conjugation: Note [No conjugate bit] ----------------------------------------------------
@defop("conj", node="ConjBackward0", promote=Promote.NONE, variants=(), scalars=())
def _conj(xp, self):
    # torch's result is a view: it has the input's strides (even zero ones), so conjugate the
    # memory the input spans and lay the result out over it as the input is
    itemsize = self.itemsize
    span = xp.conj(_npb.flat_buffer(self))
    return _npb.strided(span, self.shape, [s // itemsize for s in self.strides], 0)


@_conj.backward
def _(ctx, grad):
    return conj(grad)


_conj.jvp(AUTO_LINEAR)


def _conj_physical_kernel(xp, self):
    return xp.conj(self) if self.dtype.kind == "c" else self.copy()


def _conj_physical_backward(ctx, grad):
    return conj_physical(grad)


# torch names the in-place form's node apart (ConjPhysicalBackward1)
_conj_physical, _conj_physical_inplace = (
    defop(name, node=node, promote=Promote.NONE, variants=(), scalars=(), pointwise=True)(
        _conj_physical_kernel)
    for name, node in (("conj_physical", "ConjPhysicalBackward0"),
                       ("conj_physical_", "ConjPhysicalBackward1")))
for _spec in (_conj_physical, _conj_physical_inplace):
    _spec.backward(_conj_physical_backward)
    _spec.jvp(AUTO_LINEAR)


def conj(input):
    """The complex conjugate; a real tensor is returned itself. See Note [No conjugate bit]:
    torch gives a lazy view of a complex tensor, dyngrad a conjugated copy."""
    return _conj(input) if input.is_complex() else input


def conj_physical(input, *, out=None):
    """The complex conjugate, computed (node ConjPhysicalBackward0); a real tensor is returned
    itself (copied into ``out=`` when given)."""
    if not input.is_complex() and out is None:
        return input
    return _conj_physical(input, out=out)


def conj_physical_(self):
    """In place. A real tensor is left as is, but as torch's it still counts as written: its
    version goes up and, when it requires grad, it gets a ConjPhysicalBackward1 node (without
    grad, torch does not check it for overlapping elements: an expanded tensor is accepted)."""
    if self.is_complex() or self.requires_grad:
        return _conj_physical_inplace.call_inplace(self)
    self._bump_version()
    return self


def _conj_physical_function(*args, **kwargs):
    """``torch.conj_physical_(input)``: ``input.conj_physical_()`` (torch's argument checks)."""
    from .ops._schema_args import parse
    (input,) = parse("conj_physical_", (("input", "Tensor"),), args, kwargs)
    return conj_physical_(input)


# (no conjugate or negative bits: these look at nothing but the argument's type, as torch's
# parser does)
def is_conj(input) -> bool:
    check_tensors("is_conj", ("input", input))
    return False


def is_neg(input) -> bool:
    check_tensors("is_neg", ("input", input))
    return False


def resolve_conj(input):
    check_tensors("resolve_conj", ("input", input))
    return input


def resolve_neg(input):
    check_tensors("resolve_neg", ("input", input))
    return input


for _fn in (conj, conj_physical, is_conj, is_neg, resolve_conj, resolve_neg, nonzero_static,
            as_strided_scatter):
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
for _fn in (new, resize_as_, resize, resize_as, storage, _typed_storage, is_shared,
            share_memory_, is_pinned, pin_memory, set_, is_set_to, apply_, map_, map2_,
            dim_order, conj_physical_):
    METHODS[_fn.__name__] = _fn

FUNCTIONS["conj_physical_"] = _conj_physical_function

_FALSE_FLAGS = ("is_meta", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_xpu",
                "is_nested", "is_mps", "is_vulkan", "is_xla", "is_ipu", "is_maia", "is_mtia")


def install(tensor_cls) -> None:
    """The properties: the layout and device flags dyngrad tensors never set, and ``name``."""
    false = property(lambda self: False)
    for flag in _FALSE_FLAGS:
        setattr(tensor_cls, flag, false)
    tensor_cls.name = property(lambda self: None)
