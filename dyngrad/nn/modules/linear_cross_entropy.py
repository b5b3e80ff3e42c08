"""``nn.LinearCrossEntropyLoss``: a Linear layer and the cross entropy of its logits in one
module, computed by ``F.linear_cross_entropy`` (ops/loss_linear_ce.py). torch defines it in
torch/nn/modules/loss.py."""
from __future__ import annotations

import math

from .. import functional as F
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    r"""Cross entropy of ``input`` linearly projected to logits by its own ``linear`` layer
    (``Linear(in_features, num_classes * prod(out_features), bias=bias)``; the weight is
    reshaped to ``(num_classes, *out_features, in_features)`` for K-dimensional losses).
    ``weight``, ``reduction``, ``ignore_index``, ``label_smoothing`` and ``options`` are
    ``F.linear_cross_entropy``'s."""

    # options is intentionally not in __constants__ (not scriptable), as in torch
    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index",
                     "label_smoothing"]

    def __init__(self, in_features: int, num_classes: int, *, out_features=(), bias=False,
                 device=None, dtype=None, reduction: str = "mean", weight=None,
                 ignore_index=None, label_smoothing: float = 0.0, options=None) -> None:
        if weight is not None and weight.shape != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear has no multi-dimensional weight: it is stored 2-d and reshaped in forward
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias,
                             device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        linear_weight = self.linear.weight.reshape(
            (self.num_classes, *self.out_features, self.linear.in_features))
        linear_bias = (self.linear.bias.reshape((self.num_classes, *self.out_features))
                       if self.linear.bias is not None else None)
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias,
                                      weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features},"
                f" num_classes={self.num_classes},"
                f" out_features={self.out_features},"
                f" bias={self.linear.bias is not None},"
                f" reduction={self.reduction},"
                f" ignore_index={self.ignore_index},"
                f" label_smoothing={self.label_smoothing},"
                f" options={self.options}")
