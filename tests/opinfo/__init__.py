"""The op database: every OpInfo declared in the modules of this package (STYLE.md §6).

Each ``tests/opinfo/X.py`` mirrors ``dyngrad/ops/X.py`` and appends its entries to ``OP_DB``;
modules are discovered, so a new op family only adds a file here.
"""
import importlib
import pkgutil

from .core import OP_DB, OpInfo, SampleInput  # noqa: F401

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "core":
        importlib.import_module(f"{__name__}.{_module.name}")
