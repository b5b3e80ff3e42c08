"""The backward engine: the only code that executes backward (DESIGN.md §1, STYLE.md §3).

``run_backward`` takes the root tensors and their gradients and

1. counts, for every node reachable from the roots, how many edges lead into it;
2. when ``inputs`` are given, marks which nodes lead to them (the rest is pruned);
3. runs ready nodes from a heap, highest sequence number first (Note [Sequence numbers] in
   graph.py), each with an input buffer that sums the gradients arriving along its edges:
   tensor pre-hooks -> retain_grad -> capture for ``grad()`` -> node pre-hooks -> the node's
   backward (with grad mode = ``create_graph``) -> ``validate_outputs`` -> node post-hooks;
4. frees each node's saved values once it has run, unless ``retain_graph``.

Everything is iterative, so a chain of 100 000 ops needs no recursion.

Note [Why the engine unbroadcasts]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A formula such as ``mul``'s returns ``grad * other``, which has the *broadcast* shape of the
op's output. Summing it back to each input's shape (and casting it to the input's dtype) is the
same for every op, so it is done once, here, from the shapes each node recorded for its inputs
(torch's ``validate_outputs``). Formulas stay one line long.
"""
from __future__ import annotations

import heapq
import itertools
import sys
import threading

from . import grad_mode as _gm
from .forward_ad import _state as _fwad_state
from ..backends import numpy_backend as npb
from ..backends import sparse_coo as _sparse_coo
from ..backends.sparse_coo import COO as _COO
from . import graph as _graph
from . import views as _views
from .graph import AccumulateGrad, GradientEdge, OpNode, _graph_task, gradient_edge
from .anomaly_mode import _state as _anomaly
from .profiler import _state as _profiler

_op_apply = OpNode.apply

_state = _gm._state
_accumulate_lock = threading.Lock()


_task = _graph_task   # the backward running in this thread (autograd/graph.py)
_NOTHING_CAPTURED = frozenset()
_next_task_id = itertools.count().__next__


def current_graph_task_id() -> int:
    """The id of the backward running in this thread (torch._C._current_graph_task_id)."""
    return _task.id


def will_execute_node(node) -> bool:
    """Whether the running backward will execute `node` (torch._C._will_engine_execute_node).

    A node runs when it is reachable from the roots and, with ``inputs``, leads to one of them
    or is where one is captured. Asked of the task at hand, never of the engine loop, so it
    costs the hot path nothing.
    """
    if _task.id == -1:
        raise RuntimeError("_get_should_execute_nodes should only be called during the "
                           "backward pass")
    reached, roots = _task.nodes
    if node not in reached and node not in roots:
        return False
    if _task.visit is None:
        return True
    if _task.grad_only and type(node) is AccumulateGrad and node in _task.captured:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    return node in _task.visit


def _input_edge(t):
    """The (node, input_nr) where the gradient w.r.t. an ``inputs`` entry is captured."""
    if type(t) is GradientEdge:
        return (t.node, t.output_nr)
    return gradient_edge(t)


def is_checkpoint_valid() -> bool:
    """False inside ``autograd.grad`` and ``backward(inputs=)``
    (torch.autograd._is_checkpoint_valid)."""
    return _task.can_checkpoint


# ---------------------------------------------------------------------------------------------
# Leaves: AccumulateGrad
# ---------------------------------------------------------------------------------------------
def accumulate_grad(variable, grad) -> None:
    """Add `grad` into ``variable.grad`` (torch's AccumulateGrad::accumulateGrad).

    The first gradient is stored in the leaf's layout (stolen when nothing else refers to it,
    copied otherwise; with ``create_graph``, a recorded copy that keeps its history); later
    ones are added: in place without ``create_graph`` (so a reference to ``.grad`` sees the
    sum, as in torch; a gradient with a history keeps its ``grad_fn``), out of place with it
    (so the sum keeps its graph).
    """
    if grad is None:
        return
    with _accumulate_lock:
        old = getattr(variable, "_grad", None)
        if _sparse_coo.live and _sparse_involved(variable, grad, old):   # (while COOs exist)
            _accumulate_sparse(variable, grad, old)
        elif old is None:
            if _state.grad_enabled:
                variable._grad = _recorded_copy(variable, grad)
            else:
                variable._grad = _grad_for_leaf(variable, grad)
        else:
            if _state.grad_enabled:
                variable._grad = old + grad
            else:
                _ops().add_(old, grad)
            if not _obeys_layout_contract(variable._grad._data, variable._data):
                _warn_layout_contract(variable._grad._data, variable._data)
    hooks = getattr(variable, "_post_accumulate_grad_hooks", None)
    if hooks:
        for hook in tuple(hooks.values()):
            hook(variable)


def _sparse_involved(variable, grad, old) -> bool:
    return type(grad._data) is _COO or type(variable._data) is _COO or \
        old is not None and type(old._data) is _COO


def _accumulate_sparse(variable, grad, old) -> None:
    """``accumulate_grad`` where a sparse tensor is involved (the leaf, its ``.grad`` `old` or
    the new gradient), as torch's AccumulateGrad: the first gradient is kept (a copy when
    something else holds it); a sparse ``.grad`` plus a dense gradient is a new dense one;
    otherwise the sum goes into ``.grad`` in place (by the sparse ``+``'s rule). With
    ``create_graph``, recorded sums out of place."""
    if old is None:
        data = grad._data
        if _state.grad_enabled:
            variable._grad = grad.clone()
        elif type(data) is not _COO:   # a dense gradient of a sparse leaf: C order
            variable._grad = grad if data.flags.c_contiguous and grad.grad_fn is None \
                and not grad._requires_grad else grad.detach().clone(
                    memory_format=_tensor_module().contiguous_format)
        elif data.indices.flags.c_contiguous and data.values.flags.c_contiguous:
            # torch's shallow copy of a gradient it may take: the same addresses and values,
            # not marked coalesced
            variable._grad = _tensor_module()._wrap(_COO(data.indices, data.values, data.shape))
        else:
            variable._grad = grad.detach().clone()
    elif _state.grad_enabled:
        variable._grad = old + grad if type(old._data) is not _COO else grad + old
    elif type(old._data) is _COO and type(grad._data) is not _COO:
        variable._grad = grad + old
    else:
        _ops().add_(old, grad)


def _obeys_layout_contract(g, v) -> bool:
    """torch's test of an accumulated ``.grad`` against its leaf: the leaf's strides wherever
    a dim is not 1 (and no 0 stride where it is), for a dense leaf; C order for any other."""
    if g.strides == v.strides and g.itemsize == v.itemsize and (v.flags.c_contiguous
                                                                 or v.flags.f_contiguous):
        return True   # (the common case: a gradient in the leaf's own dense layout)
    if _dense_strides(v) is None:
        return g.flags.c_contiguous
    for n, gs, vs in zip(g.shape, g.strides, v.strides):
        if n == 1:
            if gs == 0:
                return False
        elif gs // g.itemsize != vs // v.itemsize:
            return False
    return True


_layout_warned = False   # (torch's warning is a TORCH_WARN_ONCE of its call site)


def _warn_layout_contract(g, v) -> None:
    """torch's warning for a ``.grad`` whose layout the accumulation left unlike the leaf's
    (one set by hand with other strides): once per process, or always after
    ``set_warn_always(True)`` (the warnings given then do not count as the one time)."""
    global _layout_warned
    from .._settings import _state as settings
    if _layout_warned and not settings.warn_always:
        return
    _layout_warned = _layout_warned or not settings.warn_always

    def dims(a):
        return ", ".join(str(d) for d in a)
    from ..ops._selection import warn_at_caller
    warn_at_caller(
        "grad and param do not obey the gradient layout contract. This is not an error, but "
        f"may impair performance.\ngrad.sizes() = [{dims(g.shape)}], strides() = "
        f"[{dims(s // g.itemsize for s in g.strides)}]\nparam.sizes() = [{dims(v.shape)}], "
        f"strides() = [{dims(s // v.itemsize for s in v.strides)}] (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/autograd/functions/accumulate_grad.h:252.)")


def _recorded_copy(variable, grad):
    """The first gradient of a leaf with ``create_graph``: a copy with the leaf's strides made
    by recorded ops, so that it keeps its history (CopyBackwards; a contiguous clone,
    CloneBackward0, for a leaf whose memory has gaps or overlaps), as torch's AccumulateGrad
    makes it. It is never the gradient itself: ``.grad`` is a tensor of the leaf's own."""
    v = variable._data
    if _dense_strides(v) is None:
        return grad.clone(memory_format=_tensor_module().contiguous_format)
    strides = tuple(s // v.itemsize for s in v.strides)
    return _ops().empty_strided(v.shape, strides, dtype=grad.dtype).copy_(grad)


def _grad_for_leaf(variable, grad):
    """A detached gradient with the leaf's strides that nobody else holds (the layout contract).

    `grad` is taken as it is when it already has that layout and only the engine refers to it
    (a fresh result), or its memory is when it is a view that nothing else can reach (Note
    [Stealing a gradient that is a view]); otherwise it is copied.
    """
    v = variable._data
    g = grad._data
    # the leaf's dtype, unless its grad_dtype says otherwise (then the engine has cast to it)
    dtype = v.dtype if variable._grad_dtype is ... else g.dtype
    want_strides = None if v.flags.c_contiguous else _dense_strides(v)
    if (grad.grad_fn is None and not grad._requires_grad
            and sys.getrefcount(grad) <= _STEAL_REFS and g.dtype == dtype
            and (want_strides is None and g.flags.c_contiguous or g.strides == want_strides)):
        if getattr(grad, "_base", None) is None:
            if grad._storage is None:
                return grad
        elif _only_view_of_its_memory(grad):
            return _tensor_module()._wrap(g)   # the same memory, as a tensor of its own
    _wrap = _tensor_module()._wrap
    if want_strides is None or v.flags.c_contiguous:
        out = npb.xp.array(g, dtype=dtype, order="C")
        strides = v.strides if dtype == v.dtype else tuple(
            s // v.itemsize * out.itemsize for s in v.strides)
        if v.flags.c_contiguous and v.size and out.strides != strides:
            # the leaf's size-1 dim has a stride of its own (NumPy calls it C-contiguous all
            # the same): torch gives the new gradient the leaf's strides, that one included
            out = npb.xp.ndarray(out.shape, out.dtype, out, 0, strides)
        return _wrap(out)
    out = npb.strided(npb.xp.empty(v.size, dtype), v.shape,
                      tuple(s // v.itemsize for s in want_strides), 0)
    out[...] = g
    return _wrap(out)


_tensor_mod = None


def _tensor_module():
    """dyngrad._tensor, imported on first use (it imports this package): a function-level
    import statement would cost about a microsecond per leaf and step."""
    global _tensor_mod
    if _tensor_mod is None:
        from .. import _tensor
        _tensor_mod = _tensor
    return _tensor_mod


_ops_mod = None


def _ops():
    """dyngrad.ops, imported on first use (see _tensor_module)."""
    global _ops_mod
    if _ops_mod is None:
        from .. import ops
        from ..ops import _dispatch, reduction   # noqa: F401  (attributes of `ops` below)
        _ops_mod = ops
    return _ops_mod


def _dense_strides(v):
    """`v`'s byte strides when it is dense (non-overlapping, no gaps), else None."""
    from .._layout import _dense
    return v.strides if _dense(v.shape, [s // v.itemsize for s in v.strides]) else None


def _only_view_of_its_memory(grad) -> bool:
    """True when the view `grad` is the last thing that reaches its memory, so a leaf can keep
    that memory as its ``.grad`` instead of a copy.

    Note [Stealing a gradient that is a view]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A linear layer's weight gradient arrives as ``t(t(mm result))``, a view (as in torch, whose
    AccumulateGrad steals such a gradient whenever the view itself has no other owner). Copying
    it costs a pass over every weight per step. The memory is free to take when nobody else can
    reach it: the view's base is held by nothing but the view, the Storage they share by
    nothing but the two of them, and the NumPy array owning the memory by nothing but the base,
    the Storage's flat buffer and the view's array (any other NumPy view, alias or exported
    buffer of that memory holds the owner too, and shows up in its reference count). Anything
    else — an intermediate view still alive, a saved tensor, a ``detach()`` alias, a user's
    reference — makes the counts higher and the gradient is copied, as before.
    """
    base = grad._base
    st = grad._storage
    owner = base._data
    if (base._base is not None or st is None or st is not base._storage
            or owner.base is not None):
        return False
    # the Storage holds the owner once: through its flat buffer, or, while that is still to
    # be made (Storage.of), as the very array it will be made from (reading .buffer would
    # make the buffer, only to be thrown away with the view). A buffer still to be made from
    # another view of the owner is made: that view may have other holders, which the owner's
    # count shows only once it is no longer the Storage's.
    if getattr(st, "_source", None) is owner:
        via_storage = True
    else:
        via_storage = st.buffer.base is owner
    g = grad._data
    # sys.getrefcount counts its own argument: +1 in each expected total below
    held = 3 + via_storage + (g.base is owner)
    return (sys.getrefcount(base) == 3 and sys.getrefcount(st) == 4
            and sys.getrefcount(owner) == held)


# References to a gradient that only the engine holds, as seen by sys.getrefcount inside
# _grad_for_leaf: the engine loop's local (run_backward hands a hookless leaf its gradient with
# no other reference left), accumulate_grad's argument, _grad_for_leaf's argument and
# getrefcount's own. Measured, not guessed: tests/autograd/test_backward.py checks that a linear
# layer's gradients are taken and that shared ones never are.
_STEAL_REFS = 4


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------
def _dependencies(root_nodes, parents=None):
    """In-degree of every node reachable from the roots (iterative DFS). A node other than a
    root is new when it first gets an in-degree: the count doubles as the walk's record of
    where it has been. Given a dict, the walk fills `parents` with every node's parents instead
    (one entry per edge), and the in-degrees are left to ``_must_execute``. Returns the dict
    filled: its keys and the roots are the nodes reachable (``will_execute_node``)."""
    counting = parents is None
    seen = {} if counting else parents   # node -> its in-degree, or its parents
    stack = list(root_nodes)
    roots = root_nodes if len(root_nodes) < 8 else set(root_nodes)
    while stack:
        fn = stack.pop()
        for nxt in fn._next:
            if nxt is None:
                continue
            if nxt in seen:
                if counting:
                    seen[nxt] += 1
                else:
                    seen[nxt].append(fn)
            else:
                seen[nxt] = 1 if counting else [fn]
                if nxt not in roots:   # (a root is walked from the start)
                    stack.append(nxt)
    return seen


def _must_execute(parents, capture_nodes, run_too=()):
    """Nodes whose backward must run for the gradients ``inputs=`` asks for (torch's
    exec_info), from the parents ``_dependencies`` collected, and the in-degrees the engine
    waits on once the graph is so pruned.

    As in torch, a node must run when one of its edges leads to a node where a gradient is
    captured, or to a node that must run; everything else is pruned. The test is by node, not
    by edge: a parent whose edge enters a captured node at another input (the other half of a
    ``split``) runs too, and the captured node's tensor hooks see that gradient as well. So the
    nodes that must run are the parents of the captured nodes, and everything above them: a
    walk up the parents finds them all. Only edges from nodes that must run carry a gradient,
    so those alone are counted, each node's as the walk reaches it (a pruned node is never
    popped, run or counted, as torch's exec_info skips it; a count kept for a node the engine
    will not visit is never read). The nodes in `run_too` must run as well, counted alike.
    """
    must = set(run_too)
    deps = {}
    stack = list(must)
    for node in capture_nodes:
        for fn in parents.get(node, ()):
            if fn not in must:
                must.add(fn)
                stack.append(fn)
    while stack:
        fn = stack.pop()
        for nxt in fn._next:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
        for p in parents.get(fn, ()):
            if p not in must:
                must.add(p)
                stack.append(p)
    return must, deps


_CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")


def run_backward(roots, grad_roots, retain_graph: bool, create_graph: bool,
                 inputs=None, allow_unused: bool = False, accumulate: bool = True):
    """Backpropagate `grad_roots` from `roots`. Returns the captured gradients of `inputs`.

    ``accumulate=True`` (``backward``) writes leaves' ``.grad``; with ``inputs`` only theirs.
    ``accumulate=False`` (``autograd.grad``) writes nothing and returns the gradients w.r.t.
    ``inputs``.
    """
    if accumulate and create_graph:
        from ..ops._selection import warn_once_at_caller
        warn_once_at_caller(_CREATE_GRAPH_CYCLE)
    root_edges = [gradient_edge(t) for t in roots]
    root_nodes = []
    for fn, _ in root_edges:
        if fn is not None and fn not in root_nodes:
            root_nodes.append(fn)
    captures = None   # (node, input_nr) -> positions in `inputs`
    must = visit = cap_nodes = None
    if inputs is None:
        deps = reached = _dependencies(root_nodes)
        captured = []
    else:
        reached = _dependencies(root_nodes, {})   # (each node's parents)
        captures = {}
        for i, t in enumerate(inputs):
            captures.setdefault(_input_edge(t), []).append(i)
        cap_nodes = {e[0] for e in captures}
        # backward(inputs=): torch marks each input's own node as one to run, not only to
        # capture at; a non-leaf's node then runs (its hooks too), with nothing needed beyond
        # it. (A leaf's AccumulateGrad is left to the accumulation below.)
        run_too = [n for n in cap_nodes if type(n) is not AccumulateGrad] if accumulate else ()
        must, deps = _must_execute(reached, cap_nodes, run_too)
        visit = must | cap_nodes
        captured = [None] * len(inputs)

    buffers = {}
    for (fn, nr), g in zip(root_edges, grad_roots):
        if fn is None:
            continue
        _add_to_buffer(buffers, fn, nr, g)

    heap = []
    counter = 0
    for fn in root_nodes:
        if deps.get(fn, 0) == 0 and (visit is None or fn in visit):
            heapq.heappush(heap, (-fn._seq, counter, fn))
            counter += 1

    prev_grad_mode = _state.grad_enabled
    _state.grad_enabled = create_graph   # formulas and hooks run in this mode, as in torch
    pop, push = heapq.heappop, heapq.heappush
    # sums made in place (see _add_to_buffer): not with create_graph, nor inside a forward-AD
    # level, where a gradient may carry a tangent that only the recorded sum adds up
    owned = None if create_graph or _fwad_state.active else set()
    plain = captures is None   # no gradients to capture: the common case of _run_node applies
    prev_task = _task.id, _task.can_checkpoint, _task.nodes, _task.visit, _task.grad_only, \
        _task.captured
    _task.id, _task.can_checkpoint, _task.nodes, _task.visit = _next_task_id(), plain, \
        (reached, root_nodes), visit
    _task.grad_only = not accumulate
    _task.captured = _NOTHING_CAPTURED if cap_nodes is None else cap_nodes
    run_node = _run_node
    inline = True    # nodes without hooks, captures or pruning run inlined below
    if _anomaly.enabled or _profiler.active:   # every node takes _observed_run_node
        run_node, plain, inline = _observed_run_node, False, False
    # with captures, the nodes run inlined: those that must run and capture nothing
    inlined = None if captures is None else must - cap_nodes
    ready = None   # the only ready node, kept out of the heap (see below)
    if visit is not None:
        _graph._pruning += 1   # (see OpNode.needs_input)
    try:
        while heap or ready is not None:
            if ready is not None:
                fn = ready
                ready = None
            else:
                fn = pop(heap)[2]
            g = buffers.pop(fn, None)   # its gradient, or a list of them (_add_to_buffer)
            nexts = fn._next   # (its edges: Note [Edges as two tuples] in graph.py)
            metas = None   # set when the node's gradients are still to be validated
            if inline and not fn._hooked and type(fn) is not AccumulateGrad and (
                    inlined is None or fn in inlined):
                # _run_node without hooks or captures, inlined: this runs once per node
                formula = fn._formula
                if g is None and not fn._runs_without_grads:
                    outputs = None
                elif formula is not None and type(g) is not list:
                    # OpNode.apply and release_variables, inlined for a node whose first output
                    # alone has a gradient (the later ones get None, as apply gives them); its
                    # gradients are validated one by one in the loop over its edges below
                    n = fn._n_outputs
                    outputs = formula(fn, g) if n == 1 else formula(fn, g, *(None,) * (n - 1))
                    if not retain_graph:
                        fn._held = None
                    if type(outputs) is not tuple:
                        outputs = (outputs,)
                    metas = fn._meta
                    if len(outputs) != len(metas):
                        validate_outputs(fn, outputs)   # raises torch's count error
                else:
                    grads = g if type(g) is list else [g]
                    g = None
                    outputs = fn.apply(tuple(grads))
                    grads = None
                    if not retain_graph:
                        fn.release_variables()
                    outputs = validate_outputs(fn, outputs)
            elif plain and type(fn) is AccumulateGrad and not fn._hooked and not getattr(
                    fn.variable, "_backward_hooks", None):
                # a leaf without hooks: hand its gradient over with no other reference left in
                # this frame, so accumulate_grad can tell whether anyone else holds it
                if fn.variable._grad_dtype is not ...:
                    g = _leaf_grad(fn.variable, g)
                if g is not None:
                    accumulate_grad(fn.variable, g)
                    g = None
                continue
            elif inline and type(fn) is AccumulateGrad and not fn._hooked and not getattr(
                    fn.variable, "_backward_hooks", None):
                # a captured leaf without hooks (an input of autograd.grad, or of backward's
                # inputs=, accumulated below): _run_node's capture, inlined. A leaf's node is
                # never one that must run, and no node waits on it.
                if fn.variable._grad_dtype is not ...:
                    g = _leaf_grad(fn.variable, g)
                if g is not None:
                    for i in captures.get((fn, 0), ()):
                        captured[i] = g if captured[i] is None else captured[i] + g
                    g = None
                continue
            else:
                grads = g if type(g) is list else [g]
                g = None
                outputs = run_node(fn, grads, captures, captured, must, retain_graph)
                grads = None
                if must is not None and fn not in must:
                    continue   # a node run only to capture its gradient: no one waits on it
            i = -1
            for nxt in nexts:
                i += 1
                if nxt is None:
                    continue
                wanted = visit is None or nxt in visit
                if outputs is not None:
                    g = outputs[i]
                    if metas is not None and g is not None:   # validate_outputs, inlined
                        meta = metas[i]
                        data = g._data   # (NumPy's dtypes of one kind are one object)
                        if meta is not None and (data.dtype is not meta[1]
                                                 or data.shape != meta[0]):
                            g = _validate_one(fn, i, g, meta, wanted)
                    if g is not None and wanted:
                        nr = fn._nrs[i]
                        buf = buffers.get(nxt)
                        if buf is None and nr == 0:
                            buffers[nxt] = g
                        elif nr == 0 and owned is not None and nxt in owned \
                                and type(buf) is not list:
                            try:   # _add_to_buffer's in-place sum, inlined
                                buf._data += g._data
                            except ValueError:   # (a gradient the sum would broadcast: NumPy
                                _add_to_buffer(buffers, nxt, nr, g, owned)   # refuses, in time)
                        else:
                            _add_to_buffer(buffers, nxt, nr, g, owned)
                if not wanted:
                    continue   # pruned: it never runs (_must_execute)
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    # a chain makes one node ready at a time: it runs next without a trip
                    # through the heap; a second ready node sends both there, in order
                    if ready is None and not heap:
                        ready = nxt
                        continue
                    if ready is not None:
                        push(heap, (-ready._seq, counter, ready))
                        counter += 1
                        ready = None
                    push(heap, (-nxt._seq, counter, nxt))
                    counter += 1
            g = buf = data = outputs = metas = None   # the gradients now live in the buffers only
    except BaseException:
        if _anomaly.enabled:   # Note [Anomaly reports] in anomaly_mode.py
            from .anomaly_mode import report_error
            report_error(fn)
        raise
    finally:
        _state.grad_enabled = prev_grad_mode
        _task.id, _task.can_checkpoint, _task.nodes, _task.visit, _task.grad_only, \
            _task.captured = prev_task
        if visit is not None:
            _graph._pruning -= 1

    if inputs is not None:
        if accumulate:   # backward(inputs=...): accumulate what was captured, leaf or not
            _state.grad_enabled = create_graph   # (in the engine's mode, as the leaves above)
            try:
                for t, g in zip(inputs, captured):
                    if type(t) is GradientEdge:   # only an edge into a leaf accumulates
                        if type(t.node) is AccumulateGrad:
                            accumulate_grad(t.node.variable, g)
                    elif t.grad_fn is None:   # (a non-leaf's retain_grad hook, which
                        accumulate_grad(t, g)  # backward() added, has stored it already)
            finally:
                _state.grad_enabled = prev_grad_mode
        else:
            for i, t in enumerate(inputs):
                if captured[i] is None and not allow_unused:
                    raise RuntimeError(
                        f"The differentiated Tensor at index {i} appears to not have been used "
                        "in the graph. Set allow_unused=True if this is the desired behavior.")
    return captured


def _add_to_buffer(buffers, fn, nr, g, owned=None):
    """Sum gradient `g` into slot `nr` of fn's input buffer (one slot per forward output).

    A buffer holding only slot 0 is that gradient itself; one with a later slot is a list,
    one entry per slot (the commonest node, one output, then costs no list). The first sum
    makes a new tensor; `owned` remembers the slots holding such a sum, which only the engine
    can see, so later gradients are added into it in place (torch's InputBuffer does the
    same). A slot is keyed by its node, or by ``(node, nr)`` for a node's later outputs (the
    commonest key costs no tuple). With ``create_graph`` (`owned` is None) every sum is
    recorded.
    """
    buf = buffers.get(fn)
    if buf is None:
        if nr == 0:
            buffers[fn] = g
            return
        buf = buffers[fn] = []
    elif type(buf) is not list:
        if nr == 0:   # slot 0 again: the buffer stays one tensor
            buffers[fn] = _sum_into(buf, g, fn, owned)
            return
        buf = buffers[fn] = [buf]
    while len(buf) <= nr:
        buf.append(None)
    old = buf[nr]
    if old is None:
        buf[nr] = g
        return
    buf[nr] = _sum_into(old, g, fn if nr == 0 else (fn, nr), owned)


def _sum_into(old, g, slot, owned):
    """``old + g`` for a buffer slot: in place into a sum the engine made itself (only it can
    see it), else a new tensor (recorded with ``create_graph``) that later sums go into. Two
    sparse gradients are joined (their addresses, uncoalesced: torch's in-place sparse sum);
    a sparse and a dense one make a dense sum."""
    if _sparse_coo.live and (type(old._data) is _COO or type(g._data) is _COO):
        if type(old._data) is _COO and type(g._data) is _COO and not _state.grad_enabled:
            return old.clone().add_(g)
        return g + old if type(old._data) is _COO else old + g
    if owned is not None and slot in owned and old._data.shape == g._data.shape:
        old._data += g._data
        return old
    total = old + g
    if owned is not None:
        owned.add(slot)
    return total


def _run_node(fn, grads, captures, captured, must, retain_graph):
    """Run one node with its hooks; returns its output gradients (one per next edge)."""
    hooked = fn._hooked
    # 0. (and 2.) capture the gradients autograd.grad() / backward(inputs=) asked for. As in
    # torch's evaluate_function, a node that must run captures its gradients as they arrive,
    # before its tensor hooks; one only captured at (nothing it leads to is needed) captures
    # them after its tensor hooks have run
    needed = captures is not None and fn in must
    if needed:
        _capture(fn, grads, captures, captured)
    # 1. tensor pre-hooks (Tensor.register_hook), then retain_grad
    if type(fn) is AccumulateGrad:
        if fn.variable._grad_dtype is not ...:
            grads[0] = _leaf_grad(fn.variable, grads[0])
        hooks = getattr(fn.variable, "_backward_hooks", None)
        if hooks and grads[0] is not None:   # (a pruned leaf gets no gradient, no hook call)
            for hook in tuple(hooks.values()):
                r = hook(grads[0])
                if r is not None:
                    grads[0] = _checked_hook_value(grads[0], r, hook)
    elif hooked:
        _tensor_prehooks(fn, grads)

    # 2. (see 0.)
    if captures is not None and not needed:
        _capture(fn, grads, captures, captured)
        return None

    # 3. node pre-hooks
    if hooked:
        prehooks = getattr(fn, "_prehooks", None)
        if prehooks:
            for hook in tuple(prehooks.values()):
                r = hook(tuple(grads))
                if r is not None:
                    grads = _checked_hook_values(grads, r, hook)

    for g in grads:
        if g is not None:
            break
    else:
        if not fn._runs_without_grads:
            return None

    # 4. the node itself (grad mode is create_graph: see run_backward)
    outputs = fn.apply(tuple(grads))
    if not retain_graph:
        fn.release_variables()
    if type(fn) is AccumulateGrad:
        outputs = ()   # (a leaf's node has no next edges: its post-hooks get no gradients)
    else:
        outputs = validate_outputs(fn, outputs)

    # 5. node post-hooks
    if hooked:
        hooks = getattr(fn, "_hooks", None)
        if hooks:
            for hook in tuple(hooks.values()):
                r = hook(tuple(outputs), tuple(grads))
                if r is not None:
                    outputs = _checked_hook_values(outputs, r, hook)
    return None if type(fn) is AccumulateGrad else outputs


def _capture(fn, grads, captures, captured):
    """Keep fn's incoming gradients where ``inputs=`` asks for them (summed when two inputs
    are one)."""
    for nr, g in enumerate(grads):
        pos = captures.get((fn, nr))
        if pos is not None and g is not None:
            for i in pos:
                captured[i] = g if captured[i] is None else captured[i] + g


def _checked_hook_value(original, result, hook):
    """What a hook returned in place of gradient `original`, after torch's checks: a tensor
    of the same dtype and shape (check_variable_result)."""
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, _tensor_module().Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = getattr(hook, "__name__", "<unknown>")
    was, got = original._data.dtype, result._data.dtype
    if was != got:
        from .._dtypes import from_np
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"torch.{from_np(was)._legacy}Tensor got "
                           f"torch.{from_np(got)._legacy}Tensor)")
    if original._data.shape != result._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return result


def _checked_hook_values(originals, result, hook) -> list:
    """What a node hook returned in place of `originals`: a tuple of as many gradients, each
    None or passing _checked_hook_value."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{getattr(hook, '__name__', '<unknown>')}' has returned an "
                           f"incorrect number of values (got {len(result)}, but expected "
                           f"{len(originals)})")
    return [r if r is None else _checked_hook_value(g, r, hook)
            for g, r in zip(originals, result)]


def _observed_run_node(fn, grads, captures, captured, must, retain_graph):
    """``_run_node`` while anomaly mode or the profiler is on: the profiler's ranges around
    the node, the node marked as the running one (for anomaly parents), then the NaN check."""
    from . import anomaly_mode, profiler
    rng = profiler.begin_node(fn.name(), grads) if _profiler.active else None
    outputs = None
    try:
        if _anomaly.enabled:
            outputs = anomaly_mode.run_node(fn, _run_node, (fn, grads, captures, captured,
                                                            must, retain_graph))
            anomaly_mode.check_nan(fn, outputs)
        else:
            outputs = _run_node(fn, grads, captures, captured, must, retain_graph)
    finally:
        if rng is not None:
            profiler.end_node(rng, outputs)
    return outputs


def _tensor_prehooks(fn, grads):
    """Hooks from ``Tensor.register_hook`` on fn's outputs, then ``retain_grad``'s."""
    tensor_hooks = getattr(fn, "_tensor_prehooks", None)
    if tensor_hooks:
        # every output's hooks run, with None for an output that got no gradient (a sibling
        # of the output backward started from), as torch's do
        for output_nr, hook in tuple(tensor_hooks.values()):
            while len(grads) <= output_nr:
                grads.append(None)
            r = hook(grads[output_nr])
            if r is not None:
                grads[output_nr] = _checked_hook_value(grads[output_nr], r, hook)
    retains = getattr(fn, "_retains_grad_hooks", None)
    if retains:
        for output_nr, hook in tuple(retains.items()):
            if output_nr < len(grads) and grads[output_nr] is not None:
                hook(grads[output_nr])


def validate_outputs(fn, outputs):
    """Check count, then sum each gradient to its input's shape and cast it to its dtype."""
    nexts = fn._next
    n = len(nexts)
    if len(outputs) != n:
        raise RuntimeError(f"function {fn.name()} returned an incorrect number of gradients "
                           f"(expected {n}, got {len(outputs)})")
    outputs = list(outputs)
    metas = fn._meta if type(fn).apply is _op_apply else None   # an OpNode: read it directly
    visit = _task.visit
    for i, g in enumerate(outputs):
        if g is None:
            continue
        nxt = nexts[i]
        if nxt is None:
            outputs[i] = None
            continue
        meta = metas[i] if metas is not None else fn.input_metadata(i)
        if meta is None:
            continue
        wanted = visit is None or nxt in visit
        if wanted and g._data.shape == meta[0] and g._data.dtype is meta[1]:
            continue
        outputs[i] = _validate_one(fn, i, g, meta, wanted)
    return outputs


def _validate_one(fn, i, g, meta, wanted: bool):
    """Gradient `g` for fn's input `i` summed to that input's shape and cast to its dtype;
    None for a gradient that leads to none of ``inputs`` (checked, then dropped unsummed)."""
    shape, dtype = meta
    data = g._data
    if not wanted:
        if data.shape != shape:
            _check_expandable(fn, i, data.shape, shape)
        return None
    if data.shape != shape:
        g = _sum_to(fn, i, g, shape)
    if data.dtype is not dtype and data.dtype != dtype:
        if data.dtype.kind == "c" and dtype.kind != "c":   # torch's validate_outputs check
            raise RuntimeError(
                "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
                "grad_is_complex) to be true, but got false.  (Could this error message be "
                "improved?  If so, please report an enhancement request to PyTorch.)")
        nxt = fn._next[i]
        if type(nxt) is AccumulateGrad and nxt.variable._grad_dtype is not ... \
                and type(fn).apply is not _op_apply:
            # a custom Function's gradient for a leaf with a grad_dtype: cast once, to that
            # (an op's is cast to the leaf's dtype, as torch's formulas do, and then to it)
            return _leaf_grad(nxt.variable, g)
        g = g.to(_from_np(dtype))
    return g


def _leaf_grad(variable, g):
    """`g` in the dtype a leaf whose ``grad_dtype`` was set wants: that dtype, or `g` as it
    is for None (torch's AccumulateGrad input metadata; Note [grad_dtype] in
    _tensor_protocols.py)."""
    want = variable._grad_dtype
    if g is None or want is None or g._data.dtype == want.np:
        return g
    return g.to(want)


def _from_np(np_dtype):
    from .._dtypes import from_np
    return from_np(np_dtype)


def _invalid_gradient(fn, i, gshape, shape):
    from .._utils import shape_str
    return RuntimeError(f"Function {fn.name()} returned an invalid gradient at index {i} - got "
                        f"{shape_str(gshape)} but expected shape compatible with "
                        f"{shape_str(shape)}")


def _check_expandable(fn, i, gshape, shape):
    """torch's check that a gradient of `gshape` sums to `shape` (without summing it)."""
    from ..ops._autograd_utils import expandable
    if not expandable(shape, gshape):
        raise _invalid_gradient(fn, i, gshape, shape)


def summed_view(total, lead: int):
    """The sum `total` of a gradient's `lead` leading dims as torch's sum_to gives it: a view
    of the keepdim sum, where a hook or inputs= can see it (Note [Transposed gradients as
    arrays] in ops/linalg.py); made as the view op's fast path makes a view in backward."""
    base = _tensor_module()._wrap(total.reshape((1,) * lead + total.shape))
    out = base._view_of_array(total, 0)
    out._view_creation = _views.NO_GRAD_MODE
    return out


def _sum_to(fn, i, g, shape):
    """Sum a broadcast gradient back to `shape`, or torch's "invalid gradient" error."""
    lead = g._data.ndim - len(shape)
    if lead > 0 and not _state.grad_enabled and g._data.shape[lead:] == shape:
        # a bias's gradient: sum the leading dims away (one op, a fresh tensor); with
        # create_graph it is sum_to_size's keepdim sum and view, the graph torch records
        dims = tuple(range(lead))
        data = g._data
        ops = _ops()
        if data.dtype.kind == "f" and data.itemsize >= 4 and not ops._dispatch._fast_off:
            # nothing to record, no tangent to carry and no profiler to tell: sum's own kernel,
            # without the dispatch around it (6.5 -> 2.3 us on a (32, 256) gradient)
            total = ops.reduction._sum(npb.xp, data, dims, False, None)
            return _tensor_module()._wrap(total) if _graph.unobserved(fn, i) \
                else summed_view(total, lead)
        return g.sum(dims)
    from ..ops._autograd_utils import sum_to_size
    try:
        return sum_to_size(g, shape)
    except RuntimeError:
        raise _invalid_gradient(fn, i, g._data.shape, shape) from None
