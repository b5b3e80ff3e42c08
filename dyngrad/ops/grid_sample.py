"""``torch.nn.functional.grid_sample``: read ``input`` (N, C, *spatial) at the normalised
positions of ``grid`` (N, *out_spatial, ndim) with 'bilinear' (trilinear in 3-d), 'nearest' or
'bicubic' (2-d only) interpolation and 'zeros', 'border' or 'reflection' padding.

The primitives are ATen's ``grid_sampler_2d`` (``GridSampler2DBackward0``) and
``grid_sampler_3d`` (``GridSampler3DBackward0``); their gradient is one backward primitive per
rank (``GridSampler2DBackwardBackward0`` …) giving the gradients for ``input`` and ``grid`` at
once, and that one is differentiable again (torch implements double backward too). All the
kernels share one description of the sampling: see Note [Grid sampling as separable taps].
"""
from __future__ import annotations

import warnings

from .. import _dtypes as D
from .._promotion import Promote
from . import shape as S
from ._registry import FUNCTIONS, defop
from .arithmetic import _no_derivative
from ..autograd.forward_ad import fw_not_implemented
from .range_factories import _fma, _fma32_plain
from .view_backward import backward_only
from ._arg_parser import type_name as _tp_name

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_CUBIC_A = -0.75
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


# Note [Grid sampling as separable taps]
# Every mode reads, along each spatial axis independently, a few integer positions ("taps")
# around the source coordinate with 1-d weights: 'nearest' one tap (weight 1), 'bilinear' two
# (1 - t, t), 'bicubic' four (cubic convolution, A = -0.75), where t is the coordinate's
# fractional part. A sample is the sum over the outer product of the axes' taps of the weight
# product times the input there (zero outside the input). The source coordinate is the grid
# value unnormalised (and, except for bicubic, which pads each tap instead, clipped or
# reflected by the padding mode); ``mult`` is its derivative w.r.t. the grid value (0 where
# clipping holds it at a border, as ATen's kernels count borders as outside).
# With ``S(X, W)`` = the taps of X weighted by W and summed, and ``W_a`` the weights with axis
# a's 1-d weights differentiated (``W_ab`` twice), the op and its derivatives are
#   out = S(input, W)                     grad_input = S^T(grad_out, W)  (a scatter-add)
#   grad_grid_a = mult_a * sum_c grad_out * S(input, W_a)
# and the double backward (cotangents A for grad_input, B for grad_grid) follows by the
# product rule: d grad_out = S(A, W) + sum_a B_a mult_a S(input, W_a),
# d input = sum_a S^T(grad_out B_a mult_a, W_a), d grid_a = mult_a sum_c grad_out (S(A, W_a)
# + sum_b B_b mult_b S(input, W_ab)). Clipping and reflection are piecewise linear, so their
# second derivative is zero.

class _Axis:
    """Taps of one spatial axis: int positions, in-bounds mask, weights and their derivatives
    (each (N, P, T)), and ``mult`` (N, P)."""

    __slots__ = ("index", "valid", "w", "dw", "ddw", "mult")


def _reflect(xp, x, low, twice_span):
    """ATen's reflection of ``x`` into [low, low + span] and its derivative (+-1)."""
    shifted = x - low
    a = xp.abs(shifted)
    extra = a - xp.trunc(a / twice_span) * twice_span
    flipped = twice_span - extra
    more = extra > flipped
    return xp.where(more, flipped, extra) + low, xp.where(more ^ (shifted < 0), -1.0, 1.0)


def _clip(xp, x, size):
    """Clip to [0, size - 1]; the derivative is 0 at and beyond the borders."""
    res = xp.minimum(xp.maximum(x, 0), size - 1)
    res = xp.where(xp.isnan(x), 0, res)
    return res, ((res != 0) & (res != size - 1)).astype(x.dtype)


def _pad(xp, x, size, padding, align_corners):
    """Apply the padding mode to source coordinates ``x``: (coordinates, derivative)."""
    one = xp.ones_like(x)
    if padding == 0:
        return x, one
    if padding == 2:
        if align_corners:
            if size <= 1:
                return xp.zeros_like(x), xp.zeros_like(x)
            x, one = _reflect(xp, x, 0.0, 2.0 * (size - 1))
        else:
            x, one = _reflect(xp, x, -0.5, 2.0 * size)
        one = one.astype(x.dtype)
    x, clip = _clip(xp, x, size)
    return x, one * clip


def _unnormalize(xp, coord, size, align_corners, rank):
    """Grid value -> pixel coordinate, in ATen's arithmetic (its 2-d kernel is vectorised, its
    3-d one scalar, and they round differently)."""
    dt = coord.dtype.type
    if rank == 2:
        scale = dt((size - 1) / 2) if align_corners else dt(size / 2)
        if align_corners:
            return (coord + dt(1)) * scale, scale
        # (in + 1) * scale - 0.5: the compiler fuses the multiply-add (one rounding)
        shifted = coord + dt(1)
        if coord.dtype == xp.float64:
            return _fma(shifted, scale, -0.5), scale
        if coord.dtype == xp.float32:   # exact in double, so rounding once gives fmaf's result
            return _fma32_plain(shifted.astype(xp.float64), scale, -0.5), scale
        return shifted * scale - dt(0.5), scale
    if align_corners:
        return (coord + dt(1)) / dt(2) * dt(size - 1), dt((size - 1) / 2)
    return ((coord + dt(1)) * dt(size) - dt(1)) / dt(2), dt(size / 2)


def _as_index(xp, x, size):
    """Integer tap positions (far-away and NaN coordinates become an out-of-bounds -2)."""
    x = xp.where(xp.isfinite(x), x, -2)
    return xp.clip(x, -2, size + 1).astype(xp.int64)


def _cubic(xp, t, order):
    """The cubic-convolution weights of taps -1, 0, 1, 2 at fraction ``t`` (or their first or
    second derivative in t), stacked on a new last axis."""
    a = _CUBIC_A
    dt = t.dtype.type
    u0, u1, u2, u3 = t + dt(1), t, dt(1) - t, dt(2) - t
    if order == 0:
        far = lambda u: ((a * u - 5 * a) * u + 8 * a) * u - 4 * a         # noqa: E731
        near = lambda u: ((a + 2) * u - (a + 3)) * u * u + 1               # noqa: E731
    elif order == 1:
        far = lambda u: (3 * a * u - 10 * a) * u + 8 * a                    # noqa: E731
        near = lambda u: (3 * (a + 2) * u - 2 * (a + 3)) * u               # noqa: E731
    else:
        far = lambda u: 6 * a * u - 10 * a                                  # noqa: E731
        near = lambda u: 6 * (a + 2) * u - 2 * (a + 3)                      # noqa: E731
    sign = 1 if order != 1 else -1          # taps 1 and 2 run against t
    return xp.stack([far(u0), near(u1), sign * near(u2), sign * far(u3)], axis=-1).astype(
        t.dtype)


def _axis(xp, coord, size, mode, padding, align_corners, rank):
    """The taps of one axis for grid values ``coord`` (N, P)."""
    ax = _Axis()
    x, scale = _unnormalize(xp, coord, size, align_corners, rank)
    dt = coord.dtype
    if mode == 2:     # bicubic: the coordinate is not padded, each tap is
        ax.mult = xp.full(coord.shape, scale, dt)
        x0 = xp.floor(x)
        t = x - x0
        taps = x0[..., None] + xp.arange(-1, 3, dtype=dt)
        taps, _ = _pad(xp, taps, size, padding, align_corners)
        ax.w, ax.dw, ax.ddw = (_cubic(xp, t, k) for k in (0, 1, 2))
    else:
        x, grad = _pad(xp, x, size, padding, align_corners)
        ax.mult = (grad * scale).astype(dt)
        if mode == 1:
            taps = xp.rint(x)[..., None]
            ax.w = xp.ones(taps.shape, dt)
            ax.dw = ax.ddw = xp.zeros(taps.shape, dt)
        else:
            x0 = xp.floor(x)
            t = (x - x0)[..., None]
            taps = x0[..., None] + xp.arange(2, dtype=dt)
            ax.w = xp.concatenate([1 - t, t], axis=-1)
            ax.dw = xp.broadcast_to(xp.array([-1, 1], dt), taps.shape)
            ax.ddw = xp.zeros(taps.shape, dt)
    ax.index = _as_index(xp, taps, size)
    ax.valid = (ax.index >= 0) & (ax.index < size)
    return ax


class _Taps:
    """All taps of a grid over an input's spatial shape: flat positions (N, P, K), mask, and
    weight products of any derivative orders (see the Note)."""

    def __init__(self, xp, grid, spatial, mode, padding, align_corners):
        self.xp = xp
        n, rank = grid.shape[0], grid.shape[-1]
        self.out_spatial = grid.shape[1:-1]
        self.n, self.p = n, _numel(self.out_spatial)
        self.spatial = tuple(spatial)
        flat = grid.reshape(n, self.p, rank)
        # grid coordinate j (x, y, z) addresses spatial axis rank - 1 - j
        self.axes = [_axis(xp, flat[..., rank - 1 - a], spatial[a], mode, padding,
                           align_corners, rank) for a in range(rank)]
        self.rank = rank
        index = valid = None
        for a, ax in enumerate(self.axes):
            if index is None:
                index, valid = ax.index, ax.valid
            else:
                index = index[..., None] * spatial[a] + self._spread(ax.index, a)
                valid = valid[..., None] & self._spread(ax.valid, a)
        self.k = _numel(valid.shape[2:])
        self.index = xp.where(valid, index, 0).reshape(n, self.p, self.k)
        self.valid = valid.reshape(n, self.p, self.k)
        self.batch = xp.arange(n)[:, None, None]
        self._weights = {}

    def _spread(self, arr, a):
        """An axis's (N, P, T) array shaped to broadcast as the a-th tap axis."""
        return arr.reshape(arr.shape[:2] + (1,) * a + arr.shape[2:])

    def weights(self, orders=()):
        """Weight products (N, P, K, 1), axes in ``orders`` differentiated once per mention."""
        key = tuple(sorted(orders))
        if key not in self._weights:
            self._weights[key] = self._product(orders)
        return self._weights[key]

    def _product(self, orders):
        out = None
        for a, ax in enumerate(self.axes):
            k = orders.count(a)
            w = (ax.w, ax.dw, ax.ddw)[k] if k < 3 else self.xp.zeros_like(ax.w)
            out = w if out is None else out[..., None] * self._spread(w, a)
        return out.reshape(self.n, self.p, self.k, 1)

    def gather(self, x):
        """Taps of ``x`` (N, C, *spatial): (N, P, K, C), zero outside."""
        vals = x.reshape(x.shape[:2] + (_numel(self.spatial),))[self.batch, :, self.index]
        return self.xp.where(self.valid[..., None], vals, 0)

    def sample(self, x, w):
        """S(x, w) as (N, P, C)."""
        return (self.gather(x) * w).sum(axis=2)

    def scatter(self, g, w, input_shape):
        """S^T(g, w): ``g`` (N, P, C) spread back onto (N, C, *spatial)."""
        xp = self.xp
        n, c = input_shape[:2]
        contrib = xp.where(self.valid[..., None], g[:, :, None, :] * w, 0)
        out = xp.zeros((n, _numel(input_shape[2:]), c), g.dtype)
        xp.add.at(out, (self.batch, self.index), contrib)
        return xp.ascontiguousarray(out.transpose(0, 2, 1)).reshape(input_shape)

    def to_output(self, vals):
        """(N, P, C) -> (N, C, *out_spatial), contiguous."""
        n, _, c = vals.shape
        return self.xp.ascontiguousarray(vals.transpose(0, 2, 1)).reshape(
            (n, c) + self.out_spatial)

    def from_output(self, g):
        """(N, C, *out_spatial) -> (N, P, C)."""
        return g.reshape(g.shape[:2] + (self.p,)).transpose(0, 2, 1)

    def grid_grad(self, vals_of, grid_shape):
        """(N, *out_spatial, rank) from per-axis (N, P) values: ``vals_of(a)``."""
        xp = self.xp
        parts = [vals_of(self.rank - 1 - j) for j in range(self.rank)]
        return xp.ascontiguousarray(xp.stack(parts, axis=-1)).reshape(grid_shape)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# ---------------------------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------------------------
def _check(input, grid, mode, kernel):
    """ATen's grid_sampler checks, in its order."""
    ishape, gshape = tuple(input.shape), tuple(grid.shape)
    rank = len(ishape) - 2
    if gshape[-1] != rank:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {rank} in last dimension, "
                           f"but got grid with sizes {list(gshape)}")
    if len(ishape) not in (4, 5) or len(gshape) != len(ishape):
        raise RuntimeError(f"grid_sampler(): expected {4 if len(ishape) == 4 else 5}D input and "
                           f"grid with same number of dimensions, but got input with sizes "
                           f"{list(ishape)} and grid with sizes {list(gshape)}")
    if ishape[0] != gshape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(ishape)} and grid with sizes "
                           f"{list(gshape)}")
    for i in range(2, len(ishape)):
        if ishape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(ishape)} with dimension "
                               f"{i} being empty")
    if rank == 3 and mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype.kind not in "fV":
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{D.from_np(input.dtype)._legacy}'")
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {D.from_np(input.dtype)._legacy} but found "
                           f"{D.from_np(grid.dtype)._legacy}")


# ---------------------------------------------------------------------------------------------
# kernels (shared by the 2-d and 3-d primitives)
# ---------------------------------------------------------------------------------------------
def _forward(xp, input, grid, mode, padding, align_corners, kernel):
    _check(input, grid, mode, kernel)
    taps = _Taps(xp, grid, input.shape[2:], mode, padding, align_corners)
    return taps.to_output(taps.sample(input, taps.weights()))


def _backward(xp, grad_output, input, grid, mode, padding, align_corners):
    taps = _Taps(xp, grid, input.shape[2:], mode, padding, align_corners)
    gout = taps.from_output(grad_output)
    grad_input = taps.scatter(gout, taps.weights(), input.shape)
    if mode == 1:
        grad_grid = xp.zeros(grid.shape, grid.dtype)
    else:
        vals = taps.gather(input)
        grad_grid = taps.grid_grad(lambda a: taps.axes[a].mult * (
            (vals * taps.weights((a,))).sum(axis=2) * gout).sum(axis=-1), grid.shape)
    return grad_input.astype(input.dtype, copy=False), grad_grid.astype(grid.dtype, copy=False)


def _double_backward(xp, grad_output, input, grid, gi_bar, gg_bar, mode, padding,
                     align_corners):
    """(d grad_output, d input, d grid) of Note [Grid sampling as separable taps]."""
    x, dt = input, grad_output.dtype
    taps = _Taps(xp, grid, x.shape[2:], mode, padding, align_corners)
    gout = taps.from_output(grad_output)
    rank = taps.rank
    d_go = xp.zeros(gout.shape, dt)
    d_in = xp.zeros(x.shape, dt)
    d_grid = [xp.zeros(gout.shape[:2], dt) for _ in range(rank)]
    mult = [ax.mult for ax in taps.axes]
    if gi_bar is not None:
        d_go = d_go + taps.sample(gi_bar, taps.weights())
        if mode != 1:
            a_vals = taps.gather(gi_bar)
            for a in range(rank):
                d_grid[a] = d_grid[a] + mult[a] * (
                    (a_vals * taps.weights((a,))).sum(axis=2) * gout).sum(axis=-1)
    if gg_bar is not None and mode != 1:
        b = gg_bar.reshape(taps.n, taps.p, rank)
        # b_scaled[a]: the cotangent of grad_grid's axis-a component times mult_a, (N, P)
        b_scaled = [b[..., rank - 1 - a] * mult[a] for a in range(rank)]
        vals = taps.gather(x)
        for a in range(rank):
            w_a = taps.weights((a,))
            d_go = d_go + b_scaled[a][..., None] * (vals * w_a).sum(axis=2)
            d_in = d_in + taps.scatter(gout * b_scaled[a][..., None], w_a, x.shape)
            for c in range(rank):
                second = (vals * taps.weights((a, c))).sum(axis=2)
                d_grid[a] = d_grid[a] + mult[a] * b_scaled[c] * (second * gout).sum(axis=-1)
    d_grid = taps.grid_grad(lambda a: d_grid[a], grid.shape)
    return (taps.to_output(d_go).astype(grad_output.dtype, copy=False),
            d_in.astype(input.dtype, copy=False), d_grid.astype(grid.dtype, copy=False))


def _make(rank):
    """Declare grid_sampler_{rank}d, its backward and its double backward."""
    name = f"grid_sampler_{rank}d"
    node = f"GridSampler{rank}DBackward0"

    @defop(name, node=node, promote=Promote.NONE, inputs=("input", "grid"),
           saves=("input", "grid"), variants=("function",))
    def forward(xp, input, grid, interpolation_mode, padding_mode, align_corners):
        return _forward(xp, input, grid, interpolation_mode, padding_mode, align_corners,
                        f"{name}_cpu_kernel_impl" if rank == 2 else "grid_sampler3d_cpu")

    @defop(f"{name}_backward", node=f"GridSampler{rank}DBackwardBackward0",
           promote=Promote.NONE, inputs=("grad_output", "input", "grid"),
           saves=("grad_output", "input", "grid"), variants=(),
           outputs=("grad_input", "grad_grid"), kernel_dtypes=True)
    def backward(xp, grad_output, input, grid, interpolation_mode, padding_mode,
                 align_corners):
        return _backward(xp, grad_output, input, grid, interpolation_mode, padding_mode,
                         align_corners)

    @defop(f"_{name}_double_backward", node="NotImplemented", promote=Promote.NONE,
           inputs=("grad_output", "input", "grid", "gi_bar", "gg_bar"), variants=(),
           kernel_dtypes=True)
    def double_backward(xp, grad_output, input, grid, gi_bar=None, gg_bar=None,
                        interpolation_mode=0, padding_mode=0, align_corners=False):
        return _double_backward(xp, grad_output, input, grid, gi_bar, gg_bar,
                                interpolation_mode, padding_mode, align_corners)

    @forward.backward
    def _(ctx, grad):
        input, grid = ctx.saved_tensors
        return backward(grad, input, grid, ctx.interpolation_mode, ctx.padding_mode,
                        ctx.align_corners)

    @backward.backward
    def _(ctx, gi_bar, gg_bar):
        # Note [Double backward of grid_sample]: computed on arrays (one more derivative of
        # these results raises: a NotImplemented node); which gradients are None follows torch: grad_input
        # does not depend on input, and in 'nearest' mode grad_grid is identically zero.
        grad_output, input, grid = ctx.saved_tensors
        mode = ctx.interpolation_mode
        if mode == 1:
            gg_bar = None
        if gi_bar is None and gg_bar is None:
            return None, None, None
        d_go, d_in, d_grid = double_backward(grad_output, input, grid, gi_bar, gg_bar, mode,
                                             ctx.padding_mode, ctx.align_corners)
        return d_go, (d_in if gg_bar is not None else None), d_grid

    # a third derivative would need the double backward written with dyngrad ops, as torch's
    # is: until then it raises rather than pass through as a constant
    double_backward.backward(_no_derivative(f"_{name}_double_backward"))
    # no forward mode either; torch's double backward passes a tangent on to the backward op,
    # which refuses it, so both name that op
    backward.jvp(fw_not_implemented(f"{name}_backward"))
    double_backward.jvp(fw_not_implemented(f"{name}_backward"))
    backward_only(backward)
    backward_only(double_backward)
    return forward


_grid_sampler_2d = _make(2)
_grid_sampler_3d = _make(3)


# ---------------------------------------------------------------------------------------------
# the public functions
# ---------------------------------------------------------------------------------------------
def _check_tensor(fname, value, what, position):
    if not isinstance(value, S._tensor_cls()):
        raise TypeError(f"{fname}(): argument '{what}' (position {position}) must be Tensor, not "
                        f"{_tp_name(value)}")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """ATen's dispatcher over the 2-d and 3-d samplers (by the input's rank)."""
    _check_tensor("grid_sampler", input, "input", 1)
    _check_tensor("grid_sampler", grid, "grid", 2)
    if input.dim() == 4:
        return _grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
    return _grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalised positions of ``grid``
    (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3): (-1, -1) is the top-left corner (its
    pixel's centre with ``align_corners=True``, its outer edge otherwise).

    torch maps the strings to enums and calls ``torch.grid_sampler``, which runs the 2-d or
    3-d primitive."""
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], bool(align_corners))


FUNCTIONS.update({
    "grid_sampler": grid_sampler,
    "nn.functional.grid_sample": grid_sample,
})
