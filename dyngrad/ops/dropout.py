"""Dropout: ``dropout``, ``feature_dropout`` (dropout1d/2d/3d), ``alpha_dropout`` and
``feature_alpha_dropout``, in torch's namespace, with in-place forms, and in nn.functional.

Note [Dropout is a composite]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
On CPU torch builds dropout from ordinary ops (its fused ``native_dropout`` runs on GPUs only):
a noise tensor is drawn with ``bernoulli_(1 - p)`` and scaled by ``1 / (1 - p)``, and the
output is ``input * noise`` (MulBackward0, whose second input has no gradient). Feature
dropout draws one noise value per (sample, channel): noise of shape ``(N, C, 1, ...)``.
Alpha dropout keeps the mean and variance of SELU activations: ``input * a * mask + b`` with
``b = (mask - 1) * alpha * a + alpha * a * p`` (AddBackward0 above MulBackward0). ``p == 0``,
eval mode and empty inputs return the input itself; ``p == 1`` multiplies by a 0-dim zero.
The noise is drawn as torch's CPU kernels draw it (ops/random_streams.py), so a seeded mask is
torch's, except on Intel CPUs where torch's MKL build takes MKL's own Bernoulli stream.
"""
from __future__ import annotations

import math
import warnings

from ._arg_parser import check_tensors
from ._registry import FUNCTIONS

_ALPHA = 1.7580993408473766   # SELU's -scale * alpha: the value dropped units take


def _check_p(p, exc=RuntimeError):
    if p < 0 or p > 1:
        raise exc(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, train, inplace, feature=False, alpha=False):
    """Note [Dropout is a composite]."""
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = FUNCTIONS["zeros"]((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input.mul(zero)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = (input.shape[0], input.shape[1]) + (1,) * (input.dim() - 2)
        noise = FUNCTIONS["empty"](shape, dtype=input.dtype)
    else:
        noise = FUNCTIONS["empty_like"](input)
    noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
        return (input.mul_(noise) if inplace else input.mul(noise)).add_(b)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input.mul(noise)


def _torch_forms(name, feature, alpha):
    def fn(input, p, train):
        check_tensors(name, ("input", input))   # (eval mode would hand back anything)
        return _dropout_impl(input, p, train, False, feature, alpha)

    def fn_(input, p, train):
        check_tensors(name + "_", ("input", input))
        return _dropout_impl(input, p, train, True, feature, alpha)

    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn.__doc__ = f"torch.{name}(input, p, train): see Note [Dropout is a composite]."
    fn_.__doc__ = f"torch.{name}_: in place."
    FUNCTIONS[name] = fn
    FUNCTIONS[name + "_"] = fn_
    return fn, fn_


dropout_op, dropout_inplace = _torch_forms("dropout", False, False)
feature_dropout, feature_dropout_ = _torch_forms("feature_dropout", True, False)
alpha_dropout_op, alpha_dropout_inplace = _torch_forms("alpha_dropout", False, True)
feature_alpha_dropout_op, feature_alpha_dropout_inplace = _torch_forms(
    "feature_alpha_dropout", True, True)


def _functional(torch_fn, torch_fn_, training_default=True):
    def fn(input, p=0.5, training=training_default, inplace=False):
        _check_p(p, ValueError)
        return torch_fn_(input, p, training) if inplace else torch_fn(input, p, training)
    return fn


dropout = _functional(dropout_op, dropout_inplace)
dropout.__doc__ = "nn.functional.dropout: zero each element with probability p, scale by 1/(1-p)."
alpha_dropout = _functional(alpha_dropout_op, alpha_dropout_inplace, False)  # (torch's default)
alpha_dropout.__doc__ = "nn.functional.alpha_dropout: dropout keeping SELU's statistics."
feature_alpha_dropout = _functional(feature_alpha_dropout_op, feature_alpha_dropout_inplace,
                                    False)
feature_alpha_dropout.__doc__ = "nn.functional.feature_alpha_dropout: per-channel alpha dropout."


def _unbatched(input, p, training, inplace, batched):
    """Channel dropout on an input without its batch dimension: add it, drop, remove it."""
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = feature_dropout_(input, p, training) if inplace \
        else feature_dropout(input, p, training)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):
    """nn.functional.dropout1d: zero whole channels of (N, C, L) or (C, L) inputs."""
    _check_p(p, ValueError)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _unbatched(input, p, training, inplace, nd == 3)


def _deprecated_dim(name, nd, spatial):
    warnings.warn(
        f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an "
        "error in a future release. To retain the behavior and silence this warning, please "
        f"use dropout instead. Note that {name} exists to provide channel-wise dropout on "
        f"inputs with {spatial} spatial dimensions, a channel dimension, and an optional batch "
        f"dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).", UserWarning, stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """nn.functional.dropout2d: zero whole channels; a 3-D input is read as (N, C, L) with
    torch's warning (its historical behaviour)."""
    _check_p(p, ValueError)
    nd = input.dim()
    if nd not in (3, 4):
        _deprecated_dim("dropout2d", nd, 2)
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=2)
    return feature_dropout_(input, p, training) if inplace \
        else feature_dropout(input, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """nn.functional.dropout3d: zero whole channels of (N, C, D, H, W) or (C, D, H, W)."""
    _check_p(p, ValueError)
    nd = input.dim()
    if nd not in (4, 5):
        _deprecated_dim("dropout3d", nd, 3)
    return _unbatched(input, p, training, inplace, nd == 5)


for _name, _fn in (("dropout", dropout), ("alpha_dropout", alpha_dropout),
                   ("feature_alpha_dropout", feature_alpha_dropout), ("dropout1d", dropout1d),
                   ("dropout2d", dropout2d), ("dropout3d", dropout3d)):
    FUNCTIONS[f"nn.functional.{_name}"] = _fn
