"""Custom autograd functions: ``Function``, its ``ctx`` and ``once_differentiable``.

A subclass of ``Function`` declares ``forward`` and ``backward`` as static methods and is used
through ``apply``. As in torch, the ctx that ``forward`` fills is the very node that ends up as
the outputs' ``grad_fn``: each subclass ``Foo`` gets a node class ``FooBackward`` (made by the
metaclass) deriving from ``BackwardCFunction``, a ``Node`` the engine runs like any other.

Note [Custom Function outputs]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``forward`` runs under no_grad, so its results carry no history. ``apply`` then attaches the
node to each output, as torch's ``_wrap_outputs`` does:

* an input marked dirty (``ctx.mark_dirty``) is returned as the same object, its history rebased
  onto the node, as a built-in in-place op would (through CopySlices for a view);
* an input returned as-is (not dirty) becomes a new view of it, so that the input's own history
  is left alone;
* outputs marked non-differentiable, and outputs of integer dtype, get no history: one that
  requires grad (an input, even a dirty one) comes back as a detached alias, the input's own
  history left alone;
* everything else gets ``grad_fn`` = the node and its output number. A view output (an input
  returned as-is, or a view made by forward) is marked IN_CUSTOM_FUNCTION: rewriting its
  history after an in-place change would bypass the user's backward, so torch forbids in-place
  ops on it and on its base's other views (autograd/views.py raises torch's message).

When nothing is recorded (no_grad, or no input requires grad) an input returned as-is still
comes back as a new tensor: an alias under no_grad, a view otherwise; and marking an input
dirty still counts as a write (its version moves once more), as in torch.

Tensors given to ``save_for_backward`` are saved after this, with the version they then have: a
saved output is kept as a ``SavedTensor`` output (Note [Saved outputs and reference cycles]).
"""
from __future__ import annotations

import functools
import inspect
import warnings

from . import _function_vmap
from . import forward_ad as _fwad
from . import grad_mode as _gm
from .graph import Node, _next_sequence_nr, gradient_edge
from .anomaly_mode import _state as _anomaly
from .saved import FREED_MESSAGE, SavedTensor

_state = _gm._state
_fw_state = _fwad._state

_LEGACY_MESSAGE = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


_DIRTY_VIEW_MESSAGE = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() for "
    "example) or make your Function only return one Tensor (potentially splitting it into two "
    "Functions: one doing the inplace that returns a single Tensor and a second one that does "
    "the other operations). You can ask on the forum https://discuss.pytorch.org/ if you need "
    "help to do this change.")


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _type_name(value) -> str:
    """The type's name as torch's messages print it (``int``, ``numpy.ndarray``)."""
    from ..ops._arg_parser import type_name
    return type_name(value)


class FunctionCtx:
    """What ``forward`` / ``setup_context`` may tell ``backward`` (torch.autograd.function)."""

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for ``backward``; read them back with ``ctx.saved_tensors``.
        (Their types are checked when the node is recorded: torch lets a call that records
        nothing save anything.)"""
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Save tensors (or None) for ``jvp``, which reads them as ``ctx.saved_tensors``."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Mark inputs that ``forward`` modified in place (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args) -> None:
        """Mark outputs that get no gradient (their grads reach backward as zeros)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether undefined output gradients reach ``backward`` as zeros (default) or None."""
        if type(value) is not bool:   # (torch's binding takes a bool only; its message, as is)
            raise TypeError("set_materialize_grads received an invalid combination of arguments "
                            "- got (), but expected (bool)")
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function, and the ``ctx`` its methods receive."""

    _forward_cls = None
    _runs_without_grads = True   # (see Node)
    materialize_grads = True
    to_save = None
    dirty_tensors = None
    non_differentiable = None
    saved_for_forward = None   # (save_for_forward's tensors: jvp reads them during apply only)
    _held = None
    _freed = False
    _in_jvp = False
    _input_meta = ()
    _output_meta = ()
    _is_tensor_arg = ()
    needs_input_grad = ()

    def __init__(self):
        self._seq = _next_sequence_nr()
        self.next_functions = ()

    def __repr__(self) -> str:
        cls = type(self)
        return f"<{cls.__module__}.{cls.__qualname__} object at {id(self):#x}>"

    # -- ctx -----------------------------------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:   # jvp reads what save_for_forward kept (nothing: empty)
            return tuple(self.saved_for_forward or ())
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        saved = self._held
        if saved is None:   # in forward, or not recorded (no_grad): nothing saved yet, as torch
            return ()
        return tuple([None if s is None else s.unpack(self) for s in saved])

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple:
        """The SavedTensor boxes of what forward saved (register_hooks works on them)."""
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        return () if self._held is None else self._held

    # -- the engine's interface ----------------------------------------------------------------
    def input_metadata(self, i):
        return self._input_meta[i]

    def release_variables(self) -> None:
        self._held = None
        self._freed = True

    def apply(self, grads):
        """Gradients w.r.t. the tensor inputs, from the user's ``backward`` (or ``vjp``)."""
        metas = self._output_meta
        grads = list(grads) + [None] * (len(metas) - len(grads))
        if self.materialize_grads:
            from .._dtypes import from_np
            from ..ops.creation import zeros
            for i, meta in enumerate(metas):
                if grads[i] is None and meta is not None:
                    grads[i] = zeros(meta[0], dtype=from_np(meta[1]))
        cls = self._forward_cls
        bwd = cls.backward
        vjp = cls.vjp
        if bwd is not Function.backward and vjp is not Function.vjp and bwd is not vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        user_fn = vjp if vjp is not Function.vjp else bwd
        result = user_fn(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        return self._tensor_grads(result)

    def _tensor_grads(self, result) -> tuple:
        """Check the count as torch does, then keep the gradients of tensor inputs only."""
        is_tensor = self._is_tensor_arg
        n = len(is_tensor)
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]   # trailing Nones beyond the inputs are allowed
        if len(result) != n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(result)})")
        out = []
        Tensor = _tensor_cls()
        for i, (g, t) in enumerate(zip(result, is_tensor)):
            if t:
                if g is not None and not isinstance(g, Tensor):
                    raise RuntimeError(f"expected Variable or None (got {_type_name(g)})")
                out.append(g)
            elif g is not None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than "
                                   f"None at position {i + 1}, but the corresponding forward "
                                   "input was not a Variable")
        return tuple(out)


class FunctionMeta(type):
    """Gives each Function subclass its node class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": __name__,
                                  "__qualname__": name + "Backward"})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom autograd operations (torch.autograd.Function).

    Subclasses define static ``forward(ctx, *args)`` (or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grad_outputs)`` returning
    one gradient (or None) per input of ``forward``; call them with ``Cls.apply(*args)``.

    Example::

        >>> class Exp(Function):
        ...     @staticmethod
        ...     def forward(ctx, i):
        ...         result = i.exp()
        ...         ctx.save_for_backward(result)
        ...         return result
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         result, = ctx.saved_tensors
        ...         return grad_output * result

    ``jvp(ctx, *tangents)`` gives forward-mode AD (autograd/forward_ad.py): one tangent per
    input of ``forward`` (zeros for a floating tensor without one, None for other arguments),
    returning one per output; it reads ``ctx.save_for_forward``'s tensors as
    ``ctx.saved_tensors``.

    Under ``dyngrad.func.vmap``, a Function needs a ``vmap(info, in_dims, *args)`` staticmethod
    or ``generate_vmap_rule = True``, as in torch (Note [A custom Function's vmap rule] in
    autograd/_function_vmap.py).
    """

    generate_vmap_rule = False
    # a custom op's Function (library/): under vmap alone it runs sample by sample, as torch's
    # batched fallback runs the op outside the transforms, where its old-style Function is let be
    _vmap_fallback = False

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(_LEGACY_MESSAGE)

    @staticmethod
    def forward(*args, **kwargs):
        """The computation (runs under no_grad); see the class docstring."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Fill ``ctx`` from the inputs and output (for a ``forward`` without ctx)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Gradients w.r.t. the inputs of ``forward`` from gradients w.r.t. its outputs."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override "
                                  "the vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record the node when grad mode is on and an input needs grad."""
        new_style = _is_setup_context_defined(cls.setup_context)
        mapped = None
        if _transform_active():
            if new_style:
                mapped = _function_vmap.vmap_randomness(cls)
            elif not (cls._vmap_fallback and _function_vmap.only_mapping()):
                raise RuntimeError(
                    "In order to use an autograd.Function with functorch transforms (vmap, grad, "
                    "jvp, jacrev, ...), it must override the setup_context staticmethod. For "
                    "more details, please see "
                    "https://pytorch.org/docs/main/notes/extending.func.html")
        if new_style:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        elif kwargs:   # torch passes keyword arguments on as positional ones
            bound = inspect.signature(cls.forward).bind(None, *args, **kwargs)
            args, kwargs = bound.args[1:], {}
        if mapped is not None and _function_vmap.has_tensor(args):
            randomness, innermost = mapped   # Note [A custom Function's vmap rule]
            if innermost:
                return _function_vmap.call_rule(cls.vmap, args, randomness)
            return _apply(cls, args, kwargs, new_style, randomness)
        return _apply(cls, args, kwargs, new_style)


def _transform_active() -> bool:
    """Whether a torch.func transform is running its function (func/_levels.py)."""
    from ..func import _levels
    return _levels.active()


def _is_setup_context_defined(fn) -> bool:
    return fn is not Function.setup_context


def _apply(cls, args, kwargs, new_style, vmap_randomness=None):
    """`cls` applied to `args`; its output computed by its ``vmap`` rule instead of ``forward``
    when `vmap_randomness` is given (Note [A custom Function's vmap rule])."""
    Tensor = _tensor_cls()
    ctx = cls._backward_cls()
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    ctx._is_tensor_arg = is_tensor
    ctx.needs_input_grad = tuple(t and a._requires_grad for a, t in zip(args, is_tensor))
    executable = _state.grad_enabled and any(ctx.needs_input_grad)
    tensor_args = [a for a, t in zip(args, is_tensor) if t]
    if executable:   # edges before forward: a dirty input's history is its old one
        ctx.next_functions = tuple(gradient_edge(a) if a._requires_grad else (None, 0)
                                   for a in tensor_args)
        ctx._input_meta = tuple((a._data.shape, a._data.dtype) for a in tensor_args)
    prev = _state.grad_enabled
    _state.grad_enabled = False
    forward_ad = _fw_state.active   # forward sees no tangents: jvp() gives the outputs' ones
    _fw_state.active = False
    try:
        if vmap_randomness is not None:
            outputs = _function_vmap.call_rule(cls.vmap, args, vmap_randomness,
                                               as_forward=True)
            cls.setup_context(ctx, args, outputs)
        elif new_style:
            outputs = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, outputs)
        else:
            outputs = cls.forward(ctx, *args, **kwargs)
    finally:
        _state.grad_enabled = prev
        _fw_state.active = forward_ad
    is_tuple = isinstance(outputs, tuple)
    outs = list(outputs) if is_tuple else [outputs]
    _check_marked(ctx)
    if not executable:
        _alias_outputs(ctx, tensor_args, outs)
        if forward_ad:
            _fwad.function_jvp(cls, ctx, args, outs)
        return tuple(outs) if is_tuple else outs[0]
    _wrap_outputs(ctx, tensor_args, outs)
    _save(ctx, outs)
    if _anomaly.enabled:   # anomaly mode: remember the forward call (anomaly_mode.py)
        from .anomaly_mode import record_node
        record_node(ctx)
    if forward_ad:
        _fwad.function_jvp(cls, ctx, args, outs)
    if ctx.saved_for_forward is not None:   # (torch's node reads None once apply returned)
        ctx.saved_for_forward = None
    return tuple(outs) if is_tuple else outs[0]


def _check_marked(ctx) -> None:
    """What mark_dirty / mark_non_differentiable were given must be tensors (torch's messages,
    which end where the argument's position would be printed)."""
    Tensor = _tensor_cls()
    if any(not isinstance(t, Tensor) for t in ctx.dirty_tensors or ()):
        raise RuntimeError("mark_dirty can only accept variables, but argument ")
    if any(not isinstance(t, Tensor) for t in ctx.non_differentiable or ()):
        raise RuntimeError("mark_non_differentiable only accepts variable arguments, but got ")


def _alias_outputs(ctx, tensor_args, outs) -> None:
    """Nothing recorded: inputs returned as-is still come back as new tensors (an alias under
    no_grad, a view otherwise), and dirty inputs count the marking as a write, as in torch."""
    dirty = {id(t) for t in (ctx.dirty_tensors or ())}
    input_ids = {id(a) for a in tensor_args}
    for nr, out in enumerate(outs):
        if id(out) in dirty:
            out._bump_version()
        elif id(out) in input_ids:
            if _state.grad_enabled:
                outs[nr] = out._make_view(out._data.shape, out.stride(), out._offset)
            else:
                outs[nr] = out.detach()


def _wrap_outputs(ctx, tensor_args, outs) -> None:
    """Attach ctx to the outputs (see Note [Custom Function outputs])."""
    from . import views as _views
    Tensor = _tensor_cls()
    dirty = {id(t) for t in (ctx.dirty_tensors or ())}
    non_diff = {id(t) for t in (ctx.non_differentiable or ())}
    input_ids = {id(a) for a in tensor_args}
    out_ids = {id(o) for o in outs}
    if any(i not in out_ids for i in dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not "
                           "returned as output. The inputs that are modified inplace must all "
                           "be outputs of the Function.")
    metas = []
    for nr, out in enumerate(outs):
        if not isinstance(out, Tensor):
            metas.append(None)
            continue
        metas.append((out._data.shape, out._data.dtype))
        is_input, is_dirty = id(out) in input_ids, id(out) in dirty
        if out._data.dtype.kind not in "fcV" or id(out) in non_diff:
            if is_dirty:
                out._bump_version()   # torch counts the marking as one more write
            if out._requires_grad:
                if is_input:   # a detached alias: the input keeps its history, dirty or not
                    outs[nr] = out.detach()
                else:
                    out._requires_grad = False
            elif is_input and not is_dirty:
                outs[nr] = out._make_view(out._data.shape, out.stride(), out._offset)
            continue
        if is_dirty:
            _rebase_dirty(ctx, out, nr, len(outs))
            continue
        if is_input:   # an input returned as-is: a view of it takes the history
            out = outs[nr] = out._make_view(out._data.shape, out.stride(), out._offset)
        out._grad_fn = ctx
        out._requires_grad = True
        out._output_nr = nr
        if out._base is not None:
            out._view_version = out._storage_obj().version
            out._view_creation = _views.IN_CUSTOM_FUNCTION   # no in-place through it
    ctx._output_meta = tuple(metas)


def _rebase_dirty(ctx, out, nr, n_outputs) -> None:
    """A dirty input's history becomes ctx, as for a built-in in-place op (_attach_inplace).
    A dirty view goes through CopySlices, as in torch: ctx's backward gets the view's slice of
    the base's gradient; what it returns for its first input is written back into that slice
    and the rest go to its other inputs. That holds only with one output, so a Function that
    writes into a view must return nothing else (torch's rule)."""
    from . import views as _views
    out._bump_version()   # torch counts the marking as one more write
    if out._requires_grad and out.grad_fn is None and not out._rg_inherited:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    was_required = out._requires_grad
    if out._base is not None:
        if n_outputs > 1:
            raise RuntimeError(_DIRTY_VIEW_MESSAGE)
        _views.check_inplace_view(out)
        _views.rebase_view_history(out, ctx)
        return
    out._grad_fn = ctx
    out._requires_grad = True
    out._output_nr = nr
    if not was_required and "_views" in out.__dict__:
        _views.base_requires_grad(out)


def _save(ctx, outs) -> None:
    to_save = ctx.to_save
    if to_save is None:
        return
    Tensor = _tensor_cls()
    for i, t in enumerate(to_save):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError("save_for_backward can only save variables, but argument "
                            f"{i} is of type {_type_name(t)}")
    out_nr = {id(o): nr for nr, o in enumerate(outs)}
    saved = []
    for t in to_save:
        if t is None:
            saved.append(None)
            continue
        nr = out_nr.get(id(t))
        if nr is not None and t._grad_fn is ctx:
            saved.append(SavedTensor(t, is_output=True, output_nr=nr))
        else:
            saved.append(SavedTensor(t))
    ctx._held = tuple(saved)
    ctx.to_save = None


# ---------------------------------------------------------------------------------------------
# once_differentiable
# ---------------------------------------------------------------------------------------------
class DelayedError(Node):
    """A node that raises its message when reached by backward (torch's ``Error`` node)."""

    __slots__ = ("msg",)

    def __init__(self, msg: str, edges):
        self._seq = _next_sequence_nr()
        self.msg = msg
        self.next_functions = tuple(edges)

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads):
        raise RuntimeError(self.msg)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"


def once_differentiable(fn):
    """Run a ``backward`` under no_grad; differentiating its result raises (torch's decorator)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with _gm.no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _state.grad_enabled:
            return outputs
        Tensor = _tensor_cls()
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        fakes = []
        for v in outs:
            if v is not None:
                v = v.detach()
                v.requires_grad = True
            fakes.append(v)
        err = DelayedError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable",
                           [gradient_edge(v) if v is not None else (None, 0) for v in fakes])
        wrapped = []
        for nr, v in enumerate(fakes):
            if v is not None:
                v = v.detach()
                v._grad_fn = err
                v._requires_grad = True
                v._output_nr = nr
            wrapped.append(v)
        return tuple(wrapped) if isinstance(outputs, tuple) else wrapped[0]
    return wrapper


class InplaceFunction(Function):
    """Kept for backward compatibility, as in torch."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Not supported (torch's legacy nested-IO helper)."""
