"""Activation modules (torch.nn.modules.activation): thin wrappers over nn.functional that
keep the settings and print them in torch's repr. MultiheadAttention lives in transformer.py."""
from __future__ import annotations

from ...ops.creation import empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
           "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
           "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign",
           "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


def _inplace_suffix(module: Module, sep: str = ", ") -> str:
    return sep + "inplace=True" if module.inplace else ""


class Threshold(Module):
    r"""``y = x if x > threshold else value``.

    Args:
        threshold (float): the threshold.
        value (float): the value below it.
        inplace (bool): operate in place. Default: ``False``
    """

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + _inplace_suffix(self)


class _Inplace(Module):
    """An activation whose only setting is ``inplace`` (printed only when True)."""

    __constants__ = ["inplace"]
    _fn = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_suffix(self, sep="")


class ReLU(_Inplace):
    r"""``max(0, x)``."""
    _fn = staticmethod(F.relu)


class SiLU(_Inplace):
    r"""``x * sigmoid(x)`` (swish)."""
    _fn = staticmethod(F.silu)


class Mish(_Inplace):
    r"""``x * tanh(softplus(x))``."""
    _fn = staticmethod(F.mish)


class SELU(_Inplace):
    r"""Scaled ELU with torch's fixed alpha and scale."""
    _fn = staticmethod(F.selu)


class Hardsigmoid(_Inplace):
    r"""``relu6(x + 3) / 6``; its repr shows no settings (as torch's)."""
    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""


class Hardswish(_Inplace):
    r"""``x * relu6(x + 3) / 6``; its repr shows no settings (as torch's)."""
    _fn = staticmethod(F.hardswish)

    def extra_repr(self) -> str:
        return ""


class RReLU(Module):
    r"""Randomized leaky ReLU: the negative slope is drawn from U(lower, upper) in training,
    and is ``(lower + upper) / 2`` in evaluation."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + _inplace_suffix(self)


class Hardtanh(Module):
    r"""``clamp(x, min_val, max_val)``."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        if min_value is not None:
            import warnings
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            import warnings
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_suffix(self)


class ReLU6(Hardtanh):
    r"""``min(max(0, x), 6)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_suffix(self, sep="")


class Sigmoid(Module):
    r"""``1 / (1 + exp(-x))``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    r"""Hyperbolic tangent."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class ELU(Module):
    r"""``x if x > 0 else alpha * (exp(x) - 1)``."""

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + _inplace_suffix(self)


class CELU(ELU):
    r"""``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class GLU(Module):
    r"""Gated linear unit: the first half of `dim` times sigmoid of the second half."""

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    r"""Gaussian error linear unit; ``approximate='tanh'`` for the tanh formula."""

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={repr(self.approximate)}"


class Hardshrink(Module):
    r"""``x if |x| > lambd else 0``."""

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    r"""``x - lambd if x > lambd, x + lambd if x < -lambd, else 0``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    r"""``x if x >= 0 else negative_slope * x``."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + _inplace_suffix(self)


class LogSigmoid(Module):
    r"""``log(sigmoid(x))``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softplus(Module):
    r"""``log(1 + exp(beta * x)) / beta``, linear above `threshold`."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    r"""Leaky ReLU with a learned slope (one, or one per channel).

    Args:
        num_parameters (int): 1 or the number of input channels. Default: 1
        init (float): the initial slope. Default: 0.25
    """

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    r"""``x / (1 + |x|)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    r"""``x - tanh(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class _SoftmaxBase(Module):
    __constants__ = ["dim"]

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    r"""``softmax(-x)`` along `dim`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(_SoftmaxBase):
    r"""``exp(x) / sum(exp(x))`` along `dim`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    r"""``log(softmax(x))`` along `dim`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    r"""Softmax over the channels of each spatial location ((C, H, W) or (N, C, H, W))."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)
