"""torch.jit as torch runs it with TorchScript disabled (``PYTORCH_JIT=0``).

dyngrad has no TorchScript compiler: its graphs are the autograd graphs its ops record, and its
code is the Python it runs. torch documents a mode for debugging where every script and trace
annotation is switched off and the program runs eagerly: ``PYTORCH_JIT=0``. This module is
that mode. ``script``, ``trace``, ``trace_module`` and ``script_method`` hand back what they
were given (after torch's DeprecationWarning), ``is_scripting()`` and ``is_tracing()`` are
False, the modifiers (``ignore``, ``unused``, ``export``) mark a function as torch's do and
return it, ``annotate`` and ``Attribute`` return their value, and ``ScriptModule`` is an
``nn.Module``. So code written for TorchScript runs, with the same results as the eager code
it is; what needs a compiled program (``.graph``, ``.code``, saving or loading a TorchScript
archive, freezing) is not here, and raises as torch's disabled mode does for an eager module.
"""
from __future__ import annotations

import functools
import os
import typing
import warnings

from ..nn.modules.module import Module as _Module

Final = typing.Final

__all__ = ["Attribute", "Error", "Final", "ScriptFunction", "ScriptModule", "ScriptWarning",
           "TracerWarning", "annotate", "export", "fork", "freeze", "ignore", "interface",
           "is_scripting", "is_tracing", "load", "optimize_for_inference", "save", "script",
           "script_if_tracing", "script_method", "trace", "trace_module", "unused", "wait"]


class FunctionModifiers:
    """How TorchScript would treat a function (the ``_torchscript_modifier`` the decorators
    set), as torch's names say it."""
    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from an exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = ("if this method is not scripted, copy the python method onto the "
                              "scripted model")


class Error(Exception):
    """torch.jit.Error: an exception raised inside a TorchScript program."""


class TracerWarning(Warning):
    """A warning the tracer gives about code it cannot follow."""


class ScriptWarning(Warning):
    """A warning about code TorchScript compiles differently."""


class ScriptModule(_Module):
    """A scripted module. With TorchScript off it is an ``nn.Module`` like any other (old-style
    subclasses with ``@script_method`` methods run them eagerly)."""

    def __init__(self, arg=None):
        super().__init__()


class RecursiveScriptModule(ScriptModule):
    def __init__(self, arg=None):
        super().__init__()


class ScriptFunction:
    """A compiled function; never made here (``script`` returns the function itself)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("No constructor defined")


def _deprecated(name: str) -> None:
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=3)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Compile `obj` with TorchScript: here (TorchScript disabled) `obj` itself."""
    _deprecated("script")
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Trace `func` on example inputs: here (tracing disabled) `func` itself, not run."""
    _deprecated("trace")
    return func


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
                 _compilation_unit=None, example_inputs_is_kwarg=False, _store_inputs=True):
    """Trace the methods of `mod` named by `inputs`: here `mod` itself."""
    _deprecated("trace_method")
    return mod


def script_method(fn):
    """Mark a ScriptModule method for compilation: here `fn` itself."""
    _deprecated("script_method")
    return fn


def script_if_tracing(fn):
    """Compile `fn` only when called while tracing: never, here; a wrapper calling `fn`."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def interface(obj):
    """Declare a TorchScript interface class. TorchScript reads the class's source, as here
    (after torch's DeprecationWarning), and refuses anything but a class."""
    warnings.warn("`torch.jit.interface` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    import inspect
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    try:   # (torch's compiler reads the class's source)
        inspect.getsourcelines(obj)
    except OSError as e:
        raise OSError(f"Can't get source for {obj}. TorchScript requires source access in order "
                      "to carry out compilation, make sure original .py files are "
                      "available.") from e
    return obj


def is_scripting() -> bool:
    """Whether the code runs inside a TorchScript program: never, here."""
    return False


def is_tracing() -> bool:
    """Whether the code runs under the tracer: never, here."""
    return False


def ignore(drop=False, **kwargs):
    """Leave a function to Python when its module is scripted (``@ignore``), or with
    ``drop=True`` (deprecated) replace it by a raise (as ``@unused``). The function is marked
    with its ``_torchscript_modifier`` and returned."""
    if callable(drop):
        drop._torchscript_modifier = FunctionModifiers.IGNORE
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got "
                           f"{drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now "
                      "drop the function call on compilation. Use torch.jit.unused now. {}",
                      FutureWarning, stacklevel=2)
        drop = drop_on_export
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning,
                      stacklevel=2)

    def decorator(fn):
        fn._torchscript_modifier = FunctionModifiers.UNUSED if drop else FunctionModifiers.IGNORE
        return fn
    return decorator


def unused(fn):
    """Mark a function (or a property's getter and setter) that scripting replaces by a
    raise; eager code calls it as it is."""
    if isinstance(fn, property):
        fn.fget._torchscript_modifier = FunctionModifiers.UNUSED
        if fn.fset:
            fn.fset._torchscript_modifier = FunctionModifiers.UNUSED
        return fn
    fn._torchscript_modifier = FunctionModifiers.UNUSED
    return fn


def export(fn):
    """Mark a method to be compiled even when forward does not call it."""
    fn._torchscript_modifier = FunctionModifiers.EXPORT
    return fn


def annotate(the_type, the_value):
    """Give TorchScript the type of `the_value`; eager code gets `the_value` back."""
    return the_value


def Attribute(value, type):  # noqa: N802  (torch's name)
    """Declare a ScriptModule attribute's type; eager code gets `value` back."""
    return value


def _script_module_required(name: str):
    return RuntimeError(f"{name} expects a ScriptModule as input. Please use torch.jit.script or "
                        "torch.jit.trace to script your 'nn.Module'.")


def _deprecated_for_compile(name: str) -> None:
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=3)


def _deprecated_for_export(name: str) -> None:
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to `torch.export`.",
                  DeprecationWarning, stacklevel=3)


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Inline a ScriptModule's parameters: there are none here, so any module is refused."""
    _deprecated_for_compile("freeze")
    raise _script_module_required("Freezing")


def optimize_for_inference(mod, other_methods=None):
    """Freeze and optimize a ScriptModule: refused, as ``freeze``."""
    _deprecated_for_compile("optimize_for_inference")
    raise _script_module_required("optimize_for_inference")


def save(m, f, _extra_files=None):
    """Save a ScriptModule as a TorchScript archive: ``m.save(f)``, which an eager module
    lacks (use ``torch.save``)."""
    _deprecated_for_export("save")
    m.save(f, _extra_files=_extra_files)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Load a TorchScript archive. dyngrad cannot run TorchScript: a missing file gets torch's
    ValueError, an existing one a NotImplementedError (``torch.load`` reads ``torch.save``'s
    files)."""
    _deprecated_for_export("load")
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    raise NotImplementedError("torch.jit.load: dyngrad cannot run TorchScript programs; save "
                              "eager modules with torch.save and load them with torch.load")


def fork(func, *args, **kwargs):
    """Start ``func(*args, **kwargs)`` asynchronously: with TorchScript off it runs at once
    (its exception raised here) and the returned Future is already complete."""
    _deprecated_for_compile("fork")
    return _fork(func, *args, **kwargs)


def wait(future):
    """The value of a forked call's Future (waiting for it)."""
    _deprecated_for_compile("wait")
    return future.wait()


def _fork(func, *args, **kwargs):
    """``torch.fork``: ``jit.fork`` without its deprecation warning (torch's is the C call
    that ``jit.fork`` wraps)."""
    from ..futures import Future
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def _wait(future):
    """``torch.wait``: ``jit.wait`` without its deprecation warning."""
    return future.wait()
