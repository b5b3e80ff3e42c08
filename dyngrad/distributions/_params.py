"""Shared plumbing for the distribution classes: batch shape from broadcast parameters and
the common ``expand`` (expanded views of the named parameters, no re-validation)."""
from __future__ import annotations

from numbers import Number

import dyngrad as torch


def batch_shape_of(first_arg, first_tensor):
    """torch.Size() when the user passed a Python number, else the broadcast tensor's size."""
    return torch.Size() if isinstance(first_arg, Number) else first_tensor.size()


def expand_params(self, cls, batch_shape, names, _instance=None, base_init=None):
    """A new `cls` instance whose parameters `names` (those present) are `batch_shape`
    expansions of self's; `base_init(new, batch_shape)` runs the base constructor."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = torch.Size(batch_shape)
    for name in names:
        if name in self.__dict__:
            value = self.__dict__[name]
            setattr(new, name, value.expand(batch_shape + value.shape[len(self.batch_shape):]))
    from .distribution import Distribution
    if base_init is None:
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
    else:
        base_init(new, batch_shape)
    new._validate_args = self._validate_args
    return new
