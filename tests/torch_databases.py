"""torch's OpInfo and ModuleInfo databases, imported without their side effects on the test
process: torch's test utilities, on import, freeze torch.backends' flags (disable_global_flags)
and load a hypothesis profile of their own; both are put back as they were."""
from __future__ import annotations

import warnings

import hypothesis
import torch


def _import():
    profile = hypothesis.settings._current_profile
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.testing._internal.common_modules import module_db
    hypothesis.settings.load_profile(profile)
    # (the flag lives in the globals of torch/backends/__init__.py, which flags_frozen reads)
    torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True
    return op_db, module_db


op_db, module_db = _import()
