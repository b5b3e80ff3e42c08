"""One OpInfo sample run with dual inputs on either library (tests/autograd/test_forward_ad.py).

``run_dual(op, sample, lib, seed)`` materialises the sample, turns every floating tensor in it
into a dual tensor whose tangent is drawn from `seed` (the same NumPy values on both sides, in
the same traversal order), calls the op inside a ``dual_level`` and returns each output's
primal and tangent as NumPy arrays (the tangent None when the output has none).
"""
from __future__ import annotations

import numpy as np
import torch

import dyngrad
from ops._grad_support import outputs_of


def _is_tensor(value) -> bool:
    return isinstance(value, (torch.Tensor, dyngrad.Tensor))


def _np(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True).copy()   # force: a ZeroTensor tangent
    return np.array(t._data, copy=True)


def _tensor_from(lib, arr):
    return lib.from_numpy(arr.copy()) if arr.size else lib.zeros(
        arr.shape, dtype=getattr(lib, arr.dtype.name))


def _dualise(value, lib, rng, fwad):
    if _is_tensor(value):
        if value.dtype.is_floating_point or value.dtype.is_complex:
            dtype = str(value.dtype).split(".")[-1]
            tangent = rng.standard_normal(tuple(value.shape))
            if value.dtype.is_complex:   # an imaginary part too, or conj() errors hide
                tangent = tangent + 1j * rng.standard_normal(tuple(value.shape))
            tangent = tangent.astype(dtype)
            return fwad.make_dual(value, _tensor_from(lib, tangent))
        return value
    if isinstance(value, list):
        return [_dualise(v, lib, rng, fwad) for v in value]
    if isinstance(value, tuple):
        return tuple(_dualise(v, lib, rng, fwad) for v in value)
    if isinstance(value, dict):
        return {k: _dualise(v, lib, rng, fwad) for k, v in value.items()}
    return value


def run_dual(op, sample, lib, seed, inplace=False):
    """([(primal, tangent or None) per output], exception or None)."""
    fwad = lib.autograd.forward_ad
    args, kwargs = sample.to(lib)
    rng = np.random.default_rng(seed)
    with fwad.dual_level():
        if inplace:   # the in-place variant writes into a dual clone of the input
            args = (args[0].clone(),) + tuple(args[1:])
        try:
            args = _dualise(args, lib, rng, fwad)
            kwargs = _dualise(kwargs, lib, rng, fwad)
            if inplace:
                result = getattr(args[0], op.inplace)(*args[1:], **kwargs)
            else:
                result = op.op(lib)(*args, **kwargs)
        except Exception as e:   # noqa: BLE001  (torch's verdict decides what it means)
            return None, e
        outs = []
        for o in outputs_of(result):
            tangent = fwad.unpack_dual(o).tangent
            outs.append((_np(o), None if tangent is None else _np(tangent)))
    return outs, None
