"""The kernels torch 2.13 lacks for its limited-support dtypes uint16, uint32 and uint64.

Note [Limited unsigned dtypes] (in _promotion.py) tells the story: these dtypes convert, copy,
print and serialize, but ATen compiles only a few kernels for them (its "barebones unsigned"
dispatch: ``mul``, ``eq``/``ne``, the bitwise and/or/xor, ``sort``, ``unique``, ``cat``,
``where``, ``fill_``, ``copy_``, indexing reads, ...). An op whose kernel would run in one of
them without such a kernel raises ``NotImplementedError: "<kernel>" not implemented for
'UInt16'``.

That rule is the table below, which ``OpSpec.dtypes_for`` consults when the op's inputs promote
to one of the three dtypes: once per promotion key, as the result is not cached, and never on
the fast paths of the other dtypes. The op's name (``"min.dim"``), else its base name
(``"min"``), gives the kernel torch names; an entry may be a function of the inputs (the
matrix products first compare their operands' dtypes). Ops that compute in another dtype
(``sqrt`` and ``/`` in float; ``sum``, ``prod`` and ``cumsum`` in int64) never meet it. Ops not
listed run as NumPy runs them: those torch refuses for every integer dtype raise their own
errors, naming these dtypes. The few that torch serves or refuses by layout or by an argument
raise ``refuse(...)`` from their kernels: ``flip``/``rot90`` (whether the innermost dim is
reversed), ``index_select`` of a vector, ``div`` with a rounding mode, ``scatter_reduce`` (by
reduction), ``isin`` (torch's loop path), ``nonzero``, ``count_nonzero`` over all dims,
``clamp`` (in pointwise._clamp_check), ``index_put_``/masked writes (indexing.py), and the
factories (``arange``, ``linspace``, ``eye``, ``randperm``, ``random_()``, ``bernoulli_``).
"""
from __future__ import annotations

from .. import _dtypes as D


def _same_dtype(kernel: str):
    """The kernel of an op that first checks its tensors share a dtype (its own error then)."""
    def pick(inputs):
        dtypes = {a.dtype for a in inputs if hasattr(a, "dtype")}
        return kernel if len(dtypes) == 1 else None
    return pick


# op name or base name -> the name of the ATen kernel torch's error quotes
KERNELS = {
    # arithmetic
    "add": "add_stub", "sub": "add_stub", "rsub": "add_stub", "dist": "add_stub",
    "div.Tensor_mode": None,   # by rounding mode, in arithmetic.div_mode
    "floor_divide": "div_floor_cpu", "floor_divide_": "div_floor_cpu",
    "remainder": "remainder_cpu", "fmod": "fmod_cpu", "pow": "pow",
    "addcmul": "addcmul_cpu_out", "addcdiv": "addcdiv_cpu_out",
    "lerp.Scalar": "lerp_kernel_scalar", "lerp.Tensor": "lerp_kernel_tensor",
    "gcd": "gcd_cpu", "lcm": "lcm_cpu", "heaviside": "heaviside_cpu", "heaviside_": "heaviside_cpu",
    "hypot": "hypot_cpu", "nextafter": "nextafter_cpu", "logaddexp": "logaddexp_cpu",
    "logaddexp2": "logaddexp2_cpu", "igamma": "igamma_cpu", "igamma_": "igamma_cpu",
    "igammac": "igammac_cpu", "igammac_": "igammac_cpu",
    # comparisons and logic
    "lt": "lt_cpu", "le": "le_cpu", "gt": "gt_cpu", "ge": "ge_cpu",
    "lt_": "lt_cpu", "le_": "le_cpu", "gt_": "gt_cpu", "ge_": "ge_cpu",
    "logical_not": "logical_not_cpu", "logical_and": "logical_and_cpu",
    "logical_or": "logical_or_cpu", "logical_xor": "logical_xor_cpu",
    "bitwise_not": "bitwise_not_cpu", "bitwise_left_shift": "lshift_cpu",
    "bitwise_right_shift": "rshift_cpu",
    # unary
    "abs": "abs_cpu", "neg": "neg_cpu", "sign": "sign_cpu", "sgn": "sign_cpu",
    "frac": "frac_cpu", "round.decimals": "round_cpu",
    # reductions, scans, selection
    "min": "min_all", "max": "max_all", "min.dim": "min_cpu", "max.dim": "max_cpu",
    "amin": "min_values_cpu", "amax": "max_values_cpu", "aminmax": "aminmax_cpu",
    "minimum": "minimum_cpu", "maximum": "maximum_cpu", "fmin": "minimum_cpu",
    "fmax": "maximum_cpu", "argmax": "argmax_cpu", "argmin": "argmin_cpu",
    "topk": "topk_cpu", "kthvalue": "kthvalue_cpu", "median": "median_cpu",
    "nanmedian": "median_cpu", "mode": "mode_cpu", "cummax": "cummax_cpu",
    "cummin": "cummin_cpu", "logcumsumexp": "logcumsumexp_out_cpu",
    "bincount": "bincount_cpu",
    "histogram": "histogramdd", "_histogramdd_from_bin_cts": "histogramdd",
    "segment_reduce": "_segment_reduce_cpu",
    # clamping (clamp, clamp_min and clamp_max: in pointwise._clamp_check)
    "hardtanh": "clamp_scalar_cpu", "relu": "clamp_min_scalar_cpu", "threshold": "threshold_cpu",
    # indexing and scatter
    "masked_fill": "masked_fill", "masked_scatter": "masked_scatter",
    "masked_select": "masked_select", "index_copy": "index_copy_cpu",
    "index_fill": "index_fill_cpu", "gather": "scatter_gather_tensor_cpu",
    "scatter.src": "scatter_gather_tensor_cpu", "scatter.reduce": "scatter_gather_tensor_cpu",
    "scatter_.reduce": "scatter_gather_tensor_cpu",
    "scatter.value": "scatter_gather_scalar_cpu",
    "scatter.value_reduce": "scatter_gather_scalar_cpu",
    "scatter_.value_reduce": "scatter_gather_scalar_cpu",
    "scatter_add": "scatter_gather_tensor_cpu",
    "scatter_reduce": None,   # by reduction, in gather_scatter._scatter_reduce
    "index_add": lambda inputs: "index_add_" if inputs[0]._data.ndim <= 1
    else "scatter_gather_tensor_cpu",
    "put": "take_put_cpu", "take": "take_cpu",
    "searchsorted": "searchsorted_out_cpu", "repeat_interleave": "repeat_interleave_cpu",
    # structure and linear algebra
    "tril": "tril", "triu": "triu", "trace": "trace",
    # (matrix products check that their operands share a dtype first: see _same_dtype)
    "dot": _same_dtype("dot"), "vdot": _same_dtype("dot"), "mm": _same_dtype("addmm_impl_cpu_"),
    "addmm": _same_dtype("addmm_impl_cpu_"), "addbmm": _same_dtype("addmm_impl_cpu_"),
    "mv": _same_dtype("addmv_impl_cpu"), "addmv": _same_dtype("addmv_impl_cpu"),
    "bmm": "bmm", "baddbmm": _same_dtype("baddbmm"), "addr": _same_dtype("addr_cpu"),
    "linalg_cross": "cross",
    # nn
    "max_pool2d_with_indices": "max_pool2d", "max_pool3d_with_indices": "max_pool3d",
    "avg_pool2d": "avg_pool2d", "avg_pool3d": "avg_pool3d",
    "adaptive_max_pool2d": "adaptive_max_pool2d", "adaptive_max_pool3d": "adaptive_max_pool3d",
    "_adaptive_avg_pool2d": "adaptive_avg_pool2d", "_adaptive_avg_pool3d": "adaptive_avg_pool3d",
    "pixel_shuffle": "pixel_shuffle", "pixel_unshuffle": "pixel_unshuffle",
    "channel_shuffle": "channel_shuffle", "native_channel_shuffle": "channel_shuffle",
    "im2col": "im2col_out_cpu", "col2im": "col2im_out_cpu", "mse_loss": "mse_cpu",
}

# ops whose dtype= argument names the computation dtype: (op base name, kernel)
DTYPE_ARG_KERNELS = {"sum": "sum_cpu", "nansum": "sum_cpu", "prod": "prod_out_cpu",
                     "cumsum": "cumsum_out_cpu", "cumprod": "cumprod_out_cpu"}


def refuse(kernel: str, dtype) -> NotImplementedError:
    """torch's error for a kernel not compiled for `dtype` (a dtype or a NumPy dtype)."""
    d = dtype if isinstance(dtype, D.dtype) else D.from_np(dtype)
    return NotImplementedError(f'"{kernel}" not implemented for \'{d._legacy}\'')


def check(spec, dtype: D.dtype, inputs) -> None:
    """Raise torch's error when `spec` has no kernel for the limited unsigned `dtype` (the
    dtype its inputs promote to); a table entry may be a function of the inputs, or None
    where the op's kernel decides from its other arguments."""
    kernel = KERNELS.get(spec.name, KERNELS.get(spec.base))
    if kernel is not None and not isinstance(kernel, str):
        kernel = kernel(inputs)
    if kernel is not None:
        raise refuse(kernel, dtype)


def check_dtype_arg(spec, dtype: D.dtype) -> None:
    """``sum(dtype=torch.uint16)``, ``sum(out=<a uint16 tensor>)`` and the like: the kernel
    would run in that dtype."""
    kernel = DTYPE_ARG_KERNELS.get(spec.base)
    if kernel is not None:
        raise refuse(kernel, dtype)
