"""Forward-mode AD: dual tensors and tangent propagation (torch.autograd.forward_ad).

Inside a ``dual_level``, ``make_dual(x, t)`` gives a tensor whose *tangent* is ``t``; every op
run on it computes the output's tangent from the inputs' tangents with the op's JVP rule
(Jacobian-vector product), and ``unpack_dual(y)`` reads ``(primal, tangent)`` back::

    with forward_ad.dual_level():
        x = forward_ad.make_dual(x, v)
        y = f(x)
        jvp = forward_ad.unpack_dual(y).tangent      # J_f(x) @ v

As in torch only one level exists at a time; leaving it forgets every tangent made in it.

Note [Where tangents live]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A tangent is stored on its tensor as ``_fw_grad`` (a class default of None on Tensor, set in the
instance ``__dict__`` only for dual tensors), so reading it costs one attribute read and tensors
that never see forward AD pay nothing. The tensors that got a tangent in the current level are
remembered by weak reference so that leaving the level can drop them all, as torch's level
destructor does.

Note [Forward AD in the dispatcher]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``_state.active`` is True while a level is entered. The dispatcher (ops/_dispatch.py) tests that
one flag after an op has run (general path, views; its fast paths step aside while a level
exists, see Note [Open inference blocks] in grad_mode.py) and, only when it is set, calls
``propagate`` here, which returns at once unless some input has a tangent; with no level the
whole feature costs that one test per op. The op's JVP rule then runs with ``active`` switched
off, so that the ops inside the formula do not propagate tangents themselves (torch allows a
single level, so tangents of tangents never exist). Grad mode stays as it is: a tangent computed
from inputs that require grad records a graph, so reverse mode can differentiate through forward
mode, as in torch. Two more hooks sit on the general path only: ``check_supported`` refuses an
op without a rule before any of its checks run (torch's order), and in-place ops go through
``propagate_inplace``, which computes the tangent from the inputs as they were before the write
and then updates the target's tangent in place, so the tangents of its views follow. A custom
``Function`` runs its ``forward`` with propagation off and asks its ``jvp`` (``function_jvp``).

Note [JVP rules]
~~~~~~~~~~~~~~~~
Each op declares its JVP next to its backward formula (``@mm.jvp`` or ``exp.jvp(RULE)``), as
torch's derivatives.yaml gives ``result:`` beside ``self:``. A rule is called as
``rule(ctx, *tangents)`` with one tangent per op input (a list for list inputs such as cat's):
``ctx`` is a node-like object exposing the same interface as in backward (``ctx.saved_tensors``
holding the *primal* values the op saves, ``ctx.dim``, ``ctx.self_shape``…), plus
``ctx.primals`` (the op's inputs) and ``ctx.result`` (its output, or tuple of outputs). A
differentiable tensor input without a tangent gets zeros; a Python number in a differentiable
slot gets ``0``; inputs without derivative (indices, masks, ``where``'s condition) get None.
A few generic rules cover most ops, as torch's ``auto_linear`` / ``auto_element_wise`` do:

* ``AUTO_LINEAR``: the op is linear in its differentiable inputs (views, sum, cat, index...): the
  tangent is the op applied to the tangents. A view of a dual tensor thus gets the same view of
  its tangent.
* ``AUTO_ELEMENT_WISE``: the Jacobian w.r.t. each input is diagonal (pointwise ops): the JVP is
  the backward formula applied to each (broadcast) tangent, conjugated for complex values.
  See Note [A real input's tangent in a complex output].
* ``LINEAR_IN_GRAD_OUTPUT``: a backward primitive ``op(grad_output, self, ...)`` linear in
  ``grad_output``, whose other tensors give only shapes or masks (``avg_pool2d_backward``,
  ``hardtanh_backward``, ``nll_loss_backward``…): the op on ``grad_output``'s tangent and the
  other primals. See Note [Backward primitives in forward mode].
* ``MULTILINEAR``: linear in each input separately (``mm``, ``bmm``, ``dot``, ``mul``): the
  sum over inputs with a tangent of the op with that input replaced (``self_t @ mat2 +
  self @ mat2_t``).
* ``FROM_BACKWARD``: any other op with a differentiable backward formula. The VJP ``u -> J^T u``
  is linear in ``u``; differentiating ``<J^T u, t>`` w.r.t. ``u`` gives ``J t`` (the
  "double-backward trick"). It costs two backward passes and inherits the backward's choices at
  singular points, so ops where torch's forward formula differs (max/amax ties, clamp bounds,
  norms at 0, var, cholesky, eigh, svd, logcumsumexp…) have hand-written rules instead.

An op without a rule raises torch's NotImplementedError when a tangent reaches it.

Note [Backward primitives in forward mode]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Forward-over-reverse (``func.jvp(func.grad(f))``, ``hessian``) sends tangents through the ops a
backward formula calls: ``threshold_backward``, ``slice_backward``, the pool and pad backwards…
Most are linear in the incoming gradient. Those that read another input only for its shape or
its indices (``select_backward``, the max pools' backwards, which take ``self`` and ignore its
values) are ``AUTO_LINEAR``, as in torch, so a tangent on ``self`` alone gives a zero tangent.
Those that read ``self``'s values as a mask, or its shape with nothing torch calls linear
(hardtanh's and the other masked activations' backwards, the average pools', the pads',
nll_loss's), use ``LINEAR_IN_GRAD_OUTPUT``: torch's formulas there are ``op(grad_output_t,
self_p, ...)``, which never read ``self_t``, so a tangent on ``self`` alone gives none
(``threshold_backward``'s adds ``zeros_like(self_t)``: a zero one). The rest have small formulas
of their own (``gelu_backward``, ``_prelu_kernel_backward``), and those torch refuses
(``hardsigmoid_backward``, ``_cdist_backward``…) raise its error, with its wording.

Note [A real input's tangent in a complex output]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``AUTO_ELEMENT_WISE`` hands a backward formula an input's tangent as the "gradient", while in
backward the gradient always has the output's dtype. The formulas read the gradient's dtype to
see a complex output (Note [Complex gradients] in ops/_autograd_utils.py): a real tangent of a
real input would skip their complex branch, so ``ldexp(complex, float)`` lost its ``conj`` and
``pow(complex, float_tensor)`` its ``handle_r_to_c``. torch's generated JVPs keep both (its
``handle_r_to_c(exponent, ...)`` tests the input's dtype, so a real exponent's term of a complex
``pow`` is real, as torch computes it). So a real tangent is first made complex when the output
is: the same values, with the formula's complex path taken.
"""
from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from . import grad_mode as _gm

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]


class _FwState:
    """Global (as in torch, not thread-local) forward-AD state read by the dispatcher."""

    active = False     # a level is entered and no JVP rule is running: see Note [Forward AD...]
    level = -1         # torch's _current_level
    generation = 0     # counts the levels entered: a saved output's tangent is of one of them


_state = _FwState()
_dual_tensors: list = []   # weak references to tensors given a tangent in the current level
_prune_at = 1024           # drop dead references once the list grows past this


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


# ---------------------------------------------------------------------------------------------
# Levels
# ---------------------------------------------------------------------------------------------
def enter_dual_level() -> int:
    """Enter a new forward grad level (only one may exist); returns its index."""
    if _state.level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = 0
    _state.active = True
    _state.generation += 1
    _mode_changed()
    return 0


def _mode_changed() -> None:
    """Tell the dispatcher a level was entered or left: its fast paths step aside inside one."""
    if _gm.on_mode_change is not None:
        _gm.on_mode_change()


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit the forward grad level, deleting every tangent associated with it."""
    if level is None:
        level = _state.level
    if level != _state.level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    for ref in _dual_tensors:
        t = ref()
        if t is not None:
            t.__dict__.pop("_fw_grad", None)
    _dual_tensors.clear()
    _state.level = -1
    _state.active = False
    _mode_changed()


class dual_level(_gm._DecoratorContextManager):
    """Context manager (and decorator) entering a forward AD level for its block.

    Example::

        >>> with dual_level():
        ...     inp = make_dual(x, x_t)
        ...     out = f(inp)
        ...     y, jvp = unpack_dual(out)
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()


def _check_level(level: int, who: str) -> None:
    if level != 0:
        raise RuntimeError(f"Invalid level given to {who}")
    if _state.level < 0:
        raise RuntimeError("Trying to access a forward AD level with an invalid index. This "
                           "index was either not created or is already deleted.")


# ---------------------------------------------------------------------------------------------
# Dual tensors
# ---------------------------------------------------------------------------------------------
def _size_error(shape, tangent_shape) -> RuntimeError:
    return RuntimeError(
        "Trying to set a forward gradient that has a different size than that of the original "
        f"Tensor, this is not supported. Tensor is of size {list(shape)} while the given "
        f"forward gradient is of size {list(tangent_shape)}.")


def _set_fw_grad(t, tangent) -> None:
    """Make `tangent` the forward gradient of `t` in the current level."""
    global _prune_at
    if "_fw_grad" not in t.__dict__:
        _dual_tensors.append(weakref.ref(t))
        if len(_dual_tensors) > _prune_at:   # a long level: forget the dead, amortised
            _dual_tensors[:] = [r for r in _dual_tensors if r() is not None]
            _prune_at = max(1024, 2 * len(_dual_tensors))
    t._fw_grad = tangent
    _share_with_saved_output(t, tangent)


def _share_with_saved_output(t, tangent) -> None:
    """If `t`'s node saved `t` as its output, that saved output takes `tangent` too (Note [Saved
    outputs keep their tangent] in saved.py)."""
    saved = getattr(t._grad_fn, "_held", None)
    if saved:
        data = t._data
        for entry in saved:
            if getattr(entry, "is_output", False) and entry.version is not None \
                    and entry.data is data:
                entry.fw = (_state.generation, tangent)


def _restore_saved_tangent(t, fw) -> None:
    """Give an unpacked saved output its original's tangent, if from the level still open."""
    generation, tangent = fw
    if _state.level >= 0 and generation == _state.generation:
        _set_fw_grad(t, tangent)


def make_dual(tensor, tangent, *, level: int | None = None):
    """A new tensor aliasing `tensor` whose forward gradient (tangent) is `tangent`.

    The tangent is kept as it is when its strides match `tensor`'s, else copied into
    `tensor`'s layout, as torch does. The result is a view of `tensor`, so backward through it
    reaches `tensor` (``ViewBackward0``).
    """
    if level is None:
        level = _state.level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    _check_level(level, "_make_dual")
    if tensor._fw_grad is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    if tangent._data.shape != tensor._data.shape:
        raise _size_error(tensor._data.shape, tangent._data.shape)
    with _off():
        if tangent.stride() != tensor.stride() and tensor._data.size > 1:
            from ..ops.creation import empty_strided
            copy = empty_strided(tensor.shape, tensor.stride(), dtype=tangent.dtype)
            tangent = copy.copy_(tangent)
        dual = tensor.view(tensor.shape)
    _set_fw_grad(dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """``unpack_dual``'s result: the ``primal`` value and its ``tangent`` (or None)."""

    primal: Any
    tangent: Any


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a dual tensor: the primal is a view of `tensor` without a
    tangent, the tangent is the forward gradient as it is (None when there is none)."""
    if level is None:
        level = _state.level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, _tensor_cls()):
        from ..ops._arg_parser import type_name
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type_name(tensor)}")
    from ..ops.shape import alias
    prev = _state.active
    _state.active = False
    try:
        primal = alias(tensor)
    finally:
        _state.active = prev
    # inside a custom Function's forward forward AD is off: no tangent is seen, as in torch
    live = _state.active and level == _state.level   # a level that no longer exists: none
    return UnpackedDualTensor(primal, tensor._fw_grad if live else None)


class _off:
    """Switch tangent propagation off for a block (a JVP rule, the API's own ops)."""

    def __enter__(self):
        self.prev = _state.active
        _state.active = False

    def __exit__(self, *exc):
        _state.active = self.prev


# ---------------------------------------------------------------------------------------------
# Propagation (called by the dispatcher only while a level is active)
# ---------------------------------------------------------------------------------------------
def not_implemented(spec) -> NotImplementedError:
    """torch's error for an op without a forward derivative."""
    return NotImplementedError(
        f"Trying to use forward AD with {spec.base} that does not support it because it has "
        "not been implemented yet.\nPlease file an issue to PyTorch at "
        "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we "
        "can prioritize its implementation or submit a PR adding the implementation to "
        "derivatives.yaml")


class _Primal:
    """A saved slot of a JVP ctx: the primal value itself (no version check: nothing is
    deferred, the rule runs right after the op)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def unpack(self, node):
        return self.value

    _unpack_saved = unpack


_NEEDED = object()   # a non-None "edge": ctx.needs_input_grad is True for inputs with tangents


def _jvp_ctx(spec, inputs, rest, kwargs, outs, present):
    """A node of the op's class filled as `_record` would, holding primal values: the rule
    reads it exactly as the backward formula reads its ctx (see Note [JVP rules])."""
    Tensor = _tensor_cls()
    ctx = object.__new__(spec.node_cls)
    diff = spec.diff_index
    linked = range(len(inputs)) if diff is None else diff
    ctx.next_functions = tuple((_NEEDED if present[i] else None, 0) for i in linked)
    ctx._meta = tuple((inputs[i]._data.shape, inputs[i]._data.dtype)
                      if isinstance(inputs[i], Tensor) else None for i in linked)
    ctx._args = rest
    ctx._kwargs = kwargs
    from_output = dict(spec.saved_outputs)   # position in saves -> output number
    saved = []
    for pos, n in enumerate(spec.saves):
        if pos in from_output:
            saved.append(_Primal(outs[from_output[pos]]))
        elif n in spec.inputs:
            saved.append(_Primal(inputs[spec.inputs.index(n)]))
        else:
            saved.append(_Primal(None))
    ctx._held = tuple(saved)
    ctx.primals = inputs
    ctx.result = outs[0] if len(outs) == 1 else outs
    return ctx


def _input_tangents(spec, inputs):
    """(tangents for the rule, which inputs really have one): see Note [JVP rules]."""
    Tensor = _tensor_cls()
    diff = spec.diff_index
    tangents = []
    present = []
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor):
            t = x._fw_grad
            present.append(t is not None)
            if t is None and (diff is None or i in diff):
                from ..ops.creation import zeros_like
                t = zeros_like(x)
            tangents.append(t)
        else:
            present.append(False)
            tangents.append(0 if x is not None and (diff is None or i in diff)
                            and not isinstance(x, (list, tuple)) else None)
    return tangents, present


def _has_tangent(inputs) -> bool:
    Tensor = _tensor_cls()
    for x in inputs:
        if isinstance(x, Tensor) and x._fw_grad is not None:
            return True
    return False


def check_supported(spec, inputs) -> None:
    """torch's refusal of a dual input to an op without forward AD, raised before the kernel
    checks its arguments (general dispatch path)."""
    rule = spec.jvp_fn
    if (rule is None or getattr(rule, "refuses", False)) and spec.node_cls is not None \
            and not _gm._state.inference and _has_tangent(inputs):
        if rule is None:
            raise not_implemented(spec)
        rule(None)


def propagate(spec, inputs, rest, kwargs, outs) -> None:
    """Give the outputs of one op call their tangents, when an input has one."""
    Tensor = _tensor_cls()
    for x in inputs:
        if isinstance(x, Tensor) and x._fw_grad is not None:
            break
    else:
        return
    if spec.node_cls is None or _gm._state.inference:
        return   # no derivative at all (comparisons, argmax…); inference mode: no forward AD
    wanted = [k for k, o in enumerate(outs) if k not in spec.nondiff_outputs
              and o._data.dtype.kind in "fcV"]
    if not wanted:
        return
    rule = spec.jvp_fn
    if rule is None:
        raise not_implemented(spec)
    result = _run_rule(spec, rule, inputs, rest, kwargs, outs)
    for k in wanted:
        tangent = _fit(result[k], outs[k])
        if tangent is not None:
            _set_fw_grad(outs[k], tangent)


def _run_rule(spec, rule, inputs, rest, kwargs, outs) -> tuple:
    from .graph import _graph_task
    prev = _state.active
    _state.active = False
    # the rule's ctx has made-up edges (_NEEDED): the needs of a backward that may be running
    # (OpNode.needs_input_grad prunes by its ``inputs``) must not apply to them
    prev_visit, _graph_task.visit = _graph_task.visit, None
    try:
        tangents, present = _input_tangents(spec, inputs)
        ctx = _jvp_ctx(spec, inputs, rest, kwargs, outs, present)
        if spec.list_input:
            result = rule(ctx, tangents)
        else:
            result = rule(ctx, *tangents)
    finally:
        _state.active = prev
        _graph_task.visit = prev_visit
    if type(result) is list:
        result = tuple(result)
    return result if type(result) is tuple else (result,)


def _fit(tangent, out):
    """The rule's tangent in `out`'s shape and dtype (a broadcast term, a promoted scalar)."""
    if tangent is None:
        return None
    if tangent._data.shape != out._data.shape:
        with _off():
            try:
                tangent = tangent.expand(out.shape)
            except RuntimeError:
                raise _size_error(out._data.shape, tangent._data.shape) from None
    if tangent._data.dtype != out._data.dtype:
        with _off():
            if tangent._data.dtype.kind == "c" and out._data.dtype.kind != "c":
                tangent = tangent.real   # a real output of complex inputs (torch's
                # handle_r_to_c): the real part, no "discards the imaginary part" warning
            tangent = tangent.to(out.dtype)
    return tangent


def propagate_inplace(spec, target, result, inputs, rest, kwargs, write):
    """An in-place op on dual tensors: the tangent is computed from the inputs as they were,
    then `write()` stores the primal and the target's tangent is updated in place (so the
    tangents of its views follow), or created (a view's base gets a zero tangent first)."""
    Tensor = _tensor_cls()
    if not any(isinstance(x, Tensor) and x._fw_grad is not None for x in inputs) \
            or spec.node_cls is None or _gm._state.inference \
            or target._data.dtype.kind not in "fcV":
        return write()
    if spec.jvp_fn is None:
        raise not_implemented(spec)
    from .._tensor import _wrap
    new_value = _wrap(result.astype(target._data.dtype, copy=False))
    tangent, = _run_rule(spec, spec.jvp_fn, inputs, rest, kwargs, (new_value,))[:1]
    tangent = _fit(tangent, target)
    out = write()
    old = target._fw_grad
    if tangent is None:   # the rule gives none (scatter_reduce's prod), as out of place
        target.__dict__.pop("_fw_grad", None)
        return out
    with _off():
        if old is not None:
            old.copy_(tangent)
            _share_with_saved_output(target, old)   # (the node saved the target once written)
        elif target._base is not None:
            base = target._base
            from ..ops.creation import empty_strided
            base_t = base._fw_grad
            if base_t is None or base_t.stride() != base.stride():
                # the base's tangent in the base's layout, so the view's is a view of it
                fresh = empty_strided(base.shape, base.stride(), dtype=base.dtype)
                base_t = fresh.zero_() if base_t is None else fresh.copy_(base_t)
                _set_fw_grad(base, base_t)
            view_t = base_t.as_strided(target.shape, target.stride(),
                                       target._offset - base._offset + base_t._offset)
            view_t.copy_(tangent)
            _set_fw_grad(target, view_t)
        else:
            _set_fw_grad(target, tangent)
    return out


def function_jvp(cls, ctx, args, outs) -> None:
    """A custom Function's outputs get their tangents from its ``jvp`` (see function.py)."""
    Tensor = _tensor_cls()
    if not _has_tangent(args) or _gm._state.inference:
        return
    from ..ops.creation import zeros_like
    tangents = []
    for a in args:
        if isinstance(a, Tensor) and a._data.dtype.kind in "fcV":
            tangents.append(a._fw_grad if a._fw_grad is not None else zeros_like(a))
        else:
            tangents.append(None)
    ctx._in_jvp = True
    prev = _state.active
    _state.active = False
    try:
        result = cls.jvp(ctx, *tangents)
    finally:
        _state.active = prev
        ctx._in_jvp = False
    result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(result) != len(outs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(result)})")
    for out, t in zip(outs, result):
        if not isinstance(out, Tensor) or out._data.dtype.kind not in "fcV" or t is None:
            continue
        if t._data.shape != out._data.shape:
            raise _size_error(out._data.shape, t._data.shape)
        _set_fw_grad(out, t)


# ---------------------------------------------------------------------------------------------
# Generic rules (see Note [JVP rules])
# ---------------------------------------------------------------------------------------------
def AUTO_LINEAR(ctx, *tangents):
    """The op is linear in its differentiable inputs: apply it to their tangents."""
    spec = type(ctx).spec
    if spec.list_input:
        args = (list(tangents[0]),)
    else:
        args = tuple(p if t is None else t for p, t in zip(ctx.primals, tangents))
    return spec(*args, *ctx._args, **(ctx._kwargs or {}))


def LINEAR_IN_GRAD_OUTPUT(ctx, *tangents):
    """The op is linear in its first input and reads the others' values only (a backward
    primitive ``op(grad_output, self, ...)``): the op on the first input's tangent and the
    other inputs' primals; none when the first input has no tangent. See Note [Backward
    primitives in forward mode]."""
    if ctx.next_functions[0][0] is None:
        return None
    spec = type(ctx).spec
    return spec(tangents[0], *ctx.primals[1:], *ctx._args, **(ctx._kwargs or {}))


def restride_tangent(t, spec, args) -> None:
    """An in-place view op (``t.squeeze_()``) gave `t` a new geometry: its tangent becomes the
    same view of the old tangent."""
    with _off():
        _set_fw_grad(t, spec(t._fw_grad, *args))


def fw_not_implemented(name: str, short: bool = False, explicit: bool = False):
    """A rule raising torch's error under another name than the op's (``aten::floor_divide``).
    `short`: torch's shorter text for ops outside derivatives.yaml (``aten::scatter``);
    `explicit`: its text for a formula declared ``not_implemented`` there (``asinh_``)."""
    def rule(ctx, *tangents):   # See check_supported
        raise not_implemented_error(name, short, explicit)
    rule.refuses = True
    return rule


def not_implemented_error(name: str, short: bool = False, explicit: bool = False):
    """torch's NotImplementedError for `name` in forward mode (see fw_not_implemented)."""
    if short:
        return NotImplementedError(f"Trying to use forward AD with {name} that does not "
                                   "support it.")
    if explicit:
        return NotImplementedError(
            f"Trying to use forward AD with {name} that does not support it because it has "
            "not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
            "that we can prioritize its implementation.")

    class _Named:
        base = name
    return not_implemented(_Named)


def _conj(t):
    return t.real - t.imag * 1j if t.is_complex() else t


def AUTO_ELEMENT_WISE(ctx, *tangents):
    """Diagonal Jacobians: each input's term is the backward formula applied to its tangent."""
    spec = type(ctx).spec
    out = ctx.result
    Tensor = _tensor_cls()
    from .._utils import broadcast_shapes
    shapes = [x._data.shape for x in ctx.primals if isinstance(x, Tensor)]
    if type(out) is not Tensor or tuple(broadcast_shapes(*shapes)) != out._data.shape:
        return FROM_BACKWARD(ctx, *tangents)   # a pointwise loss that reduces (mse_loss)
    diff = range(len(tangents)) if spec.diff_index is None else spec.diff_index
    edges = ctx.next_functions
    total = None
    for k, i in enumerate(diff):
        if edges[k][0] is None:
            continue   # no tangent: a zero term
        t = tangents[i]
        if t._data.shape != out._data.shape:
            t = t.expand(out.shape)
        if out._data.dtype.kind == "c" and t._data.dtype.kind != "c":
            t = t.to(out.dtype)   # See Note [A real input's tangent in a complex output]
        ctx.next_functions = tuple((_NEEDED if j == k else None, 0) for j in range(len(edges)))
        grads = spec.backward_fn(ctx, _conj(t))
        grads = grads if type(grads) is tuple else (grads,)
        term = _conj(grads[k])
        total = term if total is None else total + term
    ctx.next_functions = edges
    return total


def FROM_BACKWARD(ctx, *tangents):
    """J t from the backward formula (u -> J^T u) by differentiating <J^T u, t> w.r.t. u."""
    from ..ops.creation import zeros_like
    from . import grad as _grad
    spec = type(ctx).spec
    outs = ctx.result if type(ctx.result) is tuple else (ctx.result,)
    Tensor = _tensor_cls()
    flat = list(tangents[0]) if spec.list_input else list(tangents)
    primals = list(ctx.primals)
    diff = range(len(flat)) if spec.diff_index is None else spec.diff_index
    edges = ctx.next_functions
    if all(not primals[i]._data.size for k, i in enumerate(diff)
           if edges[k][0] is not None and isinstance(primals[i], Tensor)):
        # reduced from no elements: the tangent reduces nothing the same way (a mean's NaN)
        return tuple(o * 0 if o._data.dtype.kind in "fcV" else None for o in outs)
    # a complex output of real inputs (prod(dtype=complex)) has a real tangent: take u real
    real_only = not any(isinstance(p, Tensor) and p.is_complex() for p in primals)
    with _gm.enable_grad():
        us = [zeros_like(o.real if real_only and o.is_complex() else o).requires_grad_()
              if o._data.dtype.kind in "fcV" else None for o in outs]
        for u in us:
            if u is not None:
                # the JVP is linear in u, yet its graph (create_graph) may keep edges to u: a
                # transform's exit knows such a leaf belongs to no one (func/_levels.py)
                u.__dict__["_jvp_placeholder"] = True
        grads = spec.backward_fn(ctx, *us)
        grads = grads if type(grads) is tuple else (grads,)
        total = None
        for k, i in enumerate(diff):
            g = grads[k] if k < len(grads) else None
            if edges[k][0] is None or g is None or not isinstance(primals[i], Tensor):
                continue
            t = flat[i]
            if not g._data.size:
                continue
            if g._data.shape != t._data.shape and g.dim() == t.dim() and all(
                    a <= b for a, b in zip(g._data.shape, t._data.shape)):
                for d, n in enumerate(g._data.shape):   # a gradient for the leading block only
                    t = t.narrow(d, 0, n)                # (scatter's src beyond its index)
            term = (_conj(g) * t).real.sum() if g.is_complex() else (g * t).sum()
            total = term if total is None else total + term
    wanted = [u for u in us if u is not None]
    if total is None or not total.requires_grad:
        return tuple(zeros_like(o) for o in outs)
    create = _gm.is_grad_enabled() and any(
        isinstance(x, Tensor) and x.requires_grad for x in list(primals) + flat)
    jvps = _grad(total, wanted, create_graph=create, allow_unused=True)
    it = iter(jvps)
    result = []
    for o, u in zip(outs, us):
        j = next(it) if u is not None else None
        result.append(zeros_like(o) if j is None else j)
    return tuple(result)


def MULTILINEAR(ctx, *tangents):
    """The op is linear in each differentiable input separately (mm, bmm, dot, mul…): the
    JVP is the sum over inputs with a tangent of the op with that input replaced by it."""
    spec = type(ctx).spec
    diff = range(len(tangents)) if spec.diff_index is None else spec.diff_index
    edges = ctx.next_functions
    total = None
    for k, i in enumerate(diff):
        if edges[k][0] is None:
            continue
        args = list(ctx.primals)
        args[i] = tangents[i]
        term = spec(*args, *ctx._args, **(ctx._kwargs or {}))
        total = term if total is None else total + term
    return total
