"""``gradcheck`` / ``gradgradcheck``: analytical gradients against finite differences.

For a function of tensors, the numerical Jacobian w.r.t. each input that requires grad is built
column by column with central differences (each element perturbed by ±eps in place, through the
raw array so no version counter moves, as torch perturbs ``x.data``). The analytical Jacobian
is built row by row: ``autograd.grad(output, inputs, e_j)`` for every unit vector ``e_j``, twice,
to catch a backward that is not reentrant. Both are laid out as torch lays them out,
``(input.numel(), output.numel())``, so the failure message prints the same matrices.

Complex functions are checked as torch checks them (Wirtinger calculus, Note [Complex
gradients] in ops/_autograd_utils.py): a complex input's numerical column is the conjugate
Wirtinger derivative ``ds/dx + i ds/dy`` (perturbing the real, then the imaginary part), and a
function with complex outputs is checked twice, on the real and then on the imaginary part of
those outputs, so that every Jacobian compared is that of a real-valued function.

The other modes live beside this file: ``fast_mode`` (one random product ``v^T J u`` per input
and output, _gradcheck_fast.py), ``check_forward_ad`` (the Jacobians forward-mode AD gives,
_gradcheck_forward.py) and the batched checks (gradients under vmap, _gradcheck_batched.py).
The deprecated public helpers are in _gradcheck_legacy.py.
"""
from __future__ import annotations

import warnings

from .graph import Node, _next_sequence_nr, gradient_edge

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


def _Tensor():
    from .._tensor import Tensor
    return Tensor


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _diff_inputs(inputs):
    Tensor = _Tensor()
    return [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _check_inputs(inputs) -> None:
    from .. import _dtypes
    Tensor = _Tensor()
    any_grad = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype not in (_dtypes.float64, _dtypes.complex128):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not of "
                    "double precision floating point or complex. ", stacklevel=3)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            any_grad = True
    if not any_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _real_and_imag_output(fn):
    """`fn` with ``real`` / ``imag`` applied to its complex outputs (torch's
    _real_and_imag_output)."""
    from .. import imag, real
    Tensor = _Tensor()

    def apply_to_complex_outputs(part):
        def wrapped(*inputs):
            return tuple(part(o) if isinstance(o, Tensor) and o.is_complex() else o
                         for o in _as_tuple(fn(*inputs)))
        return wrapped
    return apply_to_complex_outputs(real), apply_to_complex_outputs(imag)


# ---------------------------------------------------------------------------------------------
# Jacobians
# ---------------------------------------------------------------------------------------------
def _flat_index(arr, k):
    from ..backends import numpy_backend as npb
    return npb.xp.unravel_index(k, arr.shape) if arr.ndim else ()


def _numerical_jacobians(fn, inputs, outputs, eps):
    """[input][output] -> (input.numel(), output.numel()) tensors of central differences; a
    complex input's columns are conjugate Wirtinger derivatives ``ds/dx + i ds/dy``."""
    from ..ops.creation import zeros
    Tensor = _Tensor()
    outs = [o for o in _as_tuple(outputs) if isinstance(o, Tensor)]
    result = []
    for inp in _diff_inputs(inputs):
        data = inp._data
        n = data.size
        is_complex = data.dtype.kind == "c"
        jac = [zeros((n, o.numel()), dtype=inp.dtype if is_complex else o.dtype) for o in outs]

        def central(idx, orig, delta):
            data[idx] = orig - delta
            # clones: an output may alias the input being perturbed (views, identity)
            a = [o.detach().clone() for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)]
            data[idx] = orig + delta
            b = [o.detach().clone() for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)]
            data[idx] = orig
            return [((ob - oa) / (2 * eps)).reshape(-1) for oa, ob in zip(a, b)]

        for k in range(n):
            idx = _flat_index(data, k)
            orig = data[idx].copy()
            cols = central(idx, orig, eps)
            if is_complex:   # the conjugate Wirtinger derivative: d/dx + i d/dy
                cols = [dx + dy * 1j for dx, dy in zip(cols, central(idx, orig, eps * 1j))]
            for j, col in zip(jac, cols):   # (as many as `outputs` asks for)
                j._data[k, :] = col._data
        result.append(tuple(jac))
    return result


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes, v=None):
    """[input] -> (input.numel(), output.numel()) from unit-vector vector-Jacobian products;
    with `v` (fast mode), (input.numel(), 1): the one product ``v^T J``."""
    from . import grad as autograd_grad
    from ..ops.creation import zeros
    diff = _diff_inputs(inputs)

    def cotangents():   # (column, gradient of the output) pairs
        if v is not None:
            yield 0, v.reshape(tuple(output.shape))
            return
        e = zeros(tuple(output.shape), dtype=output.dtype)
        flat = e._data.reshape(-1)   # a contiguous fresh tensor: reshape is a view
        for j in range(output.numel()):
            flat[:] = 0
            flat[j] = 1
            yield j, e

    def rows():
        width = 1 if v is not None else output.numel()
        jac = [zeros((t.numel(), width), dtype=t.dtype) for t in diff]
        types_ok = sizes_ok = True
        for j, e in cotangents():
            gi = autograd_grad(output, diff, e, retain_graph=True, allow_unused=True)
            for i, (g, t) in enumerate(zip(gi, diff)):
                if g is None:
                    continue
                if g.dtype != t.dtype:
                    types_ok = False
                if g.numel() != t.numel():
                    sizes_ok = False
                    continue
                jac[i]._data[:, j] = g.detach()._data.reshape(-1)
        return jac, types_ok, sizes_ok

    jac1, types_ok, sizes_ok = rows()
    jac2, _, _ = rows()
    reentrant = all(_jacobians_equal(a, b, nondet_tol) for a, b in zip(jac1, jac2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and "
            "grad_output multiple times gives different values, although analytical gradient "
            f"matches numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + _FAILED_NONDET_MSG)
    return jac1


def _jacobians_equal(a, b, tol) -> bool:
    """torch's reentrancy test: no entry differs by more than `tol` (NaN counts as equal)."""
    if a.numel() == 0:
        return True
    return not (abs(a._data - b._data).max() > tol)


_FAILED_NONDET_MSG = """

NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _notallclose_msg(analytical, numerical, output_idx, input_idx, complex_indices=None,
                     test_imag=False, is_forward_ad=False) -> str:
    """torch's message; complex_indices name the complex outputs (backward) or inputs
    (forward) whose real or imaginary part this check is on."""
    prefix = ""
    if complex_indices and (input_idx if is_forward_ad else output_idx) in complex_indices:
        part = "imaginary" if test_imag else "real"
        element = "inputs" if is_forward_ad else "outputs"
        prefix = f"While considering the {part} part of complex {element} only, "
    mode = "computed with forward mode " if is_forward_ad else ""
    return (prefix + f"Jacobian {mode}mismatch for output {output_idx:d} with respect to input "
            f"{input_idx:d},\nnumerical:{numerical}\nanalytical:{analytical}\n")


def _allclose(a, b, rtol, atol) -> bool:
    """torch's _allclose_with_type_promotion."""
    from .. import allclose, promote_types
    dtype = promote_types(a.dtype, b.dtype)
    return allclose(a.to(dtype), b.to(dtype), rtol, atol)


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol, *, use_forward_ad=False, complex_indices=None, test_imag=False):
    func_out = _as_tuple(func_out)
    if not outputs:
        for per_input in _numerical_jacobians(func, inputs, func_out, eps):
            for jac in per_input:
                if bool((jac != 0).any()):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = _numerical_jacobians(func, inputs, func_out, eps)
    keep = [i for i, o in enumerate(o for o in func_out if isinstance(o, _Tensor()))
            if o.requires_grad]
    if use_forward_ad:
        from ._gradcheck_forward import forward_jacobians
        analytical = forward_jacobians(func, inputs, func_out,
                                       check_grad_dtypes=check_grad_dtypes)
        for i in range(len(keep)):
            for j, per_output in enumerate(numerical):
                a, n = analytical[j][i], per_output[keep[i]]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices,
                                                          test_imag, is_forward_ad=True))
        return True
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(analytical):
            n = numerical[j][keep[i]]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices, test_imag))
    return True


def _real_and_imag_input(fn, complex_indices, inputs):
    """`fn` taking, for each complex input, its real part (the imaginary part held at the
    input's) and then its imaginary part (the real part held): two functions of real inputs
    (torch's _real_and_imag_input)."""
    def with_parts(make):
        def wrapped(*args):
            args = list(args)
            for k in complex_indices:
                args[k] = make(args[k], inputs[k])
            return _as_tuple(fn(*args))
        return wrapped
    return (with_parts(lambda part, orig: part + orig.imag * 1j),
            with_parts(lambda part, orig: orig.real + part * 1j))


def _gradcheck_real_imag(gradcheck_fn, func, func_out, inputs, outputs, eps, rtol, atol,
                         check_grad_dtypes, nondet_tol, *, check_forward_ad, check_backward_ad,
                         check_undefined_grad) -> None:
    """torch's _gradcheck_real_imag. Backward checks take a function with complex outputs
    as two real-valued ones, on their imaginary then their real parts; forward checks take a
    function with complex inputs as two functions of real inputs, the same way."""
    Tensor = _Tensor()
    args = (eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if check_backward_ad:
        if any(isinstance(o, Tensor) and o.is_complex() for o in _as_tuple(func_out)):
            complex_indices = [i for i, o in enumerate(outputs) if o.is_complex()]
            real_fn, imag_fn = _real_and_imag_output(func)
            for part_fn, test_imag in ((imag_fn, True), (real_fn, False)):
                part_out = part_fn(*inputs)
                gradcheck_fn(part_fn, part_out, inputs, _differentiable_outputs(part_out),
                             *args, complex_indices=complex_indices, test_imag=test_imag)
        else:
            gradcheck_fn(func, func_out, inputs, outputs, *args)
    if not check_forward_ad:
        return
    from ._gradcheck_forward import check_undefined_forward_mode
    complex_indices = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and
                       t.is_complex()]
    if not complex_indices:
        gradcheck_fn(func, func_out, inputs, outputs, *args, use_forward_ad=True)
        if check_undefined_grad:
            check_undefined_forward_mode(func, outputs, inputs)
        return
    real_fn, imag_fn = _real_and_imag_input(func, complex_indices, inputs)
    checked = []
    for part_fn, part, test_imag in ((imag_fn, "imag", True), (real_fn, "real", False)):
        part_inputs = [getattr(t, part) if isinstance(t, Tensor) and t.is_complex() else t
                       for t in inputs]
        part_out = part_fn(*part_inputs)
        gradcheck_fn(part_fn, part_out, part_inputs, _differentiable_outputs(part_out), *args,
                     complex_indices=complex_indices, test_imag=test_imag, use_forward_ad=True)
        checked.append((part_fn, part_out, part_inputs))
    if check_undefined_grad:
        for part_fn, part_out, part_inputs in checked:
            check_undefined_forward_mode(part_fn, part_out, part_inputs)


# ---------------------------------------------------------------------------------------------
# Other checks
# ---------------------------------------------------------------------------------------------
def _test_backward_mul_by_grad_output(outputs, inputs) -> None:
    from . import grad as autograd_grad
    from ..ops.creation import zeros_like
    diff = _diff_inputs(inputs)
    grads = autograd_grad(outputs, diff, [zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff):
        if gi is None:
            continue
        if not bool(gi.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")


class UndefinedGradBackward(Node):
    """Passes an undefined (None) gradient on: torch's ``UndefinedGrad`` function's node."""

    __slots__ = ()

    def __init__(self, edge):
        self._seq = _next_sequence_nr()
        self.next_functions = (edge,)

    def name(self) -> str:
        return "torch::autograd::UndefinedGradBackward"

    def apply(self, grads):
        return (None,)


def _undefined_grad(t):
    """An alias of `t` whose gradient reaches t's history as undefined."""
    out = t.detach()
    out._grad_fn = UndefinedGradBackward(gradient_edge(t))
    out._requires_grad = True
    return out


def _test_undefined_backward_mode(func, outputs, inputs) -> None:
    from . import grad as autograd_grad
    from ..ops.creation import zeros_like
    Tensor = _Tensor()
    diff = _diff_inputs(inputs)

    def warn_bc_breaking():
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking feature is "
            "enabled by default, but it may break existing callers of this function. If this "
            "is true for you, you can call this function with \"check_undefined_grad=False\" "
            "to disable the feature", stacklevel=3)

    def check(outs):
        try:
            grads = autograd_grad(outs, diff, [zeros_like(o) for o in outs], allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                "\"Notes about undefined output gradients\" in "
                "\"tools/autograd/derivatives.yaml\"") from e
        for gi in grads:
            if gi is not None and not bool(gi.eq(0).all()):
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    "are undefined or zero. Please look at \"Notes about undefined output "
                    "gradients\" in \"tools/autograd/derivatives.yaml\"")

    first = [_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))
             if isinstance(o, Tensor)]
    to_check = [first]
    if len(first) > 1:
        for undef in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            to_check.append([_undefined_grad(o) if k == undef else o
                             for k, o in enumerate(outs)])
    for outs in to_check:
        check(outs)


# ---------------------------------------------------------------------------------------------
# The public functions
# ---------------------------------------------------------------------------------------------
def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of `func` at `inputs` against finite differences.

    Args:
        func: takes the inputs, returns a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of arguments; those that require grad are checked
            (use float64).
        eps, atol, rtol: the perturbation and the ``allclose`` tolerances.
        raise_exception: raise :class:`GradcheckError` on failure (else return False).

    Returns:
        True when every Jacobian matches.

    Complex inputs and outputs are checked as torch checks them (Wirtinger derivatives; see
    this module's docstring).

    ``fast_mode`` compares one random product ``v^T J u`` per input and output instead of
    whole Jacobians (see _gradcheck_fast.py); ``check_forward_ad`` checks the Jacobians that
    forward-mode AD gives too (_gradcheck_forward.py); the batched checks run the gradients
    under vmap (_gradcheck_batched.py).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to "
                             "be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires "
                             "check_forward_ad to be True")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol,
                                 check_undefined_grad, check_grad_dtypes, check_batched_grad,
                                 check_batched_forward_grad, check_forward_ad,
                                 check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
                      check_forward_ad, check_backward_ad, fast_mode):
    from ._gradcheck_batched import test_batched_grad, test_batched_grad_forward_ad
    from ._gradcheck_fast import fast_gradcheck
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = func(*tupled)
    outputs = _differentiable_outputs(func_out)
    _gradcheck_real_imag(fast_gradcheck if fast_mode else _slow_gradcheck, func, func_out,
                         tupled, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                         check_forward_ad=check_forward_ad, check_backward_ad=check_backward_ad,
                         check_undefined_grad=check_undefined_grad)
    if check_batched_forward_grad:
        test_batched_grad_forward_ad(func, tupled)
    if not check_backward_ad:   # what is left needs backward
        return True
    if check_batched_grad:
        for i, o in enumerate(outputs):
            test_batched_grad(tupled, o, i)
    if outputs:
        _test_backward_mul_by_grad_output(outputs, tupled)
        if check_undefined_grad:
            _test_undefined_backward_mode(func, outputs, tupled)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second derivatives: ``gradcheck`` of the first-order gradient built with
    ``create_graph=True`` w.r.t. the inputs and the `grad_outputs` (random when None)."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or "
                             "check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev "
                             "to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to "
                             "be True")
    from . import grad as autograd_grad
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_random_cotangent(x, gen_non_contig_grad_outputs)
                                    for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    Tensor = _Tensor()
    diff_in = {i for i, x in enumerate(tupled_inputs)
               if isinstance(x, Tensor) and x.requires_grad}
    diff_go = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_in else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outs = tuple(x.requires_grad_() if i in diff_go else x
                          for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_in)
        grad_inputs = autograd_grad(outputs, diff_input_args, grad_outs, create_graph=True,
                                    allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def _random_cotangent(x, noncontiguous: bool):
    """Uniform values in [-1, 1) shaped like `x` (both parts of a complex one; torch uses
    testing.make_tensor)."""
    from ..ops.creation import empty
    dtype = x.dtype if (x.is_floating_point() or x.is_complex()) else None
    from .. import float64, rand
    dtype = dtype or float64
    low = (1 + 1j) if dtype.is_complex else 1   # each part in [-1, 1)
    if noncontiguous and x.numel() > 1:
        t = rand(tuple(x.shape[:-1]) + (x.shape[-1] * 2,), dtype=dtype)[..., ::2] * 2 - low
        t = t.detach()
    else:
        t = (rand(tuple(x.shape), dtype=dtype) * 2 - low) if x.numel() else \
            empty(tuple(x.shape), dtype=dtype)
    return t.requires_grad_()


def _is_float_or_complex_tensor(obj):
    return isinstance(obj, _Tensor()) and (obj.is_floating_point() or obj.is_complex())


def _iter_tensors(x, only_requiring_grad=False):
    """The tensors in `x` (a tensor or nested iterables of them), as torch's _iter_tensors."""
    from collections.abc import Iterable
    if isinstance(x, _Tensor()):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, Iterable) and not isinstance(x, str):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _central_difference(run, entry, delta, eps, idx=None) -> list:
    """``(f(x + delta) - f(x - delta)) / (2 eps)`` per output of `run` (which returns its
    outputs cloned), flat: `entry` is the perturbed tensor (the input's ``.data``, or an element
    of it), written through and restored (torch's _compute_numerical_gradient)."""
    orig = entry.clone()
    entry.copy_(orig - delta)
    before = run()
    entry.copy_(orig + delta)
    after = run()
    entry.copy_(orig)
    cols = []
    for a, b in zip(before, after):
        _check_outputs_same_dtype_and_shape(a, b, eps, idx)
        cols.append(((b - a) / (2 * eps)).detach().reshape(-1))
    return cols


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{on_index}by {eps}, but got: shapes {output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{on_index}by {eps}, but got: dtypes {output1.dtype} and {output2.dtype}.")


# the deprecated helpers live in their own file; torch's module holds them (imported last: they
# read the helpers above)
from ._gradcheck_legacy import (  # noqa: E402
    get_analytical_jacobian, get_numerical_jacobian, get_numerical_jacobian_wrt_specific_input)

__all__ += ["get_numerical_jacobian", "get_analytical_jacobian",
            "get_numerical_jacobian_wrt_specific_input"]
