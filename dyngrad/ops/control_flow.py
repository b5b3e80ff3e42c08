"""Structured control flow run eagerly: ``torch.cond`` and ``torch.while_loop``.

torch sends a tensor predicate (and every ``while_loop``) through torch.compile, which traces the
functions with fake tensors, checks what they return and runs the result; a Python predicate
makes ``cond`` an ``if``. dyngrad has no compiler: it runs the functions on the real tensors,
makes the checks torch's tracing makes on what actually ran (argument types, what the functions
return, outputs that alias inputs), and records one node for the whole call as torch does
(``CondAutogradOpBackward`` / ``WhileLoopAutogradOpBackward``).

Note [Control flow as one node]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The functions run with grad mode as it is, on aliases of the operands: leaves sharing their
memory and version counter (``detach()``), requiring grad where the operand does. The graph they
build then reaches outside the call only where they used captured tensors (torch lifts those
into extra inputs of its node): a leaf's AccumulateGrad that is not an alias, or a node older
than the call (its sequence number is below the one taken when the call began). Each such edge
is moved onto a stand-in leaf of that tensor's shape and dtype, so the inner graph is closed: a
gradient captured at a stand-in never also flows on to another captured tensor upstream of it.
If something requires grad, the outputs are handed back as copies whose ``grad_fn`` is one
custom-Function node; its edges are the predicate, the operands, then the captured edges. Its
backward runs the inner graph with ``autograd.grad`` w.r.t. the aliases and the stand-ins; as
torch's, its gradients carry no history (no double backward through a cond), and it saves the
operands, so changing one in place before backward raises torch's error. The inner graph is
kept (``retain_graph=True``) until the node frees its variables.

Differences from torch: only the branch taken runs, so ``cond`` cannot compare it with the other
branch (torch refuses branches whose outputs differ in structure, shape or dtype); a
``while_loop`` whose ``cond_fn`` always returns a Python ``True`` loops forever (torch's tracing
sees a constant and raises); int carries beside carries that require grad are accepted; operands
a branch does not use keep their edge (torch's tracing drops them);
with zero iterations ``while_loop`` returns a tuple of the carries (torch: the structure of
``body_fn``'s output, which it traced: the same when that is a tuple); an exception raised by a
function propagates as it is (torch wraps it in its tracing error). Captured tensors follow the
operands in the node's edges, in the order the inner graph reaches them (torch: dynamo's order of
lifting), and a ``while_loop`` whose body never ran captures none. torch's error texts stop here
before the debug context and user stack trace, which name compiler internals.
"""
from __future__ import annotations

import inspect

from ..autograd import grad_mode as _gm
from ..autograd.function import Function, _save, _wrap_outputs
from ..autograd.graph import AccumulateGrad, _next_sequence_nr, grad_accumulator, gradient_edge
from ..autograd.saved import FREED_MESSAGE
from ..backends.numpy_backend import xp
from ._arg_parser import type_repr as _type_repr
from ._registry import FUNCTIONS


class UncapturedHigherOrderOpError(RuntimeError):
    """torch._dynamo.exc.UncapturedHigherOrderOpError: what torch raises when tracing a
    higher-order op's functions fails (a RuntimeError, as there)."""


_HEADER = ("This higher order operator doesn't work unless it is captured completely with "
           "torch.compile. Got graph break/error:\n\n")
_EAGER_HINT = ("  Hint: Your code may result in an error when running in eager. Please double "
               "check that your code doesn't contain a similar error when actually running "
               "eager/uncompiled. You can do this by removing the `torch.compile` call, or by "
               "using `torch.compiler.set_stance(\"force_eager\")`. \n")


def _graph_break(op: str, gb_type: str, explanation: str, hints: str = _EAGER_HINT):
    """torch's message for a graph break inside a higher-order op (without the debug context
    and user stack trace torch appends, which name compiler internals)."""
    return UncapturedHigherOrderOpError(
        f"{_HEADER}{gb_type}\n  Higher Order Operator: {op}\n  Explanation: {explanation}\n"
        f"{hints}")


def _aliasing_error(op: str):
    return _graph_break(op, "Encountered aliasing during higher order op tracing",
                        "Higher order ops do not support aliasing. Found in <bound method "
                        "HigherOrderOperator.name of <" + _OP_CLASSES[op] + ">>",
                        "  Hint: Replace `return input` with `return input.clone()` to avoid "
                        "aliasing.\n  Hint: Consider using the debug context to change user code "
                        "to avoid aliasing.\n  Hint: Please open an issue.\n")


_OP_CLASSES = {"torch.cond": "torch._higher_order_ops.cond.CondOp object",
               "torch.while_loop": "torch._higher_order_ops.while_loop.WhileLoopOp object"}


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _flatten(tree):
    from ..utils._pytree import tree_flatten
    return tree_flatten(tree)


def _unflatten(leaves, spec):
    from ..utils._pytree import tree_unflatten
    return tree_unflatten(leaves, spec)


# -- running the functions -----------------------------------------------------------------------
def _call(op: str, fn, args):
    """``fn(*args)``, refusing first (as torch's tracing does) arguments fn cannot take."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):   # (a builtin without a signature: just call it)
        sig = None
    if sig is not None:
        try:
            sig.bind(*args)
        except TypeError:
            name = getattr(fn, "__name__", type(fn).__name__)
            raise _graph_break(op, "failed to bind arguments when attempting to inline",
                               f"Argument mismatch when attempting to trace function {name}.") \
                from None
    return fn(*args)


def _aliases(tensors):
    """What the functions run on: leaves sharing each operand's memory and version counter
    (``detach()``), requiring grad where the operand does and grad mode is on (Note [Control
    flow as one node])."""
    record = _gm.is_grad_enabled()
    return [t.detach().requires_grad_(True) if record and t.requires_grad else t.detach()
            for t in tensors]


def _check_outputs(op: str, leaves, inputs) -> None:
    """What torch's tracing refuses in a function's outputs: anything but tensors and ints
    (None: cond only), and tensors that share memory with an input."""
    Tensor = _tensor_cls()
    for v in leaves:
        if v is None:   # (while_loop's body: its comparison with the carries refuses it)
            if op == "torch.cond":
                raise _graph_break(op, "torch.cond: unsupported branch return type (constant "
                                       "non-int)", "Constants returned from branches must be "
                                       "ints.")
            continue
        if not isinstance(v, (Tensor, int)):
            raise _graph_break(op, "HOP body output unsupported", "HigherOrderOperator body's "
                               "output must consist of tensors or ints/bools only but got "
                               f"{_type_repr(v)}.")
        if isinstance(v, Tensor) and any(isinstance(t, Tensor) and v._data.size and t._data.size
                                         and xp.may_share_memory(v._data, t._data)
                                         for t in inputs):
            raise _aliasing_error(op)


def _cut_captured(outputs, aliases, start: int):
    """Cut the graph the functions built from the tensors they captured: each edge into an
    outside node (a leaf's AccumulateGrad that is not an alias, or a node older than the call:
    sequence number below `start`) is moved onto a stand-in leaf of the captured tensor's shape
    and dtype. Returns ``[(outside edge, stand-in)]``, one per distinct outside edge, in the
    order the search meets them."""
    from .. import _dtypes as D
    from .creation import empty_strided
    alias_ids = {id(a) for a in aliases}
    roots = [o.grad_fn for o in outputs if o.grad_fn is not None]
    seen = set(roots)
    queue = list(roots)
    stands = {}   # outside edge -> stand-in leaf
    i = 0
    while i < len(queue):
        node = queue[i]
        i += 1
        if type(node) is AccumulateGrad:
            continue
        nexts, nrs = list(node._next), list(node._nrs)
        for j, nxt in enumerate(nexts):
            if nxt is None:
                continue
            outside = id(nxt.variable) not in alias_ids if type(nxt) is AccumulateGrad \
                else nxt._seq < start
            if not outside:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
                continue
            key = (nxt, nrs[j])
            stand = stands.get(key)
            if stand is None:
                shape, dtype = node.input_metadata(j)
                with _gm.no_grad():
                    stand = empty_strided(tuple(shape), (0,) * len(shape),
                                          dtype=D.from_np(dtype))
                stands[key] = stand.requires_grad_(True)
            nexts[j], nrs[j] = grad_accumulator(stand), 0
        node._next, node._nrs = tuple(nexts), tuple(nrs)
    return list(stands.items())


class _HigherOrderAutogradOp(Function):
    """The node of a control-flow call (Note [Control flow as one node]); never applied: the
    call builds its ctx directly, as the outputs were computed before the node."""

    @staticmethod
    def forward(ctx, *args):
        raise RuntimeError("the control-flow node is made by cond/while_loop")

    @staticmethod
    def backward(ctx, *grads):
        inner = ctx._inner
        if inner is None:
            raise RuntimeError(FREED_MESSAGE)
        ctx.saved_tensors   # the operands: torch saves them, so a later in-place change raises
        outs, aliases, stands, lead = inner
        pairs = [(o, g) for o, g in zip(outs, grads) if g is not None and o.requires_grad]
        wanted = [a for a in aliases if a.requires_grad] + stands
        results = [None] * len(wanted)
        if pairs and wanted:
            # (without create_graph, as torch: the gradients of a cond have no history)
            from .. import autograd
            results = list(autograd.grad([o for o, _ in pairs], wanted,
                                         [g for _, g in pairs], retain_graph=True,
                                         allow_unused=True))
        it = iter(results)
        per_alias = [next(it) if a.requires_grad else None for a in aliases]
        return (None,) * lead + tuple(per_alias) + tuple(it)


class CondAutogradOp(_HigherOrderAutogradOp):
    pass


class WhileLoopAutogradOp(_HigherOrderAutogradOp):
    pass


def _release(ctx) -> None:
    ctx._held = None
    ctx._freed = True
    ctx._inner = None   # the inner graph goes with it


for _cls in (CondAutogradOp, WhileLoopAutogradOp):
    _cls._backward_cls.release_variables = _release
    _cls._backward_cls._inner = None


def _record(fn_cls, lead_tensors, operands, aliases, out_tree, start: int):
    """`out_tree` with its tensors given one ``fn_cls`` node (Note [Control flow as one node]),
    or as it is when nothing requires grad."""
    Tensor = _tensor_cls()
    leaves, spec = _flatten(out_tree)
    outs = [v for v in leaves if isinstance(v, Tensor)]
    if not _gm.is_grad_enabled():
        return out_tree
    captured = _cut_captured(outs, aliases, start)
    lead_rg = [t for t in lead_tensors if t.requires_grad]
    if not (lead_rg or any(a.requires_grad for a in aliases) or captured):
        return out_tree
    ctx = fn_cls._backward_cls()   # (made after the functions ran: their nodes run first)
    inputs = list(lead_tensors) + list(operands)
    edges = [gradient_edge(t) if t.requires_grad else (None, 0) for t in inputs]
    metas = [(t._data.shape, t._data.dtype) for t in inputs]
    for edge, stand in captured:
        edges.append(edge)
        metas.append((stand._data.shape, stand._data.dtype))
    ctx.next_functions = tuple(edges)
    ctx._input_meta = tuple(metas)
    ctx._is_tensor_arg = (True,) * len(edges)
    ctx.needs_input_grad = tuple(e[0] is not None for e in edges)
    ctx._inner = (outs, aliases, [stand for _, stand in captured], len(lead_tensors))
    ctx.save_for_backward(*operands)
    # the outputs are new tensors (the inner ones keep their history for the backward)
    new = []
    with _gm.no_grad():
        for v in leaves:
            new.append(v.clone() if isinstance(v, Tensor) else v)
    new_tensors = [v for v in new if isinstance(v, Tensor)]
    for v in new_tensors:
        v._requires_grad = False
    _wrap_outputs(ctx, [], new_tensors)
    _save(ctx, new_tensors)
    return _unflatten(new, spec)


# -- cond ----------------------------------------------------------------------------------------
def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if `pred` else ``false_fn(*operands)``.

    Args:
        pred: a Python bool/int/float (then this is a plain ``if``) or a one-element tensor.
        true_fn, false_fn: callables taking the operands.
        operands: a tuple or list (possibly nested in dicts/lists/tuples) of tensors.

    Returns:
        The taken branch's output; with a tensor `pred`, its tensors are new tensors recorded
        as one ``CondAutogradOpBackward`` node when something requires grad.

    Example::

        >>> cond(x.sum() > 0, lambda a: a.sin(), lambda a: a.cos(), (x,))

    Differences from torch: see this module's docstring.
    """
    Tensor = _tensor_cls()
    if isinstance(pred, (bool, int, float)):   # torch: the eager case, a plain if
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or \
            any(not isinstance(t, Tensor) for t in _flatten(operands)[0]):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    leaves, spec = _flatten(list(operands))
    aliases = _aliases(leaves)
    branch = true_fn if bool(pred._data.reshape(-1)[0]) else false_fn
    start = _next_sequence_nr()
    out = _call("torch.cond", branch, _unflatten(aliases, spec))
    out_leaves = _flatten(out)[0]
    _check_outputs("torch.cond", out_leaves, aliases)
    return _record(CondAutogradOp, [pred], leaves, aliases, out, start)


# -- while_loop ----------------------------------------------------------------------------------
_CARRY_TYPES = ("(<class 'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>)")


def _fake_repr(v) -> str:
    """A value as torch's tracing prints it (a tensor as its FakeTensor)."""
    if not isinstance(v, _tensor_cls()):
        return repr(v)
    from .. import _dtypes as D
    extra = "" if v.dtype is D.get_default_dtype() else f", dtype={v.dtype}"
    if v.requires_grad:
        extra += ", requires_grad=True"
    return f"FakeTensor(..., size={tuple(v.shape)}{extra})"


def _memory_format(t):
    from .._tensor import channels_last, channels_last_3d, contiguous_format
    for fmt in (contiguous_format, channels_last, channels_last_3d):
        if (fmt is contiguous_format or t.dim() == (4 if fmt is channels_last else 5)) \
                and t.is_contiguous(memory_format=fmt):
            return fmt
    return None


def _meta_diff(lhs, rhs) -> str:
    """How two carries differ, in torch's words ('' when they agree)."""
    Tensor = _tensor_cls()
    if isinstance(lhs, Tensor) and isinstance(rhs, Tensor):
        from .._utils import Size
        diffs = []
        for name, get in (("shape", lambda t: Size(t.shape)), ("dtype", lambda t: t.dtype),
                          ("stride", lambda t: t.stride()), ("memory_format", _memory_format)):
            a, b = get(lhs), get(rhs)
            if a != b:
                diffs.append(f"'{name}: {a} vs {b}'")
        return ", ".join(diffs)
    if isinstance(lhs, Tensor) or isinstance(rhs, Tensor):
        return f"type: {_fake_repr(lhs)} vs {_fake_repr(rhs)}"
    return ""


def _check_body_output(out_leaves, carried_leaves) -> None:
    if len(out_leaves) != len(carried_leaves):
        lhs = ", ".join(_fake_repr(v) for v in out_leaves)
        rhs = ", ".join(_fake_repr(v) for v in carried_leaves)
        raise UncapturedHigherOrderOpError(
            "Expected body_fn_output and carried_inputs to have same number of outputs but got "
            f"lhs:[{lhs}] and rhs:[{rhs}]\n  Higher Order Operator: torch.while_loop\n")
    diffs = []
    for i, (a, b) in enumerate(zip(out_leaves, carried_leaves)):
        d = _meta_diff(a, b)
        if d:
            diffs.append(f"pair[{i}] differ in {d}, where lhs is {_fake_repr(a)} and rhs is "
                         f"{_fake_repr(b)}")
    if diffs:
        raise UncapturedHigherOrderOpError(
            "Expected body_fn_output and carried_inputs to have same metadata but found:\n"
            + "\n".join(diffs) + "\n  Higher Order Operator: torch.while_loop\n")


def _keep_looping(value) -> bool:
    Tensor = _tensor_cls()
    if type(value) is int and value:   # torch's tracing sees a constant: it would never end
        raise _graph_break("torch.while_loop", "torch.while_loop: infinite loop detected",
                           "Infinite loop detected because while_loop's cond_fn always returns "
                           f"the same value {value}.")
    if isinstance(value, Tensor):
        if value.dim() != 0 or value._data.dtype.kind != "b":
            raise _graph_break("torch.while_loop", "torch.while_loop: unsupported cond_fn "
                               "return type", "Expected cond_fn to return a scalar tensor or a "
                               f"bool but got {value.shape}.")
        return bool(value._data)
    return bool(value)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` is true; return the last
    carries (new tensors: clones when the body never ran).

    Args:
        cond_fn: returns a 0-dim bool tensor or a Python bool.
        body_fn: returns new carries with the same structure, shapes and dtypes.
        carried_inputs: a tuple or list (possibly nested) of tensors and ints.

    Example::

        >>> while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (torch.tensor(0), x))

    Differences from torch: see this module's docstring.
    """
    Tensor = _tensor_cls()
    leaves, in_spec = _flatten((carried_inputs, ()))
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not all(isinstance(v, (Tensor, int)) for v in leaves):
        got = ", ".join(_type_repr(v) for v in leaves)
        got = f"({got},)" if len(leaves) == 1 else f"({got})"
        raise AssertionError(f"{leaves} can only be of {_CARRY_TYPES} but got {got}")
    tensors = [v for v in leaves if isinstance(v, Tensor)]
    aliases = _aliases(tensors)
    it = iter(aliases)
    flat = [next(it) if isinstance(v, Tensor) else v for v in leaves]

    def call(fn, values):
        carried, extra = _unflatten(values, in_spec)
        return _call("torch.while_loop", fn, (*carried, *extra))

    start = _next_sequence_nr()
    first = call(cond_fn, flat)
    if not isinstance(first, Tensor) and not first:
        # torch's tracing sees a constant false condition: the carries come back themselves
        return tuple(carried_inputs)
    out = None
    keep = _keep_looping(first)
    while keep:
        out = call(body_fn, flat)
        out_leaves, _ = _flatten(out)
        _check_outputs("torch.while_loop", out_leaves, flat)
        _check_body_output(out_leaves, flat)
        flat = out_leaves
        keep = _keep_looping(call(cond_fn, flat))
    if out is None:   # the body never ran: the carries come back as new tensors, in a tuple
        out = tuple(_unflatten([v.clone() if isinstance(v, Tensor) else v for v in flat],
                               in_spec)[0])
    return _record(WhileLoopAutogradOp, [], tensors, aliases, out, start)


FUNCTIONS["cond"] = cond
FUNCTIONS["while_loop"] = while_loop
