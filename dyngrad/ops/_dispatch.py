"""The dispatcher: ``OpSpec.__call__`` → ``_run``, the one place that promotes dtypes, runs
an op's kernel on backend arrays, wraps its outputs as Tensors and records its node
(ops/_registry.py declares the ops; autograd/engine.py runs the nodes).

Note [Hot path]
~~~~~~~~~~~~~~~
``x + y`` on tiny tensors is dominated by Python overhead, so the common case is kept short:
``unary_fast_path`` / ``binary_fast_path`` serve positional calls whose Tensors share one dtype
(or a Tensor and a Python float/int) with one dict lookup for the promotion. Each makes a
closure per op and caller, which gets the general path as its fallback: the Python operators
and the methods of unary ops *are* such closures (``Tensor.__add__`` falls back to the general
path, ``OpSpec.fast_path``, which ``_run`` calls, to None), so ``x + y`` runs one Python frame
around NumPy's add. Python frames and thread-local reads are what this path costs: the inference
flag is not read here at all (Note [Open inference blocks] in autograd/grad_mode.py).

Note [Recording in the binary fast path]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
On tiny tensors, recording a node costs more than the rest of the op (about 1.4 us against
0.85), so the binary fast path records the node in its own frame: ``_record``'s steps with the
loops over the inputs unrolled for two, for the ops whose declarations add nothing else (no
output saved, no input left out of the graph); saved inputs are kept without a box (Note [Saved
inputs without a box] in autograd/saved.py). Unrolling made the 200-op chain's forward 13%
faster (2.57 -> 2.22 us per op); writing it in the closure rather than in a function of its own
took another 12% (1.50 -> 1.32 us per op), and writing out the two commonest save plans (both
inputs; each input when the other requires grad, mul's) for inputs never written another 9%
(each measured side by side with the code before it; every other case of saving goes through
``saved_inputs``, as ``_record``'s). The closure keeps its local variables few: a Python frame
sets and clears every local on each call, grad or not, and twenty more of them made the no-grad
call 3% slower. The unary fast path writes out ``_record_one``'s steps the same way for its
commonest nodes (saving nothing, the input, or the result): ``x.exp()``, ``relu``, ``sin`` or
``-x`` with grad 10% faster than through the call. Other calls with one input and one output
(views, one-input general ops) record through ``_record_one``: ``_record`` without its loops,
7-15% faster than it.

An op that checks its own dtypes (``Promote.NONE``) joins them only when declared ``fast=True``
(``mm``, which every linear layer's backward calls; ``addmm``, every linear layer's forward,
through ``ternary_fast_path``). In-place pointwise ops with nothing to
record (an optimizer's step) have ``fast_inplace``: an Adam step takes half the time it took
through ``_run_general``. Everything else (keywords, mixed dtypes, lists, ``out=``) takes
``_run_general``, written for clarity rather than speed. The bench (``make bench``) measures
this path against torch.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_error, broadcast_shapes, contiguous_strides, scalar_value, \
    shape_str
from ..autograd import grad_mode as _gm
from ..autograd.saved import SavedTensor
from ..autograd import views as _views
from ..autograd import forward_ad as _fwad
from ..autograd.anomaly_mode import _state as _anomaly
from ..autograd import anomaly_mode as _anomaly_mode
from .._layout import _dense, elementwise_strides
from ..backends import numpy_backend as _npb
from ..backends import sparse_coo as _sparse_coo
from . import _record as _recording
from ._record import _record, _record_one, _requires_grad
from ._record import _NOT_SAVED, _edge, _saved_input, saved_inputs
from ..autograd.graph import _next_sequence_nr
from ..autograd import saved as _saved_module
from . import _arg_parser
from .. import overrides as _overrides

_grad_state = _gm._state
_fw_state = _fwad._state   # Note [Forward AD in the dispatcher]
_before_inplace_write = None   # set inside allow_mutation_on_saved_tensors (autograd/graph.py)
_ndarray = _npb.ndarray
_asarray = _npb.xp.asarray
_COO = _sparse_coo.COO
_sparse_coo.on_change = lambda on: set_sparse(on)
_xp = _npb.xp
_new = object.__new__

_Tensor = None        # set through _registry._bind_tensor_class once the class exists
_wrap = None


def _bind_tensor_class(tensor_cls, wrap) -> None:
    global _Tensor, _wrap
    _Tensor = tensor_cls
    _wrap = wrap
    _recording._Tensor = tensor_cls


# ---------------------------------------------------------------------------------------------
# Promotion helpers
# ---------------------------------------------------------------------------------------------
def _remember_fast_key(spec, inputs, comp, res_dt):
    """Cache this promotion under the key the fast path looks up (see Note [Hot path])."""
    a, b = inputs
    if not isinstance(a, _Tensor):   # subclasses too (Parameter): the key holds only dtypes
        return
    if type(b) is _Tensor and b._data.dtype is a._data.dtype:
        # only an op that computes in the operands' dtype gets an entry: one that promotes
        # (int / int) finds none and stays on the general path, with no further test
        if comp is a._data.dtype:
            spec._dtype_cache[a._data.dtype] = (comp, res_dt, _ufunc_gives(spec, comp, res_dt))
    elif type(b) is float or type(b) is int:
        # Python ints are passed straight to NumPy only where they cannot overflow the dtype;
        # bfloat16's numbers, and float16's for the opmath ops, take the general path
        # (_reduced_scalar): no entry for the fast paths
        if comp.kind == "V" or (comp is _F16 and spec.base in _OPMATH_SCALAR_OPS):
            spec._dtype_cache.pop((a._data.dtype, type(b)), None)
        else:
            spec._dtype_cache[(a._data.dtype, type(b))] = (comp, res_dt, comp.kind in "fc")


def _ufunc_gives(spec, comp, res_dt) -> bool:
    """Whether the op's ufunc, given two arrays of dtype `comp`, returns arrays of `res_dt`
    (NumPy's own dtype resolution, asked once): the binary fast path then keeps its result as
    it is, without reading the result's dtype on each call."""
    uf = spec.ufunc
    if uf is None:
        return False
    try:
        return uf.resolve_dtypes((comp, comp, None))[-1] == res_dt
    except (TypeError, ValueError):   # (no loop for this dtype: the kernel's result is checked)
        return False


def _general_plan(spec, key, inputs):
    """(computation dtype, result dtype, the inputs to convert) for the general path's
    promotion key, made once per key: the tensors whose dtype is not the computation dtype
    (where the op promotes), and every input that is not a tensor (a Python number: its type,
    part of the key, is checked here once; its value is converted on each call). A None where
    the op allows one is left as it is. A key whose check fails gets no plan, so every call
    with it raises torch's TypeError."""
    for i, a in enumerate(inputs):   # (a None the op does not allow, a string: torch's error)
        if not isinstance(a, _Tensor) and (a is not None or i not in spec.optional):
            _check_input(spec, a, i)
    comp, res_dt = spec.dtypes_for(key, inputs)[:2]
    promotes = spec.promote is not Promote.NONE
    fix = tuple(i for i, a in enumerate(inputs)
                if (a._data.dtype is not comp and promotes and i not in spec.nopromote
                    if isinstance(a, _Tensor) else a is not None))
    plan = spec._plans[key] = (comp, res_dt, fix)
    return plan


def _scalar_for(value, np_dtype):
    """A Python scalar as the kernel should see it: wrapped into range for integer dtypes."""
    if np_dtype.kind in "iu" and type(value) is int:
        info = _npb.xp.iinfo(np_dtype)
        if not info.min <= value <= info.max:
            return _npb.xp.array(value).astype(np_dtype)  # torch wraps around (C cast)
    if np_dtype.kind == "b" and type(value) is not bool:
        return bool(value)
    return value


# Note [Reduced-precision scalars]: the ops whose CPU kernels take their second operand, when
# it is a scalar (a Python number or a 0-dim tensor), in float32 ("opmath") for a bfloat16 or
# float16 computation, straight from its original value (a float64 0-dim tensor's too); the
# others, and a scalar first operand (``2.0 // x``), round it to the computation dtype first
# (torch's TensorIterator casts it to the common dtype)
_OPMATH_SCALAR_OPS = frozenset(("mul", "multiply", "div", "divide", "true_divide",
                                "floor_divide", "floor_divide_"))
_F16 = _xp.dtype(_xp.float16)
_F32 = _xp.dtype(_xp.float32)


def _reduced_scalar(spec, value, np_dtype, i):
    """A Python number for a kernel computing in bfloat16 or float16, as input ``i``
    (Note [Reduced-precision scalars]; ml_dtypes' NumPy type does not take Python floats as
    "weak" as NumPy's own types do: it would compute in float32)."""
    if type(value) is complex or not isinstance(value, (bool, int, float, _xp.generic)):
        return value
    if i == 1 and spec.base in _OPMATH_SCALAR_OPS:
        return _xp.float32(value)
    return np_dtype.type(value) if np_dtype.kind == "V" else _scalar_for(value, np_dtype)


def _opmath_operand(spec, array, comp, i):
    """A tensor input promoted to ``comp``: a 0-dim second operand of an opmath op goes to
    float32 instead when ``comp`` is bfloat16 or float16 (Note [Reduced-precision scalars])."""
    if i == 1 and not array.ndim and (comp.kind == "V" or comp is _F16) \
            and spec.base in _OPMATH_SCALAR_OPS:
        return array.astype(_F32)
    return array.astype(comp)


def _check_scalar(spec, value, np_dtype):
    """torch's checked conversion of a Python number to the dtype an op computes in, for the
    ops whose numbers must fit (``OpSpec.checked_scalars``: "int" checks integer dtypes only,
    as where's; "all" floats too, as clamp's bounds)."""
    if np_dtype.kind in "iu" or (spec.checked_scalars == "all" and np_dtype.kind in "fV"):
        if type(value) in (int, float):
            from .creation import checked_scalar
            checked_scalar(value, D.from_np(np_dtype))


def _check_input(spec, value, index):
    if isinstance(value, _Tensor):
        return
    if isinstance(value, (bool, int, float, complex)) or type(value).__module__ == "numpy":
        if spec.scalars is None or index in spec.scalars:
            return
    name = spec.inputs[index] if index < len(spec.inputs) else f"arg{index}"
    raise TypeError(f"{spec.base}(): argument '{'input' if name == 'self' else name}' "
                    f"(position {index + 1}) must be Tensor, not {_arg_parser.type_name(value)}")


def _run_view(spec, args, kwargs):
    """Dispatch a view op: its kernel maps the input's geometry to the output's.

    A view kernel is ``kernel(geom, *args) -> geom`` (or a list of geoms for ``unbind``,
    ``split``…), where ``geom = (shape, stride, storage_offset)`` in elements, exactly torch's
    view metadata. The output shares the input's Storage (and so its version counter) and
    records ``_base``. See Note [Version counters] in _storage.py.

    Note [Views NumPy makes directly]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A transpose-like view (``t``, ``transpose``, ``permute``) keeps the storage offset and only
    reorders shape and strides, which is exactly what NumPy's ``a.T`` / ``swapaxes`` /
    ``transpose`` do to the array; ``view``, ``unsqueeze`` and ``squeeze(dim)`` of a
    C-contiguous array are NumPy's ``reshape`` where torch's strides are the contiguous ones.
    ``select``, ``slice`` and ``split`` are NumPy's basic indexing, which keeps the other
    dims' strides: their twins also say how many elements further into the storage each view
    starts (a split's twin gives a list of such pieces).
    Such an op declares that twin with ``@spec.numpy_view``, and the dispatcher asks NumPy for
    the array instead of mapping the geometry and building an array over the storage buffer (a
    linear layer's ``w.t()`` costs a third as much). The twin returns None for anything else (a
    bad dim, size-1 dims whose strides NumPy would not keep as torch does), and the geometry
    kernel then runs as for every other view, raising torch's errors. A test checks each twin
    against the kernel and torch on every base layout (tests/test_views.py).
    """
    if not kwargs and not _fast_off:
        out = fast_view(spec, args[0], args[1:])
        if out is not None:
            return out
    if kwargs:
        # (a view kernel's signature has no `self`: its geometry stands there)
        if not args:
            kwargs = dict(kwargs)
            args = (kwargs.pop("self", None) if "self" in kwargs else kwargs.pop("input", None),)
        rest, kwargs = spec.bind(args[1:], kwargs)
        args = (args[0],) + tuple(rest)
    self = args[0]
    if not isinstance(self, _Tensor):
        _check_input(spec, self, 0)
    data = self._data
    arr = None
    if spec.array_view is not None and not kwargs:   # Note [Views NumPy makes directly]
        arr = spec.array_view(data, *args[1:])
    if type(arr) is list:   # several views (split): (array, moved) each
        result = arr
        outs = tuple([self._view_of_array(a, self._offset + moved) for a, moved in arr])
    elif arr is not None:
        result = None
        arr, moved = arr if type(arr) is tuple else (arr, 0)
        outs = (self._view_of_array(arr, self._offset + moved),)
    else:
        itemsize = data.itemsize
        geom = (data.shape, tuple([s // itemsize for s in data.strides]), self._offset)
        result = spec.kernel(geom, *args[1:], **kwargs)
        outs = tuple(self._make_view(*g) for g in result) if type(result) is list \
            else (self._make_view(*result),)
    if type(result) is list and _grad_state.grad_enabled:   # Note [Views and in-place: CopySlices]
        for t in outs:
            t._view_creation = _views.MULTI_OUTPUT
    if not _grad_state.grad_enabled:
        creation = _views.INFERENCE_MODE if _grad_state.inference else _views.NO_GRAD_MODE
        for t in outs:
            t._view_creation = creation
            if self._requires_grad:    # a view requires grad if its base does
                t._requires_grad = t._rg_inherited = True
    if self._requires_grad and spec.node_cls is not None and _grad_state.grad_enabled:
        if len(outs) == 1 and spec.one_input_plain:
            _record_one(spec, self, args[1:], kwargs, outs[0])
        else:
            _record(spec, (self,), args[1:], kwargs, outs)
    if _fw_state.active:   # a view of a dual tensor: that view of its tangent
        _fwad.propagate(spec, (self,), args[1:], kwargs, outs)
    return outs if type(result) is list else outs[0]


def fast_view(spec, self, rest):
    """``_run_view`` for a view NumPy makes directly (Note [Views NumPy makes directly]) of a
    Tensor, while the fast paths apply (``_fast_off`` is False: no profiler, no inference
    block, no forward-AD level); None for anything else. A linear layer's ``w.t()`` and every
    ``t()`` in the matrix products' formulas come here, in the forward and in backward."""
    twin = spec.array_view
    if twin is None or not isinstance(self, _Tensor):
        return None
    arr = twin(self._data, *rest)
    if arr is None:
        return None
    if type(arr) is list:    # several views (split): (array, moved) each
        return _views_of_arrays(spec, self, rest, arr)
    if type(arr) is tuple:   # (a view further into the storage: select, slice)
        arr, moved = arr
        out = self._view_of_array(arr, self._offset + moved)
    else:
        out = self._view_of_array(arr, self._offset)
    if _grad_state.grad_enabled:
        if self._requires_grad and spec.node_cls is not None:
            if spec.one_input_plain:
                _record_one(spec, self, rest, None, out)
            else:
                _record(spec, (self,), rest, None, (out,))
            return out
    else:   # made in no_grad mode (a formula's view, in backward): Note [Views and in-place]
        out._view_creation = _views.NO_GRAD_MODE
        if self._requires_grad:
            out._requires_grad = out._rg_inherited = True
    return out


def _views_of_arrays(spec, self, rest, pieces):
    """``fast_view`` for a view op of several outputs whose twin gave (array, moved) pieces:
    ``_run_view``'s steps for a list of geometries, with the arrays NumPy made."""
    offset = self._offset
    outs = tuple([self._view_of_array(a, offset + moved) for a, moved in pieces])
    if _grad_state.grad_enabled:   # Note [Views and in-place: CopySlices]
        for t in outs:
            t._view_creation = _views.MULTI_OUTPUT
        if self._requires_grad and spec.node_cls is not None:
            _record(spec, (self,), rest, None, outs)
    else:
        for t in outs:
            t._view_creation = _views.NO_GRAD_MODE
            if self._requires_grad:
                t._requires_grad = t._rg_inherited = True
    return outs


# True while the profiler records (autograd/profiler.py sets it through set_profiling): _run
# then times each call.
_profiling = False
# amp/_policy.py's hook while CPU autocast is on in some thread (Note [Autocast] there); it
# returns _amp_pass for the ops it leaves alone
_autocast_hook = None
_amp_pass = object()
# utils/flop_counter.py's hook while a FlopCounterMode is open (Note [Counting FLOPs] there):
# called with each op's call and result
_flop_hook = None
# True while tensors with a __torch_function__ of their own are alive (Note
# [__torch_function__] in overrides.py): _intercepted then asks it
_torch_function = False
# True while sparse tensors exist (Note [Sparse dispatch] in sparse.py): _intercepted then
# sends an op given one to its sparse kernel
_sparse = False
# True while the profiler records, autocast's hook is installed, a flop counter counts,
# __torch_function__ is in use or sparse tensors exist: call and _run then go through
# _intercepted. Off, it costs one flag test per op.
_intercept = False
# True while the fast paths step aside for the general path: while the profiler records, while
# an inference_mode block is open in any thread, while a forward-AD level exists (Note [Open
# inference blocks] in autograd/grad_mode.py), and while autocast's hook is installed.
_fast_off = False


def set_profiling(on: bool) -> None:
    global _profiling
    _profiling = bool(on)
    _update_fast_off()


def set_autocast_hook(hook) -> None:
    global _autocast_hook
    _autocast_hook = hook
    _update_fast_off()


def set_flop_hook(hook) -> None:
    global _flop_hook
    _flop_hook = hook
    _update_fast_off()


def set_torch_function(on: bool) -> None:
    global _torch_function
    _torch_function = on
    _update_fast_off()


def set_sparse(on: bool) -> None:
    global _sparse
    _sparse = on
    _update_fast_off()


def _update_fast_off() -> None:
    global _fast_off, _intercept
    _intercept = _profiling or _autocast_hook is not None or _flop_hook is not None \
        or _torch_function or _sparse
    _fast_off = _intercept or _gm._open_inference_blocks > 0 or _fw_state.level >= 0


_gm.on_mode_change = _update_fast_off


def call(spec, *args, **kwargs):
    """``OpSpec.__call__``: ``_run(spec, args, kwargs)`` written out for the out-of-place call,
    one frame less for every op a formula or a composite calls. A call that fails gets torch's
    TypeError where its arguments suit none of torch's overloads (Note [Parser errors] in
    _arg_parser.py; the try block costs nothing while nothing is raised)."""
    try:
        if _intercept:
            return _run(spec, args, kwargs)
        if spec.fast:
            if not kwargs and len(args) == spec.n_inputs:
                t = spec.fast_path(*args)
                if t is not None:
                    return t
        elif spec.view:
            return _run_view(spec, args, kwargs)
        return _run_general(spec, args, kwargs, None)
    except Exception as e:
        if getattr(e, "torch_function_asked", False):   # (no handler took the call)
            raise
        found = _overrides.asking_after_failure(args, kwargs)   # a tensor-like (no Tensor)
        if found:
            return _overrides.dispatch(_public_function(spec, False), found, args, kwargs)
        err = _arg_parser.explain(spec.base, args, kwargs, False, e)
        if err is None:
            raise
        raise err from None


def _run(spec, args, kwargs, inplace_target=None, inplace=False, method=False):
    """Dispatch one call of `spec` (called as a Tensor method: `method`, which only
    ``__torch_function__`` is told). See Note [Hot path]."""
    if _intercept:
        return _intercepted(spec, args, kwargs, inplace_target, inplace, method)
    if spec.fast and not kwargs and not inplace:
        if len(args) == spec.n_inputs:
            t = spec.fast_path(*args)
            if t is not None:
                return t
    elif spec.view:
        return _run_view(spec, args, kwargs)
    elif inplace and spec.pointwise and not spec.kernel_dtypes:
        if spec.writes_into and len(args) == 2 and type(args[1]) is _Tensor \
                and not spec.arg_positions:   # (lerp's weight is a third positional argument)
            t = fast_inplace_pair(spec, args[0], args[1], kwargs)
        else:
            t = fast_inplace(spec, args, kwargs)
        if t is not None:
            return t
    return _run_general(spec, args, kwargs, inplace_target, inplace)


def _intercepted(spec, args, kwargs, inplace_target=None, inplace=False, method=False):
    """``_run`` while autocast's hook is installed (it casts the inputs of the ops on its list
    and runs them again: Note [Autocast] in amp/_policy.py), the profiler records or a flop
    counter counts (it sees each out-of-place op once, after it ran: Note [Counting FLOPs] in
    utils/flop_counter.py), while tensors with a __torch_function__ exist: an op given one
    asks it (Note [__torch_function__] in overrides.py), and while sparse tensors exist: an op
    given one runs its sparse kernel (Note [Sparse dispatch] in sparse.py)."""
    if _torch_function and _overrides._is_torch_function_enabled():
        overloaded = _overrides.overloaded_among(args, kwargs)
        if overloaded:
            return _overrides.dispatch(_public_function(spec, inplace, method), overloaded,
                                       args, kwargs)
    hook = _autocast_hook
    if hook is not None and not inplace:
        result = hook(spec, args, kwargs)
        if result is not _amp_pass:
            return result
    run = _run_general
    if _sparse:   # an op given a sparse tensor runs its sparse kernel (Note [Sparse dispatch])
        from . import sparse
        if sparse.among(args, kwargs):
            run = sparse.run
    if _profiling:
        from ..autograd.profiler import record_op
        out = record_op(spec, run, args, kwargs, inplace_target, inplace)
    else:
        out = run(spec, args, kwargs, inplace_target, inplace)
    if _flop_hook is not None and not inplace:
        _flop_hook(spec, args, kwargs, out)
    return out


def _public_function(spec, inplace, method=False):
    """What a ``__torch_function__`` is given as ``func`` for a call of `spec`: the Tensor
    method for a method call, an operator or an in-place call (``Tensor.mul``, ``Tensor.add_``,
    as torch's), the op of the dyngrad namespace for a function call (``dyngrad.add``); else
    an _OpCall running this op with the same arguments (an op that a Python function such as
    ``cat`` or ``F.linear`` called with arguments of its own)."""
    import dyngrad
    if inplace or method:
        found = getattr(_Tensor, spec.base + ("_" if inplace else ""), None)
        if found is not None:
            return found
    elif getattr(dyngrad, spec.base, None) is spec:
        return spec
    return _OpCall(spec, inplace)


class _OpCall:
    """``func(*args, **kwargs)``: the op `spec` called again with the arguments a
    ``__torch_function__`` was given, named as the op (its in-place method's name for an
    in-place call)."""

    def __init__(self, spec, inplace):
        self.spec, self.inplace = spec, inplace
        self.__name__ = self.__qualname__ = spec.base + ("_" if inplace else "")

    def __call__(self, *args, **kwargs):
        return _run(self.spec, args, kwargs, args[0] if self.inplace else None, self.inplace)

    def __repr__(self) -> str:
        return f"<op {self.__name__}>"


def fast_inplace(spec, args, kwargs):
    """``target.op_(...)`` of a pointwise op with nothing to record (an optimizer's step under
    no_grad): a floating, C-contiguous target; its other inputs tensors of its dtype and shape
    or Python numbers whose promotion keeps that dtype; keywords the op declares. The kernel
    writes straight into the target where it can (Note [In-place kernels write into the
    target]), else its result is copied in. None when any of torch's checks could have
    something to say: ``_run_general`` then makes them all."""
    target = args[0]
    n = spec.n_inputs
    if not isinstance(target, _Tensor) or len(args) < n or _fw_state.active or (
            spec.max_positional is not None and len(args) > spec.max_positional):
        return None   # (too many arguments: _run_general raises torch's error)
    x = target._data
    dt = x.dtype
    if dt.kind != "f" or not x.flags.c_contiguous:   # (bfloat16: the general path)
        return None
    grad_on = _grad_state.grad_enabled
    if (grad_on and target._requires_grad) or _grad_state.inference or target._is_inference \
            or _before_inplace_write is not None:
        return None
    shape = x.shape
    mine = dt if shape else (dt, 0)   # (keys as the general path makes them: it fills the cache)
    key = [mine]
    arrays = [x]
    for a in args[1:n]:
        ta = type(a)
        if ta is float or ta is int:
            key.append(ta)
            arrays.append(a)
            continue
        if ta is not _Tensor and not isinstance(a, _Tensor):
            return None
        y = a._data
        if y.dtype is not dt or y.shape != shape or (grad_on and a._requires_grad):
            return None
        if a is not target and (x.base is not None or y.base is not None) \
                and _npb.may_share_memory(x, y):
            return None          # (the partial-overlap check; arrays owning their memory pass)
        key.append(mine)
        arrays.append(y)
    r = spec._dtype_cache.get(tuple(key))
    if r is None or r[0] is not dt or r[1] is not dt:
        return None
    if kwargs:
        defaults = spec.arg_defaults
        for k in kwargs:
            if k not in defaults:
                return None
    arrays += args[n:]
    if spec.writes_into:   # (a kernel may still return a result of its own: float16, ints)
        result = spec.kernel(_xp, *arrays, _into=x, **kwargs)
    else:
        result = spec.kernel(_xp, *arrays, **kwargs)
    if result is not x:
        _xp.copyto(x, result, casting="unsafe")
    _wrote(target, spec)
    return target


def fast_inplace_pair(spec, target, other, kwargs):
    """``fast_inplace`` for its commonest call, ``p.add_(g, alpha=)`` (an SGD step): two
    tensors of one shape and dtype, with the checks in the same order and no loop over the
    inputs (0.6 us of a 2 us call); or a 0-dim `other` of the target's dtype, which
    broadcasts and promotes to it alike (``g.mul_(coef)``, clip_grad_norm_'s scaling)."""
    if not (isinstance(target, _Tensor) and isinstance(other, _Tensor)) or _fw_state.active:
        return None
    x = target._data
    y = other._data
    dt = x.dtype
    if y.dtype is not dt or dt.kind != "f" or (y.shape != x.shape and y.ndim) \
            or not x.flags.c_contiguous:
        return None
    if (_grad_state.grad_enabled and (target._requires_grad or other._requires_grad)) \
            or _grad_state.inference or target._is_inference or _before_inplace_write is not None:
        return None
    r = spec._dtype_cache.get(dt)    # (the binary fast path's key: both operands of dtype dt)
    if r is None or r[0] is not dt or r[1] is not dt:
        return None
    if other is not target and (x.base is not None or y.base is not None) \
            and _npb.may_share_memory(x, y):
        return None              # (the partial-overlap check; arrays owning their memory pass)
    if kwargs:
        if len(kwargs) != 1 or "alpha" not in kwargs or "alpha" not in spec.arg_defaults:
            return None
        spec.kernel(_xp, x, y, alpha=kwargs["alpha"], _into=x)
    else:
        spec.kernel(_xp, x, y, _into=x)
    _wrote(target, spec)
    return target


def _wrote(target, spec) -> None:
    """After an in-place write into `target`: its version counter moves on (Note [Version
    counters] in _storage.py); in anomaly mode, where the write happened is noted for the
    version-counter error."""
    st = target._storage
    if st is None:
        st = target._storage_obj()
    st.version += 1
    if _anomaly.enabled:
        from ..autograd.anomaly_mode import note_write
        note_write(target, spec)


# Note [Kernels that are one ufunc]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Many kernels are a single NumPy ufunc once their keyword arguments are at their defaults
# (``add`` is ``xp.add(self, other)`` when alpha is 1; ``exp`` is ``xp.exp``). Their declaration
# says so (``defop(..., ufunc="add")``) and the fast paths, which only run with no keywords and
# no promotion, call the ufunc directly: one Python frame less on the tiniest ops, ~10% of
# their cost. The kernel stays the definition: tests/ops/test_ufunc_kernels.py checks each such
# kernel equals its ufunc on every dtype the fast path can give it.
def unary_fast_path(spec, otherwise, method=False):
    """``spec(a)`` for a Tensor whose dtype needs no promotion; ``otherwise(a)`` for anything
    else. One closure per op and caller (see Note [Hot path]): the method ``x.exp()`` or the
    operator ``-x`` is then one Python frame more than the kernel. ``method=True``: `a` is the
    instance of a Tensor method or operator, so it is not tested."""
    cache = spec._dtype_cache
    check_a = not method
    uf = spec.ufunc   # (set when the spec is made, before its fast path)
    one = spec.one_input_plain
    # what the node saves, when the closure records it itself: 1, the input; 2, the result;
    # 0, nothing; -1, anything else (_record_one, _record)
    plan, outs = spec.save_plan, spec.saved_outputs
    saves = -1 if not one else 0 if not plan and not outs else 1 if not outs else \
        2 if not plan and outs == ((0, 0),) else -1

    def fast(a):
        if _fast_off or (check_a and type(a) is not _Tensor and not isinstance(a, _Tensor)):
            return otherwise(a)      # (isinstance: a Parameter)
        x = a._data
        dt = x.dtype
        r = cache.get(dt)
        if r is None or r[0] is not dt:
            return otherwise(a)
        result = uf(x) if uf is not None else spec.kernel(_xp, x)
        if x.ndim > 1 and spec.pointwise and not x.flags.c_contiguous:
            result = _relayout(result, (x,))
        # the result as a Tensor (_wrap inlined), then its node when one is to be recorded
        t = _new(_Tensor)            # storage and offset are class defaults
        t._data = result if (type(result) is _ndarray and result.dtype is r[1] and result.size) \
            else _fast_result(result, r[1])
        # (grad mode, a thread-local read, is read last: most tensors do not require grad)
        if not a._requires_grad or spec.node_cls is None or not _grad_state.grad_enabled:
            t._requires_grad = False
            t._grad_fn = None
            return t
        if saves < 0 or r[1].kind not in "fcV":
            t._requires_grad = False
            t._grad_fn = None
            if one:
                _record_one(spec, a, (), None, t)
            else:
                _record(spec, (a,), (), None, (t,))
            return t
        # _record_one's steps, written out (Note [Recording in the binary fast path])
        node = _new(spec.node_cls)
        node._seq = _next_sequence_nr()
        node._args = ()
        node._kwargs = None
        if a._grad_fn is not None and a._base is None:   # its edge (Note [Edges as two tuples])
            node._next = (a._grad_fn,)
            node._nrs = (0,) if a._output_nr == 0 else (a._output_nr,)
        else:
            node.next_functions = (_edge(a),)
        node._meta = ((x.shape, dt),)
        t._grad_fn = node
        t._requires_grad = True
        if saves == 1:      # the input: itself when never written and no hooks are pushed
            node._held = (a,) if a._storage is None and not (
                _saved_module._hooks_active or a._is_inference) else (_saved_input(a),)
        elif saves == 2:    # the result, as the node's own output
            node._held = (SavedTensor(t, is_output=True),)
        else:
            node._held = ()
        if _anomaly.enabled:
            _anomaly_mode.record_node(node)
        return t

    return fast


def binary_fast_path(spec, otherwise, method=False):
    """``spec(a, b)`` for two Tensors of one dtype, or a Tensor and a Python float/int whose
    promotion is cached; ``otherwise(a, b)`` for anything else. One closure per op and caller
    (see Note [Hot path]): ``x + y`` is then one Python frame more than NumPy's add, and its
    node is recorded in that frame too (Note [Recording in the binary fast path]).
    ``method=True``: the closure is a Tensor method or operator, so `a` is a Tensor (Python
    passes the instance) and is not tested."""
    cache = spec._dtype_cache
    check_a = not method
    uf = spec.ufunc   # (set when the spec is made, before its fast path)
    # a node made here: every input linked, no output saved or left out (else _record makes it)
    plain = spec.diff_index is None and not spec.link_requiring_only \
        and not spec.saves_result and not spec.nondiff_outputs
    # the save plans the closure handles itself (the commonest): 1, both inputs always;
    # 2, each input when the other requires grad (mul); 0, anything else (saved_inputs)
    plan = spec.save_plan
    saves = 1 if plan == ((0, -1), (1, -1)) else 2 if plan == ((0, 1), (1, 0)) else 0

    def fast(a, b):
        if _fast_off or (check_a and type(a) is not _Tensor and not isinstance(a, _Tensor)):
            return otherwise(a, b)      # (isinstance: a Parameter)
        x = a._data
        dt = x.dtype
        tb = type(b)
        if tb is _Tensor or isinstance(b, _Tensor):
            y = b._data
            if y.dtype is not dt:
                return otherwise(a, b)
            r = cache.get(dt)    # (only ops computing in dt have an entry: _remember_fast_key)
            if r is None:
                return otherwise(a, b)
            try:
                result = uf(x, y) if uf is not None else spec.kernel(_xp, x, y)
            except ValueError:
                return otherwise(a, b)   # the general path raises torch's broadcasting error
            if result.ndim > 1 and spec.pointwise and not (   # (an input had 2 dims or more)
                    x.flags.c_contiguous and y.flags.c_contiguous and x.shape == y.shape):
                # (broadcast operands go through _relayout: a size-1 dim's stride, which NumPy's
                # contiguity flag ignores, can decide torch's order there)
                result = _relayout(result, (y, x) if spec.layout_reversed else (x, y))
            # the result as a Tensor (_wrap inlined); r[2]: the ufunc's result is known to be
            # of the result dtype (_ufunc_gives), a 0-dim one is a NumPy scalar, an empty one
            # takes torch's strides
            t = _new(_Tensor)        # storage and offset are class defaults
            t._data = result if (type(result) is _ndarray and result.size and (
                r[2] or result.dtype is r[1])) else _fast_result(result, r[1])
            rg = a._requires_grad or b._requires_grad
            bt = b
        elif tb is float or tb is int:
            r = cache.get((dt, tb))
            if r is None or r[0] is not dt or not (tb is float or r[2]):
                return otherwise(a, b)
            result = uf(x, b) if uf is not None else spec.kernel(_xp, x, b)
            if x.ndim > 1 and spec.pointwise and not (x.flags.c_contiguous and 1 not in x.shape):
                result = _relayout(result, (x, _WRAPPED) if spec.wraps_scalars else (x,))
            t = _new(_Tensor)
            res_dt = r[1]
            t._data = result if (type(result) is _ndarray and result.dtype is res_dt
                                 and result.size) else _fast_result(result, res_dt)
            rg = a._requires_grad
            bt = None
        else:
            return otherwise(a, b)
        # its node when one is to be recorded (grad mode, a thread-local read, is read last:
        # most tensors do not require grad)
        if not rg or spec.node_cls is None or not _grad_state.grad_enabled:
            t._requires_grad = False
            t._grad_fn = None
            return t
        if not plain or r[1].kind not in "fcV":
            t._requires_grad = False
            t._grad_fn = None
            _record(spec, (a, b), (), None, (t,))
            return t
        # Note [Recording in the binary fast path]: _record's steps for two inputs, written out
        node = _new(spec.node_cls)
        node._seq = _next_sequence_nr()
        node._args = ()
        node._kwargs = None
        # the gradient edges, as nodes and input numbers (Note [Edges as two tuples] in
        # autograd/graph.py), _edge's commonest cases inlined
        if not a._requires_grad:
            fa, na = None, 0
        elif a._grad_fn is not None and a._base is None:
            fa, na = a._grad_fn, a._output_nr
        else:
            fa, na = _edge(a)
        ma = (x.shape, dt)               # the inputs' metadata
        if bt is None:                   # b is a Python number
            node._next = (fa, None)
            node._nrs = (0, 0) if na == 0 else (na, 0)
            node._meta = (ma, None)
        else:
            if not b._requires_grad:
                fb, nb = None, 0
            elif b._grad_fn is not None and b._base is None:
                fb, nb = b._grad_fn, b._output_nr
            else:   # a leaf: its live AccumulateGrad (weakly held), else _edge makes one
                fb = b._accumulator
                fb = fb() if fb is not None else None
                nb = 0
                if fb is None:
                    fb, nb = _edge(b)
            node._next = (fa, fb)
            node._nrs = (0, 0) if na == 0 and nb == 0 else (na, nb)
            # (inputs alike share one metadata tuple: two fewer objects for the cyclic GC)
            node._meta = (ma, ma if y.shape == ma[0] else (y.shape, dt))
        # the saved inputs: two tensors never written, with no saved-tensor hooks pushed, are
        # kept as they are (Note [Saved inputs without a box]); every other case is saved_inputs'
        if saves and bt is not None and a._storage is None and b._storage is None \
                and not (_saved_module._hooks_active or a._is_inference or b._is_inference):
            node._held = (a, b) if saves == 1 else \
                (a if b._requires_grad else _NOT_SAVED, b if a._requires_grad else _NOT_SAVED)
        else:
            node._held = tuple(saved_inputs(spec.save_plan, (a, b))) if spec.save_plan \
                else ()
        t._grad_fn = node
        t._requires_grad = True
        if _anomaly.enabled:   # anomaly mode: remember the forward call (anomaly_mode.py)
            _anomaly_mode.record_node(node)
        return t

    return fast


def _fast_result(result, res_dt):
    """A fast-path kernel's result as the array a Tensor holds: an ndarray of the result dtype
    (torch's contiguous strides when it is empty)."""
    if type(result) is not _ndarray:
        result = _asarray(result)
    if result.dtype is not res_dt:
        result = result.astype(res_dt)
    if not result.size and result.ndim and 0 in result.strides:
        result = _dense_empty(result)
    return result


def ternary_fast_path(spec, otherwise):
    """``spec(a, b, c)`` for three Tensors of one dtype (none 0-dim) that the op computes in and
    returns, with no keywords: ``addmm(bias, x, w.t())``, every linear layer's forward (the op
    declares ``fast=True``; only ops with one output that is not pointwise can). The general
    path's steps for that case without its passes over promotion keys and casts, whose plan it
    reads once the general path has made it: a linear layer's addmm, 6.7 -> 6.2 us (the MLP
    step of the bench 1% faster).
    ``otherwise(a, b, c)`` for anything else."""
    plans = spec._plans

    def fast(a, b, c):
        if _fast_off or not (isinstance(a, _Tensor) and isinstance(b, _Tensor)
                             and isinstance(c, _Tensor)):
            return otherwise(a, b, c)
        x, y, z = a._data, b._data, c._data
        dt = x.dtype
        plan = plans.get((dt, dt, dt)) if (y.dtype is dt and z.dtype is dt and x.ndim
                                           and y.ndim and z.ndim) else None
        if plan is None or plan[0] is not dt or plan[1] is not dt:
            return otherwise(a, b, c)
        record = (a._requires_grad or b._requires_grad or c._requires_grad) \
            and _grad_state.grad_enabled and spec.node_cls is not None
        if record and (a._base is not None or b._base is not None or c._base is not None):
            _refresh_views((a, b, c))
        try:
            result = spec.kernel(_xp, x, y, z)
        except ValueError as e:
            raise _translate_value_error(spec, (a, b, c), e) from None
        if type(result) is not _ndarray or not result.size:
            result = _as_array(result)
        t = _wrap(result if result.dtype is dt else _cast(spec, result, dt))
        if record:
            _record(spec, (a, b, c), (), None, (t,))
        return t

    return fast


def _no_fast_path(*args):
    return None


# A Python number among a pointwise op's inputs, as torch's TensorIterator sees it when the op
# wraps it into a 0-d tensor (add, mul, comparisons, where...: OpSpec.wraps_scalars): one more
# operand, so the inputs no longer share a shape and torch's fast layout setup does not apply.
_WRAPPED = _xp.zeros(())


def _layout_operand(arr, comp):
    """An input as torch's TensorIterator sees it when it orders the result's dims: an input
    of another dtype than the computation's is replaced by its cast copy first (``.to()``, which
    keeps a dense input's strides and makes any other contiguous: an expanded float gradient
    times a complex one). The copy is only looked at, so a view of one element with its
    strides stands for it. See Note [Output layout of pointwise ops]."""
    if arr.dtype == comp or arr.ndim < 2 or type(arr) is not _ndarray:
        return arr
    itemsize = arr.itemsize
    if _dense(arr.shape, [s // itemsize for s in arr.strides]):
        return arr
    strides = [s * itemsize for s in contiguous_strides(arr.shape)]
    return _xp.lib.stride_tricks.as_strided(_xp.empty(1, arr.dtype), arr.shape, strides)


def _relayout(result, arrays):
    """Give a pointwise result torch's layout. See Note [Output layout of pointwise ops]."""
    if type(result) is not _ndarray or result.ndim < 2:
        return result
    if result.flags.c_contiguous:
        # the common case: contiguous operands (broadcast ones too: their stride-0 dims decide
        # nothing in torch's ordering), contiguous result; a size-1 dim of a broadcast result
        # takes its stride from that ordering, so such results go through it
        shape = result.shape
        plain = 1 not in shape
        for a in arrays:
            if type(a) is not _ndarray:
                continue
            if not a.flags.c_contiguous:
                break
            if not plain and a.shape != shape:
                break
        else:
            return result
    arrays = [a for a in arrays if type(a) is _ndarray]
    want = elementwise_strides(result.shape, arrays)
    itemsize = result.itemsize
    want = tuple([s * itemsize for s in want])
    if want == result.strides:
        return result
    if all(n == 1 or s == rs for n, s, rs in zip(result.shape, want, result.strides)):
        # the same addressing, only a size-1 dim's stride differs (it moves nothing, but
        # stride() shows it): the same memory with torch's strides
        return _xp.lib.stride_tricks.as_strided(result, strides=want)
    out = _ndarray(result.shape, result.dtype, _npb.xp.empty(result.size, result.dtype), 0, want)
    out[...] = result
    return out


def extra_args(name, min_args, max_positional, given) -> TypeError:
    """torch's error for a call passing more positional arguments than the op takes."""
    if min_args != max_positional:
        return TypeError(f"{name}() takes from {min_args} to {max_positional} positional "
                         f"arguments but {given} were given")
    return TypeError(f"{name}() takes {max_positional} positional argument"
                     f"{'' if max_positional == 1 else 's'} but {given} "
                     f"{'was' if given == 1 else 'were'} given")


def _check_flags(spec, args, kwargs):
    """A flag argument (keepdim, sorted...) must be a bool, as torch's parser checks: 1 or a
    NumPy bool is refused. The TypeError is reworded as torch's parser's by ``call`` or the
    method (Note [Parser errors] in _arg_parser.py)."""
    for i, name in spec.bool_args:
        at = i is not None and i < len(args)
        v = args[i] if at else kwargs.get(name, False)
        if type(v) is not bool:
            where = f" (position {i + 1})" if at else ""
            raise TypeError(f"{spec.base}(): argument '{name}'{where} must be bool, not "
                            f"{type(v).__name__}")


def _run_general(spec, args, kwargs, inplace_target, inplace=False):
    """The general dispatch path: keywords, scalars, mixed dtypes, lists, out= and in-place."""
    if spec.view:
        return _run_view(spec, args, kwargs)
    if spec.max_positional is not None and len(args) > spec.max_positional:
        raise extra_args(spec.base, spec.min_args, spec.max_positional, len(args))
    if spec.bool_args:
        _check_flags(spec, args, kwargs)
    out = None
    if kwargs:
        if "out" in kwargs:
            kwargs = dict(kwargs)
            out = kwargs.pop("out")
        args, kwargs = spec.bind(args, kwargs)
    n = spec.n_inputs
    if len(args) < n:
        args, kwargs = spec.bind(args, kwargs)   # raises torch-like TypeError for missing args
    if spec.list_input:
        inputs = tuple(args[0])
        rest = args[1:]
    else:
        inputs = args[:n]
        rest = args[n:]
    if rest and _tensor_among(rest) or kwargs and _tensor_among(kwargs.values()):
        rest, kwargs = _numbers_for_tensors(rest, kwargs)

    # 1. promotion (and whether any input requires grad, any such input is a view) -------------
    if n == 1 and not spec.list_input:
        a = inputs[0]
        if not isinstance(a, _Tensor):
            _check_input(spec, a, 0)
            from .creation import wrapped_scalar
            a = wrapped_scalar(a)
            inputs = (a,)
        grad_in = a._requires_grad
        views = grad_in and a._base is not None
        arr = a._data
        key = arr.dtype
        comp, res_dt = spec._dtype_cache.get(key) or spec.dtypes_for(key, inputs)
        if arr.dtype is not comp and spec.promote is not Promote.NONE:
            arr = arr.astype(comp)
        arrays = (arr,)
    else:
        # one pass over the inputs: their arrays, the promotion key, whether any requires grad
        # (and whether such an input is a view); the key's plan then says which arrays to cast
        key = []
        arrays = []
        grad_in = views = False
        for a in inputs:
            if isinstance(a, _Tensor):
                arr = a._data
                arrays.append(arr)
                key.append(arr.dtype if arr.ndim else (arr.dtype, 0))
                if a._requires_grad:
                    grad_in = True
                    if a._base is not None:
                        views = True
            else:
                arrays.append(a)
                key.append(type(a))
        key = tuple(key)
        plan = spec._plans.get(key)
        if plan is None:
            plan = _general_plan(spec, key, inputs)
        comp, res_dt, fix = plan
        if spec.fast and n == 2:
            _remember_fast_key(spec, inputs, comp, res_dt)
        for i in fix:   # (the tensors to promote and the Python numbers: few calls have any)
            a = arrays[i]
            if type(a) is _ndarray:
                arrays[i] = a.astype(comp) if comp.itemsize != 2 or comp.kind not in "fV" \
                    else _opmath_operand(spec, a, comp, i)
            elif a is not None:
                if spec.checked_scalars is not None:
                    _check_scalar(spec, a, comp)
                arrays[i] = _scalar_for(a, comp) if comp.kind != "V" and comp is not _F16 \
                    else _reduced_scalar(spec, a, comp, i)
        if spec.list_input:
            arrays = (arrays,)

    if kwargs and kwargs.get("dtype") is not None:
        res_dt = kwargs["dtype"].np   # an explicit dtype= decides the result type
        if kwargs["dtype"] in D.LIMITED_UNSIGNED:   # Note [Limited unsigned dtypes]
            from ._unsigned import check_dtype_arg
            check_dtype_arg(spec, kwargs["dtype"])
    if out is not None and isinstance(out, _Tensor) and out.dtype in D.LIMITED_UNSIGNED:
        from ._unsigned import check_dtype_arg
        check_dtype_arg(spec, out.dtype)
    if out is not None and spec.out_overlap is not None and isinstance(out, _Tensor):
        check_out_overlap(out, inputs, spec.out_overlap)
    if _fw_state.active:   # an op without forward AD fails before any other check, as in torch
        _fwad.check_supported(spec, inputs)
    if grad_in and spec.non_differentiable and _grad_state.grad_enabled:
        _check_no_requires_grad(spec, inputs)
    if inplace:   # autograd's checks come first, then the kernel's (as in torch)
        _check_inplace_autograd(spec, inplace_target, inputs)
        _check_no_partial_overlap(inplace_target, inputs)
        if spec.pointwise:
            _check_inplace_target(inplace_target, inputs, res_dt)

    # 2. kernel --------------------------------------------------------------------------------
    if not inplace and views and _grad_state.grad_enabled and spec.node_cls is not None:
        _refresh_views(inputs)
    elif inplace and spec.writes_into and not _fw_state.active and not (
            grad_in and _grad_state.grad_enabled and spec.node_cls is not None):
        # Note [In-place kernels write into the target]: with nothing to record (an optimizer's
        # step under no_grad), a kernel that takes ``_into`` writes its result straight into
        # the target's memory: torch's checks have all run above, so the only change is one
        # pass and one temporary array less. (A recorded op must snapshot its inputs first, and
        # a forward-AD tangent rule reads the old values.)
        target = inplace_target._data
        if target.dtype is comp and target.dtype == res_dt and arrays[0] is target:
            kwargs = dict(kwargs, _into=target)
    try:
        result = spec.kernel(_npb.xp, *arrays, *rest, **kwargs)
    except ValueError as e:
        raise _translate_value_error(spec, inputs, e) from None

    # 3. wrap (and record) ------------------------------------------------------------------
    if spec.pointwise and type(result) is _ndarray and result.ndim > 1 and not (
            inplace and result is inplace_target._data):
        # the layout follows the inputs as given, not their promoted copies (but for what a
        # promotion does to a non-dense input: _layout_operand)
        given = [_layout_operand(a._data, comp) if isinstance(a, _Tensor) else _WRAPPED
                 for a in inputs
                 if a is not None and (spec.wraps_scalars or isinstance(a, _Tensor))]
        result = _relayout(result, given[::-1] if spec.layout_reversed else given)
    # (for a list input such as cat's, `inputs` is already the list's tensors)
    record = grad_in and _grad_state.grad_enabled and spec.node_cls is not None
    if inplace:
        if _fw_state.active:   # Note [Forward AD in the dispatcher]
            result = _as_array(result)
            return _fwad.propagate_inplace(
                spec, inplace_target, result, inputs, rest, kwargs,
                lambda: _write_inplace(spec, inplace_target, result, inputs, rest, kwargs, record))
        return _write_inplace(spec, inplace_target, _as_array(result), inputs, rest, kwargs,
                              record)
    if type(result) is tuple:
        keep = spec.kernel_dtypes
        arrays = [_as_array(r) if keep else _cast(spec, _as_array(r), res_dt) for r in result]
        if out is not None:   # out= of an op of several results: a tuple of as many tensors
            check_out_tuple(spec.base, out, len(arrays), lambda: _out_position(spec))
            if record:
                raise RuntimeError(f"{spec.base}(): functions with out=... arguments don't "
                                   "support automatic differentiation, but one of the "
                                   "arguments requires grad.")
            written = tuple([_write_out(spec, o, r) for o, r in zip(out, arrays)])
            return None if spec.out_returns_none else written
        outs = tuple([_wrap(r) for r in arrays])
    else:
        if type(result) is not _ndarray or not result.size:   # (_as_array's cases)
            result = _as_array(result)
        if result.dtype is not res_dt and not spec.kernel_dtypes:
            result = _cast(spec, result, res_dt)
        if out is not None:
            if record:
                raise RuntimeError(f"{spec.base}(): functions with out=... arguments don't "
                                   "support automatic differentiation, but one of the "
                                   "arguments requires grad.")
            return _write_out(spec, out, result)
        outs = (_wrap(result),)
    if record:
        if n == 1 and len(outs) == 1 and spec.one_input_plain:
            _record_one(spec, inputs[0], rest, kwargs, outs[0])
        else:
            _record(spec, inputs, rest, kwargs, outs)
    elif _grad_state.inference:
        for t in outs:
            t._is_inference = True
    if _fw_state.active:
        _fwad.propagate(spec, inputs, rest, kwargs, outs)
    return outs if type(result) is tuple else outs[0]


# Note [Tensors for numbers]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's parser takes a 0-dim tensor that does not require grad wherever a parameter is a
# number (Scalar, float, int): ``F.leaky_relu(x, torch.tensor(0.1))``, ``x.sum(n - 1)``,
# ``F.nll_loss(..., ignore_index=torch.tensor(2))``, and reads its value. An op's arguments
# past its tensor inputs are such parameters, so the general path hands the kernel (and the
# node, whose ``_saved_`` attributes show numbers as torch's do) the tensor's value instead.
# A tensor that requires grad stays as it is (torch refuses it there: its own check words
# the error), and so do tensors inside lists (``index_put``'s indices), whose elements the
# kernels that take an int list read through ``__index__``, and bool tensors, which torch
# takes as one dim (``__index__``: 1) but refuses as an int.

def _tensor_among(values) -> bool:
    for v in values:
        if isinstance(v, _Tensor):
            return True
    return False


def _numbers_for_tensors(rest, kwargs):
    """`rest` and `kwargs` with each 0-dim tensor that does not require grad, but a bool one,
    replaced by its value (Note [Tensors for numbers])."""
    def number(v):
        return v if isinstance(v, _Tensor) and v._data.dtype.kind == "b" else scalar_value(v)
    return tuple([number(v) for v in rest]), {k: number(v) for k, v in kwargs.items()}


def check_out_tuple(name: str, out, n: int, position) -> None:
    """torch's TypeErrors for the ``out=`` of function `name` returning `n` tensors: a tuple
    (or list) of as many tensors. `position`: out's index among the binding's parameters
    (which the message counts), or a function of no arguments giving it; None where the
    caller's parser has checked the elements already."""
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    if len(out) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(out)}")
    for i, o in enumerate(out):
        if not isinstance(o, _Tensor) and position is not None:
            raise TypeError(f"expected Tensor as element {i} in argument "
                            f"{position() if callable(position) else position}, but got "
                            f"{_arg_parser.type_name(o)}")


def _out_position(spec) -> int:
    params = list(spec.signature.parameters)
    return params.index("out") if "out" in params else len(params)


def _as_array(result):
    if type(result) is not _ndarray:
        if type(result) is _COO:   # a sparse op's result (Note [Sparse dispatch] in sparse.py)
            return result
        return _asarray(result)
    if not result.size and result.ndim and 0 in result.strides:
        return _dense_empty(result)
    return result


def _dense_empty(result):
    """NumPy gives empty results zero strides; torch gives them contiguous ones."""
    return _npb.strided(_npb.xp.empty(0, result.dtype), result.shape,
                        contiguous_strides(result.shape), 0)


def _cast(spec, result, res_dt):
    if result.dtype is not res_dt and result.dtype != res_dt:
        # (an empty result's cast gets zero strides again, from ml_dtypes' casts: _as_array)
        return result.astype(res_dt) if result.size else _as_array(result.astype(res_dt))
    return result


def _check_inplace_target(target, inputs, res_dt):
    """torch's checks before a pointwise in-place kernel runs: overlap, broadcast, shape, cast."""
    target._check_writeable()
    shapes = [a._data.shape for a in inputs if isinstance(a, _Tensor)]
    shape = target._data.shape
    if any(sh != shape for sh in shapes):
        shape = tuple(broadcast_shapes(*shapes))
    if shape != target._data.shape:
        raise RuntimeError(f"output with shape {shape_str(target._data.shape)} doesn't match "
                           f"the broadcast shape {shape_str(shape)}")
    res = D.from_np(res_dt)
    if res.category > target.dtype.category:
        raise RuntimeError(f"result type {res._legacy} can't be cast to the desired output "
                           f"type {target.dtype._legacy}")


def check_inference_inplace(target) -> None:
    """torch's refusal of an in-place update (values or geometry) to an inference tensor
    outside inference_mode."""
    if target._is_inference and not _grad_state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")


def _check_inplace_autograd(spec, target, inputs) -> None:
    """torch's checks before an in-place op runs: inference tensors, views that may not change
    (autograd/views.py), leaves that require grad."""
    check_inference_inplace(target)
    if _before_inplace_write is not None:   # Note [Mutating saved tensors] in autograd/graph.py
        _before_inplace_write(target)
    if not _grad_state.grad_enabled or not _requires_grad(inputs):
        return
    if target._base is not None and spec.node_cls is not None:
        _views.check_inplace_view(target)
    if target._requires_grad and target.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    _refresh_views(inputs)


def _refresh_views(inputs) -> None:
    """torch collects an op's graph edges before its kernel runs: a view whose history cannot
    be made anew raises then (autograd/views.py), before any error of the kernel's."""
    for t in inputs:
        if isinstance(t, _Tensor) and t._base is not None and t._requires_grad:
            t.grad_fn


def _overlap_status(a, b):
    from .creation import overlap_status
    return overlap_status(a, b)


def _check_no_partial_overlap(target, inputs, full=False) -> None:
    """torch's refusal to write into memory that an input partly shares (``x[1:].add_(x[:-1])``);
    with `full`, into an input's memory at all (index_select's out=, Note [out= and memory
    overlap]). Two arrays that own their memory never share it: only a view (an array with a
    base) can, or two tensors over one array."""
    x = target._data
    for a in inputs:
        if not isinstance(a, _Tensor):
            continue
        y = a._data
        if a is target:
            status = "full"
        elif (x.base is not None or y.base is not None or x is y) \
                and _npb.may_share_memory(x, y):
            status = _overlap_status(target, a)
        else:
            continue
        if status == "partial" or (full and status == "full"):
            from .indexing import _PARTIAL_MSG
            raise RuntimeError(_PARTIAL_MSG)


# Note [out= and memory overlap]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# dyngrad's kernels compute into new arrays and copy the result into out=, so an out= that
# shares memory with an input could be written without harm; but torch refuses such calls
# before its kernel runs, and so do we. ``OpSpec.out_overlap`` says what an op's out= may share:
# - "internal" (the default): anything but its own elements. An expanded out=
#   (``zeros(1).expand(3)``) would get several results written to one element, the last kept.
# - "partial": nor part of an input (``add(a[:-1], 1, out=a[1:])``, or ``neg(a, out=a.t())``:
#   the same memory in another order), though it may be an input exactly (``add(a, b,
#   out=a)``): the pointwise ops (TensorIterator's check), addmm and its kind, scatter, cumsum.
# - "full": no memory of an input at all: index_select, gather, take, masked_select, cross
#   (kthvalue and cat check the same in their own out= paths).
# - None: anything; torch checks nothing for most reductions (sum, amax, any...), bmm, mv,
#   tril and triu, which write several results into an expanded out= (ops/__init__.py lists
#   them).
# The composites that write their own out= check an expanded one where they write (linalg's,
# softmax, kron, fft, isin, multinomial...).
def check_out_overlap(out, inputs, rule="partial") -> None:
    """torch's checks of an out= tensor against itself and the op's `inputs` by `rule`, an
    ``OpSpec.out_overlap`` (Note [out= and memory overlap])."""
    out._check_writeable()
    if rule != "internal":
        _check_no_partial_overlap(out, inputs, rule == "full")


def _write_inplace(spec, target, result, inputs=(), rest=(), kwargs=None, record=False):
    """Copy an op's result into `target` (``x.add_(y)``) after torch's checks.

    With autograd on, the target's history is rebased: its ``grad_fn`` becomes the in-place
    op's node, whose first edge is the target's old gradient edge.
    """
    if result.shape != target._data.shape:   # torch checks the shape before the dtype
        raise RuntimeError(f"output with shape {shape_str(target._data.shape)} doesn't match "
                           f"the broadcast shape {shape_str(result.shape)}")
    if result.dtype is not target._data.dtype:   # (a result of the target's dtype casts)
        res_dt = D.from_np(result.dtype)
        dst_dt = target.dtype
        if res_dt.category > dst_dt.category:
            raise RuntimeError(f"result type {res_dt._legacy} can't be cast to the desired "
                               f"output type {dst_dt._legacy}")
    target._check_writeable()
    is_view = target._base is not None
    if record and "self" in spec.saves:
        # the formula needs self's value from before the write: save a copy with its history
        # (in its layout, as torch's clone: the formula's gradient may be laid out after it)
        original = _wrap(target._data.copy(order="K"))
        original._grad_fn = target.grad_fn
        original._requires_grad = target._requires_grad
        if target._fw_grad is not None:
            # and its tangent from before the write (propagate_inplace then updates the
            # target's in place): forward-over-reverse reads it, as torch's saved original
            with _fwad._off():
                _fwad._set_fw_grad(original, target._fw_grad.clone())
        if getattr(target, "_output_nr", 0):
            original._output_nr = target._output_nr
        inputs = (original,) + tuple(inputs[1:])
    if record:
        # the node saves its inputs before the write, as torch does: an input that aliases the
        # target (``t.mul_(t)``) is then caught by the version check in backward
        node = _record(spec, inputs, rest, kwargs, ())
    if result is not target._data:      # (see Note [In-place kernels write into the target])
        _npb.xp.copyto(target._data, result, casting="unsafe")
    _wrote(target, spec)
    if record:
        _attach_inplace(spec, node, target, is_view)
    return target


def _attach_inplace(spec, node, target, is_view) -> None:
    """Make the in-place op's node `target`'s history (or its base's, through CopySlices)."""
    if spec.saves_result:
        saved = list(node._held)
        for pos, _ in spec.saved_outputs:
            saved.insert(pos, SavedTensor(target, is_output=True))
        node._held = tuple(saved)
    was_required = target._requires_grad
    if target._data.dtype.kind in "fcV":
        target._grad_fn = node
        target._requires_grad = True
    target._output_nr = 0
    if is_view:   # the base takes the change: Note [Views and in-place: CopySlices]
        _views.rebase_view_history(target, node)
    elif target._retains_grad:
        _views.follow_retains_grad(target)
    elif not was_required and "_views" in target.__dict__:
        _views.base_requires_grad(target)


def _check_no_requires_grad(spec, inputs) -> None:
    """torch's check_no_requires_grad: an input its derivatives declare non-differentiable
    (a loss's class weights, batch norm's running statistics) may not require grad."""
    for i, name, op_name in spec.non_differentiable:
        t = inputs[i] if i < len(inputs) else None
        if isinstance(t, _Tensor) and t._requires_grad:
            raise RuntimeError(f"The function '{op_name}' is not differentiable with respect to "
                               f"argument '{name}'. This input cannot have requires_grad True.")


def _write_out(spec, out, result):
    """Write into ``out=`` (resizing it as torch does)."""
    res_dt = D.from_np(result.dtype)
    if res_dt.category > out.dtype.category:
        raise RuntimeError(f"result type {res_dt._legacy} can't be cast to the desired output "
                           f"type {out.dtype._legacy}")
    if out._data.shape != result.shape:
        from ._selection import resize_output   # (it imports ops that import this module)
        resize_output(out, result.shape)        # (torch warns when out had elements)
        if result.ndim > 1 and result.size > 1 and not result.flags.c_contiguous:
            # a resized out takes the computed layout, as TensorIterator gives it
            itemsize = result.itemsize
            out._data = _npb.strided(out._storage_obj().buffer, result.shape,
                                     tuple(st // itemsize for st in result.strides), out._offset)
    _npb.xp.copyto(out._data, result, casting="unsafe")
    out._bump_version()
    return out


def _translate_value_error(spec, inputs, e):
    """NumPy's broadcasting ValueError -> torch's RuntimeError text; a kernel's own check
    (``_utils.value_error``) stays a ValueError."""
    if getattr(e, "torch_check", False):
        return e
    msg = str(e)
    if "broadcast" in msg:
        shapes = [tuple(a._data.shape) for a in inputs if isinstance(a, _Tensor)]
        if len(shapes) >= 2:
            return broadcast_error(shapes)
    return RuntimeError(f"{spec.base}: {msg}")


