"""``torch.nn.functional.affine_grid``: the sampling grid (N, *spatial, k) of a batch of affine
maps ``theta`` (N, k, k + 1), k = 2 or 3, for ``grid_sample``.

torch's Python function checks the arguments and calls ATen's ``affine_grid_generator``, a
primitive (``AffineGridGeneratorBackward0``): a base grid of normalised pixel positions
(x, y[, z], 1) times ``theta`` transposed, as one batched matmul. Its gradient is ATen's
composite ``affine_grid_generator_backward`` (a ``bmm`` of the base grid and the incoming
gradient), so it is differentiable in that gradient only.
"""
from __future__ import annotations

import operator
import warnings

from .. import _dtypes as D
from .._promotion import Promote
from ..autograd.forward_ad import AUTO_LINEAR
from ..backends import numpy_backend as _npb
from . import _dispatch
from ._registry import FUNCTIONS, defop
from .grid_sample import _ALIGN_WARNING
from .range_factories import _linspace_values


def _linspace_from_neg_one(xp, n, align_corners, dtype):
    """n positions spanning [-1, 1] (pixel centres: shrunk by (n - 1) / n without
    ``align_corners``), in ATen's arithmetic; a single position is 0."""
    if n <= 1:
        if dtype == xp.float16:   # ATen makes the 0 with at::tensor, which has no Half kernel
            raise NotImplementedError("\"tensor_cpu\" not implemented for 'Half'")
        return xp.zeros(1, dtype)
    t = dtype.type
    r = _linspace_values(t(-1), t(1), n, D.from_np(dtype))
    if not align_corners:
        r = r * t(n - 1) / t(n)
    return r.astype(dtype, copy=False)


def _base_grid(xp, spatial, align_corners, dtype):
    """(prod(spatial), k + 1): rows (x, y[, z], 1) over the spatial positions, last axis fastest."""
    k = len(spatial)
    base = xp.ones(tuple(spatial) + (k + 1,), dtype)
    for j in range(k):          # coordinate j (x, y, z) runs along spatial axis k - 1 - j
        axis = k - 1 - j
        shape = [1] * k
        shape[axis] = spatial[axis]
        base[..., j] = _linspace_from_neg_one(xp, spatial[axis], align_corners,
                                              dtype).reshape(shape)
    return base.reshape(-1, k + 1)


def _compute(xp, arr):
    return arr.astype(xp.float32) if arr.dtype == xp.float16 else arr


@defop("affine_grid_generator", node="AffineGridGeneratorBackward0", promote=Promote.NONE,
       inputs=("theta",), variants=("function",))
def _affine_grid_generator(xp, theta, size, align_corners):
    size = tuple(size)
    n, spatial = size[0], size[2:]
    k = len(spatial)
    if len(size) not in (4, 5):
        raise RuntimeError("affine_grid_generator needs 4d (spatial) or 5d (volumetric) inputs.")
    if theta.shape[0] != n:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{n}, {k + 1}] but got: [{theta.shape[0]}, {k + 1}].")
    t = _compute(xp, theta)
    base = _base_grid(xp, spatial, align_corners, theta.dtype).astype(t.dtype, copy=False)
    grid = xp.matmul(base, t.transpose(0, 2, 1))          # (N, L, k)
    return xp.ascontiguousarray(grid.reshape((n,) + tuple(spatial) + (k,))).astype(
        theta.dtype, copy=False)


_affine_grid_generator.jvp(AUTO_LINEAR)   # linear in theta


@_affine_grid_generator.backward
def _(ctx, grad):
    # ATen's affine_grid_generator_backward is a composite (its nodes show under
    # create_graph): base^T (N, k + 1, L) bmm grad (N, L, k), transposed back.
    size = tuple(ctx.size)
    n, spatial = size[0], size[2:]
    k = len(spatial)
    xp = _npb.xp
    base = _base_grid(xp, spatial, ctx.align_corners, grad._data.dtype)
    base = _dispatch._wrap(xp.ascontiguousarray(xp.broadcast_to(base, (n,) + base.shape)))
    return base.transpose(1, 2).bmm(grad.reshape(n, base.shape[1], k)).transpose(1, 2)


def _size_ints(size):
    """The size as ints, with torch's error for anything else."""
    out = []
    for i, s in enumerate(size):
        try:
            out.append(operator.index(s))
        except TypeError:
            raise TypeError(f"affine_grid_generator(): argument 'size' failed to unpack the "
                            f"object at pos {i + 1} with error \"type must be tuple of ints,but "
                            f"got {type(s).__name__}\"") from None
    return tuple(out)


def affine_grid(theta, size, align_corners=None):
    """The grid (N, H, W, 2) or (N, D, H, W, 3) that ``grid_sample`` reads to apply the affine
    maps ``theta`` (N, 2, 3) or (N, 3, 4) to an image of ``size`` (N, C, H, W) or
    (N, C, D, H, W)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _affine_grid_generator(theta, _size_ints(size), bool(align_corners))


FUNCTIONS.update({
    "nn.functional.affine_grid": affine_grid,
})
