"""Lazy modules (torch.nn.modules.lazy): layers whose input size is read off the first input.

``LazyModuleMixin`` goes in front of the real layer class (``LazyLinear(LazyModuleMixin,
Linear)``). The layer is built with size 0 and its inferred tensors replaced by
``UninitializedParameter`` / ``UninitializedBuffer``. A forward pre-hook calls
``initialize_parameters(*args)`` on the first call: it materializes the placeholders with the
inferred shapes and runs ``reset_parameters``; the hook then removes itself and the instance's
class becomes ``cls_to_become`` (``Linear``), so the module is from then on exactly the eager
one. A load_state_dict pre-hook materializes the placeholders that a checkpoint gives real
values for (the size attribute then stays 0 until the first call, as in torch).

torch defines each Lazy class next to its layer (linear.py, conv.py...); here they live in this
file (those modules import nothing from it), carry the layer module's ``__module__``, and that
module's ``__getattr__`` hands them out, so import paths, pickles and reprs are torch's.
"""
from __future__ import annotations

import functools
import itertools

from ..._dtypes import int64 as long
from ...autograd.grad_mode import no_grad
from ...ops.tensor_new import tensor
from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


def _from_layer_module(module: str, name: str) -> type:
    """``__getattr__`` of linear.py, conv.py...: the lazy classes made for that module."""
    cls = globals().get(name)
    if isinstance(cls, type) and cls.__module__ == module:
        return cls
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def _same(d: dict) -> dict:
    return d


def _kept(handle: RemovableHandle, hooks: dict, *extra: dict) -> RemovableHandle:
    """`handle` holding its dicts strongly through picklable references: they are the
    module's own, and ``deepcopy`` / ``pickle`` must carry them over to the copy (torch's
    handle has ``__getstate__`` for this)."""
    handle.hooks_dict_ref = functools.partial(_same, hooks)
    handle.extra_dict_ref = tuple(functools.partial(_same, d) for d in extra)
    return handle


class LazyModuleMixin:
    r"""Mixin for modules whose parameter shapes are inferred from their first input.

    Until the first call the module holds :class:`~torch.nn.UninitializedParameter` s (which
    raise when used); the first call runs :meth:`initialize_parameters` and turns the module
    into ``cls_to_become``. A state_dict with real tensors can be loaded into an uninitialized
    module (it materializes them); the converse raises, as in torch.
    """

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # a pre-hook called as hook(state_dict, prefix, ...) (torch's private registration)
        self._load_hook = _kept(RemovableHandle({}), self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[self._load_hook.id] = self._lazy_load_hook
        self._initialize_hook = _kept(
            self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True),
            self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        # placeholders go in as they are (detaching one would raise)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = (param if is_lazy(param) or keep_vars
                                              else param.detach())
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        # Note [Loading placeholders into placeholders]
        # torch skips the shape check for a placeholder and copies the (empty) values; the
        # shared loader reads both shapes, so such pairs are taken out here and count as found.
        both_lazy = {prefix + name for name, t in itertools.chain(self._parameters.items(),
                                                                  self._buffers.items())
                     if is_lazy(t) and is_lazy(state_dict.get(prefix + name))}
        if both_lazy:
            state_dict = {k: v for k, v in state_dict.items() if k not in both_lazy}
        n_missing = len(missing_keys)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)
        missing_keys[n_missing:] = [k for k in missing_keys[n_missing:] if k not in both_lazy]

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs) -> None:
        """Materialize each placeholder that `state_dict` holds a real tensor for."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Infer the shapes from the first input and initialize the parameters."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module is still a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialize, unhook, and become ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")

    def share_memory(self):
        """Raises while a placeholder remains (torch's message), else a no-op."""
        for t in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(t):
                t.share_memory_()
        return super().share_memory()


class LazyLinear(LazyModuleMixin, Linear):
    r"""A :class:`Linear` whose ``in_features`` is the last size of its first input.

    Args:
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``
    """

    __module__ = Linear.__module__

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """``in_features = input.shape[-1]``; materialize and initialize."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:   # loaded from a state_dict: check the input against it
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """``in_channels`` from the first input's channel dim (dim 1 batched, 0 unbatched)."""

    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        no_batch = self._get_num_spatial_dims() + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _get_num_spatial_dims(self) -> int:
        return self._n


def _lazy_conv(conv: type, doc: str) -> type:
    """LazyConv{n}d: the arguments of Conv{n}d without ``in_channels``."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        # bias False: a bias of size 0 would only be replaced below
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups,
                                 False, padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)

    __init__.__qualname__ = f"Lazy{conv.__name__}.__init__"
    return type("Lazy" + conv.__name__, (_LazyConvXdMixin, conv),
                {"__init__": __init__, "cls_to_become": conv, "__doc__": doc,
                 "__module__": conv.__module__})


def _lazy_conv_transpose(conv: type, doc: str) -> type:
    """LazyConvTranspose{n}d: the arguments of ConvTranspose{n}d without ``in_channels``."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding,
                                 groups, False, dilation, padding_mode, device=device,
                                 dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)

    __init__.__qualname__ = f"Lazy{conv.__name__}.__init__"
    return type("Lazy" + conv.__name__, (_LazyConvXdMixin, conv),
                {"__init__": __init__, "cls_to_become": conv, "__doc__": doc,
                 "__module__": conv.__module__})


# LazyModuleMixin must come first in the bases, so the classes are made here rather than
# subclassed from one another (torch writes each out).
LazyConv1d = _lazy_conv(Conv1d, r"""A :class:`Conv1d` whose ``in_channels`` is read off the
    first input (``input.size(1)``, or ``size(0)`` unbatched).""")
LazyConv2d = _lazy_conv(Conv2d, r"""A :class:`Conv2d` whose ``in_channels`` is read off the
    first input.""")
LazyConv3d = _lazy_conv(Conv3d, r"""A :class:`Conv3d` whose ``in_channels`` is read off the
    first input.""")
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d, r"""A :class:`ConvTranspose1d`
    whose ``in_channels`` is read off the first input.""")
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d, r"""A :class:`ConvTranspose2d`
    whose ``in_channels`` is read off the first input.""")
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d, r"""A :class:`ConvTranspose3d`
    whose ``in_channels`` is read off the first input.""")


class _LazyNormBase(LazyModuleMixin):
    """Batch / instance norm with ``num_features = input.shape[1]``. Unlike the eager
    instance norms, the lazy ones default to ``affine=True, track_running_stats=True``
    (torch's)."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype,
                         bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=long, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(norm: type, doc: str) -> type:
    return type("Lazy" + norm.__name__, (_LazyNormBase, norm),
                {"cls_to_become": norm, "__doc__": doc, "__module__": norm.__module__})


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, r"""A :class:`BatchNorm1d` whose ``num_features`` is
    ``input.size(1)`` of the first input.""")
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, r"""A :class:`BatchNorm2d` whose ``num_features`` is
    read off the first input.""")
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, r"""A :class:`BatchNorm3d` whose ``num_features`` is
    read off the first input.""")
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, r"""An :class:`InstanceNorm1d` whose
    ``num_features`` is read off the first input.""")
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, r"""An :class:`InstanceNorm2d` whose
    ``num_features`` is read off the first input.""")
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, r"""An :class:`InstanceNorm3d` whose
    ``num_features`` is read off the first input.""")
