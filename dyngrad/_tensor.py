"""Tensor: metadata over a strided view of a Storage, Python operators, and methods that
forward to ops. No math lives here (STYLE.md §1): every computation goes through the dispatcher.

A Tensor is (storage, shape, stride, storage_offset, dtype), exactly like torch's TensorImpl.
``_data`` is the NumPy view of the storage with those strides: the compute handle kernels use.
A tensor fresh from an op owns its array and creates its Storage lazily, the first time
anything needs it (a view, ``untyped_storage()``, an in-place version bump).
"""
from __future__ import annotations

import inspect
import re
import types
import warnings

from . import _dtypes as D
from ._device import CPU
from ._formats import (  # noqa: F401  (torch.memory_format and torch.layout)
    memory_format, layout, contiguous_format, channels_last, channels_last_3d, preserve_format,
    strided, sparse_coo,
)
from ._storage import Storage
from ._utils import Size, canonical_dim, contiguous_strides
from .autograd import grad_mode as _gm
from .autograd import views as _views
from .autograd import backward as _autograd_backward
from .autograd.saved import unpack_unboxed as _unpack_unboxed
from .backends import numpy_backend as _npb
from .backends.sparse_coo import COO as _COO
from . import overrides as _overrides
from .overrides import asks as _asks
_ndarray = _npb.ndarray

_grad_state = _gm._state
_INFERENCE_REQUIRES_GRAD = ("Setting requires_grad=True on inference tensor outside "
                            "InferenceMode is not allowed.")
_new = object.__new__
_new_size = tuple.__new__   # a Size without its check (Size.__new__), for NumPy shapes


def channels_last_strides(shape) -> tuple:
    """NHWC strides for an NCHW shape (NDHWC for 5-d), as torch computes them."""
    if len(shape) == 4:
        n, c, h, w = shape
        c_, w_, h_ = 1, max(c, 1), max(c, 1) * max(w, 1)
        return (h_ * max(h, 1), c_, h_, w_)
    if len(shape) == 5:
        n, c, d, h, w = shape
        c_ = 1
        w_ = max(c, 1)
        h_ = w_ * max(w, 1)
        d_ = h_ * max(h, 1)
        return (d_ * max(d, 1), c_, d_, h_, w_)
    raise RuntimeError("required rank 4 tensor to use channels_last format")


def _strides_match(shape, stride, expected) -> bool:
    """torch's contiguity test: strides agree on every dim of size > 1."""
    for n, s, e in zip(shape, stride, expected):
        if n != 1 and s != e:
            return False
    return True


class Tensor:
    """A multi-dimensional array with autograd support, mirroring ``torch.Tensor``."""

    # Note [Slots and rare attributes]: the five attributes every tensor sets live in slots;
    # the rarely set ones are class-level defaults, overridden in the instance __dict__ when
    # set. Reading them is a plain attribute read (a missing slot would cost an exception).
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "__weakref__", "__dict__")
    _storage = None            # the Storage, made on first use (see the module docstring)
    _offset = 0                # storage offset in elements
    _grad = None               # .grad
    _base = None               # the tensor this one is a view of
    _view_replay = None        # base -> this view, for a view that changed the dtype (view_as_real)
    _output_nr = 0             # which output of grad_fn this tensor is
    _retains_grad = False   # retain_grad(): (the node holding its hook, output_nr) once set
    _backward_hooks = None     # {handle id: hook} for a leaf's Tensor.register_hook
    _post_accumulate_grad_hooks = None
    _is_inference = False
    _accumulator = None        # weak reference to the leaf's AccumulateGrad
    _fw_grad = None            # forward-mode tangent (autograd/forward_ad.py)
    _view_version = None       # a view: the storage version its grad_fn was made at
    _view_creation = 0         # a view: how it was made (autograd/views.py, CreationMeta)
    _rg_inherited = False      # a view requiring grad only because its base does
    _grad_dtype = ...          # a leaf's grad_dtype once set: a dtype, or None for any

    # Tensor() / Tensor(data) / Tensor(*sizes) / Tensor(tensor): torch's legacy constructor, in
    # the default dtype (see Note [Legacy tensor types] in _legacy_types.py).
    def __new__(cls, *args, **kwargs):
        from ._legacy_types import legacy_new
        src = legacy_new(D.get_default_dtype(), args, kwargs, "base")
        if cls is Tensor:
            return src
        t = _new(cls)             # a subclass: the same tensor, as an instance of it
        t._data, t._requires_grad, t._grad_fn = src._data, src._requires_grad, src._grad_fn
        t.__dict__.update(src.__dict__)
        _overrides.note_instance(t)
        return t

    # -- metadata ------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return _new_size(Size, self._data.shape)   # (NumPy's shape: ints, nothing to check)

    def size(self, dim: int | None = None):
        if dim is None:
            return _new_size(Size, self._data.shape)
        return self._data.shape[canonical_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def stride(self, dim: int | None = None):
        itemsize = self._data.itemsize
        strides = tuple(s // itemsize for s in self._data.strides)
        if dim is None:
            return strides
        return strides[canonical_dim(dim, self._data.ndim)]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> D.dtype:
        return D._FROM_NP[self._data.dtype]

    @property
    def device(self):
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_cpu(self) -> bool:
        return True

    @property
    def layout(self):
        return sparse_coo if type(self._data) is _COO else strided

    @property
    def is_sparse(self) -> bool:
        return type(self._data) is _COO

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind in "fV"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def get_device(self) -> int:
        return -1

    def is_contiguous(self, memory_format=contiguous_format) -> bool:
        shape = self._data.shape
        if memory_format is contiguous_format:
            return self._data.size < 2 or _strides_match(shape, self.stride(),
                                                         contiguous_strides(shape))
        if memory_format is channels_last or memory_format is channels_last_3d:
            want = 4 if memory_format is channels_last else 5
            if len(shape) != want:
                return False
            return self._data.size < 2 or _strides_match(shape, self.stride(),
                                                         channels_last_strides(shape))
        raise RuntimeError(f"Unsupported memory format {memory_format}")

    # -- storage -------------------------------------------------------------------------------
    def _storage_obj(self) -> Storage:
        """This tensor's Storage, created on first use (see module docstring)."""
        st = self._storage
        if st is None:
            st = self._storage = Storage.of(self._data, CPU)
        return st

    def untyped_storage(self) -> Storage:
        if type(self._data) is _COO:
            raise NotImplementedError("Cannot access storage of SparseTensorImpl")
        return self._storage_obj()

    def data_ptr(self) -> int:
        if type(self._data) is _COO:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        return _npb.data_ptr(self._data)

    # a node keeps an input nothing has written yet as it is: Note [Saved inputs without a box]
    _unpack_saved = _unpack_unboxed

    @property
    def _version(self) -> int:
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        st = self._storage
        return 0 if st is None else st.version

    def _bump_version(self) -> None:
        self._storage_obj().version += 1

    def _check_writeable(self) -> None:
        """torch refuses in-place writes through a tensor whose elements overlap (expand)."""
        data = self._data
        if 0 in data.strides and data.size > 1:   # (no zero stride: nothing is repeated)
            for n, s in zip(data.shape, data.strides):
                if s == 0 and n > 1:
                    raise RuntimeError(
                        "unsupported operation: more than one element of the written-to tensor "
                        "refers to a single memory location. Please clone() the tensor before "
                        "performing the operation.")

    def _make_view(self, shape, stride, offset: int) -> "Tensor":
        """A tensor sharing this one's storage with the given geometry (in elements)."""
        st = self._storage
        if st is None:
            st = self._storage_obj()
        dtype = self._data.dtype
        if 0 in shape:
            data = _npb.strided(st.buffer, shape, stride, offset, dtype)
        else:   # _npb.strided, inlined: every view op comes here
            itemsize = dtype.itemsize
            data = _ndarray(shape, dtype, st.buffer, offset * itemsize,
                            tuple([s * itemsize for s in stride]))
        return self._view_of_array(data, offset)

    def _view_of_array(self, data, offset: int) -> "Tensor":
        """A view of this tensor (sharing its Storage) whose array is `data`, at `offset`
        elements into the storage. NumPy may have made `data` itself: Note [Views NumPy makes
        directly] in ops/_dispatch.py."""
        st = self._storage
        if st is None:   # (_storage_obj, written out: a gradient's views in every backward)
            st = self._storage = Storage.of(self._data, CPU)
        v = _new(Tensor)            # (a view of a Parameter is a plain Tensor)
        v._data = data
        v._storage = st
        v._offset = offset
        v._requires_grad = False
        v._grad_fn = None
        if self._is_inference:   # torch tracks no views of an inference tensor: its views are
            v._is_inference = True   # inference tensors of their own, with no _base
            return v
        base = self._base
        if base is None:
            base = self
        else:
            creation = self._view_creation
            if creation:
                v._view_creation = creation   # a view of a no-grad view is one too
            replay = self._view_replay
            if replay is not None:   # a view of a view that changed the dtype: replay both
                v._view_replay = _views.chained_replay(replay, self, v)
        v._base = base
        v._view_version = st.version
        if not base._requires_grad:    # only a base that may start requiring grad tells views
            _views.register_view(base, v)
        return v

    # -- grad_fn: Note [Views and in-place: CopySlices] in autograd/views.py ------------------
    @property
    def grad_fn(self):
        """The node that made this tensor (None for leaves). A view's is made anew after an
        in-place change to its base or to any view of it."""
        if self._base is None:
            return self._grad_fn
        return _views.view_grad_fn(self)

    # -- autograd-facing attributes (the engine comes with the autograd core) -----------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if type(value) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if value and self._data.dtype.kind not in "fcV":
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        if value and self._is_inference and not _grad_state.inference:
            raise RuntimeError(_INFERENCE_REQUIRES_GRAD)
        self._requires_grad = bool(value)
        if self._rg_inherited:
            del self._rg_inherited
        if value and "_views" in self.__dict__:
            _views.base_requires_grad(self)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if self.grad_fn is not None and requires_grad:
            return self   # already requires grad: torch allows this on non-leaves
        if requires_grad and self._data.dtype.kind not in "fcV":   # (the setter's words differ)
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    # -- autograd -------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (see autograd.backward)."""
        _autograd_backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """``hook(grad) -> Tensor or None`` runs when the gradient w.r.t. this tensor is
        computed; a returned tensor replaces the gradient. Returns a handle with ``remove()``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_prehook(getattr(self, "_output_nr", 0), hook)
        from .utils.hooks import RemovableHandle
        hooks = getattr(self, "_backward_hooks", None)
        if hooks is None:
            hooks = self._backward_hooks = {}
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after the gradient was accumulated into this leaf's .grad."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        from .utils.hooks import RemovableHandle
        hooks = getattr(self, "_post_accumulate_grad_hooks", None)
        if hooks is None:
            hooks = self._post_accumulate_grad_hooks = {}
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def retain_grad(self) -> None:
        """Populate ``.grad`` of this non-leaf tensor during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or getattr(self, "_retains_grad", False):
            return
        import weakref
        ref = weakref.ref(self)

        def retain(grad):
            t = ref()
            if t is not None:
                retained_grad(t, grad)
        self._retains_grad = _views.hold_retain_hook(self.grad_fn,
                                                      getattr(self, "_output_nr", 0), retain)

    @property
    def retains_grad(self) -> bool:
        return self.grad_fn is not None and bool(self._retains_grad)

    def detach_(self) -> "Tensor":
        """Make this tensor a leaf that does not require grad (in place)."""
        if self._base is not None:   # any view, whether its base requires grad or not
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                               "the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of ``grad_fn`` this tensor is (0 for leaves)."""
        return self._output_nr

    @property
    def grad(self):
        g = getattr(self, "_grad", None)
        if g is None and self.grad_fn is not None and not getattr(self, "_retains_grad", False):
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
                "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)",
                UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the "
                    "gradient and the tensor are the same size")
            want = self._data.dtype if self._grad_dtype is ... else (
                None if self._grad_dtype is None else self._grad_dtype.np)
            if want is not None and value._data.dtype != want:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_ops.creation.TYPEMETA_NAME[value.dtype]}' to a tensor with grad_dtype "
                    f"'{D._FROM_NP[want]._legacy}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
                    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                    "may break downstream systems that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    def is_inference(self) -> bool:
        """True for tensors created in inference mode."""
        return getattr(self, "_is_inference", False)

    @_asks
    def detach(self) -> "Tensor":
        """A new leaf sharing storage and version counter with this tensor."""
        st = self._storage_obj()
        t = _new(Tensor)
        t._data = self._data
        t._storage = st
        t._offset = self._offset
        t._requires_grad = False
        t._grad_fn = None
        if self._is_inference:   # (an alias of an inference tensor is one too, as in torch)
            t._is_inference = True
        return t

    @property
    @_asks
    def data(self) -> "Tensor":
        """An alias of the values with its own version counter (see Note [Version counters])."""
        st = self._storage_obj()
        t = _new(Tensor)
        t._data = self._data
        t._storage = Storage(st.buffer, st.device)
        t._offset = self._offset
        t._requires_grad = False
        t._grad_fn = None
        if self._is_inference:
            t._is_inference = True
        return t

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (its ``_base``)."""
        return self._base is not None

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        kind = value._data.dtype.kind
        if self._requires_grad and kind not in "fcV":
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        # torch resets the leaf's accumulator, whose metadata is the old dtype's (the slot is
        # read directly: a lazy module's placeholder refuses every other read of its array)
        if value._data.dtype != Tensor.__dict__["_data"].__get__(self).dtype:
            self._accumulator = None
        self._data = value._data
        self._storage = value._storage_obj()
        self._offset = value._offset

    # -- conversion to Python and NumPy -----------------------------------------------------
    def numpy(self, *args, force: bool = False):
        if args:   # torch's signature is keyword-only, and so is its error
            raise TypeError(f"numpy() takes 0 positional arguments but {len(args)} was given")
        if self._requires_grad and not force and _grad_state.grad_enabled:   # (as torch)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._data.dtype.kind == "V":   # NumPy has no bfloat16 (ml_dtypes' is not torch's)
            raise TypeError("Got unsupported ScalarType BFloat16")
        if type(self._data) is _COO:
            raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                            "first.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()      # torch's __array__ is numpy(): the requires-grad error included
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy(order="K") if copy else arr

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        if type(self._data) is _COO:
            return self.to_dense().item()
        return self._data.reshape(-1)[0].item()

    def tolist(self):
        if type(self._data) is _COO:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        return self._data.tolist()

    def __float__(self) -> float:
        if self._requires_grad and _grad_state.grad_enabled:   # (torch's warning: grad mode on)
            _warn_once_at_caller(_SCALAR_OF_REQUIRES_GRAD)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(_ops.creation.checked_scalar(self.item(), D.float64))  # torch's errors

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self.item()   # (torch converts through int64: a uint64 above its range overflows)
        return int(_ops.creation.checked_scalar(v, D.int64)
                   if self.is_complex() or self._data.dtype.kind == "u" else v)

    def __complex__(self) -> complex:
        if self._requires_grad and _grad_state.grad_enabled:   # (torch's warning: grad mode on)
            _warn_once_at_caller(_SCALAR_OF_REQUIRES_GRAD)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            what = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(int(self) if self._data.dtype.kind == "u" else self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, *, tensor_contents=None) -> str:
        from ._tensor_str import _str
        return _str(self, tensor_contents=tensor_contents)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    __array_priority__ = 1000  # numpy defers `ndarray op Tensor` to the Tensor's reflected op

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """What a NumPy ufunc applied to tensors returns (``np.exp(t)``, and ``t + ndarray``,
        which the Tensor's operator leaves to NumPy): a tensor over the result, as torch's (a
        bool result as uint8, as torch's)."""
        if array.dtype == bool:
            array = array.astype("uint8")
        return _ops.from_numpy(array)

    # Python operators are installed from _OPERATORS at the end of this file.
    def __getitem__(self, index): return _ops.getitem(self, index)
    def __setitem__(self, index, value): _ops.setitem(self, index, value)
    def __delitem__(self, index): _ops.delitem(self, index)

    # -- small properties that are views -----------------------------------------------------
    # (torch warns once about the dims these are deprecated on, and refuses vectors)
    @property
    def T(self) -> "Tensor":
        nd = self._data.ndim
        if nd != 2:
            _warn_once_at_caller(_T_OF_0D if nd == 0 else _T_NOT_2D)
        return self.permute(tuple(range(nd - 1, -1, -1)))

    @property
    def mT(self) -> "Tensor":
        if self._data.ndim < 2:
            return self._deprecated_on_0d("mT", 4373)
        return self.transpose(-2, -1)

    @property
    def H(self) -> "Tensor":
        nd = self._data.ndim
        if nd != 2:
            if nd == 0:
                return self._deprecated_on_0d("H", 4335)
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                               f"{nd}-D tensor." + (" For batches of matrices, consider using "
                                                    "tensor.mH" if nd > 2 else ""))
        return self.mH   # (torch's H of a matrix is its adjoint: a transpose, not a permute)

    @property
    def mH(self) -> "Tensor":
        if self._data.ndim < 2:
            return self._deprecated_on_0d("mH", 4382)
        return self.mT.conj() if self.is_complex() else self.mT

    def _deprecated_on_0d(self, name, line):
        """``.mT``, ``.H`` and ``.mH`` of a 0-dim tensor: itself (conjugated for H's), with
        torch's warning; a 1-D tensor has no matrix dims."""
        if self._data.ndim == 1:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                               "matrices. Got 1-D tensor.")
        conj = name != "mT"
        _warn_once_at_caller(
            f"Tensor.{name} is deprecated on 0-D tensors. " + (
                "Consider using x.conj()." if conj else
                "This function is the identity in these cases.") + _tensor_shape_cpp(line))
        return self.conj() if conj and self.is_complex() else self

    @property
    def real(self) -> "Tensor":
        return _ops.real(self)

    @real.setter
    def real(self, value) -> None:   # (torch: a copy into the view, a Python number too)
        view = self.real
        view.copy_(_assigned(view, value))

    @property
    def imag(self) -> "Tensor":
        return _ops.imag(self)

    @imag.setter
    def imag(self, value) -> None:
        view = self.imag
        view.copy_(_assigned(view, value))


def _assigned(view: Tensor, value) -> Tensor:
    """The tensor `.real = value` / `.imag = value` copies into the (real) view: a tensor as
    it is, a Python number as a 0-dim tensor (torch's valueToTensor, through a Scalar of the
    view's type: a complex number must have no imaginary part); anything else is torch's
    TypeError."""
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, (int, float, complex)):
        raise TypeError(f"can't assign a {type(value).__name__} to a {view.type()}")
    if isinstance(value, complex):
        if value.imag != 0:   # (NaN too)
            raise RuntimeError("value cannot be converted to type "
                               f"{'float' if view.dtype is D.float32 else 'double'} without "
                               "overflow")
        value = value.real
    return _ops.tensor(value)


# Note [Read-only attributes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's tensor attributes without a setter (``shape``, ``grad_fn``, ``is_leaf``...) are C
# getset descriptors: assigning one raises "attribute 'shape' of 'torch._C.TensorBase' objects
# is not writable". dyngrad's are Python properties, whose own words differ ("property 'shape'
# of 'Tensor' object has no setter"), so once the class is complete each property without a
# setter is given one that raises torch's error. (A setter costs nothing when unused; a
# ``__setattr__`` would tax every attribute the library sets.)

def seal_read_only(tensor_cls) -> None:
    for name, attr in list(vars(tensor_cls).items()):
        if isinstance(attr, property) and attr.fset is None:
            setattr(tensor_cls, name, property(attr.fget, *_not_writable(name), attr.__doc__))


def _not_writable(name: str):
    """A setter and a deleter (``del x.shape``) that raise torch's error for `name`."""
    def refuse(self, value=None) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not "
                             "writable")
    return refuse, refuse


def retained_grad(t: Tensor, grad: Tensor) -> None:
    """What a non-leaf keeps of its gradient (retain_grad, backward(inputs=)): a clone, not a
    detached copy, so that with create_graph it keeps its history (CloneBackward0), as torch's
    retain_grad hook does; later gradients are added to it."""
    old = getattr(t, "_grad", None)
    t._grad = grad.clone(memory_format=contiguous_format) if old is None else old + grad


def _wrap(arr) -> Tensor:
    """A new leaf Tensor owning `arr` (the dispatcher's output path: keep it lean)."""
    t = _new(Tensor)
    t._data = arr
    t._requires_grad = False
    t._grad_fn = None
    return t


def _rebuild(arr, requires_grad):
    """A tensor from a pickle dyngrad made before ``_tensor_protocols.__reduce_ex__``."""
    t = _wrap(arr)
    t._requires_grad = requires_grad
    return t


def install_methods(methods: dict) -> None:
    """Attach registry-declared methods (``Tensor.exp``, ``Tensor.add_`` …) to the class."""
    for name, fn in methods.items():
        if name in Tensor.__dict__:
            continue  # a hand-written definition above wins
        setattr(Tensor, name, _as_method(_arg_parser.public_qualname(fn, name), name))


def _unary_fast_path(spec):
    """``spec(self)`` through the op's fast path, the general path where it does not apply
    (Note [Hot path] in ops/_dispatch.py)."""
    run = _dispatch._run
    return _dispatch.unary_fast_path(spec, lambda self: run(spec, (self,), {}, None, False, True),
                                     method=True)


_POSITION = re.compile(r"(\w+)\(\): argument '(\w+)' \(position (\d+)\)")


_EXTRA_ARGS = re.compile(r"(\w+)\(\) takes (?:from (\d+) to )?(\d+) positional arguments? but "
                         r"(\d+) (?:positional arguments? \(and \d+ keyword-only arguments?\) )?"
                         r"(?:was|were) given$")


def _method_extra_args(err: TypeError, base: str, name, signature) -> TypeError:
    """Too many positional arguments, as counted for the function ``base`` (`self` included),
    recounted for the method (`self` not counted, as torch counts); `err` itself for any other
    error. A method of no parameters at all says so as torch's do: "TensorBase.abs() takes no
    arguments (1 given)", as Python words it for torch's C method called as ``x.abs(1)``
    (``getattr(x, "abs")(1)`` says "Tensor.abs()"). `signature` is the function's (`self`
    first, maybe ``out=``)."""
    text = str(err)
    e = _EXTRA_ARGS.match(text)
    if e is None or e.group(1) != base:
        if name and base != name and text.startswith(base + "()"):
            # (a method made of a function of another name: "_cov_method() got an unexpected
            # keyword argument" is the method's, as torch's C or Python method words it)
            from .ops._signatures import PYTHON_METHODS
            return TypeError(("Tensor." if name in PYTHON_METHODS else "") + name
                             + text[len(base):])
        return err
    most = int(e.group(3)) - 1
    least = most if e.group(2) is None else int(e.group(2)) - 1
    given = int(e.group(4)) - 1
    if most == 0 and signature is not None and all(
            p.name == "out" for p in list(signature.parameters.values())[1:]):
        # (a function's ``out=`` is not the method's)
        return TypeError(f"TensorBase.{name or base}() takes no arguments ({given} given)")
    return _dispatch.extra_args(name or base, least, most, given)


def _takes_keyword(fn, keyword: str) -> bool:
    """Whether `fn` binds `keyword`: a parameter of that name, or ``**kwargs``."""
    sig = _signature(fn)
    return sig is None or any(p.name == keyword or p.kind is p.VAR_KEYWORD
                              for p in sig.parameters.values())


def _signature(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _method_position(err: TypeError, spec, name=None) -> TypeError:
    """The dispatcher counts `self` among an op's arguments ("position 2", "takes 2 positional
    arguments"); torch's message for a method call does not (``x.add('a')``: "argument 'other'
    (position 1)"; ``x.add(x, x)``: "takes 1 positional argument but 2 were given"), and names
    an in-place method as called (``add_()``)."""
    m = _POSITION.match(str(err))
    if m is None or m.group(1) != spec.base:
        return _method_extra_args(err, spec.base, name, spec.signature)
    fixed = f"{name or m.group(1)}(): argument '{m.group(2)}' (position {int(m.group(3)) - 1})"
    return TypeError(fixed + str(err)[m.end():])


METHOD_CODES: set = set()   # the code of the functions installed as methods themselves


def _method_error(e, spec, name, args, kwargs, as_called=None):
    """The error a method call that raised `e` should raise instead, or None to re-raise `e`:
    torch's parser error where the arguments suit none of the method's overloads (Note [Parser
    errors] in ops/_arg_parser.py), else a TypeError recounted for the method (named
    `as_called` where that is not the op's name: ``add_``)."""
    err = _arg_parser.explain(name, args, kwargs, True, e, depth=3)
    if err is not None:
        return err
    if isinstance(e, TypeError):
        err = _method_position(e, spec, as_called)
        return None if err is e else err
    return None


def _as_method(fn, name):
    # (each method runs its op in a try block, free while nothing is raised; on failure,
    # _method_error words the error as torch's parser would)
    if isinstance(fn, _registry.OpSpec):       # one frame less on the hot path
        spec, run = fn, _dispatch._run
        if spec.fast and spec.n_inputs == 1:
            fast = _unary_fast_path(spec)

            def method(self, *args, **kwargs):
                if not args and not kwargs:
                    return fast(self)
                if kwargs and "out" in kwargs:   # (no method of torch's takes out=)
                    raise _arg_parser.method_out_error(name, args, kwargs)
                try:
                    return run(spec, (self,) + args, kwargs, None, False, True)
                except Exception as e:
                    err = _method_error(e, spec, name, args, kwargs)
                    if err is None:
                        raise
                    raise err from None
        elif spec.fast and spec.n_inputs == 2:   # Tensor.mm(m), Tensor.mul(y)...
            fast2 = _dispatch.binary_fast_path(
                spec, lambda a, b: run(spec, (a, b), {}, None, False, True), method=True)

            def method(self, *args, **kwargs):
                if kwargs and "out" in kwargs:   # (no method of torch's takes out=)
                    raise _arg_parser.method_out_error(name, args, kwargs)
                try:
                    if len(args) == 1 and not kwargs:
                        return fast2(self, args[0])
                    return run(spec, (self,) + args, kwargs, None, False, True)
                except Exception as e:
                    err = _method_error(e, spec, name, args, kwargs)
                    if err is None:
                        raise
                    raise err from None
        elif spec.array_view is not None:   # Tensor.t(): the view, two frames from here
            fast_view = _dispatch.fast_view

            def method(self, *args, **kwargs):
                if kwargs and "out" in kwargs:   # (no method of torch's takes out=)
                    raise _arg_parser.method_out_error(name, args, kwargs)
                try:
                    if not kwargs and not _dispatch._fast_off:
                        out = fast_view(spec, self, args)
                        if out is not None:
                            return out
                    return run(spec, (self,) + args, kwargs, None, False, True)
                except Exception as e:
                    err = _method_error(e, spec, name, args, kwargs)
                    if err is None:
                        raise
                    raise err from None
        else:
            def method(self, *args, **kwargs):
                if kwargs and "out" in kwargs:   # (no method of torch's takes out=)
                    raise _arg_parser.method_out_error(name, args, kwargs)
                try:
                    return run(spec, (self,) + args, kwargs, None, False, True)
                except Exception as e:
                    err = _method_error(e, spec, name, args, kwargs)
                    if err is None:
                        raise
                    raise err from None
    elif getattr(fn, "__func__", None) is _registry.OpSpec.call_inplace:   # Tensor.add_ ...
        spec, run = fn.__self__, _dispatch._run

        def method(self, *args, **kwargs):
            if kwargs and "out" in kwargs:   # (no method of torch's takes out=)
                raise _arg_parser.method_out_error(name, args, kwargs)
            try:   # (call_inplace, written out: an optimizer's step makes many such calls)
                return run(spec, (self,) + args, kwargs, self, True)
            except Exception as e:
                err = _method_error(e, spec, name, args, kwargs, name)
                if err is None:
                    raise
                raise err from None
    elif type(fn) is types.FunctionType and fn.__name__ == name \
            and _registry.FUNCTIONS.get(name) is not fn:
        # a method torch has no function of: the Python function binds `self` by itself, no
        # frame in between (nn/parameter.py's _used_in names its calls methods by its code),
        # or one that words failures as torch's parser would (Note [Parser errors])
        METHOD_CODES.add(fn.__code__)
        if _arg_parser.signatures(name, True) or _takes_keyword(fn, "out"):
            fn = _arg_parser.explaining(fn, name, True)   # (which refuses out= too)
            METHOD_CODES.add(fn.__code__)
        return fn
    else:
        def method(self, *args, **kwargs):
            if _overrides._live:   # (Note [__torch_function__] in overrides.py)
                found = _overrides.asking((self,) + args, kwargs)
                if found:
                    return _overrides.dispatch(method, found, (self,) + args, kwargs)
            if kwargs and "out" in kwargs:   # (no method of torch's takes out=)
                raise _arg_parser.method_out_error(name, args, kwargs)
            try:
                return fn(self, *args, **kwargs)
            except Exception as e:
                err = _arg_parser.sparse_failure(name, (self,) + args, kwargs, e) or \
                    _arg_parser.explain(name, args, kwargs, True, e)
                if err is not None:
                    raise err from None
                if isinstance(e, TypeError) and e.__traceback__.tb_next is None:
                    # (from binding fn's own arguments)
                    raise _method_extra_args(e, getattr(fn, "__qualname__", name), name,
                                             _signature(fn)) from None
                raise
    method.__name__ = method.__qualname__ = name
    method.__doc__ = getattr(fn, "__doc__", None)
    return method


from . import ops as _ops  # noqa: E402  (ops need the Tensor class first)
from .ops import _arg_parser, _dispatch, _registry  # noqa: E402
from .ops._selection import tensor_shape_cpp as _tensor_shape_cpp  # noqa: E402
from .ops._selection import warn_once_at_caller as _warn_once_at_caller  # noqa: E402

_T_OF_0D = ("Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
            "cases." + _tensor_shape_cpp(4321))
_T_NOT_2D = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
             "deprecated and it will throw an error in a future release. Consider `x.mT` to "
             "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
             "to reverse the dimensions of a tensor." + _tensor_shape_cpp(4314))
_SCALAR_OF_REQUIRES_GRAD = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at /__w/pytorch/pytorch/torch/"
    "csrc/autograd/generated/python_variable_methods.cpp:822.)")

_registry._bind_tensor_class(Tensor, _wrap)
from . import _tensor_extras  # noqa: E402  (the rarer methods: registered like an op module's)
_tensor_extras.install(Tensor)
from . import _tensor_protocols  # noqa: E402  (in, reversed, as_subclass, grad_dtype...)
_tensor_protocols.install(Tensor)
from . import _tensor_compat  # noqa: E402  (other layouts' and old code's methods)
_tensor_compat.install(Tensor)

# Python operators: (dunder, op in dyngrad.ops, how the operands are passed).
# "reflected" swaps them (``2 - x`` is ``sub(2, x)``); ``__iadd__`` names the in-place ``add_``.
_OPERATORS = [
    ("__add__", "add", "binary"),
    ("__radd__", "add", "binary"),   # commutative: torch calls self.add(other)
    ("__iadd__", "add_", "binary"),
    ("__sub__", "sub", "binary"),
    ("__rsub__", "rsub", "binary"),           # 2 - x is rsub(x, 2): RsubBackward1
    ("__isub__", "sub_", "binary"),
    ("__mul__", "mul", "binary"),
    ("__rmul__", "mul", "binary"),   # commutative: torch calls self.mul(other)
    ("__imul__", "mul_", "binary"),
    ("__truediv__", "div", "binary"),
    ("__rtruediv__", "__rdiv__", "binary"),   # 2 / x is reciprocal(x) * 2, as torch
    ("__itruediv__", "div_", "binary"),
    ("__div__", "div", "binary"),      # (Python 2's names, which torch keeps)
    ("__idiv__", "div_", "binary"),
    ("__floordiv__", "floor_divide", "binary"),
    ("__rfloordiv__", "floor_divide", "reflected"),
    ("__ifloordiv__", "floor_divide_", "binary"),
    ("__mod__", "remainder", "binary"),
    ("__rmod__", "remainder", "reflected"),
    ("__imod__", "remainder_", "binary"),
    ("__pow__", "pow", "binary"),
    ("__rpow__", "pow", "reflected"),
    ("__ipow__", "pow_", "binary"),
    ("__matmul__", "matmul", "binary"),
    ("__rmatmul__", "matmul", "reflected"),
    ("__and__", "bitwise_and", "binary"),
    ("__rand__", "bitwise_and", "binary"),   # commutative: torch calls self.bitwise_and(other)
    ("__iand__", "bitwise_and_", "binary"),
    ("__or__", "bitwise_or", "binary"),
    ("__ror__", "bitwise_or", "binary"),   # commutative: torch calls self.bitwise_or(other)
    ("__ior__", "bitwise_or_", "binary"),
    ("__xor__", "bitwise_xor", "binary"),
    ("__rxor__", "bitwise_xor", "binary"),   # commutative: torch calls self.bitwise_xor(other)
    ("__ixor__", "bitwise_xor_", "binary"),
    ("__lshift__", "bitwise_left_shift", "binary"),
    ("__rlshift__", "bitwise_left_shift", "reflected"),
    ("__ilshift__", "bitwise_left_shift_", "binary"),
    ("__rshift__", "bitwise_right_shift", "binary"),
    ("__rrshift__", "bitwise_right_shift", "reflected"),
    ("__irshift__", "bitwise_right_shift_", "binary"),
    ("__neg__", "neg", "unary"),
    ("__pos__", "positive", "unary"),
    ("__abs__", "abs", "unary"),
    ("__invert__", "bitwise_not", "invert"),   # unary, refusing floating dtypes first
    ("__eq__", "eq", "binary"),
    ("__ne__", "ne", "binary"),
    ("__lt__", "lt", "binary"),
    ("__le__", "le", "binary"),
    ("__gt__", "gt", "binary"),
    ("__ge__", "ge", "binary"),
]


def _operand_ok(other) -> bool:
    """Operands torch's Python operators accept; for others Python tries the other side."""
    return isinstance(other, (Tensor, bool, int, float, complex)) or (
        type(other).__module__ == "numpy" and type(other).__name__ != "ndarray")
    # (an ndarray operand is left to NumPy, whose ufunc makes a tensor: __array_wrap__)


def _not_implemented_if_refused(e: TypeError):
    """An operator whose operands' ``__torch_function__`` all refused gives NotImplemented, so
    that Python tries the reflected one and then raises its own TypeError, as torch's
    operators do (Note [__torch_function__] in overrides.py); any other error is raised."""
    if getattr(e, "torch_function_asked", False):
        return NotImplemented
    raise e


def _operator(op_name: str, kind: str):
    """One Python operator; a registry primitive gets the dispatcher's fast path directly.

    An operand torch does not take (a string, None…) gives NotImplemented, so Python raises
    its usual "unsupported operand type(s)" TypeError, as it does with torch.
    """
    fn = getattr(_ops, op_name, None)
    if isinstance(fn, _registry.OpSpec):
        spec, run = fn, _dispatch._run
        # the dunder is the op's fast path itself, which calls the general one where it does
        # not apply (see Note [Hot path] in ops/_dispatch.py)
        if kind == "unary":
            return _unary_fast_path(spec)
        if kind == "invert":   # (torch's operator has a message of its own for these)
            unary = _unary_fast_path(spec)

            def invert(self):
                if self._data.dtype.kind in "fcV":
                    raise TypeError("~ (operator.invert) is only implemented on integer and "
                                    "Boolean-type tensors")
                return unary(self)
            return invert
        if kind == "reflected":
            def dunder(self, other):
                if not _operand_ok(other):
                    return NotImplemented
                try:
                    return run(spec, (other, self), {})
                except TypeError as e:
                    return _not_implemented_if_refused(e)
            return dunder

        def general(self, other):
            if not _operand_ok(other):
                if op_name == "eq" and type(other) is _npb.xp.ndarray:
                    # (torch's == alone takes an ndarray as a tensor, even from the left)
                    return run(spec, (self, _ops.from_numpy(other)), {}, None, False, True)
                return NotImplemented
            try:
                return run(spec, (self, other), {}, None, False, True)
            except TypeError as e:
                return _not_implemented_if_refused(e)
        return _dispatch.binary_fast_path(spec, general, method=True)
    if kind == "unary":
        return lambda self: getattr(_ops, op_name)(self)
    if kind == "reflected":
        return lambda self, other: getattr(_ops, op_name)(other, self) \
            if _operand_ok(other) else NotImplemented
    return lambda self, other: getattr(_ops, op_name)(self, other) \
        if _operand_ok(other) else NotImplemented


def install_operators() -> None:
    """Attach the Python operators; called once all op modules are imported."""
    for dunder_name, op_name, kind in _OPERATORS:
        fn = _operator(op_name, kind)
        fn.__name__ = fn.__qualname__ = dunder_name
        setattr(Tensor, dunder_name, fn)
