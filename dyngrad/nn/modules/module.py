"""Module: the base class of every layer (torch.nn.Module).

A Module keeps three ordered registries in its ``__dict__``: ``_parameters``, ``_buffers`` and
``_modules``. Assigning a Parameter, a Buffer or a Module as an attribute routes it into the right
registry (``__setattr__``), and ``__getattr__`` (which Python calls only when normal lookup
fails) reads them back. Everything else (``parameters()``, ``state_dict()``, ``to()``,
``train()``) walks these registries, recursing into ``_modules``.

Note [Module call and hooks]
``module(x)`` is ``_call_impl``: with no hook anywhere it is just ``forward(x)`` (one test of
the hook dicts). Otherwise the order is torch's: forward pre-hooks (global, then the module's;
they may replace the arguments), the full-backward-hook wiring of the inputs, ``forward``,
forward hooks (they may replace the result), then the wiring of the outputs. If forward raises,
hooks registered with ``always_call=True`` still run, and the exception propagates.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterator

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter
from . import _hooks
from ._hooks import (  # noqa: F401  (torch.nn.modules.module exposes these)
    _call_with_hooks, _global_backward_hooks, _global_backward_pre_hooks,
    _global_buffer_registration_hooks, _global_forward_hooks, _global_forward_pre_hooks,
    _global_module_registration_hooks, _global_parameter_registration_hooks,
    register_module_buffer_registration_hook, register_module_forward_hook,
    register_module_forward_pre_hook, register_module_full_backward_hook,
    register_module_full_backward_pre_hook, register_module_module_registration_hook,
    register_module_parameter_registration_hook)
from ._state_dict import _IncompatibleKeys, _StateDictMixin, _torch_type  # noqa: F401

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]


def _addindent(s_: str, num_spaces: int) -> str:
    """Indent every line but the first by `num_spaces` (blank lines stay empty)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    rest = [(num_spaces * " ") + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(rest)


def _typename(obj) -> str:
    """torch.typename: ``torch.FloatTensor`` for tensors, the qualified class name otherwise
    (our own classes under their torch name, as torch's messages print them)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = type(obj).__qualname__
    if module in ("", "builtins"):
        return name
    if module == "dyngrad" or module.startswith("dyngrad."):
        module = "torch" + module[len("dyngrad"):]
    return module + "." + name


def _forward_unimplemented(self, *input: Any) -> None:
    """The default ``forward``: subclasses must override it."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module(_StateDictMixin):
    r"""Base class for all neural network modules.

    Subclasses call ``super().__init__()`` first, assign their parameters and submodules as
    attributes, and define ``forward``. Calling the module runs ``forward`` with its hooks.

    Example::

        >>> class Model(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nn.Linear(4, 2)
        ...     def forward(self, x):
        ...         return self.fc(x).relu()
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    forward: Callable[..., Any] = _forward_unimplemented

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # object.__setattr__: our own __setattr__ would look for the registries being created
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # -- registration -----------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer (module state that is not a parameter, e.g. a running mean).

        Args:
            name (str): name of the buffer.
            tensor (Tensor or None): the buffer; ``None`` buffers are skipped by ``to()`` and
                left out of the ``state_dict``.
            persistent (bool): whether the buffer is part of the ``state_dict``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter, reachable as ``self.<name>``; ``None`` is allowed (no bias)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as ``self.<name>``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path `target` (``""`` is this module)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or with ``strict=False`` add) the submodule at the dotted path `target`."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        if len(atoms) == 1:
            parent = self
        else:
            parent = self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path `target`."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path `target`."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # -- attribute routing --------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__

        def remove_from(*dicts_or_sets) -> None:
            for s in dicts_or_sets:
                if name in s:
                    if isinstance(s, dict):
                        del s[name]
                    else:
                        s.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(key for key in keys if not key[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # modules pickled by an older version may lack the newer registries
        defaults = {"_forward_pre_hooks": OrderedDict, "_forward_pre_hooks_with_kwargs":
                    OrderedDict, "_forward_hooks_with_kwargs": OrderedDict,
                    "_forward_hooks_always_called": OrderedDict, "_state_dict_hooks":
                    OrderedDict, "_state_dict_pre_hooks": OrderedDict,
                    "_load_state_dict_pre_hooks": OrderedDict, "_load_state_dict_post_hooks":
                    OrderedDict, "_non_persistent_buffers_set": set,
                    "_backward_pre_hooks": OrderedDict}
        for key, make in defaults.items():
            if key not in self.__dict__:
                self.__dict__[key] = make()
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # -- iteration ------------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True):
        """(name, member) over this module (and its descendants), skipping None and, with
        `remove_duplicate`, members already seen."""
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The module's parameters (and its descendants' with `recurse`)."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs; a parameter shared by two modules appears once
        unless `remove_duplicate` is False."""
        yield from self._named_members(lambda module: module._parameters.items(),
                                       prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The module's buffers (and its descendants' with `recurse`)."""
        for _name, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) pairs."""
        yield from self._named_members(lambda module: module._buffers.items(),
                                       prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self) -> Iterator[Module]:
        """The immediate submodules."""
        for _name, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, submodule) for the immediate submodules, each module once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self) -> Iterator[Module]:
        """This module and all its descendants, each once."""
        for _name, module in self.named_modules():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True):
        """(dotted name, module) for this module and its descendants, depth first."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # -- modes and gradients ------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=True``) or evaluation mode, recursively."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``self.train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter (freezing or unfreezing the module)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None, or zeroed in place."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def share_memory(self) -> Module:
        """Move the parameters, their gradients and the buffers to memory shared between
        processes (``Tensor.share_memory_``); returns self."""
        return self._apply(lambda t: t.share_memory_())

    # -- conversion -------------------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Replace each parameter's and buffer's values by ``fn(t)``, recursively.

        As torch's: by default parameters keep their identity (``param.data = fn(param)``), so
        optimizers holding them stay valid, and their ``.grad`` is converted the same way.
        ``dyngrad.__future__`` switches to new Parameter objects (overwrite) or to swapping
        each parameter's contents with its converted value (``utils.swap_tensors``).
        """
        from ... import __future__ as future
        from ...utils import swap_tensors
        if recurse:
            for module in self.children():
                module._apply(fn)
        swap = future.get_swap_module_params_on_conversion()
        set_data = not future.get_overwrite_module_params_on_conversion()
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            grad = param.grad
            if swap:
                try:
                    if grad is not None:
                        param.grad = None
                    swap_tensors(param, Parameter(param_applied,
                                                  requires_grad=param.requires_grad))
                except Exception as e:
                    if grad is not None:
                        param.grad = grad
                    raise RuntimeError(
                        f"_apply(): Couldn't swap {self._get_name()}.{key}") from e
                out_param = param
            elif set_data:
                param.data = param_applied
                out_param = param
            else:
                out_param = self._parameters[key] = Parameter(param_applied,
                                                               param.requires_grad)
            if grad is None:
                continue
            with no_grad():
                grad_applied = fn(grad)
            if swap:
                grad_applied.requires_grad_(grad.requires_grad)
                try:
                    swap_tensors(grad, grad_applied)
                except Exception as e:
                    raise RuntimeError(
                        f"_apply(): Couldn't swap {self._get_name()}.{key}.grad") from e
                out_param.grad = grad
            elif set_data:
                out_param.grad.data = grad_applied
            else:
                out_param.grad = grad_applied.requires_grad_(grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast the parameters and buffers: ``to(device)``, ``to(dtype)``,
        ``to(device, dtype)``, ``to(tensor)``. Only floating point and complex tensors change
        dtype; integer buffers keep theirs."""
        from ...ops.conversion import _parse_to, check_device
        device, dtype, _copy, memory_format = _parse_to(None, args, kwargs)
        check_device(device)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            kw = {}
            if memory_format is not None and t.dim() in (4, 5):
                kw["memory_format"] = memory_format
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                return t.to(device, dtype, **kw)
            return t.to(device, **kw)

        return self._apply(convert)

    def cpu(self) -> Module:
        """Move all parameters and buffers to the CPU (where they are already)."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        """Move all parameters and buffers to a CUDA device (torch's error where there is
        none)."""
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type) -> Module:
        """Cast all parameters and buffers to `dst_type`."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        """Cast floating point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        """Cast floating point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        """Cast floating point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Cast floating point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse: bool = True) -> Module:
        """Replace parameters and buffers by uninitialised tensors of the same shape."""
        from ... import empty_like
        return self._apply(lambda t: empty_like(t), recurse=recurse)

    # -- hooks ----------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args) -> None or new args`` (with `with_kwargs`:
        ``hook(module, args, kwargs) -> None or (new args, new kwargs)``) before forward."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output) -> None or new output`` (with `with_kwargs`:
        ``hook(module, args, kwargs, output)``) after forward; `always_call` runs it even when
        forward raises."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs,
                                             self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable,
                                        prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output) -> None or new grad_output``, when the gradients
        w.r.t. the module's outputs are known (see Note [Module full backward hooks])."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable,
                                    prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output) -> None or new grad_input``, when the
        gradients w.r.t. the module's inputs are computed."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated (torch too): a hook on the ``grad_fn`` of the module's output.
        Prefer :meth:`register_full_backward_hook`."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _get_backward_hooks(self):
        """(full hooks, old-style hooks), the global ones first."""
        full, non_full = [], []
        global_is_full = _hooks._global_is_full_backward_hook
        if global_is_full is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if global_is_full is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    # -- calling ------------------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        """``forward`` with the hooks around it (see Note [Module call and hooks])."""
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)
        return _call_with_hooks(self, args, kwargs)

    __call__: Callable[..., Any] = _call_impl

    # -- repr -----------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """The module's own settings for its repr (one line, or several); override it."""
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"
