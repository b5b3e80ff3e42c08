"""Tensor methods torch keeps for other layouts (quantized, zero tensors) or for old code, as
they behave on a strided tensor: ``const_data_ptr``, ``volatile``, ``reinforce``,
``_is_zerotensor``, ``_is_all_true``/``_is_any_true``, ``_make_subclass``, ``_fix_weakref``.
(The sparse accessors are in ops/sparse.py.)

_tensor.py calls ``install`` once the ops exist.
"""
from __future__ import annotations

import warnings

_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def const_data_ptr(self) -> int:
    """``data_ptr()``, for callers that promise not to write through it."""
    return self.data_ptr()


def _get_volatile(self) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


def _set_volatile(self, value) -> None:
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=2)


def reinforce(self, reward):
    raise RuntimeError(_REINFORCE)


def _is_zerotensor(self) -> bool:
    """Never: dyngrad has no ZeroTensor (torch's lazily-zero gradients)."""
    return False


def _bool_reduction(name, line, reduce):
    def method(self):
        if self._data.dtype.kind != "b":
            raise RuntimeError(f'self.scalar_type() == at::kBool INTERNAL ASSERT FAILED at '
                               f'"/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp":'
                               f'{line}, please report a bug to PyTorch. ')
        from . import tensor
        return tensor(bool(reduce(self._data)))
    method.__name__ = name
    method.__doc__ = f"``{name}``: a 0-d bool tensor (a bool tensor's {reduce.__name__})."
    return method


def _make_subclass(cls, data, require_grad=False):
    """A `cls` instance sharing `data`'s memory and version counter, a leaf that requires grad
    or not (how ``nn.Parameter`` is made)."""
    from .nn.parameter import _make_subclass as make
    return make(cls, data, require_grad)


def _fix_weakref(self) -> None:
    """Nothing to fix: a dyngrad tensor is its own Python object throughout."""


def install(tensor_cls) -> None:
    """Attach the methods to Tensor."""
    methods = [const_data_ptr, reinforce, _is_zerotensor,
               _fix_weakref, _bool_reduction("_is_all_true", 2144, all),
               _bool_reduction("_is_any_true", 2148, any)]
    for fn in methods:
        fn.__qualname__ = "Tensor." + fn.__name__
        setattr(tensor_cls, fn.__name__, fn)
    tensor_cls._make_subclass = staticmethod(_make_subclass)
    tensor_cls.volatile = property(_get_volatile, _set_volatile,
                                   doc="Removed from torch: always False, with a warning.")
