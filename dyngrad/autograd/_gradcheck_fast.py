"""gradcheck's fast mode (``fast_mode=True``), after torch's (pytorch/pytorch#53876).

The slow check builds whole Jacobians: one run of the function per input element for the
numerical side, one backward per output element for the analytical side. The fast check
compares one number per (input, output) pair instead: ``v^T J u``, for a random unit vector
``u`` per input and ``v`` per output.

* numerically, ``J u`` is one central difference along ``u`` (two runs of the function per
  input), then dotted with ``v``;
* analytically, ``v^T J`` is one backward with ``v`` as the output's gradient, then dotted with
  ``u``; in forward mode ``J u`` is one run with ``u`` as the input's tangent (no ``v``).

A complex input gets two real vectors, for its real and imaginary parts, and the numerical
side takes the conjugate Wirtinger derivative as the slow check does. The vectors come from a
generator of their own, seeded as a fresh ``Generator()`` is: the same every call, and the
user's random state is left alone. The tolerance ``atol`` grows by ``sum(u) * sum(v)``, the
size of ``v^T E u`` for an all-``atol`` error ``E``. On a mismatch the slow Jacobians of the
failing pair are computed for the message.
"""
from __future__ import annotations

from .gradcheck import (GradcheckError, _allclose, _analytical_jacobian, _as_tuple,
                        _central_difference, _is_float_or_complex_tensor,
                        _notallclose_msg, _numerical_jacobians, _Tensor)


def _unit_vector(t, generator, real: bool = False):
    """t.numel() uniform values in t's dtype (its real dtype with `real`), of norm 1."""
    from .. import rand
    dtype = t.dtype.to_real() if real else t.dtype
    vec = rand(t.numel(), generator=generator).to(dtype=dtype)
    vec /= vec.norm()
    return vec


def make_vectors(inputs, outputs, *, use_forward_ad: bool):
    """(all_v, all_u): a vector per output (None in forward mode, which needs none) and one
    per input, a (real, imaginary) pair for a complex input."""
    from .. import Generator
    generator = Generator()
    all_u = []
    for inp in inputs:
        ur = _unit_vector(inp, generator, real=True)
        all_u.append((ur, _unit_vector(inp, generator, real=True)) if inp.is_complex() else ur)
    all_v = None if use_forward_ad else [_unit_vector(o, generator) for o in outputs]
    return all_v, all_u


def _diff_indices(inputs):
    Tensor = _Tensor()
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


# -- the numerical side ------------------------------------------------------------------------
def _numerical_jvps(fn, inputs, input_idx, u, eps, is_forward_ad=False):
    """``J u`` for input `input_idx`, one flat tensor per output of `fn`, by central differences
    along ``eps * u``; the input's storage is perturbed through ``.data`` (no version moves)."""
    entry = inputs[input_idx].data

    def run():
        return tuple(o.clone() for o in _as_tuple(fn(*inputs)))

    def along(delta):
        return _central_difference(run, entry, delta, eps)

    if isinstance(u, tuple):   # a complex input: the conjugate Wirtinger derivative
        ds_dx = along(eps * u[0].reshape(entry.shape))
        ds_dy = along(eps * u[1].reshape(entry.shape) * 1j)
        for d in ds_dx:
            if d.is_complex():
                raise AssertionError("Expected ds_dx to be real-valued, not complex")
        return [dx + dy * 1j for dx, dy in zip(ds_dx, ds_dy)]
    jvps = along(eps * u.reshape(entry.shape))
    if not is_forward_ad and any(d.is_complex() for d in jvps):
        raise AssertionError("Expected ds_dx to be real-valued, not complex.")
    return jvps


def _numerical_vJu(fn, inputs, func_out, all_u, all_v, eps, is_forward_ad):
    """[input][output]: ``v^T J u`` (``J u`` without `all_v`) for the floating outputs."""
    result = []
    func_out = _as_tuple(func_out)
    for inp_idx, u in zip(_diff_indices(inputs), all_u):
        jvps = _numerical_jvps(fn, inputs, inp_idx, u, eps, is_forward_ad)
        jvps = [ju for ju, out in zip(jvps, func_out) if _is_float_or_complex_tensor(out)]
        result.append(jvps if all_v is None else [(v * ju).sum() for v, ju in zip(all_v, jvps)])
    return result


def _no_differentiable_outputs(fn, inputs, all_u, eps, nondet_tol) -> None:
    """With no output that requires grad, ``J u`` must be zero."""
    for inp_idx, u in zip(_diff_indices(inputs), all_u):
        for ju in _numerical_jvps(fn, inputs, inp_idx, u, eps):
            if ju.numel() and (ju - 0).abs().max() > nondet_tol:
                raise GradcheckError("Numerical gradient for function expected to be zero")


# -- the analytical side -----------------------------------------------------------------------
def _analytical_vJu(inputs, outputs, nondet_tol, check_grad_dtypes, all_v, all_u):
    """[output][input]: ``v^T J`` from one backward per output (twice, for reentrancy), then
    dotted with ``u``."""
    from .. import view_as_real
    result = []
    for output, v in zip(outputs, all_v):
        row = []
        vjs = _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes, v=v)
        for vj, u in zip(vjs, all_u):
            vj = vj.T.squeeze(0)
            if vj.is_complex():
                parts = view_as_real(vj.resolve_conj())
                row.append(parts.select(-1, 0).dot(u[0]) + 1j * parts.select(-1, 1).dot(u[1]))
            else:
                row.append(vj.dot(u))
        result.append(row)
    return result


def _adjusted_atol(atol, u, v) -> float:
    """``atol`` scaled to a product ``v^T E u``: by ``sum(u) * sum(v)`` (both parts' sums for a
    complex input)."""
    sum_v = 1.0 if v is None else float(v.sum())
    sum_u = float(u[0].sum()) + float(u[1].sum()) if isinstance(u, tuple) else float(u.sum())
    return atol * sum_u * sum_v


FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _slow_mode_report(func, inputs, outputs, input_idx, output_idx, rtol, atol, eps,
                      is_forward_ad) -> str:
    """The failing pair's whole Jacobians, recomputed the slow way for the message."""
    from .. import allclose
    numerical = _numerical_jacobians(func, inputs, outputs, eps)[input_idx][output_idx]
    if is_forward_ad:
        from ._gradcheck_forward import forward_jacobians

        def one_input(inp):   # torch's indexing: input_idx counts the inputs that require grad
            args = list(inputs)
            args[input_idx] = inp
            return _as_tuple(func(*args))[output_idx]
        analytical = forward_jacobians(one_input, (inputs[input_idx],),
                                       (outputs[output_idx],))[0][0]
    else:
        analytical = _analytical_jacobian(inputs, outputs[output_idx], float("inf"),
                                          False)[input_idx]
    max_diff = (numerical - analytical).abs().max()
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are "
           "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for "
           "more background \nabout fast mode. Below, we recompute numerical and analytical "
           f"jacobians in slow mode:\n\nNumerical:\n {numerical}\nAnalytical:\n{analytical}\n\n"
           f"The max per-element difference (slow mode) is: {max_diff}.\n")
    if allclose(analytical, numerical, rtol, atol):
        msg += FAST_FAIL_SLOW_OK_MSG
    return msg


def fast_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                   nondet_tol, *, use_forward_ad=False, complex_indices=None,
                   test_imag=False) -> bool:
    Tensor = _Tensor()
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    all_v, all_u = make_vectors(diff, outputs, use_forward_ad=use_forward_ad)
    numerical = _numerical_vJu(func, inputs, func_out, all_u, all_v, eps, use_forward_ad)
    if use_forward_ad:
        from ._gradcheck_forward import forward_jacobians
        analytical = forward_jacobians(func, inputs, _as_tuple(func_out),
                                       check_grad_dtypes=check_grad_dtypes, all_u=all_u)
    else:
        if not outputs:
            _no_differentiable_outputs(func, inputs, all_u, eps, nondet_tol)
        analytical = _analytical_vJu(inputs, outputs, nondet_tol, check_grad_dtypes, all_v,
                                     all_u)
    for i, per_output in enumerate(numerical):
        for j, n in enumerate(per_output):
            a = analytical[i][j] if use_forward_ad else analytical[j][i]
            tol = _adjusted_atol(atol, all_u[i], all_v[j] if all_v else None)
            if not _allclose(a, n, rtol, tol):
                report = _slow_mode_report(func, inputs, outputs, i, j, rtol, atol, eps,
                                           use_forward_ad)
                raise GradcheckError(_notallclose_msg(a, n, j, i, complex_indices, test_imag,
                                                      use_forward_ad) + report)
    return True
