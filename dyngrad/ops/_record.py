"""Recording an op's node: its edges, its inputs' metadata, what it saves (DESIGN.md §1).

The dispatcher (_dispatch.py) calls ``_record`` once an op has run with grad mode on and an
input that requires grad; the binary fast path takes the same steps for two inputs in its own
frame (Note [Recording in the binary fast path] in _dispatch.py).
"""
from __future__ import annotations

from ..autograd.graph import gradient_edge as _gradient_edge
from ..autograd.graph import _next_sequence_nr
from ..autograd import saved as _saved_module
from ..autograd.saved import SavedTensor
from ..autograd.anomaly_mode import _state as _anomaly

_new = object.__new__
_saved_input = SavedTensor.of_input
_Tensor = None        # set by _dispatch._bind_tensor_class once the class exists


def _requires_grad(inputs) -> bool:
    for t in inputs:
        if isinstance(t, _Tensor) and t._requires_grad:
            return True
    return False


def _edge(t):
    """The edge a gradient w.r.t. `t` (which requires grad) flows along: gradient_edge(t),
    with the common cases first: a result's node, a leaf's live AccumulateGrad."""
    fn = t._grad_fn if t._base is None else t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    acc = t._accumulator
    acc = acc() if acc is not None else None
    return (acc, 0) if acc is not None else _gradient_edge(t)


def saved_inputs(plan, inputs) -> list:
    """What a node keeps of the op's inputs, per entry of its save plan ``(input index, index
    of the input whose gradient needs it, or -1)``: the input (Note [Saved inputs without a
    box]), a Python number as a _SavedValue, or _NOT_SAVED where that gradient is not needed."""
    saved = []
    for i, when in plan:
        if when >= 0:
            w = inputs[when]
            if not (isinstance(w, _Tensor) and w._requires_grad):
                saved.append(_NOT_SAVED)
                continue
        t = inputs[i]
        saved.append(_saved_input(t) if isinstance(t, _Tensor) else _SavedValue(t))
    return saved


def _record(spec, inputs, rest, kwargs, outputs):
    """Create the op's node on its outputs: edges, input metadata, saved values.

    Called only when grad mode is on and some input requires grad. `inputs` are the op's
    tensor inputs (Python numbers where torch would wrap a scalar), `outputs` the new tensors.
    """
    if not spec.complex_autograd and any(t._data.dtype.kind == "c" for t in outputs):
        raise RuntimeError(f"{spec.base} does not support automatic differentiation for "
                           "outputs with complex dtype.")
    node = _new(spec.node_cls)
    node._seq = _next_sequence_nr()
    nexts = []   # the edges, as two tuples (Note [Edges as two tuples] in autograd/graph.py)
    nrs = []
    meta = []
    diff = spec.diff_index
    linked = inputs if diff is None else [inputs[i] for i in diff]
    if spec.link_requiring_only:   # torch's NotImplemented nodes link only inputs needing grad
        linked = [t for t in linked if isinstance(t, _Tensor) and t._requires_grad]
    for t in linked:
        if isinstance(t, _Tensor):
            if t._requires_grad:
                fn, nr = _edge(t)
                nexts.append(fn)
                nrs.append(nr)
            else:
                nexts.append(None)
                nrs.append(0)
            data = t._data
            meta.append((data.shape, data.dtype))
        else:
            nexts.append(None)
            nrs.append(0)
            meta.append(None)
    node._next = tuple(nexts)
    node._nrs = tuple(nrs)
    node._meta = tuple(meta)
    node._args = rest
    node._kwargs = kwargs
    saved = saved_inputs(spec.save_plan, inputs)
    if len(outputs) == 1:
        out = outputs[0]
        if out._data.dtype.kind in "fcV" and not spec.nondiff_outputs:
            out._grad_fn = node
            out._requires_grad = True
    elif outputs:
        node._n_outputs = len(outputs)   # its formula takes one gradient per output
        nondiff = spec.nondiff_outputs
        for nr, out in enumerate(outputs):
            if out._data.dtype.kind in "fcV" and nr not in nondiff:
                out._grad_fn = node
                out._requires_grad = True
                out._output_nr = nr
    if spec.saves_result and outputs:   # (in-place ops save their result once written)
        for pos, nr in spec.saved_outputs:
            out = outputs[nr]   # an output without this node (indices) is saved as it is
            saved.insert(pos, SavedTensor(out, is_output=True, output_nr=nr)
                         if out._grad_fn is node else SavedTensor(out))
    node._held = tuple(saved)
    if _anomaly.enabled:   # anomaly mode: remember the forward call (autograd/anomaly_mode.py)
        from ..autograd.anomaly_mode import record_node
        record_node(node)
    return node


def _record_one(spec, a, rest, kwargs, out):
    """``_record(spec, (a,), rest, kwargs, (out,))`` for a one-input, one-output op whose input
    requires grad (unary ops, views): the same steps without the loops over inputs and
    outputs. The caller checks ``spec.one_input_plain`` (the input gets an edge, the output is
    not declared non-differentiable, at most one input is saved)."""
    node = _new(spec.node_cls)
    node._seq = _next_sequence_nr()
    if a._grad_fn is not None and a._base is None:   # (_edge's commonest case, inlined)
        node._next = (a._grad_fn,)
        nr = a._output_nr
    else:
        fn, nr = _edge(a)
        node._next = (fn,)
    node._nrs = (0,) if nr == 0 else (nr,)
    data = a._data
    node._meta = ((data.shape, data.dtype),)
    node._args = rest
    node._kwargs = kwargs
    differentiable = out._data.dtype.kind in "fcV"
    if differentiable:
        out._grad_fn = node
        out._requires_grad = True
    saved = [_saved_input(a)] if spec.save_plan else []   # (it needs its gradient: saved)
    if spec.saves_result:     # the output, saved as the node's own when it is differentiable
        for pos, _ in spec.saved_outputs:
            saved.insert(pos, SavedTensor(out, is_output=True) if differentiable
                         else SavedTensor(out))
    node._held = tuple(saved)
    if _anomaly.enabled:
        from ..autograd.anomaly_mode import record_node
        record_node(node)
    return node


class _NotSaved:
    """A value the node did not need to save (its only user needs no gradient)."""

    __slots__ = ()

    def unpack(self, node):
        return None

    _unpack_saved = unpack


_NOT_SAVED = _NotSaved()


class _SavedValue:
    """A saved Python number (a scalar where torch's schema has a tensor)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def unpack(self, node):
        return self.value

    _unpack_saved = unpack
