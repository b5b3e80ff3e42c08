"""The op registry.

One ``defop`` declaration per op holds everything about it (STYLE.md §2): torch's schema name
and overload, the grad_fn node name, the promotion kind, the variants (function, method,
in-place ``op_``, ``out=``), what the backward needs saved, and the forward kernel on backend
arrays. The backward formula, written with dyngrad ops, attaches with ``@spec.backward``.

The dispatcher (``OpSpec.__call__`` → ``_run``, in ops/_dispatch.py) is the only place that

1. promotes dtypes (torch's rules, cached per dtype combination),
2. runs the forward kernel on backend arrays,
3. wraps outputs as Tensors,
4. (with autograd) records the graph node, snapshots versions and runs the in-place checks.

Ops that torch itself decomposes are plain functions over primitives (``composite``): they get
no node of their own, exactly as in torch.
"""
from __future__ import annotations

import inspect

from .. import _dtypes as D
from .._promotion import Promote, elementwise_dtypes, promote_types, scalar_dtype, _combine
from ..autograd import graph as _graph
from ..autograd.graph import node_class as _node_class
from ..backends import numpy_backend as _npb
from . import _dispatch, _unsigned
from ._dispatch import (_no_fast_path, _run, binary_fast_path, ternary_fast_path,
                        unary_fast_path)

OPS: dict = {}        # "add.Tensor" -> OpSpec
FUNCTIONS: dict = {}  # public name -> callable; dotted names ("linalg.inv") go to submodules
METHODS: dict = {}    # Tensor method name -> callable(self, ...)
_SPECS: dict = {}     # every OpSpec by name, the backward-only ones OPS leaves out too
INPLACE: dict = {}    # in-place variants by name ("add_"), also in METHODS

_Tensor = None        # set by _tensor.py once the class exists (avoids an import cycle)


def _bind_tensor_class(tensor_cls, wrap) -> None:
    """Tell the registry and the dispatcher the Tensor class and its wrapping function."""
    global _Tensor
    _Tensor = tensor_cls
    _dispatch._bind_tensor_class(tensor_cls, wrap)
    _graph._Tensor = tensor_cls


class OpSpec:
    """Everything the dispatcher needs to know about one op (one torch overload)."""

    __slots__ = ("name", "base", "node", "promote", "kernel", "inputs", "n_inputs", "variants",
                 "saves", "view", "signature", "_backward_fn", "differentiable", "_dtype_cache",
                 "_plans",
                 "diff_index", "_bind_plan", "writes_into",
                 "nondiff_outputs", "list_input", "nopromote", "__wrapped__", "doc",
                 "pointwise", "fast", "scalars", "optional",
                 "node_cls", "arg_positions", "arg_defaults", "saves_result",
                 "save_when", "save_plan", "link_requiring_only", "saved_outputs",
                 "kernel_dtypes", "jvp_fn", "ufunc", "layout_reversed", "array_view",
                 "wraps_scalars", "fast_path", "one_input_plain", "complex_autograd",
                 "max_positional", "min_args", "non_differentiable", "checked_scalars",
                 "bool_args", "out_overlap", "out_returns_none")

    def __init__(self, name, kernel, node, promote, inputs, variants, saves, view,
                 differentiable, nondiff_outputs, nopromote=(), pointwise=False, outputs=(),
                 kernel_dtypes=False, ufunc=None):
        self.name = name
        self.base = name.split(".")[0]
        self.kernel = kernel
        self.ufunc = ufunc   # Note [Kernels that are one ufunc] in _dispatch.py
        self.layout_reversed = False   # the result's layout follows the inputs last to first
        self.array_view = None   # a view op's NumPy twin: Note [Views NumPy...] in _dispatch.py
        self.wraps_scalars = True   # torch makes a Python number input an operand (_WRAPPED)
        # which Python numbers must fit the computation dtype (torch's checked conversion, as
        # clamp's bounds and where's values; add/mul wrap them): None, "int" or "all"
        self.checked_scalars = None
        # what an out= may share (Note [out= and memory overlap] in _dispatch.py): anything
        # (None: most reductions, as in torch), all but its own elements ("internal"), all but
        # those and an input's unless it is that input ("partial": the pointwise ops), or
        # nothing ("full": index_select...)
        self.out_overlap = "partial" if pointwise else "internal"
        # an op of several results whose out= variant returns nothing (split_copy's, as torch's)
        self.out_returns_none = False
        self.node = node
        self.promote = promote
        self.inputs = tuple(inputs)
        self.list_input = bool(self.inputs) and self.inputs[0].endswith("[]")
        self.n_inputs = len(self.inputs)
        self.variants = tuple(variants)
        # saves: names to save, or {name: input whose gradient needs it} to save it only then
        # (torch saves ``other`` for mul only when ``self`` requires grad, and so on)
        self.save_when = {}
        if isinstance(saves, dict):
            self.save_when = {n: self.inputs.index(w) for n, w in saves.items() if w is not None}
        self.saves = tuple(saves)
        self.view = view
        self.differentiable = differentiable
        # inputs that get an edge in the graph (None: all); torch's Scalar arguments get none
        self.diff_index = None if differentiable is None else tuple(
            self.inputs.index(n) for n in differentiable)
        self.nondiff_outputs = tuple(nondiff_outputs)
        # inputs that may not require grad while grad mode is on: (position, name, op name
        # in torch's message); see defop's non_differentiable
        self.non_differentiable = ()
        self._backward_fn = None
        self.jvp_fn = None   # forward-mode rule: see Note [JVP rules] in autograd/forward_ad.py
        self._dtype_cache = {}
        self._plans = {}   # the general path's promotion plans (_dispatch._general_plan)
        # inputs that keep their dtype and take no part in promotion (where's condition)
        self.nopromote = frozenset(self.inputs.index(n) for n in nopromote)
        self.pointwise = pointwise
        self.scalars = None  # indices of inputs that accept Python numbers (None: all)
        # inputs that may be None: those whose kernel parameter defaults to None (clamp's min)
        self.optional = frozenset(
            i for i, p in enumerate(list(inspect.signature(kernel).parameters.values())[1:])
            if i < len(self.inputs) and p.default is None)
        # the fast path serves ops whose inputs are all plain tensors taking part in promotion
        # the kernel returns each output in its final dtype (argmax's int64, var_mean's real
        # variance beside a complex mean): the dispatcher does not cast results
        self.kernel_dtypes = kernel_dtypes
        self.fast = not view and not self.list_input and not nopromote and not kernel_dtypes \
            and promote is not Promote.NONE and 1 <= self.n_inputs <= 2
        params = list(inspect.signature(kernel).parameters.values())[1:]  # drop xp
        self.signature = inspect.Signature(params)
        # how many arguments a call may pass by position, and must pass at all (None: any
        # number, a kernel taking *args): torch's "takes N positional arguments" counts
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.max_positional = None if any(p.kind is p.VAR_POSITIONAL for p in params) \
            else len(positional)
        self.min_args = sum(1 for p in params if p.default is p.empty
                            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
        # the flags (keepdim, sorted, ceil_mode...: parameters defaulting to a bool), which
        # torch's parser takes as bools only: (position or None for a keyword-only one, name)
        self.bool_args = () if view else tuple(
            (None if p.kind is p.KEYWORD_ONLY else i, p.name) for i, p in enumerate(params)
            if type(p.default) is bool)
        self._bind_plan = None
        self.writes_into = "_into" in self.signature.parameters
        # the node (ctx) reads the op's other arguments by name: positions after the inputs
        n_in = 0 if view else len(self.inputs)   # a view kernel has no `self` parameter
        others = [p for p in params[n_in:]]
        self.arg_positions = {p.name: i for i, p in enumerate(others)
                              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)}
        self.arg_defaults = {p.name: (None if p.default is p.empty else p.default)
                             for p in others}
        # saved outputs: "result" is the first; ops naming their outputs (max.dim's "values",
        # "indices") save them by name, as torch's _saved_indices
        names = tuple(outputs) or ("result",)
        self.saved_outputs = tuple((k, names.index(n) if n in names else 0)
                                   for k, n in enumerate(self.saves) if n in names or n == "result")
        self.save_plan = tuple((self.inputs.index(n), self.save_when.get(n, -1))
                               for n in self.saves if n != "result" and n not in names)
        self.link_requiring_only = node == "NotImplemented"
        self.saves_result = bool(self.saved_outputs)
        # a call with one input that requires grad and one output needs only _record_one
        self.one_input_plain = (self.diff_index in (None, (0,)) and not self.nondiff_outputs
                                and not self.list_input
                                and len(self.save_plan) <= 1)
        self.node_cls = _node_class(self) if node else None
        # False for the ops torch will not differentiate on complex results (_record refuses)
        self.complex_autograd = True
        self.__wrapped__ = kernel
        self.doc = kernel.__doc__
        # the fast path _run takes when `fast` (None where it does not apply); made last, as
        # it reads the declaration above
        self.fast_path = unary_fast_path(self, _no_fast_path) if self.n_inputs == 1 else \
            binary_fast_path(self, _no_fast_path) if self.n_inputs == 2 else \
            ternary_fast_path(self, _no_fast_path) if self.n_inputs == 3 and not pointwise \
            and len(outputs) <= 1 else None

    def backward(self, fn):
        """Decorator: attach the backward formula (on Tensors) to this op."""
        self.backward_fn = fn
        return fn

    @property
    def backward_fn(self):
        return self._backward_fn

    @backward_fn.setter
    def backward_fn(self, fn):
        self._backward_fn = fn
        if self.node_cls is not None:   # the engine calls it straight from the node
            self.node_cls._formula = None if fn is None else staticmethod(fn)   # (not a method)

    def numpy_view(self, fn):
        """Decorator: ``fn(array, *args)`` makes this view op's array with NumPy's own view
        methods, or returns None to leave the call to the geometry kernel (Note [Views NumPy
        makes directly] in _dispatch.py)."""
        self.array_view = fn
        return fn

    def jvp(self, fn):
        """Attach the forward-mode rule ``fn(ctx, *tangents)`` (usable as a decorator); see
        Note [JVP rules] in autograd/forward_ad.py."""
        self.jvp_fn = fn
        return fn

    def __reduce__(self):
        return spec_named, (self.name,)

    def __repr__(self) -> str:
        return f"<op {self.name} node={self.node}>"

    # -- calling -------------------------------------------------------------------------------
    __call__ = _dispatch.call   # (``_run(self, args, kwargs)``, one frame less)

    @property
    def __name__(self) -> str:   # (the function's name, as torch.add.__name__)
        return self.base

    def call_inplace(self, self_tensor, *args, **kwargs):
        return _run(self, (self_tensor,) + args, kwargs, self_tensor, inplace=True)

    def bind(self, args, kwargs):
        """Resolve keywords (torch's names, ``input`` for ``self``) to positions.

        A precomputed plan does the common case (no ``*args`` parameter, no error) in a few
        dict lookups; anything else, errors included, goes through ``inspect``'s binding."""
        if "input" in kwargs and "self" in self.signature.parameters:
            kwargs = dict(kwargs)
            kwargs["self"] = kwargs.pop("input")
        plan = self._bind_plan
        if plan is None:
            plan = self._bind_plan = _bind_plan(self.signature)
        if plan is not False:
            bound = _bind_fast(plan, args, kwargs)
            if bound is not None:
                return bound
        try:
            ba = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.base}() {e}") from None
        pos = []
        kw = {}
        for p in self.signature.parameters.values():
            if p.name not in ba.arguments:
                if p.kind is p.KEYWORD_ONLY:
                    continue
                if p.default is p.empty:
                    break
                pos.append(p.default)
                continue
            v = ba.arguments[p.name]
            if p.kind is p.KEYWORD_ONLY:
                kw[p.name] = v
            elif p.kind is p.VAR_POSITIONAL:
                pos.extend(v)
            else:
                pos.append(v)
        return tuple(pos), kw

    # -- dtypes --------------------------------------------------------------------------------
    def dtypes_for(self, key, inputs):
        """(computation numpy dtype, result numpy dtype) for these inputs; cached by `key`."""
        r = self._dtype_cache.get(key)
        if r is None:
            if self.promote is Promote.NONE:
                common = _input_dtypes(inputs)[0] if inputs else D.get_default_dtype()
                r = (common.np, common.np)
            else:
                common = _promoted([a for i, a in enumerate(inputs) if i not in self.nopromote])
                comp, res = elementwise_dtypes(self.promote, common)
                r = (comp.np, res.np)
            if common in D.LIMITED_UNSIGNED:   # Note [Limited unsigned dtypes]: a refusal
                # raises here, before the cache line below, so it is never cached
                _unsigned.check(self, common, inputs)
            self._dtype_cache[key] = r
        return r


def _bind_plan(signature):
    """(positional (name, default) pairs, keyword-only names) of a kernel signature, or False
    when it takes ``*args``/``**kwargs`` (those keep ``inspect``'s binding)."""
    positional, kwonly = [], []
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return False
        if p.kind is p.KEYWORD_ONLY:
            kwonly.append((p.name, p.default))
        else:
            positional.append((p.name, p.default))
    return tuple(positional), tuple(kwonly)


_EMPTY = inspect.Parameter.empty


def _bind_fast(plan, args, kwargs):
    """``OpSpec.bind`` without ``inspect``; None when the call has an error to report."""
    positional, kwonly = plan
    n = len(args)
    if n > len(positional):
        return None
    pos = list(args)
    used = 0
    for name, _ in positional[:n]:
        if name in kwargs:
            return None                   # given twice
    for name, default in positional[n:]:
        if name in kwargs:
            pos.append(kwargs[name])
            used += 1
        elif default is _EMPTY:
            return None                   # missing
        else:
            pos.append(default)
    kw = {}
    for name, default in kwonly:
        if name in kwargs:
            kw[name] = kwargs[name]
            used += 1
        elif default is _EMPTY:
            return None                   # a missing keyword-only argument
    if used != len(kwargs):
        return None                       # an unknown keyword
    return tuple(pos), kw


def _input_dtypes(inputs):
    return [a.dtype if isinstance(a, _Tensor) else scalar_dtype(a) for a in inputs
            if a is not None]


def _promoted(inputs):
    """torch's result_type over Tensors (dimensioned / 0-dim) and Python scalars."""
    dims = zero = wrapped = None
    for a in inputs:
        if isinstance(a, _Tensor):
            d = a.dtype
            if a._data.ndim:
                dims = d if dims is None else promote_types(dims, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        elif a is not None:
            d = scalar_dtype(a)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dims, _combine(zero, wrapped))


def clear_dtype_caches() -> None:
    """Forget cached promotions (the default dtype changed)."""
    for spec in OPS.values():
        spec._dtype_cache.clear()
        spec._plans.clear()


# ---------------------------------------------------------------------------------------------
# Declaring ops
# ---------------------------------------------------------------------------------------------
def defop(name: str, *, node: str | None = None, promote: Promote = Promote.DEFAULT,
          inputs=("self",), variants=("function", "method"), saves=(), view: bool = False,
          differentiable=None, nondiff_outputs=(), public: str | None = None,
          nopromote=(), pointwise: bool = False, scalars=None, outputs=(),
          kernel_dtypes: bool = False, ufunc: str | None = None, fast: bool | None = None,
          complex_autograd: bool = True, non_differentiable=(), autograd_name=None):
    """Declare a primitive op: the decorated function is its forward kernel on arrays.

    With ``view=True`` the kernel instead maps geometry to geometry (see ``_run_view``).
    ``pointwise=True`` gives results torch's layout (Note [Output layout of pointwise ops]).
    ``differentiable=("self",)`` names the inputs that get graph edges (default: all inputs);
    the others take part in promotion only, like torch's Scalar arguments (``x ** 2``).
    The backward formula returns one gradient per differentiable input, in order.
    ``scalars`` names the inputs that accept Python numbers (default: all), as torch's
    overloads do (``remainder.Scalar_Tensor`` takes a number ``self``; ``maximum`` none).
    ``outputs`` names a multi-output op's outputs (``("values", "indices")``) so that ``saves``
    can name them (torch's ``_saved_indices``); ``nondiff_outputs`` (output positions, such as
    indices) get no grad_fn. ``kernel_dtypes=True``: the kernel returns its outputs in their
    final dtypes (argmax's int64, var_mean's real variance beside a complex mean), uncast.

    ``name`` is torch's schema name with overload (``"sum.dim_IntList"``); ``public`` is the
    name the variants are installed under (default: the part before the dot). Variants:
    ``"function"`` (``dyngrad.NAME``), ``"method"`` (``Tensor.NAME``), ``"inplace"``
    (``Tensor.NAME_``), ``"out"`` (``out=`` accepted; always handled by the dispatcher).
    ``ufunc="add"``: the kernel, given its tensor arguments alone, is that backend ufunc (Note
    [Kernels that are one ufunc]). ``fast=True`` lets an op that does its own dtype checks
    (``promote=Promote.NONE``, such as ``mm``) take the fast paths when its one or two tensor
    arguments share a dtype (see Note [Hot path] in _dispatch.py). ``complex_autograd=False``:
    torch refuses to record the op on complex results ("<op> does not support automatic
    differentiation for outputs with complex dtype."), and so does ``_record``.
    ``non_differentiable=("weight",)`` names the inputs torch's derivatives declare
    non-differentiable: with grad mode on, one that requires grad is refused before the kernel
    runs ("The function '<autograd_name>' is not differentiable with respect to argument
    'weight'..."; ``autograd_name`` defaults to the op's base name).
    """

    def deco(kernel):
        spec = OpSpec(name, kernel, node, promote, inputs, variants, saves, view,
                      differentiable, nondiff_outputs, nopromote, pointwise, outputs,
                      kernel_dtypes, None if ufunc is None else getattr(_npb.xp, ufunc))
        if fast is not None:
            spec.fast = fast
        if not complex_autograd:   # recorded by _record alone, which makes the check
            spec.complex_autograd = spec.fast = spec.one_input_plain = False
        if scalars is not None:
            spec.scalars = frozenset(spec.inputs.index(n) for n in scalars)
        spec.non_differentiable = tuple((spec.inputs.index(n), n, autograd_name or spec.base)
                                        for n in non_differentiable)
        OPS[name] = spec
        _SPECS[name] = spec
        pub = public or spec.base
        if "function" in variants:
            FUNCTIONS[pub] = spec
        if "method" in variants:
            METHODS[pub] = spec
        if "inplace" in variants:
            METHODS[pub + "_"] = spec.call_inplace
            INPLACE[pub + "_"] = spec.call_inplace
        return spec

    return deco


def namespace(prefix: str) -> dict:
    """The functions published under ``prefix`` (``"linalg"``, ``"nn.functional"``), by their
    last name: what ``dyngrad.linalg`` or ``dyngrad.nn.functional`` re-export."""
    head = prefix + "."
    return {k[len(head):]: v for k, v in FUNCTIONS.items()
            if k.startswith(head) and "." not in k[len(head):]}


def picklable_by_name(module: str, functions: dict) -> None:
    """Make the plain functions a public module re-exports picklable by reference (a module
    holding ``F.relu``, saved whole with ``dyngrad.save``, as torch's modules are).

    pickle finds a function at ``fn.__module__`` + ``fn.__qualname__``; a wrapper made in a
    helper or published under another name is not there, so it takes this public address
    unless its own already leads to it. (OpSpecs pickle by their op name: ``__reduce__``.)"""
    import sys
    import types
    for name, fn in functions.items():
        if type(fn) is not types.FunctionType:
            continue
        home = sys.modules.get(fn.__module__)
        if home is not None and getattr(home, fn.__qualname__, None) is fn:
            continue
        fn.__module__, fn.__qualname__ = module, name


def spec_named(name: str) -> "OpSpec":
    """The OpSpec declared as `name` (unpickling one)."""
    return _SPECS[name]


def composite(name: str, *, method: bool = True, function: bool = True, inplace: str | None = None):
    """Declare an op torch decomposes into primitives: a plain function, no node of its own.

    A dotted ``name`` (``"nn.functional.gelu"``) publishes the function in that submodule only
    (no method)."""
    if "." in name:
        method = False

    def deco(fn):
        if function:
            FUNCTIONS[name] = fn
        if method:
            METHODS[name] = fn
        return fn

    return deco
