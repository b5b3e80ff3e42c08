"""Collation: turning a list of samples into one batch (``torch.utils.data._utils.collate``).

``default_collate`` walks the structure of the first sample and rebuilds it with every leaf
batched: tensors are stacked along a new first dimension, NumPy arrays and NumPy scalars become
tensors, Python floats a float64 tensor, Python ints (and bools) an int64 (bool) tensor; strings
and bytes are left as they are. Mappings, namedtuples and sequences are collated field by field;
a plain tuple comes back as a *list* (torch keeps this for backward compatibility).

``default_convert`` (used when automatic batching is off, ``batch_size=None``) only converts
NumPy arrays and scalars inside a sample into tensors.
"""
from __future__ import annotations

import collections.abc
import copy
import re
from typing import Callable

import numpy as np

import dyngrad

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

# NumPy dtypes that cannot become tensors: bytes, str, unicode, object
_np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def default_convert(data):
    """Convert NumPy arrays and scalars inside ``data`` (at any depth) into tensors.

    Example::

        >>> default_convert(np.array([0, 1]))
        tensor([0, 1])
        >>> default_convert((np.array([0]), 'a'))     # a tuple becomes a list, as in torch
        [tensor([0]), 'a']
    """
    elem_type = type(data)
    if isinstance(data, dyngrad.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and \
                _np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return dyngrad.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):   # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(template, values: dict):
    """A mapping of ``template``'s type holding ``values``; a plain dict when the type cannot
    be rebuilt (torch's fallback)."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            clone = copy.copy(template)        # keeps the type and any extra attributes
            clone.update(values)
            return clone
        return type(template)(values)
    except TypeError:
        return values


def _rebuild_sequence(template, values: list):
    """A sequence of ``template``'s type holding ``values``; a list when it cannot be rebuilt."""
    try:
        if isinstance(template, collections.abc.MutableSequence):
            clone = copy.copy(template)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(template)(values)
    except TypeError:
        return values


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch`` (a list of samples) by the structure of its first sample.

    Args:
        batch: the samples.
        collate_fn_map: ``{type or tuple of types: fn(batch, *, collate_fn_map)}`` for the
            leaves; an exact type match is tried first, then ``isinstance`` in insertion order.
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: collate([d[key] for d in batch],
                                                    collate_fn_map=collate_fn_map)
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):   # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return dyngrad.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([dyngrad.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return dyngrad.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return dyngrad.tensor(batch, dtype=dyngrad.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return dyngrad.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[type | tuple, Callable] = {
    dyngrad.Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Put a list of samples together into a batch with a new leading dimension.

    =====================================  ==================================================
    element of the batch                   result
    =====================================  ==================================================
    Tensor                                 ``stack(batch, 0)``
    NumPy array / NumPy scalar             a tensor (stacked), dtype kept
    ``float``                              a float64 tensor
    ``int`` (``bool``)                     an int64 (bool) tensor
    ``str`` / ``bytes``                    the batch as given (list or tuple)
    Mapping                                the same mapping type, each key collated
    namedtuple                             the same namedtuple, each field collated
    tuple / other Sequence                 a list / the same sequence type of collated columns
    =====================================  ==================================================

    Example::

        >>> default_collate([(0, 'a'), (1, 'b')])      # a column of strings stays a tuple
        [tensor([0, 1]), ('a', 'b')]
        >>> default_collate([{'x': 1.5}, {'x': 2.5}])
        {'x': tensor([1.5000, 2.5000], dtype=torch.float64)}
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
