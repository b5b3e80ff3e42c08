"""``torch.overrides``: the ``__torch_function__`` protocol, by which a Tensor subclass (or any
object with a ``__torch_function__`` classmethod) takes over the ops it is given.

Note [__torch_function__]
~~~~~~~~~~~~~~~~~~~~~~~~~
An op called with an argument whose type defines ``__torch_function__`` (a Tensor subclass, a
tensor-like object) does not run: each such type's ``__torch_function__(func, types, args,
kwargs)`` is asked in turn (a subclass before its base class), and the first answer other than
``NotImplemented`` is the op's result. ``func`` is the public function that was called
(``dyngrad.add``; the method ``Tensor.mul`` for ``x.mul(y)`` and ``x * y``), ``types`` the
types asked. When they all refuse, torch's TypeError ("Multiple dispatch failed"); an
operator returns NotImplemented instead, so Python raises its own.

``Tensor.__torch_function__``, the one a subclass inherits, runs ``func`` inside
``DisableTorchFunctionSubclass()`` (so that the op itself, and every op it calls, runs as for
plain tensors) and gives each tensor of the result the caller's class (``_convert``, by
``as_subclass``: an alias, node AliasBackward0, as in torch). That is how ``m + 1`` stays an
``M``. ``nn.Parameter`` opts out (``_disabled_torch_function_impl``): ``p * 2`` is a Tensor.

Where dyngrad asks, each public call once (what it calls runs with the protocol off):

- every op of the op registry, whether called as a function, a method, an operator or an
  in-place method: the dispatcher's one intercepting entry (``_intercepted`` in
  ops/_dispatch.py). It is switched on while instances of classes with a
  ``__torch_function__`` of their own are alive (``note_instance`` counts them, a weakref
  finalizer each), so that a program without one keeps the fast paths; meanwhile every op
  takes the general path;
- the public functions and methods written in Python, in the frame that words their parser
  errors (``explaining`` in ops/_arg_parser.py, ``_as_method`` in _tensor.py): ``cat``,
  ``zeros_like``, ``new_zeros``, ``sort``;
- ``detach``, ``.data``, ``copy.deepcopy``, pickling, ``in`` and ``reversed``, through
  ``asks``.

An argument that is no Tensor but has a ``__torch_function__`` (a tensor-like, as in torch's
"Extending torch" example) is asked once the call fails on it, by the outermost public function
(``enter``/``leave`` count the depth), or by the registry op called directly.

What differs from torch: a function written in Python that is published without such a
frame (``F.linear``, ``F.softmax``, ``F.cross_entropy``, ``x @ y``, ``x[0]``, ``einsum``) asks
with the ops it calls (``mm``, ``_softmax``, ``select``...), where torch asks with the function
itself; a subclass's result is the same. Attribute reads (``x.grad``, ``x.shape``), and methods
that return the tensor itself without an op (``contiguous`` or ``float`` of a tensor that
already is), do not ask. Gradients come back as plain tensors, as torch's ``.grad`` does;
torch's ``autograd.grad(..., create_graph=True)`` of a subclass gives the subclass.
"""
from __future__ import annotations

import functools
import threading
import warnings
import weakref

__all__ = ["get_default_nowrap_functions", "handle_torch_function", "has_torch_function",
           "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like"]

_state = threading.local()   # .disabled: how many Disable... blocks this thread is in
_live = False                # instances of classes with a __torch_function__ are alive
_alive = 0                   # how many


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The ``__torch_function__`` of a class that opts out (``nn.Parameter``): `func` runs as
    for plain tensors."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


class DisableTorchFunctionSubclass:
    """In the block, ops do not ask ``__torch_function__``: they run as for plain tensors."""

    def __enter__(self):
        _state.disabled = getattr(_state, "disabled", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.disabled -= 1


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """``DisableTorchFunctionSubclass``, and torch's modes too (dyngrad has no modes)."""


def _is_torch_function_enabled() -> bool:
    return not getattr(_state, "disabled", 0)


def _enabled_type(t: type) -> bool:
    method = getattr(t, "__torch_function__", None)
    return method is not None and getattr(method, "__func__", method) \
        is not _disabled_torch_function_impl


def note_instance(t) -> None:
    """`t`, an instance of a Tensor subclass, is being made: while instances of classes with a
    ``__torch_function__`` of their own are alive, the dispatcher asks (see the Note)."""
    global _live, _alive
    cls = type(t)
    from ._tensor import Tensor
    if cls is Tensor or not _enabled_type(cls):
        return
    _alive += 1
    weakref.finalize(t, _forget_instance).atexit = False
    if not _live:
        from .ops import _dispatch
        _live = True
        _dispatch.set_torch_function(True)


def is_counted_by(ref) -> bool:
    """Whether weak reference `ref` is ``note_instance``'s (``swap_tensors`` does not count
    it among a tensor's weak references, which torch's instance would not have)."""
    finalizer = getattr(ref, "__callback__", None)
    info = finalizer.peek() if isinstance(finalizer, weakref.finalize) else None
    return info is not None and info[1] is _forget_instance


def _forget_instance() -> None:
    global _live, _alive
    _alive -= 1
    if not _alive:   # (the fast paths apply again)
        from .ops import _dispatch
        _live = False
        _dispatch.set_torch_function(False)


def asks(func):
    """`func`, a public function written in Python that makes tensors without a registry op
    on its input (``detach``, ``.data``, ``copy.deepcopy``), made to ask ``__torch_function__``
    as one op, as torch's does (functions of the registry's tables ask through the parser's
    frame instead: ``explaining`` in ops/_arg_parser.py)."""
    @functools.wraps(func)
    def public(*args, **kwargs):
        if _live and _is_torch_function_enabled():
            overloaded = overloaded_among(args, kwargs)
            if overloaded:
                return dispatch(public, overloaded, args, kwargs)
        return func(*args, **kwargs)
    return public


def asking(args, kwargs) -> list:
    """The arguments of a call that ask ``__torch_function__``, when the protocol is on."""
    return overloaded_among(args, kwargs) if _is_torch_function_enabled() else []


def enter() -> int:
    """A public function written in Python starts (``explaining`` in ops/_arg_parser.py):
    the depth of such calls before it, so that only the outermost asks a tensor-like."""
    depth = getattr(_state, "depth", 0)
    _state.depth = depth + 1
    return depth


def leave(depth: int) -> None:
    _state.depth = depth


def asking_after_failure(args, kwargs) -> list:
    """After a call failed: the tensor-like arguments (no Tensors, with a
    ``__torch_function__``) to ask, unless an enclosing public function will ask them
    itself."""
    return [] if getattr(_state, "depth", 0) else asking(args, kwargs)


def _overloaded(values, found: list, plain) -> None:
    """Collect into `found` the arguments among `values` (lists and tuples looked into) whose
    type asks, each type once, a subclass before its base classes; `plain` types never ask."""
    for v in values:
        t = type(v)
        if t is list or t is tuple:
            _overloaded(v, found, plain)
            continue
        if t in plain or any(type(f) is t for f in found) or not _enabled_type(t):
            continue
        index = len(found)
        for i, f in enumerate(found):
            if issubclass(t, type(f)):
                index = i
                break
        found.insert(index, v)


def overloaded_among(args, kwargs) -> list:
    """The arguments of an op call that ask (torch's C++ rule: a plain Tensor does not)."""
    from ._tensor import Tensor
    found: list = []
    plain = (Tensor, int, float, bool, complex, str, type(None))
    _overloaded(args, found, plain)
    if kwargs:
        _overloaded(kwargs.values(), found, plain)
    return found


def dispatch(func, overloaded, args, kwargs):
    """Ask each overloaded argument's type in turn; torch's TypeError if none answers."""
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        method = arg.__torch_function__
        if getattr(method, "__self__", None) is arg:
            warnings.warn("Defining your `__torch_function__` as a plain method is deprecated and "
                          "will be an error in future, please define it as a classmethod.",
                          DeprecationWarning)
        result = method(func, types, args, kwargs or {})
        if result is not NotImplemented:
            return result
    listed = "\n".join(f"  - tensor subclass {t}" for t in types)
    error = TypeError(f"Multiple dispatch failed for '{_qualified_name(func)}'; all "
                      f"__torch_function__ handlers returned NotImplemented:\n\n{listed}\n\n"
                      "For more information, try re-running with TORCH_LOGS=not_implemented")
    error.torch_function_asked = True   # (an enclosing call that fails with it asks no more)
    raise error


def _qualified_name(func) -> str:
    """`func` as torch names it in its errors: ``torch.add``, ``torch.nn.functional.linear``."""
    import dyngrad
    name = getattr(func, "__name__", repr(func))
    for prefix, space in (("torch", dyngrad), ("torch.nn.functional", dyngrad.nn.functional),
                          ("torch.linalg", dyngrad.linalg), ("torch.special", dyngrad.special),
                          ("torch.fft", dyngrad.fft), ("torch.Tensor", dyngrad.Tensor)):
        if getattr(space, name, None) is func:
            return f"{prefix}.{name}"
    if not hasattr(dyngrad, name) and hasattr(dyngrad.Tensor, name):   # (an in-place method)
        return f"torch.Tensor.{name}"
    return f"torch.{name}"


# -- the public helpers (torch.overrides) --------------------------------------------------------
def is_tensor_like(inp) -> bool:
    """Whether `inp` is a Tensor or has a ``__torch_function__``."""
    from ._tensor import Tensor
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def has_torch_function(relevant_args) -> bool:
    """Whether an op given `relevant_args` would ask ``__torch_function__`` (not for plain
    Tensors, nor while it is disabled)."""
    if not _is_torch_function_enabled():
        return False
    from ._tensor import Tensor
    return any(type(a) is not Tensor and _enabled_type(type(a)) for a in relevant_args)


def has_torch_function_unary(a) -> bool:
    return has_torch_function((a,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def _get_overloaded_args(relevant_args) -> list:
    """torch's Python rule: every argument with a ``__torch_function__``, plain Tensors too."""
    found: list = []
    _overloaded(relevant_args, found, ())
    return found


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call ``__torch_function__`` of the overloaded arguments among `relevant_args` for
    ``public_api(*args, **kwargs)`` (what a Python function does when
    ``has_torch_function(relevant_args)``)."""
    overloaded = _get_overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{_qualified_name(public_api)}' on types "
                    f"that implement __torch_function__: {[type(a) for a in overloaded]}")


def get_default_nowrap_functions() -> set:
    """Functions whose results ``Tensor.__torch_function__`` leaves as they are."""
    from ._tensor import Tensor
    return {Tensor.grad.__get__}


def _convert(ret, cls):
    """`ret` with each tensor in it made a `cls` (``as_subclass``)."""
    from ._tensor import Tensor
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        return type(ret)([_convert(r, cls) for r in ret])
    return ret


def tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """``Tensor.__torch_function__``: run `func` as for plain tensors, and give its tensors
    the class `cls` (see the Note). ``NotImplemented`` when another of `types` is no base of
    `cls` (another subclass must answer)."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in get_default_nowrap_functions():
            return ret
        return _convert(ret, cls)
