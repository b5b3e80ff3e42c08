"""``torch.compile`` and the ``torch.compiler`` namespace, for code written against them.

Note [compile runs eagerly]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch.compile traces a model's Python bytecode (TorchDynamo) into graphs and hands them to a
backend; its ``"eager"`` backend runs the captured graphs with the same ops as the model, so the
results are the eager ones. dyngrad has no tracer. ``compile`` makes torch's wrappers, with
torch's argument checks: an ``OptimizedModule`` holding the module as ``_orig_mod`` (so its
repr, ``state_dict`` keys and parameter names are torch's), or a wrapped function; calling
either runs the model as it is, which is what the eager backend computes. What exists only
while compiling (graph breaks, guards, recompilation, the backends' kernels) has no
counterpart: ``is_compiling()`` is always False.
"""
from __future__ import annotations

import functools

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable",
           "reset", "allow_in_graph", "assume_constant_result", "cudagraph_mark_step_begin",
           "list_backends"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")

# the backends torch 2.13 registers; list_backends() leaves out those tagged for debugging
_BACKENDS = ("cudagraphs", "inductor", "openxla", "tvm")
_DEBUG_BACKENDS = ("aot_eager", "aot_eager_decomp_partition",
                   "aot_eager_decomp_partition_crossref", "aot_eager_decomp_partition_with_mode",
                   "aot_eager_default_partitioner", "aot_ts", "dynamo_accuracy_minifier_backend",
                   "dynamo_minifier_backend", "eager", "eager_debug", "eager_noexcept",
                   "invoke_subgraph", "openxla_eval", "pre_dispatch_eager", "ts",
                   "non_leaf_compile_error_TESTING_ONLY", "relu_accuracy_error_TESTING_ONLY",
                   "relu_compile_error_TESTING_ONLY", "relu_runtime_error_TESTING_ONLY")


class InvalidBackend(RuntimeError):
    """torch._dynamo.exc.InvalidBackend: an unknown backend name."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         "available backends.")


def _optimized_module_class():
    from .nn.modules.module import Module

    class OptimizedModule(Module):
        """A compiled module: ``_orig_mod`` run as it is (Note [compile runs eagerly]).
        Attributes it does not have itself are the original module's."""

        def __init__(self, mod):
            super().__init__()
            self._orig_mod = mod

        def forward(self, *args, **kwargs):
            return self._orig_mod(*args, **kwargs)

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                orig = self.__dict__.get("_modules", {}).get("_orig_mod")
                if orig is None:   # (not built yet: while unpickling)
                    raise
                return getattr(orig, name)

    OptimizedModule.__module__ = __name__
    return OptimizedModule


_optimized = None


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):
    """torch.compile: `model` wrapped as torch wraps it, run eagerly (Note [compile runs
    eagerly]); without `model`, a decorator doing the same."""
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, name=name, disable=disable,
                                  recompile_limit=recompile_limit,
                                  isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS + _DEBUG_BACKENDS:
        raise InvalidBackend(backend)
    if disable:
        return model
    from .nn.modules.module import Module
    if isinstance(model, Module):
        global _optimized
        if _optimized is None:
            _optimized = _optimized_module_class()
        return _optimized(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled


def is_compiling() -> bool:
    """False: dyngrad never traces (Note [compile runs eagerly])."""
    return False


is_dynamo_compiling = is_exporting = is_compiling


def disable(fn=None, recursive=True, *, reason=None):
    """torch.compiler.disable: `fn` runs eagerly, as everything does here."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        return fn(*args, **kwargs)
    return eager


def reset() -> None:
    """torch.compiler.reset: no compilation caches to clear."""


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs on dyngrad's CPU."""


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names torch 2.13 registers (the debugging ones with ``exclude_tags=()``)."""
    names = _BACKENDS if exclude_tags else _BACKENDS + _DEBUG_BACKENDS
    return sorted(names)
