"""Activation checkpointing: ``checkpoint`` and ``checkpoint_sequential`` (torch.utils.checkpoint).

A checkpointed region keeps only its inputs during the forward pass; the tensors its ops save
for backward are recomputed, by running the region again, when backward first needs one.
Compute is traded for memory: a network checkpointed layer by layer holds one layer's
activations at a time instead of all of them.

Two variants exist, as in torch:

* ``use_reentrant=False`` (recommended) works through saved-tensor hooks
  (Note [Checkpoint without reentrant autograd]). The forward records the usual graph, so
  ``autograd.grad``, ``backward(inputs=)``, ``create_graph`` and nested checkpoints all work.
* ``use_reentrant=True`` (torch's default when the argument is left out, with a warning) is the
  custom ``autograd.Function`` ``CheckpointFunction``: the forward runs under no_grad and its
  backward reruns the region and calls ``backward`` from inside backward (reentrant).

Note [Checkpoint without reentrant autograd]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
During the forward, the region runs inside ``saved_tensors_hooks(pack, unpack)``. ``pack``
stores no tensor: it returns a fresh ``_Holder`` and appends a weak reference to it, in order,
to the region's ``_Frame`` (with the tensor's shape/dtype/device for the determinism check).
The graph owns the holders; when backward frees a node's saved values, its holders die.

The first ``unpack`` in a backward pass (identified by the engine's graph-task id) reruns the
region on its saved inputs, under the RNG state it had in the forward (so dropout draws the
same noise) and inside a second hook, ``_recomputation_hook``, whose pack counts the tensors
saved by the rerun and gives the k-th one to the k-th holder still alive. The rerun stops
early (``_StopRecomputation``) once every holder is served. Each unpack then hands out its
holder's tensor and forgets it, so recomputed values live only until the node using them ran.
Recomputing a different number of tensors, or tensors of other shapes, raises
``CheckpointError`` with torch's message.

Nesting follows torch's rules: a region's saved tensors belong to the innermost checkpoint only,
and an inner checkpoint saves its inputs as ordinary saved tensors, which the enclosing
checkpoint therefore recomputes like any other.

Differences from torch: no device (CUDA) RNG states or autocast states to restore (dyngrad has
neither yet); ``debug=True`` reports the saved tensors of the forward and of the recomputation
(producing node, shape, dtype) instead of torch's operator logs; no ``GraphExecGroup`` and no
selective checkpointing (``create_selective_checkpoint_contexts``).
"""
from __future__ import annotations

import contextlib
import itertools
import warnings
import weakref
from collections import defaultdict

from ..autograd import grad_mode as _gm
from ..autograd.function import Function
from ..autograd.saved import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn",
           "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


class CheckpointError(RuntimeError):
    """The recomputation of a checkpointed region did not match its forward pass."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


_early_stop_override = None
_debug_override = None


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Whether checkpoints created inside the block stop recomputing once they have every
    tensor backward needs (overrides each call's ``early_stop``)."""
    global _early_stop_override
    prev, _early_stop_override = _early_stop_override, enable
    try:
        yield
    finally:
        _early_stop_override = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Override every checkpoint's ``debug`` flag inside the block (None: each call decides)."""
    global _debug_override
    prev, _debug_override = _debug_override, enabled
    try:
        yield
    finally:
        _debug_override = prev


def detach_variable(inputs):
    """The tuple `inputs` with each tensor detached, keeping its ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    Tensor = _tensor_cls()
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warn (as torch) when no tensor input requires grad: the region would get no gradient."""
    Tensor = _tensor_cls()
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


@contextlib.contextmanager
def _rng_as_in_forward(preserve: bool, state):
    """Run the block with the RNG state `state` and restore the surrounding state afterwards."""
    from ..ops import random
    if not preserve:
        yield
        return
    with random.fork_rng():
        random.set_rng_state(state)
        yield


# ---------------------------------------------------------------------------------------------
# The public entry points
# ---------------------------------------------------------------------------------------------
def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True,
               context_fn=noop_context_fn, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate tensors for backward;
    backward recomputes them (see the module docstring).

    Args:
        function: the region to checkpoint.
        args: its arguments; tensors among them are kept.
        use_reentrant: pass it explicitly; False (recommended) uses saved-tensor hooks, True the
            reentrant ``CheckpointFunction``. Left out: a warning, then True, as torch does.
        preserve_rng_state: rerun the region under the RNG state of the forward (so dropout
            masks are identical). Default True.
        context_fn: returns two context managers, for the forward and the recomputation
            (non-reentrant only).
        determinism_check: ``"default"`` compares shape, dtype and device of the recomputed
            tensors with the forward's; ``"none"`` skips it (non-reentrant only).
        debug: add the saved tensors of both runs to a ``CheckpointError`` (non-reentrant only).
        early_stop: stop the recomputation once every needed tensor is recomputed.
        kwargs: keyword arguments of `function` (non-reentrant only).

    Returns:
        What ``function`` returns.

    Example::

        >>> y = checkpoint(lambda x: x.sin().exp(), x, use_reentrant=False)
        >>> y.sum().backward()    # reruns x.sin().exp() to get the saved tensors
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, context_fn,
                                         determinism_check, debug, early_stop)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run `functions` one after the other on `input`, checkpointing them in `segments` chunks;
    the last chunk runs normally (its activations are needed right away by backward).

    Args:
        functions: an ``nn.Sequential`` or a list of callables, each taking one value.
        segments: the number of chunks.
        input: the input of the first function.
        use_reentrant: as for :func:`checkpoint`.
        preserve_rng_state: as for :func:`checkpoint` (keyword).

    Returns:
        The output of the last function.
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is "
            "not passed. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    from .. import nn
    sequential = getattr(nn, "Sequential", None)
    if sequential is not None and isinstance(functions, sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


# ---------------------------------------------------------------------------------------------
# use_reentrant=True: a custom Function that reruns the region inside its backward
# ---------------------------------------------------------------------------------------------
class CheckpointFunction(Function):
    """The reentrant checkpoint: forward under no_grad; backward reruns the region with grad
    and backpropagates through the rerun with a nested ``backward`` call."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        from ..ops import random
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = random.get_rng_state()
        Tensor = _tensor_cls()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with _gm.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd import _is_checkpoint_valid, backward
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for idx, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[idx] = t
        with _rng_as_in_forward(ctx.preserve_rng_state, getattr(ctx, "fwd_cpu_state", None)):
            detached = detach_variable(tuple(inputs))
            with _gm.enable_grad():
                outputs = ctx.run_function(*detached)
        Tensor = _tensor_cls()
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        roots, root_grads = [], []
        for out, g in zip(outputs, grads):
            if isinstance(out, Tensor) and out.requires_grad:
                roots.append(out)
                root_grads.append(g)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        backward(roots, root_grads)
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


# ---------------------------------------------------------------------------------------------
# use_reentrant=False: saved-tensor hooks (Note [Checkpoint without reentrant autograd])
# ---------------------------------------------------------------------------------------------
class _Handle:
    """The key of one recomputed tensor in ``_Frame.recomputed`` (a weak-key dict)."""


class _Holder:
    """What the graph keeps instead of a saved tensor: a handle per backward pass."""

    def __init__(self) -> None:
        self.handles = {}


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every needed tensor is recomputed."""


def _default_metadata(x) -> dict:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_METADATA_FNS = {"default": _default_metadata, "none": lambda _: None}

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""


class _Frame:
    """One run of a checkpointed region: its saved inputs, the holders its forward packed, and
    per backward pass (graph-task id) the tensors recomputed for them."""

    def __init__(self, recompute_fn, early_stop: bool, metadata_fn, debug: bool) -> None:
        self.recompute_fn = recompute_fn
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.saved_args = []
        self.weak_holders = []              # in the order the forward saved them
        self.x_metadatas = []               # one per holder
        self.recomputed = defaultdict(weakref.WeakKeyDictionary)   # gid -> {handle: tensor}
        self.recomp_counter = defaultdict(int)
        self.is_recomputed = defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False
        self.debug_log = ([], []) if debug else None   # (forward, recomputation)

    def save_inputs(self, args) -> None:
        """Keep the region's inputs as saved tensors (version-checked; inside an enclosing
        checkpoint they are packed by its hooks, so it recomputes them)."""
        from ..autograd.saved import SavedTensor
        Tensor = _tensor_cls()
        self.saved_args = [SavedTensor(a) if isinstance(a, Tensor) else a for a in args]

    def get_inputs(self) -> list:
        from ..autograd.saved import SavedTensor
        return [a.unpack(None) if isinstance(a, SavedTensor) else a for a in self.saved_args]

    def check_recomputed_tensors_match(self, gid) -> None:
        """The rerun must have saved as many tensors, with the same metadata, as the forward."""
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                f"{_DEBUG_TIP}")
        mismatched = ""
        for idx, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None:
                continue
            recomputed = self.recomputed[gid][holder.handles[gid]]
            saved_meta, new_meta = self.x_metadatas[idx], self.metadata_fn(recomputed)
            if saved_meta != new_meta:
                mismatched += (f"tensor at position {idx}:\nsaved metadata: {saved_meta}\n"
                               f"recomputed metadata: {new_meta}\n")
        if mismatched:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{mismatched}.\n{_DEBUG_TIP}")

    def debug_error(self, err: CheckpointError) -> CheckpointError:
        """With ``debug=True``: the error, preceded by the tensors each run saved."""
        def listing(records):
            return "\n".join(f"  {i}: {r}" for i, r in enumerate(records)) or "  (none)"
        fwd, rec = self.debug_log
        return CheckpointError(
            "An error happened while unpacking tensors; listing the tensors saved for backward "
            "because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.\n\n"
            f"Tensors saved during the original forward:\n{listing(fwd)}\n\n"
            f"Tensors saved during recomputation:\n{listing(rec)}\n\n{err}")


def _debug_record(x) -> str:
    fn = x.grad_fn
    made_by = fn.name() if fn is not None else ("leaf" if x.requires_grad else "constant")
    return f"{made_by}: shape {list(x.shape)}, dtype {x.dtype}"


_untracked_ids = itertools.count(-2, -1)   # unpacks outside backward: a new pass each time


class _checkpoint_hook(saved_tensors_hooks):
    """The hooks active during a checkpointed forward: pack keeps a holder, unpack recomputes."""

    def __init__(self, frame: _Frame) -> None:
        def pack_hook(x):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            frame.x_metadatas.append(frame.metadata_fn(x))
            if frame.debug_log is not None:
                frame.debug_log[0].append(_debug_record(x))
            return holder

        def unpack_hook(holder):
            from ..autograd.engine import current_graph_task_id
            gid = current_graph_task_id()
            if gid == -1:
                gid = next(_untracked_ids)
            if not frame.is_recomputed[gid]:
                args = frame.get_inputs()
                try:
                    with _recomputation_hook(weakref.ref(frame), gid), _gm.enable_grad():
                        frame.recompute_fn(*args)
                except _StopRecomputation:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed_tensors_match(gid)
            if holder.handles.get(gid) is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                    "make sure to do so only once. Otherwise please open an issue with details "
                    "on your use case.")
            value = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None   # the recomputed tensor now lives only as long as used
            return value

        def unpack_with_debug(holder):
            try:
                return unpack_hook(holder)
            except CheckpointError as e:
                raise frame.debug_error(e) from e

        super().__init__(pack_hook, unpack_hook if frame.debug_log is None else unpack_with_debug)


class _recomputation_hook(saved_tensors_hooks):
    """The hooks active while a region is rerun: each saved tensor goes to the next holder."""

    def __init__(self, frame_ref, gid) -> None:
        def pack_hook(x):
            x = x.detach() if x.requires_grad else x
            frame = frame_ref()
            idx = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if frame.debug_log is not None:
                frame.debug_log[1].append(_debug_record(x))
            if idx >= len(frame.weak_holders):
                if not frame.forward_completed:   # backward inside the region's own forward
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    f"than during the original forward pass.\n{_DEBUG_TIP}")
            holder = frame.weak_holders[idx]()
            if holder is not None:   # None: backward already freed that node's saved values
                holder.handles[gid] = _Handle()
                frame.recomputed[gid][holder.handles[gid]] = x
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputation
            return x

        super().__init__(pack_hook, lambda x: x)


_SUPPRESSED_MESSAGE = (
    "torch.utils.checkpoint: the forward context provided by context_fn suppressed an exception "
    "raised during the checkpointed forward. This is not supported because checkpoint cannot "
    "return a value for a failed forward.")


def _checkpoint_without_reentrant(fn, args, kwargs, preserve, context_fn, determinism_check,
                                  debug, early_stop):
    """Run `fn` under the checkpoint hooks (Note [Checkpoint without reentrant autograd])."""
    from ..ops import random
    debug = _debug_override if _debug_override is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    metadata_fn = _METADATA_FNS.get(determinism_check)
    if metadata_fn is None:
        raise ValueError(f"determinism_check should be one of {list(_METADATA_FNS)}, but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    fwd_rng_state = random.get_rng_state() if preserve else None

    def recompute_fn(*inputs):
        with _rng_as_in_forward(preserve, fwd_rng_state), recompute_context:
            fn(*inputs, **kwargs)

    if not _gm.is_grad_enabled():   # nothing is saved: a plain call
        return fn(*args, **kwargs)
    stop = _early_stop_override if _early_stop_override is not None else early_stop
    frame = _Frame(recompute_fn, stop, metadata_fn, bool(debug))
    frame.save_inputs(args)
    finished = False
    with _checkpoint_hook(frame), forward_context:
        out = fn(*args, **kwargs)
        finished = True
    if not finished:   # forward_context swallowed fn's exception
        raise RuntimeError(_SUPPRESSED_MESSAGE)
    frame.forward_completed = True
    return out
