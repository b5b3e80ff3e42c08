"""How dyngrad.func's transforms nest without functorch's wrapper tensors.

Note [Levels without wrapper tensors]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch.func wraps each input in a tensor of a new *level*; ops record on every level at once and
a transform's results are unwrapped from its own level on the way out. dyngrad builds the same
behaviour from the ordinary tape:

- On entry a transform *lifts* the inputs it differentiates: an input that does not require
  grad becomes a fresh leaf that does (``detach().requires_grad_()``); one that already does
  (an outer transform's, or a user's parameter) gets a view of itself, so that this level has
  its own node to differentiate against while the outer tape still reaches the input.
- The function runs with grad mode on and the derivative is taken with ``create_graph=True``,
  so an enclosing transform can differentiate the result again.
- On exit a result is *unwrapped*: if its graph reaches nothing recorded before the level began
  (no older node, no leaf other than the ones lifted here), nothing outside can differentiate
  it and it is returned detached, as torch returns a plain tensor from an outermost
  ``grad``. Otherwise it keeps its graph: ``grad(f)(x)`` for an ``f`` that closes over a
  parameter ``w`` that requires grad returns a tensor with a ``grad_fn`` leading to ``w``,
  as torch's does.

The walk in ``reaches_outside`` visits only nodes made inside the level (their sequence numbers
are at least the level's start), so its cost is that of the level's own graph.
"""
from __future__ import annotations

import threading

from .. import _tensor
from ..autograd import forward_ad as fwAD
from ..autograd.graph import AccumulateGrad, _next_sequence_nr


_inside = threading.local()   # .stack: the transforms this thread is running a function in


def call(func, *args, **kwargs):
    """``func(*args, **kwargs)`` run by a differentiating transform (grad, vjp, jvp, jacrev,
    jacfwd's jvp): a custom Function applied meanwhile must have a ``setup_context``, as torch
    requires."""
    return _run(None, func, args, kwargs)


def call_mapped(randomness: str, func, *args, **kwargs):
    """``func(*args, **kwargs)`` run for one sample by vmap (or jacfwd, torch's vmap of jvp),
    with vmap's `randomness`: a custom Function applied meanwhile needs vmap support too
    (autograd/function.py, Note [A custom Function's vmap rule])."""
    return _run(randomness, func, args, kwargs)


def _run(randomness, func, args, kwargs):
    stack = getattr(_inside, "stack", None)
    if stack is None:
        stack = _inside.stack = []
    stack.append(randomness)
    try:
        return func(*args, **kwargs)
    finally:
        stack.pop()


def active() -> bool:
    """Whether a transform is running a function in this thread (see ``call``)."""
    return bool(getattr(_inside, "stack", None))


def only_mapping() -> bool:
    """Whether the transforms running are all vmaps (custom ops fall back to a loop there)."""
    stack = getattr(_inside, "stack", None)
    return bool(stack) and None not in stack


def mapping():
    """``None`` outside vmap; else ``(randomness, innermost)``: the innermost vmap's
    randomness, and whether it is the innermost transform running (no grad, vjp or jvp inside
    it)."""
    stack = getattr(_inside, "stack", None) or ()
    for depth in range(len(stack) - 1, -1, -1):
        if stack[depth] is not None:
            return stack[depth], depth == len(stack) - 1
    return None


def level_start() -> int:
    """A sequence number no earlier node has: nodes recorded from now on have larger ones."""
    return _next_sequence_nr()


def lift(x, lifted: set):
    """`x` as a tensor this level differentiates against (see the Note). Leaves created here
    are remembered in `lifted` (by id)."""
    if not isinstance(x, _tensor.Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.requires_grad:
        return x.view_as(x)
    primal, tangent = fwAD.unpack_dual(x)
    y = primal.detach().requires_grad_()
    lifted.add(id(y))
    if tangent is not None:   # a jacfwd/jvp outside: keep the tangent (hessian's forward pass)
        return fwAD.make_dual(y, tangent)
    return y


def reaches_outside(t, start: int, lifted: set) -> bool:
    """Whether `t`'s graph reaches a node older than `start` or a leaf not lifted here."""
    fn = t.grad_fn
    if fn is None:
        return t.requires_grad and id(t) not in lifted
    seen, stack = set(), [fn]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if type(fn) is AccumulateGrad:
            variable = fn.variable
            if id(variable) not in lifted and "_jvp_placeholder" not in variable.__dict__:
                return True   # (a FROM_BACKWARD placeholder is no one's: forward_ad.py)
            continue
        if getattr(fn, "_seq", start) < start:
            return True
        stack.extend(f for f, _ in fn.next_functions)
    return False


def unwrap(t, start: int, lifted: set):
    """`t` leaving the level: detached unless an enclosing computation can reach through it."""
    if not isinstance(t, _tensor.Tensor):
        return t
    if t.requires_grad and not reaches_outside(t, start, lifted):
        primal, tangent = fwAD.unpack_dual(t)
        if tangent is not None:   # detach() drops a tangent: an enclosing jvp still needs it
            return fwAD.make_dual(primal.detach(), unwrap(tangent, start, lifted))
        return t.detach()
    return t
