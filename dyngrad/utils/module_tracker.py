"""torch.utils.module_tracker: which modules are running, in the forward and in backward.

``ModuleTracker`` keeps ``parents``, the set of the fully qualified names of the modules whose
forward (or backward) is running, always with "Global" in it. It follows them with hooks, as
torch's does:

* a global forward pre-hook adds the module's name, a global forward hook removes it;
* in the forward, the pre-hook also puts a multi-grad hook on the module's inputs that require
  grad (it removes the name when backward reaches them: the module's backward is done), and the
  forward hook one on its outputs (it adds the name back when their gradients arrive: the
  module's backward starts).

The first module's inputs rarely require grad, so its name would stay in ``parents`` after
backward: torch resets ``parents`` to ``{"Global"}`` with a callback queued on the autograd
engine, which runs when that backward ends. dyngrad's engine has no callback queue; the reset
happens instead on the first read of ``parents`` once that backward is over (see
``_pending_reset``), which every reader (the flop counter included) sees the same way.
"""
from __future__ import annotations

import logging
import weakref

from ..autograd.engine import current_graph_task_id
from ..autograd.graph import register_multi_grad_hook
from ..nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from ._pytree import tree_flatten

logger = logging.getLogger(__name__)

__all__ = ["ModuleTracker"]


class ModuleTracker:
    """A context manager that tracks the nn.Module hierarchy during execution, so that other
    code can ask which modules are running, forward or backward (torch's ModuleTracker).

    ``parents`` is the set of the fqns (the names a module's ``state_dict`` keys use, under the
    name of the outermost module's class) of the modules running now; it always holds "Global".
    ``is_bw`` says whether a backward is running. As in torch, a module's name stays in
    ``parents`` in backward until its inputs' gradients are computed.

    Example::

        >>> mod = dyngrad.nn.Sequential(dyngrad.nn.Linear(2, 2))
        >>> with ModuleTracker() as tracker:
        ...     mod.register_forward_hook(lambda *a: print(sorted(tracker.parents)))
        ...     _ = mod(dyngrad.rand(2, 2))
    """

    def __init__(self) -> None:
        self._parents = {"Global"}
        self._known_modules: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._seen_modules: weakref.WeakSet = weakref.WeakSet()
        self._has_callback = False
        self._hooks: list = []

    @property
    def parents(self) -> set:
        """The fqns of the modules running now, "Global" always among them."""
        if self._has_callback and current_graph_task_id() == -1:
            self._pending_reset()
        return self._parents

    @parents.setter
    def parents(self, value) -> None:
        self._parents = value

    def _pending_reset(self) -> None:
        """What torch's engine callback does at the end of the backward that queued it."""
        self._parents = {"Global"}
        self._has_callback = False

    def _maybe_set_engine_callback(self) -> None:
        # (torch queues a callback on the engine here; see the module's docstring)
        self._has_callback = True

    @property
    def is_bw(self) -> bool:
        """Whether a backward is running (in this thread)."""
        return current_graph_task_id() != -1

    def _get_mod_name(self, mod) -> str:
        """The module's fqn: its class name for a module met first, else the name its parent
        (met before it) gave it, as ``Parent.child``."""
        if mod not in self._known_modules:
            self._known_modules[mod] = type(mod).__name__
        mod_name = self._known_modules[mod]
        if mod not in self._seen_modules:
            for name, submod in mod.named_children():
                self._known_modules[submod] = f"{mod_name}.{name}"
                self._get_mod_name(submod)
            self._seen_modules.add(mod)
        return mod_name

    def _get_append_fn(self, name: str, is_bw: bool):
        def fn(*args) -> None:
            if is_bw:
                self._maybe_set_engine_callback()
            if name in self.parents:
                logger.info("The module hierarchy tracking seems to be broken as this Module "
                            "was already entered. %s during %s", name,
                            "backward" if is_bw else "forward")
            self.parents.add(name)
        return fn

    def _get_pop_fn(self, name: str, is_bw: bool):
        def fn(*args) -> None:
            if name in self.parents:
                self.parents.remove(name)
            else:
                logger.info("The Module hierarchy tracking is confused as we're exiting a "
                            "Module that was never entered. %s during %s", name,
                            "backward" if is_bw else "forward")
        return fn

    def _grad_tensors(self, value) -> list:
        from .._tensor import Tensor
        leaves, _ = tree_flatten(value)
        return [a for a in leaves if isinstance(a, Tensor) and a.requires_grad]

    def _fw_pre_hook(self, mod, input) -> None:
        name = self._get_mod_name(mod)
        self._get_append_fn(name, False)()
        tensors = self._grad_tensors(input)
        if tensors:
            self._hooks.append(register_multi_grad_hook(tensors, self._get_pop_fn(name, True)))

    def _fw_post_hook(self, mod, input, output) -> None:
        name = self._get_mod_name(mod)
        self._get_pop_fn(name, False)()
        tensors = self._grad_tensors(output)
        if tensors:
            self._hooks.append(register_multi_grad_hook(tensors,
                                                        self._get_append_fn(name, True)))

    def __enter__(self):
        self._fw_pre_handle = register_module_forward_pre_hook(self._fw_pre_hook)
        self._fw_post_handle = register_module_forward_hook(self._fw_post_hook)
        return self

    def __exit__(self, *args) -> None:
        self._fw_pre_handle.remove()
        self._fw_post_handle.remove()
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()
