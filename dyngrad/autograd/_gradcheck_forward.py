"""gradcheck's forward-mode side (``check_forward_ad=True``): the Jacobian computed with dual
tensors, and the check that an undefined tangent acts as a zero one.

The forward Jacobian is built column by column: every input that requires grad becomes a dual
tensor whose tangent starts at zero; setting one element of one tangent to 1 and running the
function gives, in the outputs' tangents, the column of the Jacobian for that element. In fast
mode the tangent is set to the random vector ``u`` instead, which gives ``J u`` in one run.

The Jacobians are written with tensor ops (``copy_`` into a row), as torch writes them, so a
tangent that carries a graph (the function closes over a tensor that requires grad) leaves the
same ``grad_fn`` on the Jacobian that torch's failure message prints.
"""
from __future__ import annotations

from itertools import product

from . import forward_ad as fwAD
from .gradcheck import GradcheckError, _as_tuple, _is_float_or_complex_tensor, _Tensor


def _duals(inputs):
    """The inputs with each one that requires grad made a dual tensor of zero tangent, and
    those tangents (read back from the duals, as torch does: a view's may differ)."""
    from .. import zeros_like
    Tensor = _Tensor()
    tangents, duals = [], []
    for inp in inputs:
        if isinstance(inp, Tensor) and inp.requires_grad:
            inp = fwAD.make_dual(inp.detach(), zeros_like(inp))
            tangents.append(fwAD.unpack_dual(inp)[1])
        duals.append(inp)
    return tangents, duals


def _output_tangents(fn, duals, check_grad_dtypes):
    """The tangent of each floating or complex output of ``fn(*duals)`` (None: no tangent)."""
    result = []
    for out in _as_tuple(fn(*duals)):
        if not _is_float_or_complex_tensor(out):
            continue
        primal, tangent = fwAD.unpack_dual(out)
        if check_grad_dtypes and tangent is not None and \
                primal.is_complex() != tangent.is_complex():
            raise GradcheckError("Forward AD gradient has dtype mismatch.")
        result.append(tangent)
    return result


def forward_jacobians(fn, inputs, outputs, *, check_grad_dtypes=False, all_u=None):
    """[input][output]: the ``(input.numel(), output.numel())`` Jacobians of ``fn(*inputs)``
    from forward-mode AD, for the inputs that require grad and the floating or complex
    `outputs`; with `all_u` (fast mode), the vectors ``J u``, one per input and output."""
    Tensor = _Tensor()
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    if any(t.is_complex() for t in diff):
        raise ValueError("Expected inputs to be non-complex for "
                         "_get_analytical_jacobian_forward_ad.")
    float_outs = [o for o in outputs if _is_float_or_complex_tensor(o)]
    jacobians = [[o.new_zeros((1 if all_u else t.numel(), o.numel())) for o in float_outs]
                 for t in diff]
    with fwAD.dual_level():
        tangents, duals = _duals(inputs)
        for i, tangent in enumerate(tangents):
            if all_u:   # the whole product J u in one run
                tangent.copy_(all_u[i].view_as(tangent))
                for k, res in enumerate(_output_tangents(fn, duals, check_grad_dtypes)):
                    jac = jacobians[i][k]
                    jac.squeeze_(0)
                    jac.zero_() if res is None else jac.copy_(res.reshape(-1))
                tangent.zero_()
                continue
            for row, idx in enumerate(product(*[range(m) for m in tangent.size()])):
                tangent[idx] = 1.0
                for k, res in enumerate(_output_tangents(fn, duals, check_grad_dtypes)):
                    jac_row = jacobians[i][k][row]
                    jac_row.zero_() if res is None else jac_row.copy_(res.reshape(-1))
                tangent[idx] = 0.0
    return jacobians


def check_undefined_forward_mode(func, outputs, inputs) -> None:
    """An input given without a tangent must give the outputs the tangents a zero tangent
    gives them (torch's _test_undefined_forward_mode)."""
    from .. import allclose, zeros_like
    from ._gradcheck_fast import make_vectors
    Tensor = _Tensor()
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    _, all_u = make_vectors(diff, outputs, use_forward_ad=True)
    with fwAD.dual_level():
        tangents, duals = _duals(inputs)
        for tangent, u in zip(tangents, all_u):
            tangent.copy_(u.view_as(tangent))
        for idx, inp in enumerate(inputs):
            if not (isinstance(inp, Tensor) and inp.requires_grad):
                continue
            kept = duals[idx]
            duals[idx] = fwAD.make_dual(inp.detach(), zeros_like(inp))   # a zero tangent
            with_zero = _output_tangents(func, duals, False)
            duals[idx] = inp.detach()                                     # no tangent at all
            without = _output_tangents(func, duals, False)
            duals[idx] = kept
            for k, (res1, res2) in enumerate(zip(with_zero, without)):
                if res1 is not None and res2 is not None and not allclose(res1, res2):
                    # torch builds this error from several arguments; so it prints
                    raise GradcheckError("Mismatch in tangent values for output with index: ",
                                         k, " when input: ", inp,
                                         " has an undefined tangent value. ", " Got: ", res1,
                                         " but expected: ", res2)
