"""``torch.native_dropout(input, p, train)``: dropout that also returns its boolean mask.

ATen's CPU kernel draws the mask with ``bernoulli_(1 - p)`` on a bool tensor laid out as the
input (``empty_like``), then returns ``input.mul(mask).mul_(scale)`` with ``scale = 1 / (1 - p)``
(0 when p == 1); in eval mode (``train=False``) it returns a clone and a mask of ones, and an
empty input comes back with an uninitialised mask of the input's dtype. The mask is drawn here
with dyngrad's ``bernoulli_``, which follows torch's CPU stream, so seeded masks are torch's.

The node is ``NativeDropoutBackward0`` (saving ``p`` and the mask, ``result1``). Its gradient
is ``grad * (mask.type_as(grad) * scale)``: with create_graph torch records exactly that
product (a ``MulBackward0``: its infinitely differentiable form), so we write it with dyngrad
ops and get the same graph. torch refuses to differentiate complex outputs of this op.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from ._registry import FUNCTIONS, defop
from .creation import laid_out_like


def _scale(p, train):
    """The forward's scale (``train=None`` means training)."""
    if train is not None and not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


def _grad_scale(p, train):
    """The scale of torch's derivative formula, which reads ``train=None`` as eval (1): so a
    ``native_dropout(x, p, None)`` output's gradient is the bare mask, as in torch."""
    return 1.0 if not train else _scale(p, train)


@defop("native_dropout", node="NativeDropoutBackward0", promote=Promote.NONE, variants=(),
       inputs=("input", "mask"), differentiable=("input",), outputs=("result0", "result1"),
       saves=("result1",), nondiff_outputs=(1,), kernel_dtypes=True,
       complex_autograd=False)
def _native_dropout(xp, input, mask, p, train):
    if input.size == 0:
        return input.copy(), mask
    if train is not None and not train:
        return laid_out_like(input.copy(), input), mask
    scale = _scale(p, train)
    out = (input * mask) * input.dtype.type(scale)   # the scale in the input's dtype, as ATen
    return laid_out_like(out.astype(input.dtype, copy=False), input), mask


@_native_dropout.backward
def _(ctx, grad, _grad_mask=None):
    mask, = ctx.saved_tensors
    return (grad * (mask.type_as(grad) * _grad_scale(ctx.p, ctx.train)),)


@_native_dropout.jvp
def _(ctx, input_t, *_):
    """torch's forward formula: ``scale * t * mask`` in training (``train=None`` included,
    unlike the backward), ``t`` in eval."""
    mask, = ctx.saved_tensors
    if ctx.train is not None and not ctx.train:
        return input_t
    return input_t * mask * _scale(ctx.p, ctx.train)


def native_dropout(input, p, train):
    """Dropout returning ``(output, mask)``; ``train=None`` means training."""
    if input.numel() == 0:
        return _native_dropout(input, FUNCTIONS["empty_like"](input), p, train)
    if train is None or train:
        mask = FUNCTIONS["empty_like"](input, dtype=D.bool_)
        mask.bernoulli_(1.0 - p)
        if input.dtype.is_floating_point is False and not input.dtype.is_complex:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{input.dtype._legacy}")
    else:
        mask = FUNCTIONS["ones_like"](input, dtype=D.bool_)
    return _native_dropout(input, mask, p, train)


FUNCTIONS["native_dropout"] = native_dropout
