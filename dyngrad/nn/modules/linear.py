"""Identity, Linear, Bilinear (torch.nn.modules.linear)."""
from __future__ import annotations

import math
from typing import Any

from ...ops.creation import empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    r"""Returns its input unchanged; any constructor arguments are accepted and ignored.

    Example::

        >>> nn.Identity(54, unused="argument")(x) is x
        True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    r"""Affine map :math:`y = x A^T + b`.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``

    Attributes:
        weight: shape (out_features, in_features), from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`, :math:`k = 1 / \text{in\_features}`
            (torch's ``kaiming_uniform_(a=sqrt(5))``).
        bias: shape (out_features,), from the same law.
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw weight and bias again from their initial distributions."""
        # kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (torch's choice)
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name: MultiheadAttention's ``out_proj`` (torch's class)."""


class Bilinear(Module):
    r"""Bilinear map :math:`y = x_1^T A x_2 + b`.

    Args:
        in1_features (int), in2_features (int): sizes of the two inputs.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``

    Weight (out, in1, in2) and bias are drawn from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`,
    :math:`k = 1 / \text{in1\_features}`.
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


def __getattr__(name: str):
    """torch defines the Lazy variants here; they live in lazy.py (which imports this)."""
    if not name.startswith("Lazy"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .lazy import _from_layer_module
    return _from_layer_module(__name__, name)
