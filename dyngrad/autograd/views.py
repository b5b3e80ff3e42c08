"""Views under autograd: in-place writes through a view (CopySlices), regenerated view history,
and torch's errors for views that may not be modified in place.

Note [Views and in-place: CopySlices]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A view shares its base's memory, so an in-place op on the view changes the base as well, and
the base's history must say so. torch (and dyngrad) does it this way, for ``y[0].mul_(x0)``:

1. The in-place op records its node ``fn`` (``MulBackward0``) as it would for any tensor, with
   the view's old gradient edge first, but ``fn`` is not attached to the view.
2. The base gets a new ``grad_fn``: a ``CopySlices`` node that remembers the base's and the
   view's geometry and wraps ``fn``. Its edges are the base's old gradient edge, then ``fn``'s
   edges for the op's other inputs (``x0``).
3. In backward, ``CopySlices`` copies the gradient w.r.t. the base, calls ``fn`` on the slice
   the view covers, writes ``fn``'s gradient for the view's old value back into that slice and
   hands the other gradients on: the base's old history gets ``grad`` outside the view and
   ``fn``'s answer inside it.
4. Every view of that base is now out of date: its ``grad_fn`` still points at the base's old
   history. A view remembers the storage version at which its ``grad_fn`` was made; when it
   differs, reading ``grad_fn`` makes a new one, ``AsStridedBackward0`` from the base's new
   history (see ``view_grad_fn``). That also covers in-place ops on the base itself
   (``y.mul_(2)`` after ``v = y[0]``) and on sibling views.

A view requires grad whenever its base does, so when a base starts requiring grad (through
``CopySlices``, an in-place op or ``requires_grad_()``), every live view of it is told: the base
keeps weak references to its views (``_views``) for this.

Some views may not be modified in place while grad is recorded (``check_inplace_view``): views
created in no_grad mode (which one was meant, tracked or not?), outputs of ops returning several
views (``unbind``, ``split``, ``chunk``: their shared node cannot be rewritten for one output),
and views of leaves that require grad.
"""
from __future__ import annotations

import weakref

from .graph import Node, _graph_task
from .saved import short_name

# how a view was created (torch's CreationMeta)
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT, INFERENCE_MODE, IN_CUSTOM_FUNCTION = 0, 1, 2, 3, 4

_CLARIFY = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
            "want the inplace to be tracked).")
_CUSTOM = (" This view was created inside a custom Function (or because an input was returned "
           "as-is) and the autograd logic to handle view+inplace would override the custom "
           "backward associated with the custom Function, leading to incorrect gradients. This "
           "behavior is forbidden. You can fix this by cloning the output of the custom "
           "Function.")
_MULTI = (" This view is the output of a function that returns multiple views. Such functions "
          "do not allow the output views to be modified inplace. You should replace the inplace "
          "operation by an out-of-place one.")


# -- the registry of views ---------------------------------------------------------------------
def register_view(base, view) -> None:
    """Remember `view` (weakly) on `base`; dead references are dropped as the list grows."""
    views = base.__dict__.get("_views")
    if views is None:
        base._views = [weakref.ref(view)]
        return
    views.append(weakref.ref(view))
    if len(views) >= 16 and len(views) & (len(views) - 1) == 0:   # at 16, 32, 64...
        views[:] = [r for r in views if r() is not None]


def live_views(base):
    for ref in base.__dict__.get("_views", ()):
        v = ref()
        if v is not None:
            yield v


def base_requires_grad(base) -> None:
    """`base` now requires grad: so do its views (torch's view requires_grad rule)."""
    for v in live_views(base):
        if v._data.dtype.kind in "fcV" and not v._requires_grad:
            v._requires_grad = True
            v._rg_inherited = True   # no AccumulateGrad of its own (graph.gradient_edge)


# -- view history ------------------------------------------------------------------------------
def hold_retain_hook(fn, output_nr: int, hook):
    """Put retain_grad's `hook` on node `fn` for its output `output_nr`; returns where it is
    (what ``Tensor._retains_grad`` keeps)."""
    hooks = fn._retains_grad_hooks
    if hooks is None:
        hooks = fn._retains_grad_hooks = {}
    hooks[output_nr] = hook
    fn._hooked = True
    return fn, output_nr


def follow_retains_grad(t) -> None:
    """After `t` got a new grad_fn (an in-place op, its base's or its own; a view's history
    made anew), move retain_grad's hook there, so that ``.grad`` is the gradient of the new
    value, as torch's update_tensor_hooks_on_new_gradfn does. (Hooks from ``register_hook``
    stay on the old node, as in torch.)"""
    held = t._retains_grad
    if not held or t._grad_fn is None or held[0] is t._grad_fn:
        return
    old_fn, old_nr = held
    hook = old_fn._retains_grad_hooks.pop(old_nr, None)
    if hook is not None:
        t._retains_grad = hold_retain_hook(t._grad_fn, getattr(t, "_output_nr", 0), hook)


def view_grad_fn(view):
    """``view.grad_fn``, made anew from the base's history when the base or any view of it was
    modified in place since it was set (Note [Views and in-place: CopySlices], step 4)."""
    fn = view._grad_fn
    base = view._base
    if fn is None and not base._requires_grad:
        return None
    version = view._storage.version
    if view._view_version == version:
        return fn
    if view._view_creation:
        handle_view_on_rebase(view, indirect=True)
    replay = view._view_replay
    if replay is not None:   # a view that changes the dtype: made again by its own ops
        from .grad_mode import enable_grad
        with enable_grad():
            fresh = replay(base)
        view._grad_fn, view._output_nr = fresh._grad_fn, fresh._output_nr
        view._view_version = version
        follow_retains_grad(view)
        return view._grad_fn
    from ..ops._record import _record
    from ..ops._registry import OPS
    geometry = (base._data.shape, base.stride(), base._offset)
    args = (view._data.shape, view.stride(), view._offset, geometry)
    _record(OPS["as_strided"], (base,), args, None, (view,))
    view._output_nr = 0
    view._view_version = version
    follow_retains_grad(view)
    return view._grad_fn


def chained_replay(replay, parent, view):
    """``base -> view`` for a plain view of `parent`, a view that changed the dtype and is made
    again by `replay`: replay it, then take `view`'s geometry from it."""
    shape, stride = view._data.shape, view.stride()
    shift = view._offset - parent._offset

    def chained(base):
        made = replay(base)
        return made.as_strided(shape, stride, made.storage_offset() + shift)
    return chained


def handle_view_on_rebase(view, indirect: bool) -> None:
    """torch's error for a view whose history cannot be rewritten: made in no_grad or
    inference mode, or by an op returning several views. `indirect`: the base or another view
    was modified (found when reading ``grad_fn``), not this view itself."""
    creation = view._view_creation
    fn = view._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    where = f"Output {view._output_nr} of {short_name(fn)}" if fn else ""
    if creation == IN_CUSTOM_FUNCTION:   # a view output of autograd.Function (function.py)
        raise RuntimeError(f"{where} is a view and {modified} modified inplace." + _CUSTOM)
    if creation != MULTI_OUTPUT or fn is None:
        prefix = f"{where} is a view of a view which was created in" if fn else \
            "A view was created in"
        if creation == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"{where} is a view and {modified} modified inplace."
    if creation == MULTI_OUTPUT:
        raise RuntimeError(msg + _MULTI)
    block = "inference_mode" if creation == INFERENCE_MODE else "no_grad"
    raise RuntimeError(f"{msg} {_CLARIFY.replace('no_grad', block)}")


def check_inplace_view(view) -> None:
    """torch's errors for an in-place op on `view` that autograd would record."""
    if view._view_creation:
        handle_view_on_rebase(view, indirect=False)
    base = view._base
    if view._requires_grad and base._grad_fn is None:   # (torch: a leaf base, requiring grad
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")   # or not: a view made to require grad)


def rebase_view_history(view, fn) -> None:
    """Attach the in-place op's node `fn`, recorded on `view`, to the base through CopySlices
    (Note [Views and in-place: CopySlices], steps 2 and 4)."""
    from .graph import gradient_edge
    base = view._base
    was_required = base._requires_grad
    copy = CopySlices(base, view, fn, gradient_edge(base))
    from .anomaly_mode import _state as anomaly, record_node
    if anomaly.enabled:   # anomaly mode: remember the forward call (anomaly_mode.py)
        record_node(copy)
    base._grad_fn = copy
    base._requires_grad = True
    base._output_nr = 0
    follow_retains_grad(base)
    if not was_required:
        base_requires_grad(base)
    view._grad_fn = None           # made anew (AsStridedBackward0) when next read
    view._requires_grad = True
    view._view_version = -1


class CopySlices(Node):
    """The base's node after an in-place op on one of its views (see the Note above)."""

    __slots__ = ("base_geometry", "view_geometry", "view_replay", "fn", "_meta")

    def __init__(self, base, view, fn, base_edge):
        from .graph import _next_sequence_nr
        self._seq = _next_sequence_nr()
        self.base_geometry = (base._data.shape, base.stride(), base._offset)
        self.view_geometry = (view._data.shape, view.stride(), view._offset)
        self.view_replay = view._view_replay   # (view_as_real...)
        self.fn = fn
        self._meta = (base._data.shape, base._data.dtype)
        self.next_functions = (base_edge,) + tuple(fn.next_functions[1:])

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def input_metadata(self, i):
        return self._meta if i == 0 else self.fn.input_metadata(i)

    def release_variables(self) -> None:
        self.fn.release_variables()

    def apply(self, grads):
        from ..ops.conversion import copy_
        from ..ops.creation import empty_strided
        from ..ops.shape import as_strided_view
        grad = grads[0]
        shape, stride, offset = self.base_geometry
        result = empty_strided(shape, stride, dtype=grad.dtype)
        copy_(result, grad)
        size, vstride, voffset = self.view_geometry
        if self.view_replay is not None:
            grad_slice = self.view_replay(result)
        else:
            grad_slice = as_strided_view(result, size, vstride, voffset - offset)
        # fn's first edge is not where its first gradient goes (ours, the base's, is): with
        # ``inputs`` given, OpNode.needs_input_grad would judge it by that edge, so fn runs as
        # in a plain backward, computing every gradient it has an edge for
        visit, _graph_task.visit = _graph_task.visit, None
        try:
            res = self.fn.apply((grad_slice.clone(),))
        finally:
            _graph_task.visit = visit
        if res[0] is None:
            grad_slice.zero_()
        else:
            copy_(grad_slice, res[0])
        return (result,) + tuple(res[1:])
