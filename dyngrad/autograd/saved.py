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
"""
from __future__ import annotations

import re

_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


class SavedTensor:
    """One saved value of a node: the tensor (or an output's data) and its saved version."""

    __slots__ = ("tensor", "storage", "data", "offset", "version", "output_nr", "is_output")

    def __init__(self, tensor, is_output: bool = False, output_nr: int = 0):
        if tensor._is_inference:
            raise RuntimeError(INFERENCE_MESSAGE)
        self.is_output = is_output
        if is_output:
            self.tensor = None
            self.storage = tensor._storage_obj()
            self.data = tensor._data
            self.offset = tensor._offset
            self.output_nr = output_nr
            self.version = self.storage.version
        else:
            self.tensor = tensor
            st = tensor._storage
            self.version = 0 if st is None else st.version

    def current_version(self) -> int:
        if self.is_output:
            return self.storage.version
        return self.tensor._version

    def unpack(self, node):
        """The saved tensor, after checking nothing modified it in place since it was saved."""
        if self.current_version() != self.version:
            raise RuntimeError(self._modified_message(node))
        if not self.is_output:
            return self.tensor
        from .._tensor import Tensor
        t = object.__new__(Tensor)
        t._data = self.data
        t._storage = self.storage
        t._offset = self.offset
        t._requires_grad = True
        t.grad_fn = node
        if self.output_nr:
            t._output_nr = self.output_nr
        return t

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
            which = f", which is output {nr} of {_BACKWARD_SUFFIX.sub('', owner.name())},"
        return ("one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {desc}{which} is at version {self.current_version()}; "
                f"expected version {self.version} instead. Hint: enable anomaly detection to "
                "find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True, check_nan=False).")


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
