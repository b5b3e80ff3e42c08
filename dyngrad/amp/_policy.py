"""CPU autocast's casting policy: which ops run in the lower precision, which in float32, which
in their widest input dtype; and the hook through which the dispatcher applies it.

Note [Autocast]
~~~~~~~~~~~~~~~
torch registers a kernel under the AutocastCPU dispatch key for 127 ops (listed below, by
policy, as ``torch._C._dispatch_has_kernel_for_dispatch_key(op, "AutocastCPU")`` lists them;
tests/test_autocast.py checks the table against that list). Each casts its floating tensor
arguments (tensor lists too) and calls the op again with the autocast key excluded, so the ops
it is made of are not cast again; every other op falls through untouched. Here:

* The hook. ``torch.set_autocast_enabled("cpu", True)`` in any thread (amp/_state.py) installs
  ``dispatch`` as ``ops/_dispatch._autocast_hook`` and sets ``_intercept``: ``call`` and ``_run``
  then send each op through ``_dispatch._intercepted`` (which the profiler uses too), and
  the fast paths step aside (``_fast_off``). With autocast off nowhere, no op does any work
  for it: the dispatcher tests the one flag it tested before for the profiler.
* The ops. An OpSpec is found by its base name (``mm``, ``addmm``, ``nll_loss``, ``cat``); an
  op dyngrad writes as a composite Python function (``nn.functional.linear``, ``matmul``,
  ``conv2d``, ``fft.fft``, ``linalg.inv``...) is wrapped once, when the op modules are loaded
  (``wrap_composites``), by a function of its own signature that tests whether the hook is
  installed (one flag test while autocast is off; the wrapper also takes the function's place
  in its module, so the module's own calls and pickling by reference see it). torch's
  ``linear`` casts its weight before transposing it (``TBackward0`` above ``ToCopyBackward0``),
  which casting inside the composite's ``addmm`` could not give.
* The policies: ``lower`` casts float32 (and the other lower-precision) tensors to the autocast
  dtype; ``fp32`` casts float16/bfloat16 tensors to float32; ``promote`` casts to float32 when
  any floating input is float32, else to the autocast dtype. float64 tensors and non-floating
  ones are never cast. The casts are ``Tensor.to`` (``ToCopyBackward0`` in the graph, so a
  gradient comes back to a leaf in its own dtype); the op then runs with ``state.excluded`` set.
* The weight cache: a float32 leaf that requires grad (a parameter) cast to the autocast dtype
  with grad mode on is kept per thread, keyed by its id and checked by a weak reference, so
  every use in one autocast region shares one copy and one ``ToCopyBackward0`` node, as in
  torch; leaving the outermost region (``autocast_decrement_nesting() == 0``) clears it.

In-place calls and ``out=`` calls are not cast: torch registers autocast kernels for the
functional overloads only.
"""
from __future__ import annotations

import functools
import inspect
import sys
import types
import weakref

from .. import _dtypes as D
from ..autograd.grad_mode import _state as _grad_state
from ..ops import _dispatch
from . import _state
from ._state import state

LOWER = (
    "_addmm_activation", "_convolution", "_native_multi_head_attention", "addbmm", "addmm",
    "baddbmm", "bmm", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "linalg_vecdot", "linear", "matmul",
    "mkldnn_rnn_layer", "mm", "prelu", "scaled_dot_product_attention")
PROMOTE = ("cat", "index_copy", "stack")
FP32 = (
    "_grid_sampler_2d_cpu_fallback", "_lu_with_info", "adaptive_avg_pool3d",
    "adaptive_max_pool3d", "avg_pool3d", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "cdist", "cholesky", "cholesky_inverse",
    "cholesky_solve", "cosine_embedding_loss", "cross_entropy_loss", "ctc_loss",
    "fake_quantize_per_tensor_affine", "fft_fft", "fft_fft2", "fft_fftn", "fft_hfft", "fft_ifft",
    "fft_ifft2", "fft_ifftn", "fft_ihfft", "fft_irfft", "fft_irfft2", "fft_irfftn", "fft_rfft",
    "fft_rfft2", "fft_rfftn", "fractional_max_pool2d", "fractional_max_pool3d", "geqrf",
    "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "hinge_embedding_loss", "huber_loss",
    "inverse", "kl_div", "l1_loss", "linalg_cholesky", "linalg_cholesky_ex", "linalg_cond",
    "linalg_eig", "linalg_eigh", "linalg_eigvals", "linalg_eigvalsh",
    "linalg_householder_product", "linalg_inv", "linalg_inv_ex", "linalg_lstsq",
    "linalg_matrix_rank", "linalg_qr", "linalg_solve", "linalg_svd", "linalg_svdvals",
    "linalg_tensorinv", "linalg_tensorsolve", "lu_solve", "margin_ranking_loss", "max_pool3d",
    "max_unpool2d", "max_unpool3d", "mse_loss", "multi_margin_loss", "multilabel_margin_loss",
    "multilabel_margin_loss_forward", "nanquantile", "nll_loss", "nll_loss2d", "orgqr", "ormqr",
    "pinverse", "poisson_nll_loss", "polar", "prod", "qr", "quantile", "reflection_pad1d",
    "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "smooth_l1_loss", "soft_margin_loss", "stft", "svd", "trace", "triangular_solve",
    "triplet_margin_loss", "view_as_complex")

POLICY = {**{n: "lower" for n in LOWER}, **{n: "fp32" for n in FP32},
          **{n: "promote" for n in PROMOTE}}
# ops torch writes with one of those inside its kernel, below autograd, so that autocast
# casts their inputs as that op's (torch.sparse.mm and addmm are an addmm): dyngrad's op,
# the op whose policy it takes
_INSIDE = {"_sparse_addmm": "addmm"}

# torch's aten name -> the public names dyngrad gives the composite that plays its part
_PUBLIC = {"cross_entropy_loss": ("nn.functional.cross_entropy",), "_lu_with_info": ("lu",),
           "matmul": ("matmul", "linalg.matmul")}
# ops dyngrad declares as an OpSpec whose public function checks dtypes before calling it:
# the function is wrapped too
_SPEC_FRONTS = {"polar": ("polar",), "view_as_complex": ("view_as_complex",)}


def _public_names(name: str):
    if name in _PUBLIC:
        return _PUBLIC[name]
    for prefix in ("linalg", "fft"):
        if name.startswith(prefix + "_"):
            return (prefix + "." + name[len(prefix) + 1:],)
    return (name, "nn.functional." + name)


# -- casting -------------------------------------------------------------------------------------
def _eligible(t, Tensor) -> bool:
    """torch's is_eligible: a floating (not float64) CPU tensor."""
    return isinstance(t, Tensor) and t.dtype.is_floating_point and t.dtype is not D.float64


def _cached_cast(t, dtype, low):
    """torch's cached_cast: `t` in `dtype`; a float32 leaf parameter's lower-precision copy is
    made once per autocast region (Note [Autocast])."""
    if t.dtype is dtype:
        return t
    if dtype is low and t.dtype is D.float32 and t._requires_grad and t.grad_fn is None \
            and t._base is None and state.cache_enabled and _grad_state.grad_enabled:
        hit = state.cache.get(id(t))
        if hit is not None and hit[0]() is t:
            return hit[1]
        cast = t.to(dtype)
        state.cache[id(t)] = (weakref.ref(t), cast)
        return cast
    return t.to(dtype)


def _cast_all(value, dtype, low, Tensor):
    if isinstance(value, Tensor):
        return _cached_cast(value, dtype, low) if _eligible(value, Tensor) else value
    if type(value) in (list, tuple):
        return type(value)(_cast_all(v, dtype, low, Tensor) for v in value)
    return value


def _widest(args, kwargs, low, Tensor):
    """torch's promote_type for the promote policy: float32 if any eligible tensor is
    float32, else the lower-precision dtype (float64 tensors are ignored)."""
    dtype = low
    stack = list(args) + list(kwargs.values())
    while stack:
        v = stack.pop()
        if type(v) in (list, tuple):
            stack.extend(v)
        elif _eligible(v, Tensor):
            if v.dtype is D.float32:
                return D.float32
            if v.dtype is not low:
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return dtype


def run_cast(policy: str, fn, args, kwargs):
    """Cast `args` and `kwargs` by `policy` and call ``fn`` on them with autocast excluded."""
    from .._tensor import Tensor
    low = _state.get_autocast_dtype("cpu")
    dtype = low if policy == "lower" else D.float32 if policy == "fp32" else \
        _widest(args, kwargs, low, Tensor)
    args = tuple(_cast_all(a, dtype, low, Tensor) for a in args)
    if kwargs:
        kwargs = {k: _cast_all(v, dtype, low, Tensor) for k, v in kwargs.items()}
    state.excluded = True
    try:
        return fn(*args, **kwargs)
    finally:
        state.excluded = False


# -- the dispatcher's hook -----------------------------------------------------------------------
PASS = _dispatch._amp_pass   # what ``dispatch`` returns for an op it leaves alone


def dispatch(spec, args, kwargs):
    """The dispatcher's hook while CPU autocast is on in some thread (Note [Autocast]): the
    op's result when its policy applies, else PASS."""
    policy = POLICY.get(spec.base) or POLICY.get(_INSIDE.get(spec.base))
    if policy is None or not state.cpu or state.excluded or (kwargs and "out" in kwargs):
        return PASS
    return run_cast(policy, spec, args, kwargs)


def _set_hook(on: bool) -> None:
    _dispatch.set_autocast_hook(dispatch if on else None)


_state.on_cpu_change = _set_hook


def _wrap(policy: str, fn):
    """`fn` behind a function of its own signature (so that a call binding wrong arguments
    fails as the call of `fn` itself would, and nothing is packed while autocast is off) that
    casts by `policy` while CPU autocast is on in this thread. An ``out=`` call is not cast."""
    sig = inspect.signature(fn, follow_wrapped=False)   # (a parser's (*args, **kwargs) too)
    env = {"_fn": fn, "_policy": policy, "_dispatch": _dispatch, "_state": state,
           "_run_cast": run_cast,
           "__name__": __name__}   # (a dyngrad frame: warnings skip it to the user's line)
    params, positional, keywords, call, star = [], [], [], [], False
    for p in sig.parameters.values():
        text = p.name
        if p.default is not p.empty:
            env["_d_" + p.name] = p.default
            text += "=_d_" + p.name
        if p.kind is p.VAR_POSITIONAL:
            text, star = "*" + p.name, True
            positional.append(text)
            call.append(text)
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + p.name
            keywords.append(text)
            call.append(text)
        elif p.kind is p.KEYWORD_ONLY:
            if not star:
                params.append("*")
                star = True
            keywords.append(f"{p.name!r}: {p.name}")
            call.append(f"{p.name}={p.name}")
        else:
            positional.append(p.name)
            call.append(p.name)
        params.append(text)
        if p.kind is p.POSITIONAL_ONLY and not any(
                q.kind is q.POSITIONAL_ONLY for q in list(sig.parameters.values())[
                    list(sig.parameters).index(p.name) + 1:]):
            params.append("/")
    var_kw = [p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
    out = "out is None and " if "out" in sig.parameters else \
        f"{var_kw[0]}.get('out') is None and " if var_kw else ""
    src = (f"def {fn.__name__}({', '.join(params)}):\n"
           f"    if {out}_dispatch._autocast_hook is not None and _state.cpu "
           f"and not _state.excluded:\n"
           f"        return _run_cast(_policy, _fn, ({', '.join(positional)},), "
           f"{{{', '.join(keywords)}}})\n"
           f"    return _fn({', '.join(call)})\n")
    # (a trampoline of fn's signature, made once per composite)
    exec(compile(src, f"<autocast trampoline of {fn.__qualname__}>", "exec"), env)  # noqa: S102
    point = env[fn.__name__]
    functools.update_wrapper(point, fn)
    point.__autocast_policy__ = policy
    return point


def wrap_composites(functions: dict, methods: dict, specs: dict, namespace: dict) -> None:
    """Wrap the composites that play the part of an op of the policy table (Note [Autocast])
    in the registry's tables and in `namespace` (``dyngrad.ops``'s, which the Python operators
    read); an op dyngrad declares as an OpSpec is the dispatcher's (``dispatch``)."""
    bases = {s.base for s in specs.values()}
    made = {}   # id(fn) -> its wrapper: a function that is also the method stays one object
    for name, policy in POLICY.items():
        for public in _SPEC_FRONTS.get(name, ()) if name in bases else _public_names(name):
            for table in (functions, methods, namespace):
                fn = table.get(public)
                if type(fn) is types.FunctionType and not hasattr(fn, "__autocast_policy__"):
                    if id(fn) not in made:
                        made[id(fn)] = _wrap(policy, fn)
                        # the module defining fn holds the wrapper in its place, so that its
                        # own calls see autocast and pickling by reference finds the wrapper
                        home = sys.modules.get(fn.__module__)
                        if getattr(home, fn.__qualname__, None) is fn:
                            setattr(home, fn.__qualname__, made[id(fn)])
                    table[public] = made[id(fn)]
