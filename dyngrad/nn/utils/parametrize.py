"""Parametrizations of a module's tensors (torch.nn.utils.parametrize).

``register_parametrization(module, "weight", P)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property that
computes ``P(original)`` on each access, exactly as torch does:

Note [Parametrized class swap]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A property must live on the class, so the first parametrization of a module gives the module a
class of its own: a subclass ``Parametrized<Name>`` of its class made for this instance alone
(repr: ``ParametrizedLinear(...)``). The property for each parametrized tensor is installed on
that subclass; removing the last parametrization restores the original class. The subclass
refuses pickling (only ``state_dict()`` serializes such a module), as torch's does.
"""
from __future__ import annotations

import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy
from typing import Sequence

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Within this context each parametrized tensor is computed once, on first access, and
    the result reused (nested contexts share one cache, cleared when the outermost exits).

    Example::

        >>> with parametrize.cached():
        ...     out = model(x)
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """``dest.set_(src)``: dest keeps its identity (and Parameter-ness), takes src's memory."""
    dest.set_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in application order, and the unparametrized
    tensor(s): ``original`` (or ``original0``, ``original1``… when the first parametrization's
    ``right_inverse`` returns a sequence). Not meant to be built directly.

    Args:
        modules (sequence of Module): the parametrizations.
        original (Tensor): the tensor being parametrized.
        unsafe (bool): skip the dtype/shape checks.
    """

    def __init__(self, modules: Sequence[Module], original: Tensor,
                 unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the device.\noriginal.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type "
                                     f"{type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            # the parametrization must keep dtype and shape (torch checks once, here)
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {Z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Set the original tensor(s) so that the parametrized tensor equals ``value``
        (runs each parametrization's ``right_inverse``, last first)."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     f"Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors "
                                         "or reference-type opaques. Got element "
                                         f"{i} of type {type(tensor).__name__}.")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                         f"{tensor.dtype} while `original{i}` has dtype "
                                         f"{original_i.dtype}")
                    _maybe_set(original_i, tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        # the remaining parametrizations take one tensor each
        curr_idx = 1
        while hasattr(self, str(curr_idx)):
            x = self[curr_idx](x)
            curr_idx += 1
        return x


def _inject_new_class(module: Module) -> None:
    """Give ``module`` its own subclass ``Parametrized<Name>``.
    See Note [Parametrized class swap]."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = deepcopy(self.__dict__, memo)
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). "
            "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    dct = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    """Install the ``tensor_name`` property on the module's own class: reading computes the
    parametrization (or takes it from the cache), assigning runs ``right_inverse``."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_cached_parametrization(parametrization) -> Tensor:
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            return get_cached_parametrization(parametrization)
        return parametrization()

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Parametrize ``module.<tensor_name>`` by ``parametrization``.

    Afterwards ``module.<tensor_name>`` returns ``parametrization(original)``; the original
    tensor lives at ``module.parametrizations.<tensor_name>.original`` (or ``original0``…
    when ``right_inverse`` returns a sequence). Registering a second parametrization on the
    same tensor appends it to the list. If ``parametrization`` has ``right_inverse``, it
    initializes the original from the current value and lets ``module.<tensor_name> = X``
    assign through it.

    Args:
        module (nn.Module): the module.
        tensor_name (str): a parameter, buffer or already-parametrized tensor of it.
        parametrization (nn.Module): the map.
        unsafe (bool): allow the map to change the dtype or shape (no consistency checks).

    Returns:
        the module (its class is now ``Parametrized<Name>``).

    Example::

        >>> class Symmetric(nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).mT
        >>> m = nn.Linear(5, 5)
        >>> parametrize.register_parametrization(m, "weight", Symmetric())
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {Y.dtype}\n"
                    f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
            if X.shape != Y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {Y.shape}\n"
                    f"parametrization(module.{tensor_name}).shape: {X.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Tensor):
                        raise ValueError("parametrization.right_inverse must return a tensor. "
                                         f"Got: {type(Z).__name__}")
                    if Z.dtype != Y.dtype:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have "
                            f"the same dtype as module.{tensor_name}, unless the `unsafe` "
                            f"flag is enabled.\nmodule.{tensor_name}.dtype: {Y.dtype}\n"
                            f"returned dtype: {Z.dtype}")
                    if Z.shape != Y.shape:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have "
                            f"the same shape as module.{tensor_name}, unless the `unsafe` "
                            f"flag is enabled.\nmodule.{tensor_name}.shape: {Y.shape}\n"
                            f"returned shape: {Z.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Remove the parametrizations on ``module.<tensor_name>``.

    With ``leave_parametrized=True`` the tensor keeps its current parametrized value,
    otherwise it becomes the original (unparametrized) tensor. Either way it is the same
    Parameter object as ``parametrizations.<tensor_name>.original`` (its memory set to the
    value). When no parametrization is left, the module gets its original class back.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            with no_grad():
                _maybe_set(original, t)
    else:
        if leave_parametrized:
            t = getattr(module, tensor_name)
            original = Parameter(t) if t.requires_grad else t
        else:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before any parametrization was registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Register on ``to_module`` the parametrizations of ``from_module`` (those on
    ``tensor_name``, or all), sharing the original parameters; a tensor missing from
    ``to_module`` is first created as a Parameter of the parametrized value."""
    if is_parametrized(from_module):
        names = from_module.parametrizations if tensor_name is None else [tensor_name]
        for parameter_name in names:
            if not hasattr(to_module, parameter_name):
                setattr(to_module, parameter_name,
                        Parameter(getattr(from_module, parameter_name)))
            for param_func in from_module.parametrizations[parameter_name]:
                register_parametrization(to_module, parameter_name, param_func)
            source = from_module.parametrizations[parameter_name]
            target = to_module.parametrizations[parameter_name]
            if hasattr(source, "original"):
                target.original = source.original
            else:
                num = 0
                while hasattr(source, f"original{num}"):
                    setattr(target, f"original{num}", getattr(source, f"original{num}"))
                    num += 1
    return to_module
