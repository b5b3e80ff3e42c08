"""dyngrad.nn.utils.prune (torch.nn.utils.prune): pruning a module's tensors with masks.

Pruning ``module.<name>`` reparametrizes it: the original tensor moves to the parameter
``<name>_orig``, a 0/1 mask of the same shape is registered as the buffer ``<name>_mask``, and
``module.<name>`` becomes the plain attribute ``mask * orig`` (so gradients flow to ``<name>_orig``
through a ``MulBackward0`` node).  The pruning method itself is registered as a forward pre-hook,
which recomputes ``module.<name>`` before every forward.

Pruning the same tensor again wraps the methods in a :class:`PruningContainer`: the new method
only sees the entries (unstructured) or channels (structured) that are still unpruned, and its
mask is composed with the previous one.  :func:`remove` makes the pruning permanent.

Masks follow torch's: L1 pruning uses ``topk`` (so ties break the same way), random pruning draws
from the global generator with ``rand_like``/``rand`` (bit-equal masks after the same
``manual_seed``).
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import dyngrad as torch

class BasePruningMethod(ABC):
    """Abstract base class for pruning methods: subclasses define ``compute_mask`` and a
    ``PRUNING_TYPE`` ("unstructured", "structured" or "global").

    An instance applied to a module remembers the tensor's name in ``_tensor_name`` and, as the
    module's forward pre-hook, sets ``module.<name>`` to the masked tensor before each forward.
    """

    _tensor_name: str

    def __call__(self, module, inputs):
        """Forward pre-hook: recompute ``module.<name>`` = mask * orig."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask to apply to ``t`` (same shape), starting from ``default_mask`` (the mask of
        earlier pruning iterations, or ones)."""

    def apply_mask(self, module):
        """``module.<name>_mask * module.<name>_orig`` (the mask cast to the tensor's dtype)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` and return the method (or the
        :class:`PruningContainer` holding it when the tensor was pruned before).

        ``importance_scores`` (same shape as the tensor) replaces the tensor itself as the
        values that the mask is computed from.
        """
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter "
                    f"{name} of {module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig

        first_time = not isinstance(method, PruningContainer)
        if first_time:   # move module.<name> to module.<name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = torch.ones_like(orig)
        else:            # reparametrized already: start from the current mask
            default_mask = (getattr(module, name + "_mask").detach()
                            .clone(memory_format=torch.contiguous_format))

        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:   # roll back the reparametrization
            if first_time:
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times its mask (computed from ``importance_scores`` when given), out of place."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as tensor t, "
                    f"got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else torch.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``module.<name>`` becomes the parameter ``<name>_orig``
        holding the masked values; ``<name>_orig`` and ``<name>_mask`` are deleted.  (The
        pre-hook itself is deleted by the module-level :func:`remove`.)"""
        if self._tensor_name is None:
            raise AssertionError(
                f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    """The new method ``cls(*args, **kwargs)`` for ``module.<name>``, combined with the pruning
    hook already on that tensor (which is taken off the module's forward pre-hooks)."""
    old_keys = [k for k, hook in module._forward_pre_hooks.items()
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(old_keys) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer.")
    old_method = module._forward_pre_hooks[old_keys[0]] if old_keys else None
    for k in old_keys:
        del module._forward_pre_hooks[k]

    method = cls(*args, **kwargs)
    method._tensor_name = name
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        method = old_method
    elif isinstance(old_method, BasePruningMethod):
        container = PruningContainer(old_method)
        container.add_pruning_method(method)
        method = container
    return method


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods applied one after the other to the same tensor (iterative
    pruning).  Its mask is the previous mask with the last method applied to what is left."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if not isinstance(args, Iterable):   # kept from torch (args is always a tuple)
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:   # no argument, or several: _tensor_name must be set by the caller
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append ``method`` (a :class:`BasePruningMethod` on the same tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on "
                f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                f" Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """Apply the last method to the unpruned part of ``t`` and write its mask into (a copy
        in ``t``'s dtype of) ``default_mask``:

        - unstructured: the entries where ``default_mask == 1``;
        - structured: the channels along ``method.dim`` not entirely zeroed already;
        - global: the whole tensor.
        """
        method = self._pruning_methods[-1]
        mask = default_mask
        new_mask = mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            slc = mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    "Pruning methods of PRUNING_TYPE "
                    '"structured" need to have the attribute `dim` defined.')
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
        elif method.PRUNING_TYPE == "global":
            slc = [slice(None)] * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        if isinstance(slc, list):
            slc = tuple(slc)
        partial_mask = method.compute_mask(t[slc], default_mask=mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (reparametrizes the tensor)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):   # type: ignore[override]
        """Reparametrize ``module.<name>`` with an all-ones mask."""
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries (int: how many; float in [0, 1]: the fraction) that a
    subclass's ``_pruned`` picks, whatever their position."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.nelement()
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        mask = default_mask.clone(memory_format=torch.contiguous_format)
        if k != 0:
            mask.view(-1)[self._pruned(t, k)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen at random (int: how many; float in [0, 1]: fraction)."""

    @staticmethod
    def _pruned(t, k):
        # the k largest of uniform draws, one per entry (torch's draws, in its order)
        return torch.topk(torch.rand_like(t).view(-1), k=k).indices

    @classmethod
    def apply(cls, module, name, amount):   # type: ignore[override]
        """Prune ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest absolute value."""

    @staticmethod
    def _pruned(t, k):
        return torch.topk(torch.abs(t).view(-1), k=k, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):   # type: ignore[override]
        """Prune the ``amount`` smallest-magnitude entries of ``module.<name>`` (or of
        ``importance_scores``)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """Zero ``amount`` random channels of ``t`` along ``self.dim``, on top of
        ``default_mask``."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        # one random number per channel; the k lowest channels are pruned
        prob = torch.rand(tensor_size)
        threshold = torch.kthvalue(prob, k=nparams_toprune).values
        mask = torch.zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = prob > threshold
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):   # type: ignore[override]
        """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of lowest L``n`` norm (``n`` as the ``p`` of
    ``torch.norm``: int, float, inf, -inf, 'fro', 'nuc')."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """Keep the channels of largest norm (``topk``), on top of ``default_mask``."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t, self.n, self.dim)
        topk = torch.topk(norm, k=nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = torch.zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = topk.indices
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim,   # type: ignore[override]
              importance_scores=None):
        """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of lowest L``n``
        norm (computed on ``importance_scores`` when given)."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (composed with any earlier one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match "
                f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):   # type: ignore[override]
        """Prune ``module.<name>`` with ``mask``."""
        return super().apply(module, name, mask=mask)


# -- functional interface ------------------------------------------------------------------------

def identity(module, name):
    """Reparametrize ``module.<name>`` with an all-ones mask; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of lowest magnitude; returns
    ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``; returns
    ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels along ``dim`` of lowest L``n`` norm; returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune the ``(module, name)`` pairs of ``parameters`` together, as one flattened tensor,
    with the unstructured ``pruning_method(**kwargs)``; each tensor then gets its slice of the
    global mask through :func:`custom_from_mask`.

    ``importance_scores``: an optional dict ``{(module, name): scores}``.
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")

    relevant_importance_scores = torch.nn.utils.parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name))
         for (module, name) in parameters])
    default_mask = torch.nn.utils.parameters_to_vector(
        [getattr(module, name + "_mask", torch.ones_like(getattr(module, name)))
         for (module, name) in parameters])

    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
            f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)

    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        param_mask = final_mask[pointer: pointer + num_param].view_as(param)
        custom_from_mask(module, name, mask=param_mask)
        pointer += num_param


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` with the given ``mask``; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and take its hook off; returns
    ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module) -> bool:
    """Whether ``module`` or one of its submodules has a pruning forward pre-hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


# -- helpers (private in torch too) --------------------------------------------------------------

def _validate_pruning_amount_init(amount) -> None:
    """``amount`` must be a non-negative int or a float in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] "
                         "or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size) -> None:
    """An int ``amount`` cannot exceed the number of units to prune."""
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters "
                         f"to prune={tensor_size}")


def _validate_structured_pruning(t) -> None:
    """Structured pruning needs at least 2 dims."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    """How many units to prune: ``amount`` if int, else ``round(amount * tensor_size)``."""
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim) -> None:
    """``dim`` must index ``t`` (only the upper bound is checked, as torch does)."""
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    """The L``n`` norm of ``t`` over every dim but ``dim``: one value per channel."""
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return torch.norm(t, p=n, dim=dims)
