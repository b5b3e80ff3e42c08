"""The deprecated public helpers of ``autograd.gradcheck``, kept by torch for backward
compatibility: ``get_numerical_jacobian``, ``get_numerical_jacobian_wrt_specific_input`` and
``get_analytical_jacobian``. They work on tensors (not on raw arrays as gradcheck's own
Jacobians do) so that their values are torch's bit for bit: each element is perturbed through a
0-d view of ``input.data`` and the difference is taken in the output's dtype, as torch
computes it. ``autograd.gradcheck`` re-exports them.
"""
from __future__ import annotations

import warnings

from .gradcheck import (_Tensor, _as_tuple, _central_difference,
                        _is_float_or_complex_tensor, _iter_tensors)


def _deprecated_msg(name):
    return (f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are "
            "deprecating it and it will be removed in a future version of PyTorch. If you have "
            "a specific use for this or feature request for this to be a stable API, please "
            "file us an issue at https://github.com/pytorch/pytorch/issues/new")


def get_numerical_jacobian_wrt_specific_input(fn, input_idx, inputs, outputs, eps, input=None,
                                              is_forward_ad=False):
    """The numerical Jacobians of ``fn(*inputs)`` w.r.t. ``inputs[input_idx]`` (or ``input``):
    one ``(input.numel(), output.numel())`` tensor per floating/complex tensor of ``outputs``
    (in the output's dtype; the input's when it is complex)."""
    from itertools import product
    input = inputs[input_idx] if input is None else input
    if not input.requires_grad:
        raise AssertionError("Expected input to have requires_grad=True")
    x = input.data
    is_complex = x.is_complex()

    def run():
        return tuple(a.clone() for a in _as_tuple(fn(*_as_tuple(inputs))))

    def jvp(entry, idx, delta):   # central difference along `delta`, one tensor per output
        return _central_difference(run, entry, delta, eps, idx)

    columns = {}
    for d_idx, idx in enumerate(product(*[range(m) for m in x.size()])):
        entry = x[idx]
        ds_dx = jvp(entry, idx, eps)
        if is_complex:   # the conjugate Wirtinger derivative ds/dx + i ds/dy
            ds_dy = jvp(entry, idx, eps * 1j)
            for c in ds_dx:
                if c.is_complex():
                    raise AssertionError("Expected ds_dx to be real-valued, not complex")
            columns[d_idx] = [a + b * 1j for a, b in zip(ds_dx, ds_dy)]
        else:
            if not is_forward_ad and any(c.is_complex() for c in ds_dx):
                raise AssertionError("Expected ds_dx to be real-valued, not complex.")
            columns[d_idx] = ds_dx
    dtype = input.dtype if input.dtype.is_complex else None
    jacobians = tuple(t.new_zeros((input.numel(), t.numel()), dtype=dtype)
                      for t in outputs if _is_float_or_complex_tensor(t))
    for i, jacobian in enumerate(jacobians):
        for k, v in columns.items():
            jacobian[k] = v[i]
    return jacobians


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated: the numerical Jacobians of ``fn(inputs)`` (``fn`` takes the tuple) restricted
    to its first output, w.r.t. each tensor of ``target`` (default ``inputs``) that requires
    grad."""
    warnings.warn(_deprecated_msg("get_numerical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer "
                         "supports values of grad_out != 1.0.")

    def fn_pack_inps(*inps):
        return fn(inps)

    outputs = _as_tuple(fn_pack_inps(*_as_tuple(inputs)))
    if any(o.is_complex() for o in outputs):
        raise ValueError("Expected output to be non-complex. get_numerical_jacobian no "
                         "longer supports functions that return complex outputs.")
    if target is None:
        target = inputs
    Tensor = _Tensor()
    inp_indices = [i for i, a in enumerate(target) if isinstance(a, Tensor) and a.requires_grad]
    jacobians = [get_numerical_jacobian_wrt_specific_input(fn_pack_inps, inp_idx, inputs,
                                                           outputs, eps, input=inp)
                 for inp, inp_idx in zip(_iter_tensors(target, True), inp_indices)]
    return tuple(jacobian_for_each_output[0] for jacobian_for_each_output in jacobians)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated: ``(jacobians, reentrant, correct_grad_types, correct_grad_sizes)`` -- the
    ``(input.numel(), output.numel())`` Jacobians of ``output`` w.r.t. the inputs that require
    grad (in their dtypes), from unit-vector vector-Jacobian products computed twice; the last
    two flags are in that order (torch unpacks them swapped)."""
    from . import grad as autograd_grad
    from .. import contiguous_format, zeros_like
    warnings.warn(_deprecated_msg("get_analytical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer "
                         "supports values of grad_out != 1.0.")
    if output.is_complex():
        raise ValueError("Expected output to be non-complex. get_analytical_jacobian no "
                         "longer supports functions that return complex outputs.")
    diff_input_list = list(_iter_tensors(inputs, True))

    def jacobian_rows():   # rows[i][j]: the j-th row of the Jacobian for the i-th input
        grad_out_base = zeros_like(output, memory_format=contiguous_format)
        flat = grad_out_base.view(-1)
        rows = []
        for j in range(flat.numel()):
            flat.zero_()
            flat[j] = 1.0
            grads = autograd_grad(output, diff_input_list, grad_out_base, retain_graph=True,
                                  allow_unused=True)
            for i, d_x in enumerate(grads):
                if j == 0:
                    rows.append([])
                rows[i].append(d_x.clone() if isinstance(d_x, _Tensor()) else None)
        return rows

    def stack(rows):
        out = [t.new_zeros((t.numel(), output.numel())) for t in inputs
               if _is_float_or_complex_tensor(t) and t.requires_grad]
        sizes_ok = types_ok = True
        for i, tensor_list in enumerate(rows):
            inp = diff_input_list[i]
            for j, tensor in enumerate(tensor_list):
                if tensor is not None and tensor.size() != inp.size():
                    sizes_ok = False
                elif tensor is not None and tensor.dtype != inp.dtype:
                    types_ok = False
                if tensor is None:
                    out[i][:, j].zero_()
                else:
                    out[i][:, j] = tensor.reshape(-1)
        return tuple(out), sizes_ok, types_ok

    jacobians1, types_ok, sizes_ok = stack(jacobian_rows())   # swapped, as in torch
    jacobians2, _, _ = stack(jacobian_rows())
    reentrant = all(j1.numel() == 0 or not ((j1 - j2).abs().max() > nondet_tol)
                    for j1, j2 in zip(jacobians1, jacobians2))
    return jacobians1, reentrant, sizes_ok, types_ok


for _f in (get_numerical_jacobian, get_analytical_jacobian):
    _f.__deprecated__ = _deprecated_msg(_f.__name__)
del _f
