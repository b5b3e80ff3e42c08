"""torch.func's derivative transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``linearize``, ``jacrev``, ``jacfwd`` and ``hessian``.

Each takes a function and returns a function. Reverse mode runs the function on the tape and
asks the engine for the derivative (``autograd.grad`` with ``create_graph=True``, so that the
transforms nest); forward mode runs it on dual tensors (``autograd.forward_ad``). How a
transform keeps its work apart from an enclosing one is Note [Levels without wrapper tensors]
in _levels.py.

Differences from torch: the Jacobians are built one basis vector at a time (torch batches them
with vmap), so ``chunk_size`` only changes nothing but the argument checks.
"""
from __future__ import annotations

import functools

from .. import _tensor
from ..autograd import forward_ad as fwAD
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from ..utils._pytree import tree_flatten, tree_map, tree_unflatten
from . import _levels


def _is_tensor(x) -> bool:
    return isinstance(x, _tensor.Tensor)


# -- argnums (torch's checks and messages) -----------------------------------------------------
def _wrap_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _wrap_argnums(argnums, num_args: int):
    """`argnums` with negative positions wrapped, after torch's checks."""
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    wrapped = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {wrapped}")
    return wrapped


def _select(args, argnums):
    """The differentiated arguments: one (for an int) or a tuple of them."""
    return args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)


def _replace(args, argnums, new):
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for i, value in zip(argnums, new):
            args[i] = value
    return tuple(args)


def _only_tensors(values, message: str) -> None:
    for v in values:
        if not _is_tensor(v):
            raise RuntimeError(f"{message}, got unsupported type {type(v)}")


def _tensor_outputs(flat_out, api: str) -> None:
    """torch's check of a transformed function's outputs (its leaves): at least one, and all
    tensors."""
    if not flat_out or (len(flat_out) == 1 and flat_out[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got "
                           f"output = {flat_out})")
    _only_tensors(flat_out, f"{api}: expected f(*primals) to return only tensors")


def _vjp_outputs(flat_out) -> None:
    """torch's vjp checks of the outputs (jacrev's too): tensors, floating or complex."""
    _tensor_outputs(flat_out, "vjp(f, *primals)")
    for o in flat_out:
        if not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex "
                               f"Tensors, got Tensor with dtype {o.dtype}")


# -- grad ----------------------------------------------------------------------------------------
def _split_aux(output, has_aux: bool, api: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    _only_tensors(tree_flatten(output[1])[0], "Expected tensors")   # aux leaves the level too
    return output


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``func`` -> a function returning ``(gradient, value)`` of ``func``'s scalar output with
    respect to the arguments at `argnums` (``((gradient, (value, aux)))`` with `has_aux`)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        api = "grad_and_value(f)(*args)"
        start = _levels.level_start()
        lifted: set = set()
        with enable_grad():
            positions = _wrap_argnums(argnums, len(args))
            diff_args = tree_map(lambda x: _levels.lift(x, lifted), _select(args, positions))
            output = _levels.call(func, *_replace(args, positions, diff_args), **kwargs)
            output, aux = _split_aux(output, has_aux, api)
            if not _is_tensor(output):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use "
                                   "the vjp or jacrev APIs instead?")
            flat, spec = tree_flatten(diff_args)
            grads = _grads_of(output, flat, None)
        unwrap = functools.partial(_levels.unwrap, start=start, lifted=lifted)
        grads = tree_unflatten([unwrap(g) for g in grads], spec)
        value = unwrap(output)
        if has_aux:
            return grads, (value, tree_map(unwrap, aux))
        return grads, value

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """``func`` -> a function returning the gradient of ``func``'s scalar output with respect
    to the arguments at `argnums` (``(gradient, aux)`` with `has_aux`).

    Example::

        >>> dyngrad.func.grad(lambda x: x.sin().sum())(x)   # x.cos()
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def _grads_of(outputs, inputs, cotangents):
    """d(outputs . cotangents)/d(inputs), zeros where an input is unused, with a graph."""
    outputs = [outputs] if _is_tensor(outputs) else list(outputs)
    keep = [i for i, o in enumerate(outputs) if o.requires_grad]
    result = [None] * len(inputs)
    if keep:
        cots = None if cotangents is None else [cotangents[i] for i in keep]
        result = list(_autograd_grad([outputs[i] for i in keep], inputs, cots,
                                     create_graph=True, allow_unused=True))
    from ..ops.creation import zeros_like
    return [zeros_like(x) if g is None else g for g, x in zip(result, inputs)]


# -- vjp -----------------------------------------------------------------------------------------
def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives the vector-Jacobian product
    with respect to each primal (a tuple), as many times as it is called."""
    start = _levels.level_start()
    lifted: set = set()
    with enable_grad():
        diff = tree_map(lambda x: _levels.lift(x, lifted), primals)
        output = _levels.call(func, *diff)
        output, aux = _split_aux(output, has_aux, "vjp(f, *primals)")
        flat_out, out_spec = tree_flatten(output)
        _vjp_outputs(flat_out)
    flat_primals, primals_spec = tree_flatten(diff)

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{cot_spec.pprint()}, primal output: {out_spec.pprint()}")
        for c, o in zip(flat_cot, flat_out):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of "
                                   f"{c.shape} and output[0] has a shape of {o.shape}.")
        with enable_grad():
            grads = _grads_of(flat_out, flat_primals, flat_cot)
        grads = [_levels.unwrap(g, start, lifted) for g in grads]
        return tree_unflatten(grads, primals_spec)

    results = (tree_map(lambda t: _levels.unwrap(t, start, lifted), output), vjp_fn)
    if has_aux:
        return results + (tree_map(lambda t: _levels.unwrap(t, start, lifted), aux),)
    return results


# -- jvp and linearize ---------------------------------------------------------------------------
_JVP = "jvp(f, primals, tangents)"


def _check_tensor_tuple(values, argname: str) -> None:
    if not isinstance(values, tuple):
        raise RuntimeError(f"{_JVP}: Expected {argname} to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), jvp_out)``: the Jacobian of ``func`` at `primals` times `tangents`,
    computed in forward mode (dual tensors)."""
    _check_tensor_tuple(primals, "primals")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{p_spec!r} and tangents with structure {t_spec!r}")
    for name, values in (("primals", flat_p), ("tangents", flat_t)):
        for v in values:
            if not _is_tensor(v):
                raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got "
                                   f"{type(v)}")
    if strict:
        raise RuntimeError(f"{_JVP}: strict=True is not implemented yet.")
    if fwAD._state.level >= 0:   # one dual level at a time (as torch's forward_ad): nest by vjps
        return _jvp_by_double_vjp(func, flat_p, p_spec, flat_t, has_aux)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(flat_p, flat_t)]
        output = _levels.call(func, *tree_unflatten(duals, p_spec))
        output, aux = _split_aux(output, has_aux, _JVP)
        flat_out, out_spec = tree_flatten(output)
        _tensor_outputs(flat_out, _JVP)
        primal_outs, tangent_outs = [], []
        for o in flat_out:
            primal, tangent = fwAD.unpack_dual(o)
            if tangent is None:
                from ..ops.creation import zeros_like
                tangent = zeros_like(primal)
            primal_outs.append(primal)
            tangent_outs.append(tangent)
    results = (tree_unflatten(primal_outs, out_spec), tree_unflatten(tangent_outs, out_spec))
    if has_aux:
        aux = tree_map(lambda t: fwAD.unpack_dual(t).primal if _is_tensor(t) else t, aux)
        return results + (aux,)
    return results


def _jvp_by_double_vjp(func, flat_p, p_spec, flat_t, has_aux):
    """``jvp`` inside another forward-mode transform (``jacfwd(jacfwd(f))``): ``u -> J^T u``
    is linear in u, so ``J t`` is the gradient of ``(J^T u) . t`` with respect to u. Two
    reverse passes, each with a graph, in place of a second dual level."""
    from ..ops.creation import zeros_like
    start = _levels.level_start()
    lifted: set = set()
    with enable_grad():
        diff = [_levels.lift(p, lifted) for p in flat_p]
        output = _levels.call(func, *tree_unflatten(diff, p_spec))
        output, aux = _split_aux(output, has_aux, _JVP)
        flat_out, out_spec = tree_flatten(output)
        _tensor_outputs(flat_out, _JVP)
        us = [zeros_like(o).requires_grad_() for o in flat_out]
        for u in us:
            lifted.add(id(u))
        jt_u = _grads_of(flat_out, diff, us)                     # J^T u, a function of u
        pairs = [(g, t) for g, t in zip(jt_u, flat_t) if g.requires_grad]
        tangents = _grads_of([g for g, _ in pairs], us, [t for _, t in pairs]) if pairs \
            else [zeros_like(o) for o in flat_out]
    unwrap = functools.partial(_levels.unwrap, start=start, lifted=lifted)
    results = (tree_unflatten([unwrap(o) for o in flat_out], out_spec),
               tree_unflatten([unwrap(t) for t in tangents], out_spec))
    return results + (tree_map(unwrap, aux),) if has_aux else results


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is ``jvp(func, primals,
    tangents)[1]`` (evaluated anew for each call)."""
    output = _levels.call(func, *primals)
    flat_primals, primals_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        # torch's checks of its traced graph's inputs, before anything runs
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec "
                               f"as the primals {primals_spec}")
        for idx, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
            for what in ("shape", "device", "dtype"):
                if getattr(t, what) != getattr(p, what):
                    raise RuntimeError(f"tangent:{idx} with {what} {getattr(t, what)} in "
                                       f"flattened pytree doesn't match the {what} "
                                       f"{getattr(p, what)} of the corresponding primal.")
        return jvp(func, primals, tangents)[1]

    return tree_map(lambda t: t.detach() if _is_tensor(t) else t, output), jvp_fn


# -- Jacobians and the Hessian -------------------------------------------------------------------
def _basis_rows(out):
    """One-hot tensors shaped like `out`, one per element, in row-major order."""
    from ..ops.creation import zeros
    n = out.numel()
    for i in range(n):
        e = zeros(n, dtype=out.dtype)
        e[i] = 1
        yield e.view(out.shape)


def _stack_rows(rows, out_shape, in_shape, like):
    """Rows of d(out)/d(in), one per output element, as a tensor of out_shape + in_shape."""
    from ..ops.join import stack
    from ..ops.creation import zeros
    if not rows:
        return zeros(tuple(out_shape) + tuple(in_shape), dtype=like.dtype)
    return stack(rows).view(tuple(out_shape) + tuple(in_shape))


def _check_chunk_size(chunk_size, api: str) -> None:
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"{api}: `chunk_size` should be greater than 0.")


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None,
           _preallocate_and_copy: bool = False):
    """``func`` -> a function returning the Jacobian of ``func`` with respect to the
    arguments at `argnums`, computed in reverse mode (one vector-Jacobian product per output
    element). Each output's Jacobian has shape ``output.shape + input.shape``."""
    _check_chunk_size(chunk_size, "jacrev")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _wrap_argnums(argnums, len(args))
        start = _levels.level_start()
        lifted: set = set()
        with enable_grad():
            diff = tree_map(lambda x: _levels.lift(x, lifted), _select(args, positions))
            output = _levels.call(func, *_replace(args, positions, diff), **kwargs)
            output, aux = _split_aux(output, has_aux, "jacrev(f, ...)(*args)")
            flat_out, out_spec = tree_flatten(output)
            flat_in, in_spec = tree_flatten(diff)
            _vjp_outputs(flat_out)   # (torch's jacrev reports through its vjp)
            per_output = []
            for o in flat_out:
                rows = [[] for _ in flat_in]
                for e in _basis_rows(o):
                    for k, g in enumerate(_grads_of([o], flat_in, [e])):
                        rows[k].append(g)
                per_output.append([_levels.unwrap(_stack_rows(r, o.shape, x.shape, o),
                                                  start, lifted)
                                   for r, x in zip(rows, flat_in)])
        jac = tree_unflatten([tree_unflatten(j, in_spec) for j in per_output], out_spec)
        if has_aux:
            return jac, tree_map(lambda t: _levels.unwrap(t, start, lifted), aux)
        return jac

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """``func`` -> a function returning the Jacobian of ``func`` with respect to the
    arguments at `argnums`, computed in forward mode (one Jacobian-vector product per input
    element). Each output's Jacobian has shape ``output.shape + input.shape``."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _wrap_argnums(argnums, len(args))
        diff = _select(args, positions)
        flat_in, in_spec = tree_flatten(diff)
        for x in flat_in:
            if not _is_tensor(x):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")

        def at(*flat):
            new = tree_unflatten(list(flat), in_spec)
            return _levels.call(func, *_replace(args, positions, new), **kwargs)

        from ..ops.creation import zeros_like
        columns = []   # per input: a list (per element) of flat outputs' tangents
        output = aux = None
        for k, x in enumerate(flat_in):
            cols = []
            for e in _basis_rows(x):
                tangents = tuple(e if j == k else zeros_like(y) for j, y in enumerate(flat_in))
                res = _levels.call_mapped(randomness, jvp, at, tuple(flat_in), tangents,
                                          has_aux=has_aux)   # (torch: vmap of jvp)
                output = res[0]
                aux = res[2] if has_aux else None
                cols.append(tree_flatten(res[1])[0])
            columns.append(cols)
        if output is None:   # every differentiated input is empty: evaluate once for shapes
            output = at(*flat_in)
            output, aux = _split_aux(output, has_aux, "jacfwd(f, ...)(*args)")
        flat_out, out_spec = tree_flatten(output)
        from ..ops.join import stack
        from ..ops.creation import zeros
        per_output = []
        for i, o in enumerate(flat_out):
            jac_in = []
            for x, cols in zip(flat_in, columns):
                if cols:   # elements along the last axis: out_shape + (numel,) -> + in_shape
                    j = stack([c[i] for c in cols], dim=-1) if o.dim() else stack(
                        [c[i] for c in cols])
                    jac_in.append(j.reshape(tuple(o.shape) + tuple(x.shape)))
                else:
                    jac_in.append(zeros(tuple(o.shape) + tuple(x.shape), dtype=o.dtype))
            per_output.append(tree_unflatten(jac_in, in_spec))
        jac = tree_unflatten(per_output, out_spec)
        return (jac, aux) if has_aux else jac

    return wrapper


def hessian(func, argnums=0):
    """``jacfwd(jacrev(func, argnums), argnums)``: second derivatives, forward over reverse."""
    return jacfwd(jacrev(func, argnums), argnums)
