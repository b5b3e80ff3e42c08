"""torch.distributions' submodules (``from torch.distributions.normal import Normal``,
``import torch.distributions.categorical``, ``torch.distributions.kl.kl_divergence``) exist in
dyngrad under the same names with the same public names, whichever file defines them."""
import importlib
import json
import subprocess
import sys
import types

import pytest
import torch
import torch.distributions

import dyngrad
import dyngrad.distributions

SUBMODULES = sorted(n for n in dir(torch.distributions)
                    if isinstance(getattr(torch.distributions, n), types.ModuleType))

# names torch's submodules import for their annotations, which dyngrad's need not have
TYPING = {"Any", "Callable", "Final", "Generic", "Optional", "Sequence", "TypeVar", "overload",
          "D", "R", "T", "Device", "SymInt", "deprecated", "total_ordering", "update_wrapper",
          "is_tensor_like"}


# torch's submodules that are files in dyngrad too
FILES = {"constraint_registry", "constraints", "distribution", "exp_family", "kl",
         "multivariate_normal", "transformed_distribution", "transforms", "utils", "wishart"}


def _public(module):
    return {k for k in dir(module) if not k.startswith("_")
            and not isinstance(getattr(module, k), types.ModuleType)}


def test_the_list_is_torchs():
    assert len(SUBMODULES) == 47 and {"normal", "kl", "studentT", "utils"} <= set(SUBMODULES)


@pytest.mark.parametrize("name", SUBMODULES)
def test_submodule_names(name):
    theirs = getattr(torch.distributions, name)
    ours = importlib.import_module("dyngrad.distributions." + name)
    assert getattr(dyngrad.distributions, name) is ours
    assert sys.modules["dyngrad.distributions." + name] is ours
    assert ours.__name__ == "dyngrad.distributions." + name
    # dyngrad's own files (kl.py...) need not import what torch's do; the others have it all
    wanted = set(theirs.__all__) if name in FILES else _public(theirs) - TYPING
    assert sorted(k for k in wanted if not hasattr(ours, k)) == []
    assert set(theirs.__all__) <= set(ours.__all__)
    for k in theirs.__all__:
        obj = getattr(ours, k)
        # each class is the one the package exports under that name
        if isinstance(obj, type) and isinstance(getattr(dyngrad.distributions, k, None), type):
            assert obj is getattr(dyngrad.distributions, k)
        assert type(obj).__name__ == type(getattr(theirs, k)).__name__


@pytest.mark.parametrize("name", [n for n in SUBMODULES if n not in FILES])
def test_imported_names_are_the_same_objects(name):
    """A helper a submodule re-exports is the object of that name elsewhere in dyngrad (not
    checked for dyngrad's own files, FILES: their imports are their own)."""
    ours = getattr(dyngrad.distributions, name)
    for k in sorted(_public(getattr(torch.distributions, name)) - TYPING):
        obj = getattr(ours, k)
        if k == "Tensor":
            assert obj is dyngrad.Tensor
        elif k in ("inf", "nan", "euler_constant"):
            assert repr(obj) == repr(getattr(getattr(torch.distributions, name), k))
        elif k in ("Number", "Real"):   # numbers' ABCs, or torch.types.Number (a union)
            theirs = getattr(getattr(torch.distributions, name), k)
            assert obj is theirs if isinstance(theirs, type) else repr(obj) == repr(theirs)
        elif isinstance(obj, type) or callable(obj):   # a class or function of dyngrad's
            assert obj.__module__.split(".")[0] == "dyngrad", (k, obj)


_PROBE = """
import json, sys
names = json.loads(sys.argv[1])
out = {}
for name in names:
    import importlib
    mod = importlib.import_module("dyngrad.distributions." + name)
    first = mod.__all__[0]
    ns = {}
    exec(f"from dyngrad.distributions.{name} import {first}", ns)
    exec(f"import dyngrad.distributions.{name}", ns)
    out[name] = [ns[first].__name__, ns["dyngrad"].distributions.__dict__[name].__name__]
print(json.dumps(out))
"""


def test_fresh_interpreter_imports():
    """``import dyngrad.distributions.normal`` and ``from ... import Normal`` before anything
    else touched dyngrad."""
    for name in ("normal", "categorical", "kl"):
        code = (f"import dyngrad.distributions.{name} as m, dyngrad\n"
                f"print(m.__name__, dyngrad.distributions.{name} is m)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout
        assert out == f"dyngrad.distributions.{name} True\n"
    out = subprocess.run([sys.executable, "-c",
                          "from dyngrad.distributions.normal import Normal; print(Normal)"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("Normal'>")
    got = json.loads(subprocess.run([sys.executable, "-c", _PROBE, json.dumps(SUBMODULES)],
                                    capture_output=True, text=True, check=True).stdout)
    for name in SUBMODULES:
        assert got[name] == [getattr(torch.distributions, name).__all__[0],
                             "dyngrad.distributions." + name]


def test_kl_divergence_through_the_submodule():
    def run(L):
        from importlib import import_module
        kl = import_module(L.__name__ + ".distributions.kl")
        normal = import_module(L.__name__ + ".distributions.normal")
        p = normal.Normal(L.tensor([0.0, 1.0], dtype=L.float64), L.tensor([1.0, 2.0],
                                                                          dtype=L.float64))
        q = normal.Normal(L.tensor([0.5, 0.0], dtype=L.float64), L.tensor([1.5, 1.0],
                                                                          dtype=L.float64))
        return kl.kl_divergence(p, q).tolist()
    assert run(dyngrad) == pytest.approx(run(torch), rel=1e-12)


def test_submodule_classes_sample_like_torch():
    def run(L):
        L.manual_seed(0)
        from importlib import import_module
        cat = import_module(L.__name__ + ".distributions.categorical").Categorical
        return cat(probs=L.tensor([0.2, 0.3, 0.5])).sample((6,)).tolist()
    assert run(dyngrad) == run(torch)
