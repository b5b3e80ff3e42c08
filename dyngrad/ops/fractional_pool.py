"""Fractional max pooling (``torch.nn.functional.fractional_max_pool2d/3d``, Graham 2014).

Each (batch, channel) plane draws one sample u in [0, 1) per spatial dim; the windows of that
dim start at ``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (in - k) / (out - 1)``
(the last window ends at the input's end) and all have the kernel's size. ATen computes the
starts in the input's own dtype (float16 rounds at each step), so the kernel does the same in
NumPy. The maximum of a window is its first largest value unless it holds a NaN (then its last
NaN), and its index is the flat position in the plane, as in ATen's loop.

The ATen primitives are ``fractional_max_pool2d`` / ``fractional_max_pool3d``
(``FractionalMaxPool2DBackward0``); their backward adds the gradient at the indices
(``FractionalMaxPool2DBackwardBackward0``), whose own derivative reads it back (gather). The
Python wrappers draw the samples with ``torch.rand(N, C, dims)`` when none are given, so with
the same seed the pools match torch's.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import shape_str
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD
from ..backends import pool_numpy as P
from ._registry import FUNCTIONS, defop
from .pooling import _with_indices
from .pooling import _gather_at as _gather_at2
from .pooling3d import _gather_at as _gather_at3
from .view_backward import backward_only

_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _intervals(xp, samples, in_size, out_size, k):
    """Window starts (planes, out_size) from the planes' samples, in the samples' dtype."""
    dt = samples.dtype
    seq = xp.zeros((samples.shape[0], out_size), xp.int64)
    if out_size > 1:
        alpha = dt.type(in_size - k) / dt.type(out_size - 1)
        i = xp.arange(out_size - 1).astype(dt)
        u = samples[:, None]
        seq[:, :-1] = ((i[None] + u) * alpha).astype(xp.int64) - (u * alpha).astype(xp.int64)
    if out_size > 0:
        seq[:, -1] = in_size - k
    return seq


def _check(fname, nd, self, random_samples, kernel_size, output_size, where):
    """ATen's checks of fractional_max_pool{2,3}d, in its order."""
    what = "tuple of Ints" if nd == 2 else "tuple of three Ints"
    if len(kernel_size) != nd:
        raise RuntimeError(f"{fname}: kernel_size must either be a single Int or {what}")
    if len(output_size) != nd:
        raise RuntimeError(f"{fname}: output_size must either be a single Int or {what}")
    if random_samples.dtype != self.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if random_samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got "
                           f"{random_samples.ndim}")
    if self.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}: Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{shape_str(self.shape)}")
    batch = self.shape[0] if self.ndim == nd + 2 else 1
    if random_samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if random_samples.shape[1] != self.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if random_samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{random_samples.shape[2]}.")
    for i in range(1, self.ndim):
        if self.shape[i] == 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{shape_str(self.shape)} with dimension {i} "
                               f"being empty.")
    for d in range(nd):
        size = self.shape[self.ndim - nd + d]
        last = output_size[d] + kernel_size[d] - 1   # ATen's 3-d check is strict
        if last > size or (nd == 3 and last == size):
            name = _NAMES[nd][d]
            raise RuntimeError(f"{where}: pool {name} {kernel_size[d]} too large relative to "
                               f"input {name} {size}")
    if any(v < 0 for v in output_size):
        shape = tuple(self.shape[:-nd]) + tuple(output_size)
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(output_size)}: {shape_str(shape)}")
    if self.dtype.kind not in "fV":
        raise NotImplementedError(f"\"{fname}_out_frame\" not implemented for "
                                  f"'{D.from_np(self.dtype)._legacy}'")


def _pool(xp, self, random_samples, kernel_size, output_size, nd):
    """(values, flat indices), batched, for ``nd`` = 2 or 3 spatial dims."""
    x = self if self.ndim == nd + 2 else self[None]
    n, c = x.shape[:2]
    spatial = tuple(x.shape[2:])
    planes = n * c
    samples = xp.ascontiguousarray(random_samples[:n]).reshape(planes, nd)
    if nd == 2:   # ATen reads the width's sample first
        samples = samples[:, ::-1]
    # flat index of every window element: (planes, *output_size, window)
    flat = xp.zeros((planes,) + (1,) * (2 * nd), xp.int64)
    for d in range(nd):
        starts = _intervals(xp, samples[:, d], spatial[d], output_size[d], kernel_size[d])
        pos = starts[:, :, None] + xp.arange(max(kernel_size[d], 0))[None, None]
        shape = [planes] + [1] * (2 * nd)
        shape[1 + d], shape[1 + nd + d] = pos.shape[1], pos.shape[2]
        flat = flat * spatial[d] + pos.reshape(shape)
    out_shape = (planes,) + tuple(output_size)
    window = 1
    for k in kernel_size:
        window *= max(k, 0)
    flat = xp.broadcast_to(flat, out_shape + tuple(max(k, 0) for k in kernel_size))
    flat = flat.reshape(out_shape + (window,))
    plane_size = 1
    for s in spatial:
        plane_size *= s
    if window == 0 or planes == 0:
        first = xp.zeros(out_shape, xp.int64)
        for d in range(nd):   # the window's start, as ATen's loop leaves it
            starts = _intervals(xp, samples[:, d], spatial[d], output_size[d], kernel_size[d])
            shape = [planes] + [1] * nd
            shape[1 + d] = output_size[d]
            first = first * spatial[d] + starts.reshape(shape)
        values = xp.full(out_shape, -xp.inf, x.dtype)
        index = first
    else:
        vals = xp.ascontiguousarray(x).reshape(planes, plane_size)
        vals = vals[xp.arange(planes).reshape((planes,) + (1,) * (nd + 1)), flat]
        nan = xp.isnan(vals)
        pick = xp.argmax(vals, axis=-1)
        last_nan = window - 1 - xp.argmax(nan[..., ::-1], axis=-1)
        pick = xp.where(nan.any(axis=-1), last_nan, pick)
        values = xp.take_along_axis(vals, pick[..., None], -1)[..., 0]
        index = xp.take_along_axis(flat, pick[..., None], -1)[..., 0]
    shape = (n, c) + tuple(output_size)
    values, index = values.reshape(shape), index.reshape(shape)
    if self.ndim == nd + 1:
        values, index = values[0], index[0]
    return P.contiguous(values), P.contiguous(index.astype(xp.int64))


def _scatter(xp, grad_output, self, indices, nd):
    """The adjoint: ``grad_output`` added at ``indices`` of zero planes shaped as ``self``."""
    batched = self.ndim == nd + 2
    g = grad_output if batched else grad_output[None]
    i = indices if batched else indices[None]
    n, c = g.shape[:2]
    k = g[0, 0].size if n * c else 0
    plane = 1
    for s in self.shape[-nd:]:
        plane *= s
    out = P.index_scatter(xp.ascontiguousarray(g).reshape(n, c, k, 1),
                          xp.ascontiguousarray(i).reshape(n, c, k, 1), plane, 1)
    return P.contiguous(out.reshape(tuple(self.shape)))


def _check_grad_output(fname, nd, grad_output, output_size):
    names = ("time", "height", "width")[3 - nd:]
    for d in reversed(range(nd)):
        if grad_output.shape[grad_output.ndim - nd + d] != output_size[d]:
            raise RuntimeError(f"{fname}(): gradOutput {names[d]} unexpected")


# ---------------------------------------------------------------------------------------------
# 2-d
# ---------------------------------------------------------------------------------------------
@defop("fractional_max_pool2d", node="FractionalMaxPool2DBackward0", promote=Promote.NONE,
       variants=(), inputs=("self", "random_samples"), differentiable=("self",),
       outputs=("result0", "result1"), saves=("self", "result1"), nondiff_outputs=(1,),
       kernel_dtypes=True, non_differentiable=("random_samples",))
def _fractional_max_pool2d(xp, self, random_samples, kernel_size, output_size):
    _check("fractional_max_pool2d", 2, self, random_samples, kernel_size, output_size,
           "fractional_max_pool2d()")
    return _pool(xp, self, random_samples, tuple(kernel_size), tuple(output_size), 2)


@_fractional_max_pool2d.backward
def _(ctx, grad, _grad_indices=None):
    self, indices = ctx.saved_tensors
    return (_fractional_max_pool2d_backward(grad, self, indices, ctx.kernel_size,
                                            ctx.output_size),)


_fractional_max_pool2d.jvp(FROM_BACKWARD)


@defop("fractional_max_pool2d_backward", node="FractionalMaxPool2DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self", "indices"),
       differentiable=("grad_output", "self"), saves=("indices",))
def _fractional_max_pool2d_backward(xp, grad_output, self, indices, kernel_size, output_size):
    _check_grad_output("fractional_max_pool2d_backward", 2, grad_output, output_size)
    return _scatter(xp, grad_output, self, indices, 2)


backward_only(_fractional_max_pool2d_backward)
_fractional_max_pool2d_backward.jvp(AUTO_LINEAR)   # self gives a shape (torch: auto_linear)


@_fractional_max_pool2d_backward.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return _gather_at2(grad, indices), grad.new_zeros(ctx.self_shape)


# ---------------------------------------------------------------------------------------------
# 3-d
# ---------------------------------------------------------------------------------------------
@defop("fractional_max_pool3d", node="FractionalMaxPool3DBackward0", promote=Promote.NONE,
       variants=(), inputs=("self", "random_samples"), differentiable=("self",),
       outputs=("result0", "result1"), saves=("self", "result1"), nondiff_outputs=(1,),
       kernel_dtypes=True, non_differentiable=("random_samples",))
def _fractional_max_pool3d(xp, self, random_samples, kernel_size, output_size):
    _check("fractional_max_pool3d", 3, self, random_samples, kernel_size, output_size,
           "fractional_max_pool3d_out()")
    return _pool(xp, self, random_samples, tuple(kernel_size), tuple(output_size), 3)


@_fractional_max_pool3d.backward
def _(ctx, grad, _grad_indices=None):
    self, indices = ctx.saved_tensors
    return (_fractional_max_pool3d_backward(grad, self, indices, ctx.kernel_size,
                                            ctx.output_size),)


_fractional_max_pool3d.jvp(FROM_BACKWARD)


@defop("fractional_max_pool3d_backward", node="FractionalMaxPool3DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self", "indices"),
       differentiable=("grad_output", "self"), saves=("indices",))
def _fractional_max_pool3d_backward(xp, grad_output, self, indices, kernel_size, output_size):
    _check_grad_output("fractional_max_pool3d_backward", 3, grad_output, output_size)
    return _scatter(xp, grad_output, self, indices, 3)


backward_only(_fractional_max_pool3d_backward)
_fractional_max_pool3d_backward.jvp(AUTO_LINEAR)   # self gives a shape (torch: auto_linear)


@_fractional_max_pool3d_backward.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return _gather_at3(grad, indices), grad.new_zeros(ctx.self_shape)


# ---------------------------------------------------------------------------------------------
# torch.nn.functional's wrappers
# ---------------------------------------------------------------------------------------------
def _expand(value, n):
    """torch's _pair / _triple: a number repeats, an iterable becomes a tuple."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if hasattr(value, "__iter__"):
        return tuple(value)
    return (value,) * n


def _wrapper(nd):
    fname = f"fractional_max_pool{nd}d"
    op = _fractional_max_pool2d if nd == 2 else _fractional_max_pool3d

    def pool(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        from .distributions import rand
        if output_size is None and output_ratio is None:
            raise ValueError(f"{fname} requires specifying either an output_size or an "
                             f"output_ratio")
        if output_size is None:
            if nd == 2 and len(output_ratio) > 2:
                raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                                 "single Int or tuple of Ints.")
            ratio = _expand(output_ratio, nd)
            output_size = [int(input.size(d - nd) * ratio[d]) for d in range(nd)]
        if _random_samples is None:
            n_batch = 1 if input.dim() == nd + 1 else input.size(0)
            _random_samples = rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype,
                                   device=input.device)
        out, indices = op(input, _random_samples, list(_expand(kernel_size, nd)),
                          list(_expand(output_size, nd)))
        return (out, indices) if return_indices else out
    pool.__name__ = fname
    pool.__doc__ = (f"{nd}-d fractional max pooling: windows of ``kernel_size`` at random "
                    f"fractional strides giving ``output_size`` (or ``output_ratio`` times the "
                    f"input size); ``_random_samples`` (N, C, {nd}) fixes the strides.")
    return pool


fractional_max_pool2d = _wrapper(2)
fractional_max_pool3d = _wrapper(3)

FUNCTIONS.update({
    "nn.functional.fractional_max_pool2d": fractional_max_pool2d,
    "nn.functional.fractional_max_pool3d": fractional_max_pool3d,
    "nn.functional.fractional_max_pool2d_with_indices": _with_indices(fractional_max_pool2d),
    "nn.functional.fractional_max_pool3d_with_indices": _with_indices(fractional_max_pool3d),
})
