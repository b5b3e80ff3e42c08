"""Submodules reachable right after ``import torch`` are reachable right after ``import dyngrad``
(``torch.profiler.profile()``, ``torch.utils.data.DataLoader`` without importing them first).

Each library is imported in a fresh interpreter; the modules compared are dyngrad's own public
modules whose torch counterparts exist."""
import json
import subprocess
import sys

_PROBE = """
import importlib, json, pkgutil, sys
lib = importlib.import_module(sys.argv[1])
names = json.loads(sys.argv[2])
reached = []
for name in names:
    obj = lib
    try:
        for part in name.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        continue
    reached.append(name)
print(json.dumps(reached))
"""


def _public_modules():
    """dyngrad's public submodules (dotted names below the package), found on disk."""
    import pkgutil
    import dyngrad
    names = []
    for info in pkgutil.walk_packages(dyngrad.__path__, "dyngrad."):
        parts = info.name.split(".")[1:]
        if not any(p.startswith("_") for p in parts):
            names.append(".".join(parts))
    return names


def _reached(lib, names):
    out = subprocess.run([sys.executable, "-c", _PROBE, lib, json.dumps(names)],
                         capture_output=True, text=True, check=True).stdout
    return set(json.loads(out))


def test_submodules_reachable_after_import():
    names = _public_modules()
    assert "profiler" in names and "utils.data" in names
    in_torch = _reached("torch", names)
    in_dyngrad = _reached("dyngrad", names)
    assert "profiler" in in_torch
    assert sorted(in_torch - in_dyngrad) == []
