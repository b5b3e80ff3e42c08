"""SavedTensor: a value a node keeps for its backward, with the version it had when saved.

Note [Saved outputs and reference cycles]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An op that saves its own output (``exp``, ``tanh``, ``sigmoid``…) would create the cycle
``y -> y.grad_fn -> saved -> y`` if it kept ``y`` itself, and the graph could then only be freed
by the cyclic garbage collector. So, as torch does, a saved *output* keeps only y's array,
storage and offset, and unpacking builds a new Tensor over them whose ``grad_fn`` is the node
doing the unpacking: ``y.grad_fn._saved_result`` equals ``y`` but is not ``y``. Saved *inputs*
point backwards in the graph, so they are kept as they are (``_saved_self is x``).

The version check reads the Storage's counter, which views and ``detach()`` share (Note
[Version counters] in _storage.py): any in-place write through any alias is caught.

Note [Saved inputs without a box]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Most saved values are inputs that nothing has written in place yet (version 0): fresh results
of earlier ops. A node keeps such an input as the tensor itself, without a SavedTensor around
it (``SavedTensor.of_input``): the version it had when saved is 0 by construction, so the box
would only hold that 0. Unpacking checks that the version is still 0 (``Tensor._unpack_saved``)
and raises the same message a box would. Everything else is boxed: outputs, inputs already
written in place, inputs saved under saved-tensor hooks, Python numbers. Every entry of
``node._held`` answers ``_unpack_saved(node)``; code that needs the box itself
(``_raw_saved_self``, register_hooks) asks for it with ``boxed``. The box costs a third of what
recording a binary op costs beyond its kernel (an object and three attributes per saved input),
and the 100 000-op chain keeps 100 000 fewer objects alive.

Note [Saved tensor hooks]
~~~~~~~~~~~~~~~~~~~~~~~~~
Inside ``saved_tensors_hooks(pack, unpack)`` a SavedTensor keeps ``pack(tensor)`` (called under
no_grad, with the tensor itself) instead of the tensor, plus what is needed to reconnect the
unpacked value to the graph: the input's grad_fn / output_nr, or its requires_grad and weak
AccumulateGrad for a leaf. Unpacking calls ``unpack(packed)`` and wraps the result in a new
Tensor carrying that graph position, as torch's SavedVariable::unpack does; the version counter
is not checked (torch cannot follow versions through the hooks either). Such a SavedTensor is
marked by ``version is None`` and its ``data`` slot holds the ``_Packed`` record.

The hooks stack is thread-local, as in torch. Saving must stay cheap when no hook is active, so
SavedTensor.__init__ first reads ``_hooks_active``, a module global counting the pushes of all
threads; only when it is non-zero does it look at this thread's stack.
"""
from __future__ import annotations

import contextlib
import re
import threading

_BACKWARD_SUFFIX = re.compile(r"Backward(\d*)$")


def short_name(node) -> str:
    """A node's name as torch's error messages give it: ``Mul`` for MulBackward0, ``Clamp1``
    for ClampBackward1."""
    return _BACKWARD_SUFFIX.sub(lambda m: "" if m.group(1) == "0" else m.group(1), node.name())


_Tensor = None
_new = object.__new__


def _tensor_class():
    """dyngrad.Tensor (imported on first use: _tensor.py imports this module)."""
    global _Tensor
    if _Tensor is None:
        from .._tensor import Tensor
        _Tensor = Tensor
    return _Tensor


class SavedTensor:
    """One saved value of a node: the tensor (or an output's data) and its saved version."""

    __slots__ = ("tensor", "storage", "data", "offset", "version", "output_nr", "is_output",
                 "fw")

    def __init__(self, tensor, is_output: bool = False, output_nr: int = 0):
        if tensor._is_inference:
            raise RuntimeError(INFERENCE_MESSAGE)
        self.is_output = is_output
        if _hooks_active:
            stack = _tls.stack
            if stack:
                self._pack(tensor, *stack[-1], output_nr)
                return
        if is_output:
            self.tensor = None
            self.storage = tensor._storage_obj()
            self.data = tensor._data
            self.offset = tensor._offset
            self.output_nr = output_nr
            self.version = self.storage.version
            self.fw = None   # the output's tangent, once forward AD gives it one (see unpack)
        else:
            self.tensor = tensor
            st = tensor._storage
            self.version = 0 if st is None else st.version

    @staticmethod
    def of_input(tensor):
        """What a node keeps for an op's input: the tensor itself when nothing has written it
        yet and no saved-tensor hooks are pushed (Note [Saved inputs without a box]), else
        ``SavedTensor(tensor)``, built without the constructor's frame where it can be."""
        if _hooks_active or tensor._is_inference:
            return SavedTensor(tensor)
        st = tensor._storage
        if st is None or not st.version:
            return tensor
        return _input_box(tensor, st.version)

    def current_version(self) -> int:
        if self.is_output:
            return self.storage.version
        return self.tensor._version

    def unpack(self, node):
        """The saved tensor, after checking nothing modified it in place since it was saved."""
        version = self.version
        if version is None:
            return self.data.unpack(node)
        if not self.is_output:   # a saved input: the common case, current_version() inlined
            t = self.tensor
            st = t._storage
            if (0 if st is None else st.version) != version:
                raise RuntimeError(self._modified_message(node))
            return t
        if self.storage.version != version:
            raise RuntimeError(self._modified_message(node))
        t = object.__new__(_Tensor or _tensor_class())
        t._data = self.data
        t._storage = self.storage
        t._offset = self.offset
        t._requires_grad = True
        t._grad_fn = node
        if self.output_nr:
            t._output_nr = self.output_nr
        if self.fw is not None:
            # Note [Saved outputs keep their tangent]: a saved output is unpacked as a new
            # tensor; in the forward-AD level that gave the original its tangent (given after
            # the node saved it: forward_ad._set_fw_grad records it here), it has it too, as
            # torch's SavedVariable shares the output's forward grad
            from . import forward_ad
            forward_ad._restore_saved_tangent(t, self.fw)
        return t

    _unpack_saved = unpack   # the protocol of node._held's entries (Note [Saved inputs ...])

    # -- saved tensor hooks (Note [Saved tensor hooks]) ----------------------------------------
    def _pack(self, tensor, pack_hook, unpack_hook, output_nr=0):
        from .grad_mode import _state
        version = tensor._version
        prev, _state.grad_enabled = _state.grad_enabled, False
        try:
            packed = pack_hook(tensor)
        finally:
            _state.grad_enabled = prev
        if tensor._version != version:
            raise RuntimeError(PACK_INPLACE_MESSAGE)
        rec = _Packed(packed, unpack_hook, self.is_output, output_nr)
        if not self.is_output:
            rec.grad_fn = tensor.grad_fn
            rec.output_nr = tensor._output_nr
            rec.requires_grad = tensor._requires_grad
            rec.accumulator = tensor._accumulator
        self.tensor = self.storage = None
        self.data = rec
        self.version = None

    def register_hooks(self, *args, **kwargs) -> None:
        """``register_hooks(pack_hook, unpack_hook)``: pack this saved tensor now with
        `pack_hook` (``_raw_saved_self.register_hooks``)."""
        pack_hook, unpack_hook = _hooks_arguments(self, args, kwargs)
        if self.version is None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        tensor = self.unpack(None)
        self._pack(tensor, pack_hook, unpack_hook, self.output_nr if self.is_output else 0)

    def _modified_message(self, node) -> str:
        if self.is_output:
            data, owner, nr = self.data, node, self.output_nr
        else:
            data, owner, nr = self.tensor._data, self.tensor.grad_fn, \
                getattr(self.tensor, "_output_nr", 0)
        from .._dtypes import from_np
        desc = f"[torch.{from_np(data.dtype)._legacy}Tensor [{', '.join(map(str, data.shape))}]]"
        which = ""
        if owner is not None:
            which = f", which is output {nr} of {short_name(owner)},"
        from . import anomaly_mode
        if anomaly_mode._state.enabled:
            hint = ("Hint: the backtrace further above shows the operation that failed to "
                    "compute its gradient. The variable in question was changed in there or "
                    "anywhere later. Good luck!")
        else:
            hint = ("Hint: enable anomaly detection to find the operation that failed to "
                    "compute its gradient, with torch.autograd.set_detect_anomaly(True, "
                    "check_nan=False).")
        storage = self.storage if self.is_output else self.tensor._storage
        # torch's text first, word for word; then ours (Note [In-place diagnostics])
        return ("one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {desc}{which} is at version {self.current_version()}; "
                f"expected version {self.version} instead. {hint}"
                + anomaly_mode.inplace_details(self, node, storage))


def _input_box(tensor, version) -> SavedTensor:
    """``SavedTensor(tensor)`` for an input at `version`, without the constructor's frame."""
    box = _new(SavedTensor)
    box.is_output = False
    box.tensor = tensor
    box.version = version
    return box


class FreedSavedTensor(SavedTensor):
    """What ``node._raw_saved_<name>`` gives once a backward has freed the node's saved values:
    torch still hands out a SavedTensor then, and using it raises."""

    __slots__ = ()

    def unpack(self, node):
        raise RuntimeError(FREED_MESSAGE)

    _unpack_saved = unpack

    def register_hooks(self, *args, **kwargs) -> None:
        _hooks_arguments(self, args, kwargs)
        raise RuntimeError(
            "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
            "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
            "retain_graph=True if you need to backward through the graph a second time or if "
            "you need to access saved variables after calling backward.")


FreedSavedTensor.__name__ = FreedSavedTensor.__qualname__ = "SavedTensor"   # (as torch's repr)


def _hooks_arguments(box, args, kwargs):
    """register_hooks' two callables, or the TypeError torch's binding raises for anything
    else (two positional callables, no keywords)."""
    if len(args) == 2 and not kwargs and callable(args[0]) and callable(args[1]):
        return args
    invoked = ", ".join(repr(a) for a in (box,) + args)
    if kwargs:
        invoked += "; kwargs: " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    raise TypeError(
        "register_hooks(): incompatible function arguments. The following argument types are "
        "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: collections.abc.Callable,"
        " arg1: collections.abc.Callable) -> None\n\nInvoked with: " + invoked)


def boxed(entry):
    """A node's saved entry as a SavedTensor: an unboxed input (Note [Saved inputs without a
    box]) gets the box it would have had, version 0; anything else is returned as it is."""
    return _input_box(entry, 0) if isinstance(entry, _tensor_class()) else entry


def unpack_unboxed(tensor, node):
    """``Tensor._unpack_saved``: an unboxed saved input, checked to be still at version 0."""
    st = tensor._storage
    if st is not None and st.version:
        raise RuntimeError(boxed(tensor)._modified_message(node))
    return tensor


class _Packed:
    """What a hooked SavedTensor keeps: the packed object and the tensor's graph position."""

    __slots__ = ("packed", "unpack_hook", "is_output", "output_nr", "grad_fn", "requires_grad",
                 "accumulator")

    def __init__(self, packed, unpack_hook, is_output, output_nr):
        self.packed = packed
        self.unpack_hook = unpack_hook
        self.is_output = is_output     # a saved output's grad_fn is the node unpacking it
        self.output_nr = output_nr
        self.grad_fn = None
        self.requires_grad = True
        self.accumulator = None

    def unpack(self, node):
        from .._tensor import Tensor
        data = self.unpack_hook(self.packed)
        if not isinstance(data, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(data).__name__}")
        grad_fn = node if self.is_output else self.grad_fn
        if grad_fn is None and not self.requires_grad and not data._requires_grad:
            return data
        t = object.__new__(Tensor)
        t._data = data._data
        t._storage = data._storage_obj()
        t._offset = data._offset
        t._grad_fn = grad_fn
        if grad_fn is not None:
            t._requires_grad = True
            if self.output_nr:
                t._output_nr = self.output_nr
        else:
            t._requires_grad = self.requires_grad
            if self.accumulator is not None:
                t._accumulator = self.accumulator
        return t


class _HooksState(threading.local):
    def __init__(self):
        self.stack = []                 # (pack_hook, unpack_hook) pairs, innermost last
        self.disabled_message = None


_tls = _HooksState()
_hooks_active = 0                       # pushes in all threads: the fast check in SavedTensor


def _push_saved_tensors_default_hooks(pack_hook, unpack_hook) -> None:
    global _hooks_active
    if _tls.disabled_message is not None:
        raise RuntimeError(_tls.disabled_message)
    _tls.stack.append((pack_hook, unpack_hook))
    _hooks_active += 1


def _pop_saved_tensors_default_hooks() -> None:
    global _hooks_active
    _tls.stack.pop()
    _hooks_active -= 1


class saved_tensors_hooks:
    """Pack/unpack hooks for the tensors saved for backward inside the block (innermost wins)."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args) -> None:
        _pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Keep the tensors saved inside the block on the CPU (torch's code: on CPU, no copy unless
    pin_memory)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            from .. import empty
            packed = empty(tensor.size(), dtype=tensor.dtype, layout=tensor.layout)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Make entering ``saved_tensors_hooks`` raise RuntimeError(error_message) inside the block."""
    prev = None
    try:
        prev = _tls.disabled_message
        if _tls.stack:
            raise RuntimeError(error_message)
        _tls.disabled_message = error_message
        yield
    finally:
        _tls.disabled_message = prev


PACK_INPLACE_MESSAGE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack "
    "hook.")


FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")


INFERENCE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
