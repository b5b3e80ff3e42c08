"""torch.masked's reductions and normalizations on strided tensors: ``sum(x, dim, mask=m)`` is
the plain reduction of ``where(m, x, identity)``, where the identity is the value that leaves
the reduction unchanged (0 for a sum, 1 for a product, -inf for a maximum...). The mask
broadcasts to the input and is read as bool; ``mask=None`` reduces every element.

The compositions are torch's, so the graph is too (``SumBackward1`` over ``WhereBackward0``). A
fully masked-out slice gives the identity (``amax`` gives -inf), NaN for ``mean``, ``var`` and
``std`` (0 / 0), and NaN for ``median`` (which is ``nanmedian`` of the filled input).
MaskedTensor and sparse inputs are not supported.
"""
from __future__ import annotations

import math

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
           "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin",
           "std", "sum", "var"]

_SMALL_INTS = ("uint8", "bool", "int8", "int16", "int32")   # summed and multiplied in int64


def _torch():
    import dyngrad
    return dyngrad


def _reduction_identity(op_name: str, input, *args):
    """The value that a reduction `op_name` ignores, as a 0-dim tensor of input's dtype; None
    where there is none (mean, var, std)."""
    t = _torch()
    dtype = input.dtype
    floating, integral = dtype.is_floating_point, dtype.is_signed or dtype == t.uint8
    if op_name in ("sum", "cumsum"):
        return t.tensor(0, dtype=dtype)
    if op_name in ("prod", "cumprod"):
        return t.tensor(1, dtype=dtype)
    if op_name in ("amax", "argmax", "logaddexp", "logsumexp"):
        if floating:
            return t.tensor(-math.inf, dtype=dtype)
        if op_name == "logsumexp" and dtype.is_complex:
            return t.tensor(complex(-math.inf, 0), dtype=dtype)
        if integral:
            return t.tensor(t.iinfo(dtype).min, dtype=dtype)
    elif op_name in ("amin", "argmin"):
        if floating:
            return t.tensor(math.inf, dtype=dtype)
        if integral:
            return t.tensor(t.iinfo(dtype).max, dtype=dtype)
    elif op_name in ("mean", "var", "std"):
        return None
    elif op_name == "norm":
        ord = args[0] if args else 2
        return t.tensor(math.inf if ord == -math.inf else 0, dtype=dtype)
    elif op_name == "median":
        return t.tensor(math.nan, dtype=dtype if floating else t.float32)
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _canonical_dim(dim, ndim: int) -> tuple:
    """`dim` as a sorted tuple of non-negative dims; None (or ``()``) is every dim."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if not -ndim <= d < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input, *args, mask=None, **kwargs):
    """The mask as a bool tensor of input's shape (broadcast to it)."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = _torch().broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=_torch().bool)


def _combine_input_and_mask(op, input, mask, *args):
    """`input` with its masked-out elements replaced by `op`'s identity (itself for no mask)."""
    if mask is None:
        return input
    return _torch().where(_input_mask(input, mask=mask), input,
                          _reduction_identity(op.__name__, input, *args))


def _widened(dtype, input):
    """A sum's or a product's dtype: the given one, else the input's, small ints in int64."""
    if dtype is not None:
        return dtype
    return _torch().int64 if str(input.dtype).split(".")[1] in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The sum of the masked-in elements over `dim` (all dims for None)."""
    dtype = _widened(dtype, input)
    dims = _canonical_dim(dim, input.ndim)
    return _torch().sum(_combine_input_and_mask(sum, input, mask), dims, bool(keepdim),
                        dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The product of the masked-in elements over `dim`, one dim at a time (last first)."""
    dtype = _widened(dtype, input)
    result = _combine_input_and_mask(prod, input, mask).to(dtype=dtype)
    for d in reversed(_canonical_dim(dim, input.ndim)):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    """The running sum along `dim`, masked-out elements counting 0."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return _torch().cumsum(_combine_input_and_mask(sum, input, mask), d,
                           dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """The running product along `dim`, masked-out elements counting 1."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return _torch().cumprod(_combine_input_and_mask(prod, input, mask), d,
                            dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The largest masked-in element over `dim`."""
    dtype = input.dtype if dtype is None else dtype
    filled = _combine_input_and_mask(amax, input, mask)
    return _torch().amax(filled, _canonical_dim(dim, filled.ndim), bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The smallest masked-in element over `dim`."""
    dtype = input.dtype if dtype is None else dtype
    filled = _combine_input_and_mask(amin, input, mask)
    return _torch().amin(filled, _canonical_dim(dim, filled.ndim), bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The index of the largest masked-in element along `dim`, in `dtype` (input's)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _combine_input_and_mask(argmax, input, mask)
    return _torch().argmax(filled, dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The index of the smallest masked-in element along `dim`, in `dtype` (input's)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _combine_input_and_mask(argmin, input, mask)
    return _torch().argmin(filled, dim, bool(keepdim)).to(dtype=dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The masked-in sum over the count of masked-in elements (NaN where there is none)."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a "
                         f"floating point or complex dtype. Got: {dtype}")
    total, count = _total_and_count(input, dim, keepdim, dtype, mask)
    return total / count


def _total_and_count(input, dim, keepdim, dtype, mask):
    """(masked sum, number of masked-in elements) over `dim`; the mask broadcast to input."""
    t = _torch()
    if mask is None:
        return (sum(input, dim, keepdim=keepdim, dtype=dtype),
                sum(t.ones(input.shape, dtype=t.int64), dim, keepdim=keepdim))
    inmask = _input_mask(input, mask=mask)
    return (sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask),
            inmask.sum(dim=dim, keepdim=bool(keepdim)))


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """The lower median of the masked-in elements along `dim` (nanmedian of the input with
    NaN at the masked-out places, in float for an integer input)."""
    t = _torch()
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    floating = input.is_floating_point()
    if not floating:
        input = input.to(dtype=t.float32)
    output = t.nanmedian(_combine_input_and_mask(median, input, mask), d, keepdim).values
    if floating:
        return output
    if t.isnan(output).any():
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return output.to(dtype=dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp(x))) over the masked-in elements of `dim`."""
    dtype = input.dtype if dtype is None else dtype
    filled = _combine_input_and_mask(logsumexp, input, mask)
    return _torch().logsumexp(filled, _canonical_dim(dim, input.ndim),
                              keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)), each masked by its own mask (a masked-out element counts
    as -inf)."""
    dtype = input.dtype if dtype is None else dtype
    return _torch().logaddexp(_combine_input_and_mask(logaddexp, input, input_mask),
                              _combine_input_and_mask(logaddexp, other, other_mask)
                              ).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The vector `ord`-norm of the masked-in elements over `dim`."""
    dtype = input.dtype if dtype is None else dtype
    filled = _combine_input_and_mask(norm, input, mask, ord)
    return _torch().linalg.vector_norm(filled, ord, _canonical_dim(dim, input.ndim),
                                       bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, *, correction_opt, keepdim, dtype, mask, take_sqrt):
    t = _torch()
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = t.float32
    compute = dtype if dtype.is_floating_point or dtype.is_complex else t.float32
    total, count = _total_and_count(input, dim, True, dtype, mask)
    x = t.subtract(input, t.divide(total, count))
    inmask = None if mask is None else _input_mask(input, mask=mask)
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real = compute.to_real() if compute.is_complex else compute
        count = t.subtract(count.to(real), correction)
        count = t.maximum(count, count.new_zeros([]))
    output = t.divide(total, count).to(dtype=dtype)
    return t.sqrt(output) if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """The variance of the masked-in elements over `dim` (N - correction in the divisor, 1 by
    default; NaN where nothing is masked in)."""
    return _std_var(input, dim, unbiased, correction_opt=correction, keepdim=keepdim,
                    dtype=dtype, mask=mask, take_sqrt=False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """The standard deviation of the masked-in elements over `dim` (see var)."""
    return _std_var(input, dim, unbiased, correction_opt=correction, keepdim=keepdim,
                    dtype=dtype, mask=mask, take_sqrt=True)


def softmax(input, dim, *, dtype=None, mask=None):
    """softmax along `dim` over the masked-in elements (masked-out ones get 0)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return _torch().nn.functional.softmax(_combine_input_and_mask(amax, input, mask), d,
                                          dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax along `dim` over the masked-in elements (masked-out ones get -inf)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return _torch().nn.functional.log_softmax(_combine_input_and_mask(amax, input, mask), d,
                                              dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """softmin along `dim` over the masked-in elements (masked-out ones get 0)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return _torch().nn.functional.softmin(_combine_input_and_mask(amin, input, mask), d,
                                          dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """The masked-in elements divided by their `ord`-norm along `dim` (at least `eps`);
    masked-out ones become 0."""
    t = _torch()
    dtype = input.dtype if dtype is None else dtype
    filled = _combine_input_and_mask(sum, input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return t.divide(filled, t.maximum(nrm, nrm.new_full([], eps)))
