"""``torch.library``: user-defined operators (``custom_op``, ``Library``) with autograd.

Note [Custom ops]
~~~~~~~~~~~~~~~~~
An op defined here is a ``CustomOpDef``: its schema (given, or inferred from type hints by
``infer_schema``), its kernels by device type, and the optional fake, backward and setup_context
functions. ``torch.ops.<ns>.<name>.default`` is an ``OpOverload`` whose call is
``CustomOpDef._dispatch``, which does in one place what torch's dispatcher does in several keys:

1. bind the arguments to the schema (the dispatcher's errors, ``_schema.FunctionSchema.bind``);
2. Autograd: if grad mode is on and a positional tensor argument (or one inside a tensor list)
   requires grad, run through ``Generated``, an ``autograd.Function`` subclass made per op and
   named as torch names it, ``GeneratedBackwardFor_<ns>_<name>_default``; its node, and so each
   output's ``grad_fn``, is ``GeneratedBackwardFor_<ns>_<name>_defaultBackward``. Everything
   autograd.Function does applies unchanged (dyngrad/autograd/function.py): forward runs under
   no_grad, ``setup_context`` fills the ctx there, integer outputs get no history, missing output
   gradients reach ``backward`` as zeros, a differentiable ``backward`` gives double backward. As
   in torch the Function gets one extra, last argument (the keyword-only arguments and the
   tensor-list layout), so ``ctx.needs_input_grad`` has one more ``False`` in setup_context, and
   ``backward`` sees it without that entry. Otherwise the kernel runs under no_grad (a custom_op
   always has this autograd kernel: backward without ``register_autograd`` raises torch's error);
3. ADInplaceOrView: each argument the schema marks written (``Tensor(a!)``) has its version
   bumped once before the kernel runs;
4. the kernel: the one for the inputs' device type, else the default one. A custom_op's kernel
   may not return an input or a tensor that shares memory with an input or another output
   (torch's aliasing check).

Ops made by ``Library.define`` get step 2 only after ``register_autograd``; until then the
kernel runs with grad mode as it is, so the ops it calls record their own nodes (torch's
"autograd kernel was not registered" fallback, without its warning at backward).

Under vmap, an op with a ``register_vmap`` rule runs as a custom Function with a ``vmap``
staticmethod does (Note [A custom Function's vmap rule] in autograd/_function_vmap.py): where the
vmap is the innermost transform the rule replaces the op before step 2, its ops recorded as
ordinary ones; otherwise it stands in for the kernel in step 4. An op without a rule runs sample
by sample, its autograd.Function included, as torch's batched fallback runs it outside the
transforms; a ``grad`` or ``jvp`` running inside the vmap still refuses that Function, as torch's
does (it is written without ``setup_context``).
"""
from __future__ import annotations

import contextlib
import inspect
import weakref

from . import _ops
from ..autograd import _function_vmap
from ._ops import OpOverload, OpOverloadPacket  # noqa: F401
from ._schema import FunctionSchema, infer_schema

__all__ = ["custom_op", "CustomOpDef", "Library", "define", "impl", "register_autograd",
           "register_fake", "register_kernel", "register_vmap", "infer_schema", "opcheck",
           "OpCheckError"]

OPDEFS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_KEEP: dict = {}            # "ns::name" -> CustomOpDef (torch's registry keeps ops alive)
_PENDING_IMPLS: dict = {}   # impls given before their op's define: "ns::name" -> [(key, fn)]
_DEF_NAMESPACES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _tensor_cls():
    from .. import Tensor
    return Tensor


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wrap `fn` into a custom operator ``name`` ("namespace::name"); see Note [Custom ops]."""
    def inner(fn):
        schema_str = infer_schema(fn, mutates_args=mutates_args) if schema is None else schema
        namespace, opname = name.split("::")
        result = CustomOpDef(namespace, opname, schema_str, fn)
        if schema is not None:
            expected = {a.name for a in result._fs.arguments if a.is_write}
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                    f"`schema={schema}. The schema suggests that the op mutates {expected}which "
                    "is different from what was provided to us in `mutates_args`. Please make "
                    "these consistent.")
        result.register_kernel(device_types)(fn)
        return result
    return inner if fn is None else inner(fn)


class CustomOpDef:
    """A custom operator (torch._library.custom_ops.CustomOpDef); call it like the op."""

    def __init__(self, namespace, name, schema, fn, *, _custom=True):
        self._namespace, self._name, self._schema = namespace, name, schema
        self._init_fn = fn
        self._custom = _custom   # custom_op: always an autograd kernel, aliasing checked
        self._has_autograd = _custom
        self._backend_fns: dict = {}
        self._disabled_kernel: set = set()
        self._abstract_fn = self._setup_context_fn = self._backward_fn = None
        self._autograd_kernel = None   # a Library.impl(..., "Autograd") kernel
        self._vmap_fn = None           # register_vmap's rule
        self._fs = FunctionSchema(f"{namespace}::{name}{schema}")
        if _custom and any(a.kwarg_only and a.base_type.startswith("Tensor")
                           for a in self._fs.arguments):
            raise NotImplementedError("custom_op with kwarg-only Tensor args. Please make your "
                                      f"tensors not kwarg-only. Got: {name}{schema}")
        self._opoverload = OpOverload(namespace, name, "default", self._dispatch, self._fs)
        self._generated = _generated_function(self)
        _ops.register(self._opoverload)
        OPDEFS[self._qualname] = _KEEP[self._qualname] = self
        for key, kernel in _PENDING_IMPLS.pop(self._qualname, ()):
            self._impl(kernel, key)

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    # -- registrations -------------------------------------------------------------------------
    def register_kernel(self, device_types, fn=None, /):
        """Use `fn` for inputs on `device_types` ("cpu", ..., or None: any device)."""
        def inner(fn):
            types_ = [device_types] if device_types is None or isinstance(device_types, str) \
                else list(device_types)
            for dt in types_:
                self._backend_fns[dt] = fn
            return fn
        return inner if fn is None else inner(fn)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True):
        """In the block, a disabled device kernel gives way to the function custom_op wrapped."""
        was_disabled = device_type in self._disabled_kernel
        (self._disabled_kernel.discard if enabled else self._disabled_kernel.add)(device_type)
        try:
            yield
        finally:
            (self._disabled_kernel.add if was_disabled else self._disabled_kernel.discard)(
                device_type)

    def register_fake(self, fn, /):
        """The fake ("meta") implementation: output metadata from input metadata."""
        self._abstract_fn = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """``backward(ctx, *grads)`` and ``setup_context(ctx, inputs, output)`` for the op."""
        if self._fs.is_mutable:
            raise RuntimeError(f"Cannot register autograd formula for non-functional operator "
                               f"{self} with schema {self._fs}. Please create a functional "
                               "operator and register an autograd formula for that.")
        self._backward_fn, self._setup_context_fn = backward, setup_context
        self._has_autograd = True

    def register_vmap(self, func=None, /):
        """``func(info, in_dims, *args, **kwargs) -> (output, out_dims)``: the op under vmap
        (Note [Custom ops], vmap). Usable as a decorator."""
        def register(func):
            self._vmap_fn = func
            return func
        return register if func is None else register(func)

    def _impl(self, fn, key):
        """``Library.impl``'s registration under dispatch key `key`."""
        key = key or "CompositeImplicitAutograd"
        if key in ("Autograd", "AutogradCPU"):
            self._autograd_kernel = fn
        elif key == "Meta":
            self._abstract_fn = fn
        elif key.lower() == "cpu":
            self._backend_fns["cpu"] = fn
        else:   # CompositeImplicitAutograd, CompositeExplicitAutograd
            self._backend_fns[None] = fn

    # -- calls (Note [Custom ops]) ---------------------------------------------------------------
    def _dispatch(self, *args, **kwargs):
        from ..autograd import grad_mode
        args, kwargs = self._fs.bind(args, kwargs)
        if self._vmap_fn is not None:   # innermost under vmap: the rule replaces the op
            mapped = _vmap_rule_at(args)
            if mapped is not None and mapped[1]:
                return _function_vmap.call_rule(self._vmap_fn, args, mapped[0], kwargs=kwargs)
        if self._autograd_kernel is not None:
            return self._autograd_kernel(*args, **kwargs)
        if not self._has_autograd:
            return self._run(args, kwargs)
        flat, spec = _flatten(args)
        if grad_mode.is_grad_enabled() and any(isinstance(t, _tensor_cls()) and t.requires_grad
                                               for t in flat):
            meta = _Metadata(kwargs, spec)
            out = self._generated.apply(*flat, meta)
            return _unflatten_output(out, meta)
        with grad_mode.no_grad():
            return self._run(args, kwargs)

    def _run(self, args, kwargs):
        from ..autograd.graph import increment_version
        for a, v in zip(self._fs.arguments, list(args) + list(kwargs.values())):
            if a.is_write:
                for t in v if isinstance(v, (list, tuple)) else (v,):
                    if isinstance(t, _tensor_cls()):
                        increment_version(t)
        tensors = [t for t in _flatten(list(args) + list(kwargs.values()))[0]
                   if isinstance(t, _tensor_cls())]
        device = tensors[0].device.type if tensors else "cpu"
        dt = device if device in self._backend_fns else None
        if dt not in self._backend_fns:
            raise NotImplementedError(
                f"Could not run '{self._qualname}' with arguments from the '{device.upper()}' "
                "backend. This could be because the operator doesn't exist for this backend, or "
                "was omitted during the selective/custom build process (if using custom "
                "build).")
        if self._vmap_fn is not None:   # under vmap: the rule stands in for the kernel
            mapped = _vmap_rule_at(args)
            if mapped is not None:
                from ..autograd import grad_mode
                return _function_vmap.call_rule(self._vmap_fn, args, mapped[0], kwargs=kwargs,
                                                as_forward=not grad_mode.is_grad_enabled())
        fn = self._init_fn if dt in self._disabled_kernel else self._backend_fns[dt]
        result = fn(*args, **kwargs)
        if self._custom and not self._fs._is_view_op():
            _check_aliasing(self._name, tensors, result)
        return result


def _vmap_rule_at(args):
    """``(randomness, innermost)`` of the vmap running when `args` hold a tensor for a rule
    to batch (autograd/_function_vmap.py), else None."""
    from ..func import _levels
    mapped = _levels.mapping()
    return mapped if mapped is not None and _function_vmap.has_tensor(args) else None


def _check_aliasing(name, inputs, result) -> None:
    """torch's _c_check_aliasing_constraint: outputs share memory with no input nor output."""
    outs = [t for t in _flatten(result if isinstance(result, tuple) else (result,))[0]
            if isinstance(t, _tensor_cls())]
    seen = [t._storage_obj() for t in inputs]
    for t in outs:
        storage = t._storage_obj()
        if any(storage is s for s in seen):
            raise RuntimeError(
                f"{name} (with implementation in {inspect.getmodule(_check_aliasing)}): The "
                "output of this custom operator (1) must not also be an input to this custom "
                "operator and (2) may not alias any inputs to this custom operator or other "
                "returns. The most common way to trigger this error is if we have y = "
                "custom_op(x) and y and x are the same Tensor. Please instead return a clone of "
                "the offending output tensor(s) (e.g. return x.clone()) or refactor the custom "
                "operator to not return y.")
        seen.append(storage)


# ---------------------------------------------------------------------------------------------
# The autograd.Function behind an op (Note [Custom ops], step 2)
# ---------------------------------------------------------------------------------------------
class _Metadata:
    """The Function's last argument: keyword-only arguments and where tensor lists were."""

    def __init__(self, kwargs, spec):
        self.keyword_only_args, self.input_spec = kwargs, spec
        self.output_spec = None


def _flatten(items):
    """Lists of tensors spread out; spec: per item None (as is) or its length."""
    Tensor = _tensor_cls()
    flat, spec = [], []
    for it in items:
        if isinstance(it, list) and all(isinstance(t, Tensor) for t in it):
            flat.extend(it)
            spec.append(len(it))
        else:
            flat.append(it)
            spec.append(None)
    return flat, spec


def _unflatten(flat, spec) -> list:
    out, i = [], 0
    for n in spec:
        if n is None:
            out.append(flat[i])
            i += 1
        else:
            out.append(list(flat[i:i + n]))
            i += n
    return out


def _unflatten_output(out, meta):
    if meta.output_spec is None:
        return out
    items = _unflatten(list(out) if isinstance(out, tuple) else [out], meta.output_spec[0])
    return tuple(items) if meta.output_spec[1] else items[0]


def _generated_function(opdef):
    from ..autograd.function import Function
    op = opdef._opoverload
    has_kwarg_only = any(a.kwarg_only for a in opdef._fs.arguments)

    def forward(ctx, *args):
        meta, args = args[-1], args[:-1]
        args = tuple(_unflatten(list(args), meta.input_spec))
        kwargs = meta.keyword_only_args
        ctx._pt_input_spec = meta.input_spec
        result = opdef._run(args, kwargs)
        if opdef._setup_context_fn:
            if has_kwarg_only:
                opdef._setup_context_fn(ctx=ctx, inputs=args, keyword_only_inputs=kwargs,
                                        output=result)
            else:
                opdef._setup_context_fn(ctx=ctx, inputs=args, output=result)
        is_tuple = isinstance(result, tuple)
        items = list(result) if is_tuple else [result]
        if any(isinstance(r, list) for r in items):   # tensor lists: flat outputs
            flat, spec = _flatten(items)
            meta.output_spec = (spec, is_tuple)
            ctx._pt_output_spec = spec
            return tuple(flat)
        return result

    def backward(ctx, *grads):
        if not opdef._backward_fn:
            raise RuntimeError(f"Trying to backward through {op} but no autograd formula was "
                               "registered. Please use register_autograd to add one.")
        spec = getattr(ctx, "_pt_output_spec", None)
        if spec is not None:
            grads = _unflatten(list(grads), spec)
        prev = ctx.needs_input_grad
        input_spec = ctx._pt_input_spec
        try:
            ctx.needs_input_grad = tuple(_unflatten(list(prev[:-1]), input_spec))
            result = opdef._backward_fn(ctx, *grads)
        finally:
            ctx.needs_input_grad = prev
        result = result if isinstance(result, tuple) else (result,)
        flat = []
        for g, n in zip(result, input_spec + [None] * len(result)):
            if n is not None and isinstance(g, (list, tuple)):
                flat.extend(g)
            elif n is not None and g is None:
                flat.extend([None] * n)
            else:
                flat.append(g)
        return (*flat, None)

    name = f"GeneratedBackwardFor_{op._namespace}_{op._opname}_{op._overloadname}"
    cls = type(name, (Function,), {"forward": staticmethod(forward),
                                   "backward": staticmethod(backward),
                                   "_vmap_fallback": True})
    return cls


# ---------------------------------------------------------------------------------------------
# Library and the functional registration API
# ---------------------------------------------------------------------------------------------
class Library:
    """A group of definitions/implementations in a namespace (torch.library.Library)."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == "DEF":   # (a Library torch has garbage-collected no longer holds ns)
            if _DEF_NAMESPACES.get(ns) is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    "define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.")
            _DEF_NAMESPACES[ns] = self
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Define the op `schema` ("name(Tensor x) -> Tensor"); returns its name."""
        name = schema.split("(")[0].strip()
        opname = name.split(".")[0]
        old = OPDEFS.get(f"{self.ns}::{opname}")
        if old is not None and not old._custom:
            raise RuntimeError(f"Tried to register an operator ({self.ns}::{schema}) with the "
                               "same name and overload name multiple times. Each overload's "
                               "schema should only be registered with a single call to def().")
        CustomOpDef(self.ns, opname, schema[len(name):].strip(), None, _custom=False)
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Register `fn` as the op's kernel for `dispatch_key` ("CPU", "Autograd", ...)."""
        name = op_name if isinstance(op_name, str) else op_name._opname
        qualname = name if "::" in name else f"{self.ns}::{name.split('.')[0]}"
        opdef = OPDEFS.get(qualname)
        if opdef is None:
            _PENDING_IMPLS.setdefault(qualname, []).append((dispatch_key or self.dispatch_key,
                                                            fn))
        else:
            opdef._impl(fn, dispatch_key or self.dispatch_key)

    def _destroy(self):
        pass


def _opdef(op) -> CustomOpDef:
    """The CustomOpDef of `op`: a CustomOpDef, an OpOverload(Packet) or "ns::name"."""
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, (OpOverload, OpOverloadPacket)):
        op = op._qualified_op_name if isinstance(op, OpOverloadPacket) else \
            f"{op._namespace}::{op._opname}"
    ns, _, name = op.partition("::")
    opdef = OPDEFS.get(f"{ns}::{name.split('.')[0]}")
    if opdef is None:
        _ops.lookup(op)   # torch's AttributeError from torch.ops
    return opdef


def define(qualname, schema, *, lib=None, tags=()):
    """Define op `qualname` ("ns::name") with `schema` ("(Tensor x) -> Tensor")."""
    ns, name = qualname.split("::")
    (lib or Library(ns, "FRAGMENT")).define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """Register a kernel for op `qualname` on device `types` (usable as a decorator)."""
    if isinstance(qualname, Library):   # impl(lib, name, dispatch_key): the older form
        return lambda fn: (qualname.impl(types, fn, func or ""), fn)[1]

    def register(fn):
        types_ = [types] if isinstance(types, str) else list(types)
        ns = qualname.split("::")[0]
        for t in types_:
            Library(ns, "FRAGMENT").impl(qualname, fn, "CPU" if t == "cpu" else t)
        return fn
    if func is not None:
        register(func)
        return None
    return register


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register `func` as the kernel of `op` for `device_types`."""
    opdef = _opdef(op)
    return opdef.register_kernel(device_types, func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Register `backward` (and `setup_context`) as the op's autograd formula."""
    _opdef(op).register_autograd(backward, setup_context=setup_context)


def register_vmap(op, func=None, /, *, lib=None):
    """Register `func` as the op's vmap rule (usable as a decorator); see
    ``CustomOpDef.register_vmap``."""
    opdef = _opdef(op)
    if not opdef._custom and any(a.kwarg_only and a.base_type.startswith("Tensor")
                                 for a in opdef._fs.arguments):
        raise NotImplementedError(
            "register_vmap with kwarg-only Tensor args. In the original definition of the op, "
            f"please make your tensors not kwarg-only. Got: {opdef._fs}")
    return opdef.register_vmap(func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """Register the fake implementation of `op` (usable as a decorator)."""
    name = op if isinstance(op, str) else None
    opdef = OPDEFS.get(name.split(".")[0]) if name is not None else _opdef(op)
    if opdef is None:
        raise RuntimeError(f"operator {name} does not exist")
    return opdef.register_fake if func is None else opdef.register_fake(func)


from ._opcheck import OpCheckError, opcheck  # noqa: E402
