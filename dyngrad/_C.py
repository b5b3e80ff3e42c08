"""``torch._C``: the names of torch's C extension that Python code reaches for, here those of the
``__torch_function__`` protocol (Note [__torch_function__] in overrides.py)."""
from .overrides import (  # noqa: F401
    DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl,
    _is_torch_function_enabled,
)
