"""torch.masked: reductions and normalizations that ignore masked-out elements (the functional
API, on strided tensors; see _ops.py)."""
from ._ops import (  # noqa: F401
    _canonical_dim, _combine_input_and_mask, _input_mask, _reduction_identity, amax, amin,
    argmax, argmin, cumprod, cumsum, log_softmax, logaddexp, logsumexp, mean, median, norm,
    normalize, prod, softmax, softmin, std, sum, var,
)

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
           "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin",
           "std", "sum", "var"]
