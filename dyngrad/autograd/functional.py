"""Derivatives of whole functions: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp``, ``hvp``
(torch.autograd.functional).

Each function takes a Python callable ``func`` and the point ``inputs`` (a Tensor or a tuple of
Tensors), runs ``func`` on fresh copies of the inputs that require grad, and differentiates
with ``autograd.grad``. The results take the shape of the arguments: a Tensor where the user
gave a Tensor, a tuple where the user gave a tuple, and for ``jacobian`` a tuple (outputs) of
tuples (inputs).

Note [Fresh inputs]
~~~~~~~~~~~~~~~~~~~
``func`` may use the very tensors it was given *and* capture them from an outer scope (a
closure). Only the use through its arguments must count, so every input is replaced by a new
tensor object before the call: ``inp.detach().requires_grad_()`` normally, or
``inp.view_as(inp)`` with ``create_graph=True`` when ``inp`` requires grad, so the result stays
connected to the user's graph. Without ``create_graph`` the results are detached at the end.

Note [The double-backward trick]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A vector-Jacobian product ``u -> u^T J`` is what backward computes. A Jacobian-vector product
``J v`` is obtained from two backward passes: with a dummy ``u`` that requires grad,
``g(u) = u^T J`` is linear in ``u``, so differentiating ``g(u) . v`` w.r.t. ``u`` gives
``J v`` whatever the value of ``u`` (zeros are used; they must only be finite). ``jvp`` and
``hvp`` use it, as torch does; it needs backward formulas that are themselves differentiable,
which every dyngrad formula is (STYLE.md §2).

Differences from torch: ``vectorize=True`` computes the rows one by one (same results, no
vmap), and ``strategy="forward-mode"`` (with ``vectorize=True``, as torch requires) is computed
in reverse mode, giving the same values with the outputs' dtype as torch's forward mode does.
"""
from __future__ import annotations

from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


# ---------------------------------------------------------------------------------------------
# Arguments in, results out
# ---------------------------------------------------------------------------------------------
def _as_tuple(value, arg_name: str, fn_name: str):
    """(was it a tuple, the tuple) after checking every entry is a Tensor (torch's messages)."""
    Tensor = _tensor_cls()
    was_tuple = isinstance(value, tuple)
    values = value if was_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if was_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where} has type {type(el)}.")
    return was_tuple, values


def _untuple(res, was_tuple):
    """Undo ``_as_tuple`` on a result: `was_tuple` is one flag, or (outer, inner) for a tuple
    of tuples such as a Jacobian's (outputs, inputs)."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            res = tuple(el[0] for el in res)
        if not outer:
            res = res[0]
        return res
    return res if was_tuple else res[0]


def _fresh(tensors, create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects for the inputs (see Note [Fresh inputs])."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _detached(values, create_graph: bool) -> tuple:
    """The results without history unless ``create_graph`` (nested tuples allowed)."""
    if isinstance(values[0], _tensor_cls()):
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_detached(v, create_graph) for v in values)


def _check_v(v, ref, ref_is_tuple: bool) -> None:
    """``v`` must have one entry per tensor of `ref`, each of the same size."""
    if len(v) != len(ref):
        if ref_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(ref)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_ref) in enumerate(zip(v, ref)):
        if el_v.size() != el_ref.size():
            prefix = f"Entry {i} in " if ref_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_ref.size()} but got "
                               f"{el_v.size()}.")


_NEEDS_GRAD_MESSAGES = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when running "
                "in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
}


def _check_requires_grad(tensors, kind: str, strict: bool) -> None:
    """In strict mode, every tensor (outputs, gradients, ...) must be connected to the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:   # only gradients can be None
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NEEDS_GRAD_MESSAGES[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None) -> tuple:
    """``autograd.grad`` that skips outputs without history (and returns all None when no
    output has any) and allows unused inputs."""
    from . import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad(tuple(o for o, _ in kept), inputs, tuple(g for _, g in kept),
                allow_unused=True, create_graph=create_graph, retain_graph=retain_graph)


_INDEPENDENT_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _zeros_for_none(grads, refs, strict: bool, create_graph: bool, stage: str) -> tuple:
    """A missing gradient is mathematically zero: zeros shaped like `refs[i]`, or, in strict
    mode, torch's error for the stage of the computation that found it missing."""
    from ..ops.creation import zeros_like
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT_MESSAGES[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _v_or_default(v, ref, ref_is_tuple, create_graph, fn_name, none_message) -> tuple:
    """The checked ``v`` as a tuple; None is allowed only when `ref` is one single element."""
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _fresh(v, create_graph, need_graph=False)
        _check_v(v, ref, ref_is_tuple)
        return v
    if len(ref) != 1 or ref[0].nelement() != 1:
        raise RuntimeError(none_message)
    return None


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is "
                 "a single Tensor with a single element.")


# ---------------------------------------------------------------------------------------------
# Products with the Jacobian
# ---------------------------------------------------------------------------------------------
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(inputs)`` and the vector-Jacobian product ``v^T J`` at `inputs`.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of Tensors.
        v: one tensor per output, shaped like it; may be None when ``func`` returns a single
            element.
        create_graph: make the results differentiable (for higher derivatives).
        strict: raise when an input does not influence the outputs instead of returning zeros.

    Returns:
        ``(func_output, vjp)``; ``vjp`` is shaped like `inputs`.

    Example::

        >>> x = torch.tensor([1., 2.])
        >>> vjp(lambda x: x ** 2, x, torch.ones(2))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _v_or_default(v, outputs, outputs_tuple, create_graph, "vjp",
                          "The vector v can only be None if the user-provided function returns "
                          "a single Tensor with a single element.")

    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "back")

    return (_untuple(_detached(outputs, create_graph), outputs_tuple),
            _untuple(_detached(result, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(inputs)`` and the Jacobian-vector product ``J v`` at `inputs`, computed with two
    backward passes (Note [The double-backward trick]).

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of Tensors.
        v: one tensor per input, shaped like it; may be None when `inputs` is a single element.
        create_graph: make the results differentiable.
        strict: raise when an output does not depend on the inputs instead of returning zeros.

    Returns:
        ``(func_output, jvp)``; ``jvp`` is shaped like the outputs.
    """
    from ..ops.creation import zeros_like
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, "jvp",
                          "The vector v can only be None if the input to the user-provided "
                          "function is a single Tensor with a single element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        dummies = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)   # u^T J, linear in u
        _check_requires_grad(grad_inputs, "grad_inputs", strict)

    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _zeros_for_none(grads, outputs, strict, create_graph, "back_trick")

    return (_untuple(_detached(outputs, create_graph), outputs_tuple),
            _untuple(_detached(result, create_graph), outputs_tuple))


# ---------------------------------------------------------------------------------------------
# Jacobian and Hessian
# ---------------------------------------------------------------------------------------------
_STRATEGIES = ("forward-mode", "reverse-mode")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at `inputs`, one ``autograd.grad`` call per output element.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of Tensors.
        create_graph: make the Jacobian differentiable.
        strict: raise when an output is independent of an input instead of giving zeros.
        vectorize: accepted; the rows are still computed one by one.
        strategy: ``"reverse-mode"`` or ``"forward-mode"`` (needs ``vectorize=True``).

    Returns:
        A Tensor of shape ``output.shape + input.shape`` for one input and one output; a
        tuple over inputs or outputs when one of them is a tuple; ``jac[i][j]`` (output i,
        input j) when both are.

    Example::

        >>> jacobian(lambda x: x ** 2, torch.tensor([1., 2.]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    forward_mode = strategy == "forward-mode"
    if forward_mode:
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            _as_tuple(inputs, "inputs", "jacobian")
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian isonly implemented for `vectorize=True`.")

    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        if vectorize and not forward_mode:
            jac = _jacobian_batched(outputs, inputs, create_graph)
        else:
            jac = tuple(_jacobian_rows(i, out, inputs, create_graph, strict)
                        for i, out in enumerate(outputs))
        if forward_mode:
            jac = tuple(_forward_layout(row, out, inputs) for row, out in zip(jac, outputs))
        jac = _detached(jac, create_graph)
    return _untuple(jac, (outputs_tuple, inputs_tuple))


def _jacobian_rows(i, out, inputs, create_graph, strict) -> tuple:
    """The Jacobians of output `i` w.r.t. each input: one backward per element of `out`."""
    from ..ops.creation import zeros_like
    from ..ops.join import stack
    rows = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for k in range(out.nelement()):
        grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                g = zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            rows[j].append(g)
    return tuple(stack(r, dim=0).view(out.size() + inp.size()) for r, inp in zip(rows, inputs))


def _jacobian_batched(outputs, inputs, create_graph) -> tuple:
    """``vectorize=True``: torch runs one batched backward over the rows of all the outputs
    flattened together, then splits the result per output. The rows are computed one by one
    here, laid out as torch's: per input one ``(total rows, *input.shape)`` tensor, an
    expanded zero when no output reaches that input, split along the rows."""
    from ..ops.creation import zeros_like
    from ..ops.join import stack
    numels = [out.nelement() for out in outputs]
    rows = tuple([] for _ in inputs)
    for out in outputs:
        flat = out.reshape(-1)
        for k in range(out.nelement()):
            grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, g in enumerate(grads):
                rows[j].append(g)
    per_input = []
    for r, inp in zip(rows, inputs):
        if all(g is None for g in r):
            full = zeros_like(inp).expand((sum(numels),) + tuple(inp.shape))
        else:
            full = stack([zeros_like(inp) if g is None else g for g in r], dim=0)
        per_input.append([part.view(out.size() + inp.size())
                          for part, out in zip(full.split(numels, dim=0), outputs)])
    return tuple(zip(*per_input))


def _forward_layout(row, out, inputs) -> tuple:
    """Lay output `out`'s Jacobians out as torch's forward mode leaves them: one tangent per
    input element, batched first, in the output's dtype, then moved last (a strided view)."""
    from ..ops.join import cat
    n = out.nelement()
    blocks = [j.to(out.dtype).reshape(n, inp.nelement()).t() for j, inp in zip(row, inputs)]
    tangents = cat(blocks, dim=0).contiguous().view((-1,) + tuple(out.shape))
    parts = tangents.split([inp.nelement() for inp in inputs], dim=0)
    return tuple(p.permute(*range(1, p.dim()), 0).reshape(out.size() + inp.size())
                 for p, inp in zip(parts, inputs))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function ``func`` at `inputs`: the Jacobian of its gradient.

    Args:
        func: a function of Tensors returning a Tensor with a single element.
        inputs: a Tensor or a tuple of Tensors.
        create_graph: make the Hessian differentiable.
        strict: raise when the Hessian is independent of an input instead of giving zeros.
        vectorize: accepted; the rows are computed one by one.
        outer_jacobian_strategy: ``"reverse-mode"`` or ``"forward-mode"`` (needs
            ``vectorize=True``); the inner Jacobian is always reverse mode.

    Returns:
        A Tensor of shape ``input.shape + input.shape`` for one input, else ``h[i][j]`` for
        inputs i and j.
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    Tensor = _tensor_cls()

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def gradient(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _untuple(res, (inputs_tuple, inputs_tuple))


# ---------------------------------------------------------------------------------------------
# Products with the Hessian
# ---------------------------------------------------------------------------------------------
def _scalar_output(func, inputs, fn_name, strict):
    """Run ``func`` and check it returned one Tensor of one element (torch's messages)."""
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not isinstance(outputs[0], _tensor_cls()):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(inputs)`` and the vector-Hessian product ``v^T H`` of a scalar function.

    Args:
        func: a function of Tensors returning a Tensor with a single element.
        inputs: a Tensor or a tuple of Tensors.
        v: one tensor per input, shaped like it; may be None when `inputs` is one element.
        create_graph: make the results differentiable.
        strict: raise when an input does not influence the gradient instead of giving zeros.

    Returns:
        ``(func_output, vhp)``; ``vhp`` is shaped like `inputs`.
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)

    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back")

    return (_untuple(_detached(outputs, create_graph), outputs_tuple),
            _untuple(_detached(result, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(inputs)`` and the Hessian-vector product ``H v`` of a scalar function, by the
    double-backward trick (Note [The double-backward trick]). For a twice continuously
    differentiable function it equals ``vhp``, which is cheaper.

    Args:
        func: a function of Tensors returning a Tensor with a single element.
        inputs: a Tensor or a tuple of Tensors.
        v: one tensor per input, shaped like it; may be None when `inputs` is one element.
        create_graph: make the results differentiable.
        strict: raise when an input does not influence the gradient instead of giving zeros.

    Returns:
        ``(func_output, hvp)``; ``hvp`` is shaped like `inputs`.
    """
    from ..ops.creation import zeros_like
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        dummies = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummies, create_graph=True)   # u^T H, linear in u
        _check_requires_grad(jac, "hessian", strict)

    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(double_back, dummies, v, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back_trick")

    return (_untuple(_detached(outputs, create_graph), outputs_tuple),
            _untuple(_detached(result, create_graph), inputs_tuple))
