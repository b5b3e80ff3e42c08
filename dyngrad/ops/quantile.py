"""quantile and nanquantile (``torch.quantile``, ``torch.nanquantile``).

Composites, as in ATen: the reduced slice is sorted (the whole input flattened when ``dim`` is
None; ``dim`` moved last with ``unsqueeze(-1).transpose(dim, -1)`` unless it is last already),
viewed as (..., n), and each q becomes a rank in [0, n - 1]; the values at the ranks rounded
down and up are gathered and, for 'linear' and 'midpoint', blended with an in-place ``lerp_``.
The graph is therefore torch's: SqueezeBackward4 over LerpBackward1 over two GatherBackward0
nodes that share ViewBackward0 over SortBackward0 (a 1-D q adds UnsqueezeBackward1 and
TransposeBackward1, the in-place views that move the q dim first).

NaN: sort puts NaN last. quantile sends the rank of a slice holding a NaN to its last index,
so the result is NaN; nanquantile ranks over the non-NaN count only (an all-NaN slice gives
rank 0, which is NaN again).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._utils import canonical_dim
from ..autograd import grad_mode as _gm
from . import _registry
from ._registry import FUNCTIONS, METHODS
from .loss import mul_scalar
from ._selection import resize_output
from .reduction import invalid_arguments

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")
_SIGNATURE = ("{}q, int dim = None, bool keepdim = False, *, str interpolation = \"linear\"{}")


def _signatures(method: bool):
    head, tail = ("", "") if method else ("Tensor input, ", ", Tensor out = None")
    return tuple(_SIGNATURE.format(f"{head}{kind} ", tail) for kind in ("Tensor", "float"))


def _parse(name, method, input, args, kwargs):
    """torch's argument parser for both overloads (``Tensor q`` / ``float q``): returns
    (q, dim, keepdim, interpolation, out) or raises its TypeError."""
    Tensor = _registry._Tensor
    names = ("q", "dim", "keepdim")
    allowed = names + ("interpolation",) + (() if method else ("out",))
    opts = dict(zip(names, args))
    bad = len(args) > 3 or any(k in opts or k not in allowed for k in kwargs) \
        or not isinstance(input, Tensor)
    opts.update(kwargs)
    q = opts.get("q")
    dim = opts.get("dim")
    keepdim = opts.get("keepdim", False)
    interpolation = opts.get("interpolation", "linear")
    out = opts.get("out")
    bad = bad or "q" not in opts or not isinstance(q, (Tensor, int, float)) \
        or not (dim is None or (isinstance(dim, int) and not isinstance(dim, bool))) \
        or not isinstance(keepdim, bool) or not isinstance(interpolation, str) \
        or not (out is None or isinstance(out, Tensor))
    if bad:
        got = args if method else (input,) + args
        raise invalid_arguments(name, got, kwargs, _signatures(method))
    return q, dim, keepdim, interpolation, out


def _output_shape(input, dim, wrapped, keepdim, q):
    """The result's shape: q's length first (a 1-D q), then the input's reduced shape."""
    if dim is not None and input.dim() > 0:
        shape = list(input.shape)
        if keepdim:
            shape[wrapped] = 1
        else:
            del shape[wrapped]
    else:
        shape = [1] * input.dim() if keepdim else []
    if q.dim() > 0:
        shape.insert(0, q.numel())
    return shape


def _check(input, q, dim, interpolation, out):
    """ATen's checks, in its order; returns (q as a tensor, the wrapped dim)."""
    Tensor = _registry._Tensor
    if not isinstance(q, Tensor):
        value = float(q)
        if not 0 <= value <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {value:g}")
    if interpolation not in _MODES:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not isinstance(q, Tensor):
        q = FUNCTIONS["full"]((), value, dtype=input.dtype)   # at::scalar_tensor
    elif q.dtype != input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if out is not None and out.dtype != input.dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
    wrapped = canonical_dim(0 if dim is None else dim, input.dim())
    in_range = FUNCTIONS["logical_and"](q >= 0, q <= 1).all()
    if not bool(in_range):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return q, wrapped


def _compute(input, q, dim, wrapped, keepdim, interpolation, ignore_nan):
    """ATen's quantile_compute, op for op (so the graph is torch's)."""
    out_shape = _output_shape(input, dim, wrapped, keepdim, q)
    if dim is None:
        sorted_ = input.flatten().sort()[0]
    elif wrapped == input.dim() - 1:
        sorted_ = input.sort()[0]
    else:
        sorted_ = input.unsqueeze(-1).transpose(wrapped, -1).sort()[0]
    if q.dim() == 0:
        out_shape.insert(0, q.numel())
    in_shape = out_shape[1:] + [0]
    in_shape[-1] = sorted_.size(-1)
    sorted_ = sorted_.view(in_shape)
    if sorted_.size(-1) > 2 ** 24:
        raise RuntimeError("quantile() input tensor is too large")

    if ignore_nan:
        # rank over the non-NaN values; an all-NaN slice gets rank 0 (NaN)
        ranks = q * (sorted_.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        # a slice holding a NaN takes its last rank: NaN, as sort puts it last
        last = sorted_.size(-1) - 1
        scaled, has_nan = FUNCTIONS["broadcast_tensors"](mul_scalar(q, last),
                                                          sorted_.isnan().any(-1, True))
        ranks = FUNCTIONS["masked_fill"](scaled, has_nan, last)

    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    ranks_below = ranks.to(D.int64)
    values = sorted_.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = FUNCTIONS["full_like"](ranks, 0.5) if interpolation == "midpoint" \
            else ranks - ranks_below
        ranks_above = ranks.ceil_().to(D.int64)
        values.lerp_(sorted_.gather(-1, ranks_above), weights)

    if q.dim() == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


def _write_out(out, result):
    """ATen's resize_output then ``out.copy_(result)`` (recorded: CopyBackwards)."""
    shape = tuple(result.shape)
    if out.requires_grad and out.is_leaf and _gm._state.grad_enabled:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    resize_output(out, shape)
    return out.copy_(result)


def _make(name, ignore_nan):
    def run(method, input, args, kwargs):
        q, dim, keepdim, interpolation, out = _parse(name, method, input, args, kwargs)
        q, wrapped = _check(input, q, dim, interpolation, out)
        result = _compute(input, q, dim, wrapped, keepdim, interpolation, ignore_nan)
        return result if out is None else _write_out(out, result)

    def function(input, *args, **kwargs):
        return run(False, input, args, kwargs)

    def method(self, *args, **kwargs):
        return run(True, self, args, kwargs)

    what = "ignoring NaN values" if ignore_nan else "NaN if the slice holds a NaN"
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"The q-th quantiles of ``input`` over ``dim`` (all of it when None), "
                        f"{what}; ``interpolation`` picks between the two nearest ranks "
                        "(linear, lower, higher, midpoint, nearest). float32/float64 only.")
    method.__name__ = method.__qualname__ = name
    method.__doc__ = function.__doc__
    FUNCTIONS[name] = function
    METHODS[name] = method
    return function


quantile = _make("quantile", False)
nanquantile = _make("nanquantile", True)
