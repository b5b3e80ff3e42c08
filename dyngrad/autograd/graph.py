"""The backward graph: Node, the per-op node classes, AccumulateGrad and gradient edges.

Every recorded op leaves one Node on its output (``y.grad_fn``). A Node knows

* ``next_functions``: one edge ``(node, input_nr)`` per tensor input, ``(None, 0)`` where that
  input needs no gradient; a leaf that requires grad is reached through its ``AccumulateGrad``
  (kept as two tuples, ``_next`` and ``_nrs``: Note [Edges as two tuples]);
* what its backward formula needs: saved tensors (``_saved_self``…), the op's other arguments
  (``ctx.dim``…) and the shape/dtype of each input (for ``validate_outputs`` in the engine);
* its sequence number: later nodes run first (Note [Sequence numbers]).

Node classes carry torch's names (``MulBackward0``, ``SumBackward1``): the registry makes one
subclass of ``OpNode`` per op, and the op's formula is its ``backward``.

Note [Sequence numbers]
~~~~~~~~~~~~~~~~~~~~~~~
Each Node takes the next number from a global counter when it is created. The engine runs ready
nodes highest number first, which is the reverse of creation order: a node's gradient inputs are
complete before it runs whenever the forward ran in program order. AccumulateGrad nodes carry
the largest possible number, as in torch, so leaves are written as soon as their gradient is
ready (what DDP's overlap of communication with backward relies on).

Note [Edges as two tuples]
~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``next_functions`` is a tuple of ``(node, input_nr)`` pairs. A node keeps them as two
parallel tuples instead: ``_next`` holds the nodes, ``_nrs`` the input numbers, and
``next_functions`` zips them when someone asks. The reason is Python's cyclic garbage
collector: a pair holding a node is an object the collector tracks, and each full collection
walks every tracked object alive. A binary op's node had three such tuples (the outer one and
two pairs); now it has one, ``_nrs`` holding only ints, which the collector stops tracking (and
is a shared constant when both numbers are 0, the common case). A graph of 100 000 ops kept
alive for backward is then 200 000 objects fewer to walk, and the engine reads ``_next`` and
``_nrs`` directly.
"""
from __future__ import annotations

import itertools
import weakref
import threading
from typing import NamedTuple

from ..utils.hooks import RemovableHandle
from .saved import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks  # noqa: F401
from .saved import boxed
from ._torch_saved_names import SAVED_NAMES

_next_sequence_nr = itertools.count().__next__
UINT64_MAX = 2 ** 64 - 1


class Node:
    """A function of the backward graph (torch.autograd.graph.Node)."""

    # Rare attributes are class defaults (see Note [Slots and rare attributes] in _tensor.py).
    # `_hooked` turns True when any hook is registered: only then does the engine look at hooks.
    __slots__ = ("_next", "_nrs", "_seq", "__weakref__", "__dict__")
    _metadata = None
    _hooks = None           # post-hooks: fn(grad_inputs, grad_outputs)
    _prehooks = None        # pre-hooks: fn(grad_outputs)
    _tensor_prehooks = None  # Tensor.register_hook on this node's outputs: {id: (nr, fn)}
    _retains_grad_hooks = None  # retain_grad(): {output_nr: fn}
    _hooked = False
    _formula = None   # an op's node: its backward formula, which the engine calls directly
    # a node whose every gradient is None is skipped, but a custom Function's backward runs
    # (with zeros, or with None after ctx.set_materialize_grads(False)), as torch's
    _runs_without_grads = False

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        """One edge ``(node, input_nr)`` per input (Note [Edges as two tuples])."""
        return tuple(zip(self._next, self._nrs))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        self._next = tuple([e[0] for e in edges])
        self._nrs = tuple([e[1] for e in edges])

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def _sequence_nr(self) -> int:
        return self._seq

    def _set_sequence_nr(self, n: int) -> None:
        self._seq = n

    # -- hooks (run by the engine; see engine.py for the order) --------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after the node ran; may return new grad_inputs."""
        return _add_hook(self, "_hooks", fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        return _add_hook(self, "_prehooks", fn)

    def _register_tensor_prehook(self, output_nr: int, fn) -> RemovableHandle:
        """A hook registered with ``Tensor.register_hook`` on output `output_nr` of this node."""
        hooks = self._tensor_prehooks
        if hooks is None:
            hooks = self._tensor_prehooks = {}
        self._hooked = True
        handle = RemovableHandle(hooks)
        hooks[handle.id] = (output_nr, fn)
        return handle

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # -- the part each kind of node provides ---------------------------------------------------
    def apply(self, grads: tuple) -> tuple:
        """Gradients w.r.t. the inputs from gradients w.r.t. the outputs."""
        raise NotImplementedError

    def release_variables(self) -> None:
        """Free saved values once the node has run (unless retain_graph)."""

    def input_metadata(self, i: int):
        """(shape, dtype) of input `i`, or None when the engine should not check it."""
        return None

    def __call__(self, *grads):
        """Run the node on `grads` (torch's Node.__call__): a tensor for a node with one input
        edge, else a tuple."""
        out = self.apply(grads)
        return out[0] if len(out) == 1 else out


def _add_hook(node, attr, fn) -> RemovableHandle:
    hooks = getattr(node, attr)
    if hooks is None:
        hooks = {}
        setattr(node, attr, hooks)
    node._hooked = True
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class AccumulateGrad(Node):
    """The node that writes a leaf's gradient into ``.grad`` (see engine.accumulate_grad)."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self._seq = UINT64_MAX
        self._next = self._nrs = ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"   # torch's C++ name, as its name() returns

    def apply(self, grads):
        from .engine import accumulate_grad
        accumulate_grad(self.variable, grads[0])
        return ()

    def input_metadata(self, i):
        v = self.variable
        return (v._data.shape, v._data.dtype)


def grad_accumulator(tensor) -> AccumulateGrad:
    """The AccumulateGrad of a leaf, shared by every op that uses it while it lives.

    The tensor keeps only a weak reference, as torch does: the graph owns the node, the node
    owns the tensor, and nothing owns the graph once its outputs are gone.
    """
    ref = getattr(tensor, "_accumulator", None)
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(acc)
    return acc


def gradient_edge(tensor):
    """The edge along which a gradient w.r.t. `tensor` flows: ``(node, input_nr)``."""
    fn = tensor._grad_fn if tensor._base is None else tensor.grad_fn   # (the property's test)
    if fn is not None:
        return (fn, getattr(tensor, "_output_nr", 0))
    if tensor._requires_grad and not tensor._rg_inherited:
        return (grad_accumulator(tensor), 0)
    return (None, 0)   # (a view that requires grad only through its base has no accumulator)


class GradientEdge(NamedTuple):
    """``torch.autograd.graph.GradientEdge``: one input of a node, where a gradient flows in.

    ``autograd.grad`` and ``backward(inputs=)`` accept it in place of a tensor. (torch's
    ``ownership_token`` keeps a C++ graph alive; our nodes are plain Python objects that
    ``node`` already keeps alive, so the token stays None.)
    """

    node: Node
    output_nr: int
    ownership_token: Node = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge a gradient w.r.t. `tensor` flows along (its grad_fn or AccumulateGrad)."""
    if not tensor._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    return GradientEdge(*gradient_edge(tensor))


def increment_version(tensor) -> None:
    """Bump the version counter of a tensor, or of each tensor of an iterable (torch's)."""
    from .._tensor import Tensor
    if isinstance(tensor, Tensor):
        tensors = (tensor,)
    else:
        try:
            tensors = tuple(tensor)
        except TypeError:
            raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
        if not all(isinstance(t, Tensor) for t in tensors):
            raise RuntimeError("increment_version expects each element of the iterable to be "
                               "a tensor")
    for t in tensors:
        if not t._is_inference:
            t._bump_version()


def iter_graph(roots):
    """Every node reachable from `roots` once, breadth first (iterative: any depth).

    `roots` is a Node, a Tensor (its grad_fn or AccumulateGrad) or a sequence of them.
    """
    from collections import deque
    from .._tensor import Tensor
    if isinstance(roots, (Node, Tensor)):
        roots = (roots,)
    queue = deque()
    seen = set()
    for r in roots:
        node = gradient_edge(r)[0] if isinstance(r, Tensor) else r
        if node is not None and node not in seen:
            seen.add(node)
            queue.append(node)
    while queue:
        node = queue.popleft()
        for nxt in node._next:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
        yield node


# ---------------------------------------------------------------------------------------------
# register_multi_grad_hook
# ---------------------------------------------------------------------------------------------
class _MultiHandle(RemovableHandle):
    """One handle for the hooks a multi-grad hook put on each tensor."""

    def __init__(self, handles) -> None:
        self.handles = tuple(handles)

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all") -> RemovableHandle:
    """Call `fn` once per backward when the gradients w.r.t. several tensors are computed.

    ``mode="all"``: `fn(grads)` after the gradient of every tensor that this backward computes,
    with None for the rest (tensors not in this graph, or not on the way to ``inputs=``).
    ``mode="any"``: `fn(grad)` with the first of them to be computed.

    Note [Multi-grad hooks]
    ~~~~~~~~~~~~~~~~~~~~~~~
    Each tensor gets an ordinary ``register_hook``. State is kept per backward, keyed by the
    engine's graph task id, so two backwards (or two threads) never mix. In "all" mode the
    first hook to fire asks the engine how many of the tensors' nodes will run in this task
    (``engine.will_execute_node``): that is how many calls to wait for before calling `fn`.
    """
    from .engine import current_graph_task_id, will_execute_node
    import threading
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    lock = threading.Lock()
    if mode == "all":
        nodes = [gradient_edge(t)[0] for t in tensors]
        if any(n is None for n in nodes):   # (torch's check, before any hook is registered)
            raise AssertionError("Expected gradient function to be set")
        count, expected, buffers = {}, {}, {}

        def make_hook(i):
            def hook(grad):
                task = current_graph_task_id()
                with lock:
                    seen = count.get(task, 0)
                    count[task] = seen + 1
                    if seen == 0:
                        expected[task] = sum(map(will_execute_node, nodes))
                        buffers[task] = [None] * len(nodes)
                    buffers[task][i] = grad
                    done = seen + 1 == expected[task]
                    if done:
                        grads = buffers.pop(task)
                        del count[task], expected[task]
                if done:
                    fn(grads)
            return hook

        handles = [t.register_hook(make_hook(i)) for i, t in enumerate(tensors)]
    else:
        ran = set()   # graph tasks in which fn has run

        def hook(grad):
            task = current_graph_task_id()
            with lock:
                if task in ran:
                    return
                ran.add(task)
            fn(grad)

        handles = [t.register_hook(hook) for t in tensors if t.requires_grad]
    return _MultiHandle(handles)


class _GraphTask(threading.local):
    """The backward running in this thread: its id (-1 outside backward) and whether it runs
    every node (no ``inputs`` to capture), which reentrant checkpointing needs; `nodes` (the
    walk's dict of the nodes reached, and the roots), `visit`, `grad_only` (autograd.grad) and
    `captured` answer will_execute_node (register_multi_grad_hook); `visit` also
    OpNode.needs_input_grad, and `captured`, the nodes at which ``inputs=`` captures a
    gradient, ``unobserved``."""
    id = -1
    can_checkpoint = True
    nodes = visit = None
    grad_only = False
    captured = frozenset()


_graph_task = _GraphTask()
# How many backward passes, in all threads, prune their graph (a `visit` set: autograd.grad or
# backward(inputs=)). While none does, needs_input answers without the thread-local read. An
# update lost between threads can only make it answer True for a pruned edge: the formula then
# computes a gradient that the engine drops, as it does for every gradient it does not want.
_pruning = 0


def unobserved(node, i) -> bool:
    """Nothing but the engine can see the gradient `node` passes to its input `i`: it goes to
    an op's node or a leaf (not to a custom Function's backward, which is user code), no hook
    is on `node` or on the node it goes to (pre-hooks, Tensor.register_hook, retain_grad) or
    on the leaf, and ``inputs=`` captures nothing at the node it goes to (it may capture
    elsewhere: the gradients inside a gradient penalty's graph stay unseen). The engine may then
    hand it on in a form torch's hooks would not see (Note [Transposed gradients as arrays] in
    ops/linalg.py). (A count of _pruning lost between threads can only cost a captured
    gradient torch's view, or the fast form where it was allowed: the values are the same.)"""
    if node._hooked:
        return False
    nxt = node._next[i]
    if _pruning and nxt in _graph_task.captured:
        return False
    if type(nxt) is AccumulateGrad:
        return not nxt._hooked and not nxt.variable._backward_hooks
    return isinstance(nxt, OpNode) and not nxt._hooked


_Tensor = None   # the Tensor class (set by ops/_registry.py): saved_tensors' unboxed inputs


class OpNode(Node):
    """The node of a registry op; the registry makes one subclass per op with torch's name.

    It is also the ``ctx`` its backward formula receives: ``ctx.saved_tensors``,
    ``ctx.<argument>`` (``ctx.dim``, ``ctx.alpha``), ``ctx.<input>_shape`` / ``ctx.<input>_dtype``
    and ``ctx.needs_input_grad``. torch's ``_saved_<name>`` attributes read the same values.
    """

    __slots__ = ("_held", "_args", "_kwargs", "_meta")
    spec = None  # the OpSpec, set on each subclass
    _n_outputs = 1

    def apply(self, grads):
        formula = self.spec.backward_fn
        if formula is None:
            raise NotImplementedError(f"the derivative for '{self.spec.name}' is not "
                                      "implemented.")
        if len(grads) < self._n_outputs:   # outputs after the last one given a gradient
            grads = tuple(grads) + (None,) * (self._n_outputs - len(grads))
        out = formula(self, *grads)
        return out if type(out) is tuple else (out,)

    def release_variables(self) -> None:
        self._held = None

    def input_metadata(self, i):
        return self._meta[i]

    # -- the ctx interface -----------------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple:
        saved = self._held
        if saved is None:
            from .saved import FREED_MESSAGE
            raise RuntimeError(FREED_MESSAGE)
        # (entries are tensors or boxes: Note [Saved inputs without a box] in saved.py)
        if len(saved) == 2:   # (the commonest counts without a comprehension: 0.1 us a call)
            a, b = saved
            # (an input whose Storage object was never made has never been written: nothing
            # to check, and no call to make)
            return (a if type(a) is _Tensor and a._storage is None else a._unpack_saved(self),
                    b if type(b) is _Tensor and b._storage is None else b._unpack_saved(self))
        if len(saved) == 1:
            return saved[0]._unpack_saved(self),
        return tuple([s._unpack_saved(self) for s in saved])

    @property
    def needs_input_grad(self) -> tuple:
        """Which inputs' gradients the formula must compute: torch's task_should_compute_output.
        An edge to nowhere needs none; nor, in ``autograd.grad(out, inputs)`` or
        ``backward(inputs=)``, does an edge to a node that leads to none of the inputs (the
        engine would drop that gradient; torch's formulas skip it too)."""
        nexts = self._next
        if not _pruning:   # (see needs_input: every edge to a node is needed)
            if len(nexts) == 2:   # (the commonest count, without a comprehension)
                return nexts[0] is not None, nexts[1] is not None
            return tuple([fn is not None for fn in nexts])
        visit = _graph_task.visit   # (needs_input's test, for every edge at once)
        if visit is None:
            return tuple([fn is not None for fn in nexts])
        if len(nexts) == 2:
            a, b = nexts
            return a is not None and a in visit, b is not None and b in visit
        return tuple([fn is not None and fn in visit for fn in nexts])

    def needs_input(self, i: int) -> bool:
        """``needs_input_grad[i]``, without building the tuple (the formulas' hot check)."""
        fn = self._next[i]
        if fn is None:
            return False
        if not _pruning:
            return True
        visit = _graph_task.visit
        return visit is None or fn in visit

    def _box_for(self, key):
        """The SavedTensor (or other box) kept for `key`; an unboxed input gets its box here,
        kept in its place so that hooks registered on it stay (Note [Saved inputs without a
        box])."""
        saved = self._held
        i = self.spec.saves.index(key)
        if saved is None:   # freed by a backward: a box that says so when it is used
            from .saved import FreedSavedTensor
            return object.__new__(FreedSavedTensor)
        entry = saved[i]
        box = boxed(entry)
        if box is not entry:
            self._held = saved[:i] + (box,) + saved[i + 1:]
        return box


_NODE_CLASSES: dict = {}


def _argument_property(spec, name):
    """``ctx.<name>`` for one argument of `spec`'s op (see node_class)."""
    default = spec.arg_defaults[name]
    pos = spec.arg_positions.get(name)
    if pos is not None:
        def get(ctx):
            args = ctx._args
            return args[pos] if pos < len(args) else default
    else:   # keyword-only
        def get(ctx):
            kw = ctx._kwargs
            return kw[name] if kw and name in kw else default
    get.__name__ = name
    return property(get)


# Nodes torch implements by hand in C++: their name() carries the namespace
_CPP_NODES = {"CopyBackwards", "CopySlices", "AccumulateGrad", "GraphRoot", "Error",
              "NotImplemented", "DelayedError", "UndefinedGradBackward"}


# Note [Node attributes are class attributes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# What a node answers besides its slots (``ctx.dim``, ``ctx.self_shape``, torch's
# ``_saved_<name>`` and ``_raw_saved_<name>``) is made once per op as properties of its class
# (node_class), not looked up by a ``__getattr__``: a class that defines ``__getattr__`` makes
# CPython 3.11 leave every attribute read on its instances unspecialised, and the engine and the
# formulas read a node's slots (``_next``, ``_held``, ``_meta``...) on every backward: 22 ns a
# read instead of 4.4, about 4% of a gradient penalty step at toy sizes.
def _from_np(np_dtype):
    from .._dtypes import from_np
    return from_np(np_dtype)


def _input_property(k, dtype):
    if dtype:
        return property(lambda ctx: _from_np(ctx._meta[k][1]))
    return property(lambda ctx: ctx._meta[k][0])


def _sym_sizes_property(name, k):
    """``_saved_<input>_sym_sizes``: the input's recorded shape; a Python number given for that
    input has none (torch's node has no such attribute then)."""
    def get(ctx):
        meta = ctx._meta[k]
        if meta is None:
            raise AttributeError(f"'{type(ctx).__name__}' object has no attribute "
                                 f"'_saved_{name}_sym_sizes'")
        return meta[0]
    return property(get)


def _saved_property(key, raw):
    if raw:   # the box itself (register_hooks)
        return property(lambda ctx: ctx._box_for(key))
    return property(lambda ctx: ctx._box_for(key).unpack(ctx))


# Note [Saved arguments as torch shows them]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``dir(node)`` lists under ``_saved_`` what torch's node of that name lists: an argument or
# an input's shape is answered there only where torch keeps it (the table of
# _torch_saved_names.py, read from torch's node classes; a node torch lacks shows them all).
# The formulas read them as ``ctx.<name>`` either way.
#
# A node keeps its op's arguments as the call gave them; ``_saved_<name>`` shows them as
# torch's generated getters do, by the argument's type in torch's schema (read from the parser's
# signature table, _signatures.py, the first time a node of the op is asked): an ``int[]``
# is a tuple even when one int was given (``sum(x, 1)``: ``(1,)``), and an ``int`` or the ints
# of an ``int[]`` are shown as unsigned 64-bit numbers, as torch's getters convert them, so
# that a dim of -1 reads 2**64 - 1. A Scalar (``alpha``, ``min``) and a float are shown as
# given. The table holds torch's public functions only; an argument of an op it lacks (slice,
# split, nll_loss, the pads...) is shown by its value, an int or a list of ints converted
# unless its name is one of torch's Scalar or float arguments (_NOT_INTEGERS).
_UINT64 = 1 << 64
_INTS = frozenset(("int", "SymInt"))
_INT_LISTS = frozenset(("int[]", "SymInt[]"))
_BY_VALUE = frozenset(("int", "int[]"))   # (an int is an int, a list an int[])
_NOT_INTEGERS = frozenset((
    "alpha", "beta", "p", "margin", "lambd", "min_val", "max_val", "negative_slope",
    "threshold", "lower", "upper", "eps", "delta", "scale", "input_scale", "mean", "std",
    "median", "sigma", "value", "from_", "to", "rcond", "dropout_p", "min", "max"))


def _torch_kinds(spec, name) -> frozenset:
    """The types torch's signatures give argument `name` of `spec`'s op ("int", "int[]"...),
    over the overloads of the op's function (``_softmax``: softmax's)."""
    from ..ops._arg_parser import signatures
    kinds = set()
    for fn in (spec.base, spec.base.lstrip("_")):
        for sig in signatures(fn, False) or ():
            kinds.update(p.kind for p in sig.params if p.name == name)
        if kinds:
            return frozenset(kinds)
    return frozenset() if name in _NOT_INTEGERS else _BY_VALUE


def _as_torch_shows(value, kinds):
    """`value` of an argument typed `kinds` (Note [Saved arguments as torch shows them])."""
    if type(value) is int:
        if kinds & _INTS:
            return value % _UINT64
        if kinds & _INT_LISTS:
            return (value % _UINT64,)
        return value
    if type(value) in (list, tuple):
        if kinds & _INT_LISTS:
            return tuple(v % _UINT64 if type(v) is int else v for v in value)
        return tuple(value) if type(value) is list else value
    return value


def _argument_saved_property(spec, name):
    """``_saved_<name>`` of an argument: ``ctx.<name>`` as torch shows it."""
    kinds = []   # filled on first use: the signature table is parsed only when asked

    def get(ctx):
        if not kinds:
            kinds.append(_torch_kinds(spec, name))
        return _as_torch_shows(getattr(ctx, name), kinds[0])
    return property(get)


def node_class(spec) -> type:
    """The Node subclass named as torch names the op's node (one per op), with its attributes
    as properties (Note [Node attributes are class attributes]): each of the op's arguments
    (``ctx.dim``, ``ctx.alpha``), each linked input's recorded shape and dtype
    (``ctx.self_shape``, ``ctx.self_dtype``), and torch's names for the saved values
    (``_saved_self``, ``_raw_saved_self``, ``_saved_dim``, ``_saved_self_sym_sizes``)."""
    attrs = {"__slots__": (), "spec": spec, "__module__": "dyngrad.autograd.graph"}
    # the _saved_ names torch's node of that name has (None: a node torch lacks, all shown)
    shown = SAVED_NAMES.get(spec.node)
    for name in spec.arg_defaults:
        if not name.startswith("_"):
            if not hasattr(OpNode, name):
                attrs[name] = _argument_property(spec, name)
            if shown is None or name in shown:
                attrs["_saved_" + name] = _argument_saved_property(spec, name)
    for i, name in enumerate(spec.inputs):   # ctx.self_shape: the input's recorded shape
        if not name.endswith("[]") and (spec.diff_index is None or i in spec.diff_index):
            k = i if spec.diff_index is None else spec.diff_index.index(i)
            for suffix, dtype in (("_shape", False), ("_dtype", True)):
                attrs.setdefault(name + suffix, _input_property(k, dtype))
            if shown is None or f"{name}_sym_sizes" in shown:
                attrs.setdefault(f"_saved_{name}_sym_sizes", _sym_sizes_property(name, k))
    for key in spec.saves:   # (after the arguments: a saved input's own value wins)
        attrs["_saved_" + key] = _saved_property(key, False)
        attrs["_raw_saved_" + key] = _saved_property(key, True)
    if spec.node in _CPP_NODES:
        full = "torch::autograd::" + spec.node
        attrs["name"] = lambda self: full
    cls = type(spec.node, (OpNode,), attrs)
    _NODE_CLASSES[spec.name] = cls
    return cls


# ---------------------------------------------------------------------------------------------
# allow_mutation_on_saved_tensors
# ---------------------------------------------------------------------------------------------
# Note [Mutating saved tensors]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Normally a node that saved `b` refuses to run once `b` was changed in place (its version
# moved on). Inside ``allow_mutation_on_saved_tensors()``:
#
# 1. a saved_tensors_hooks pair packs each saved tensor as a small handle object and keeps the
#    tensor itself in ``ctx.original[handle]``; it also notes which tensors were saved at each
#    (data pointer, version), so an in-place write through another tensor object on the same
#    memory (a detached alias, say) is seen too;
# 2. the dispatcher calls ``_clone_before_write(target)`` before any in-place op (one flag
#    test in ``_check_inplace_autograd`` while the context is off): every saved tensor living
#    at the target's (data pointer, version) is cloned into ``ctx.cloned`` first;
# 3. in backward the unpack hook returns the clone when there is one, else the original.
#
# Hooked saved tensors skip the version check, so backward sees the values as they were.
# Everything is forgotten when the context exits: a backward after that fails, as in torch.

_mutation_enabled = False   # inside an allow_mutation_on_saved_tensors block


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block (returned by it)."""

    def __init__(self) -> None:
        self.cloned = weakref.WeakKeyDictionary()           # handle -> clone
        self.original = weakref.WeakKeyDictionary()         # handle -> the saved tensor
        self.tid_to_weakhandle = weakref.WeakValueDictionary()  # (id, ptr, version) -> handle
        self.sid_to_tid = {}                                # (ptr, version) -> {tid}

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


class _Handle:
    """What a saved tensor is packed into (weakly keyed: it dies with the node that saved it)."""


_BACKWARD_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                     "contextin which the graph was originally recorded.")   # torch's text


def _mutation_hooks(ctx) -> saved_tensors_hooks:
    def pack(tensor):
        ptr, version = tensor.data_ptr(), tensor._version
        tid = (id(tensor), ptr, version)
        ctx.sid_to_tid.setdefault((ptr, version), set()).add(tid)
        handle = ctx.tid_to_weakhandle.get(tid)
        if handle is None:   # (the same tensor at the same version shares one handle)
            handle = _Handle()
            ctx.tid_to_weakhandle[tid] = handle
            ctx.original[handle] = tensor
        return handle

    def unpack(handle):
        if not _mutation_enabled:
            raise AssertionError(_BACKWARD_OUTSIDE)
        if handle in ctx.cloned:
            return ctx.cloned[handle]
        if handle not in ctx.original:
            raise AssertionError(_BACKWARD_OUTSIDE)
        return ctx.original[handle]

    return saved_tensors_hooks(pack, unpack)


def _clone_before_write(ctx, target) -> None:
    """Called by the dispatcher before an in-place op writes into `target`."""
    tids = ctx.sid_to_tid.get((target.data_ptr(), target._version))
    if not tids:
        return
    from .grad_mode import no_grad
    for tid in tids:
        handle = ctx.tid_to_weakhandle.get(tid)
        if handle is None or handle in ctx.cloned:   # freed by a backward, or cloned already
            continue
        with no_grad():
            ctx.cloned[handle] = ctx.original.pop(handle).detach().clone()


class allow_mutation_on_saved_tensors:
    """Allow in-place changes to tensors saved for backward: they are cloned before the change
    (Note [Mutating saved tensors]). Run forward and backward inside the same block; entering
    returns the block's state object."""

    def __enter__(self) -> _AllowMutationOnSavedContext:
        global _mutation_enabled
        from functools import partial
        from ..ops import _dispatch
        self.ctx = ctx = _AllowMutationOnSavedContext()
        self.hooks = _mutation_hooks(ctx)
        self.hooks.__enter__()
        self.prev_write_hook = _dispatch._before_inplace_write
        _dispatch._before_inplace_write = partial(_clone_before_write, ctx)
        if _mutation_enabled:
            # as in torch, the refused inner block still turns the flag off on its way out:
            # the outer block's graph can no longer run backward
            self.__exit__(None, None, None)
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        _mutation_enabled = True
        return ctx

    def __exit__(self, *exc) -> None:
        global _mutation_enabled
        from ..ops import _dispatch
        self.ctx.clear()
        _mutation_enabled = False
        _dispatch._before_inplace_write = self.prev_write_hook
        self.hooks.__exit__(*exc)
