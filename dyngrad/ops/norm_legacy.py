"""torch's deprecated matrix norms kept for TorchScript: ``torch.frobenius_norm`` (at::norm with
p=2 over at most two dims, hence ``NormBackward1``) and ``torch.nuclear_norm``
(``linalg.matrix_norm(A, "nuc", dim, keepdim)``, hence ``SumBackward1`` over the singular
values)."""
from __future__ import annotations

from .. import _dtypes as D
from ._registry import FUNCTIONS
from .linalg_decomp import write_out
from .norms import matrix_norm, norm_p_dim


def _dims(dim):
    return (dim,) if isinstance(dim, int) else tuple(dim)


def _legacy(t):
    return D.from_np(t._data.dtype)._legacy


def frobenius_norm(input, dim, keepdim: bool = False, *, out=None):
    """The 2-norm of `input` over at most two dims (torch's ``at::norm(input, 2, dim)``)."""
    if isinstance(dim, bool):
        raise TypeError("frobenius_norm(): argument 'dim' (position 2) must be tuple of ints, "
                        "not bool")
    dim = _dims(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions "
                           "instead.")
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_legacy(input)} instead.")
    return write_out(norm_p_dim(input, 2.0, dim, keepdim), out, op="norm")


def nuclear_norm(input, dim=None, keepdim: bool = False, *, out=None):
    """The sum of the singular values of the matrices over `dim` (the last two by default);
    ``nuclear_norm(input, keepdim)`` takes `keepdim` second, as torch's overload does."""
    if isinstance(dim, bool):   # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    if dim is None:
        dim = (-2, -1)
    elif isinstance(dim, int):   # torch's parser reads one int as a 2-list
        dim = (dim, dim)
    return matrix_norm(input, "nuc", dim, keepdim, out=out)


FUNCTIONS["frobenius_norm"] = frobenius_norm
FUNCTIONS["nuclear_norm"] = nuclear_norm
