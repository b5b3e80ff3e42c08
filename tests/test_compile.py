"""torch.compile and torch.compiler: torch's wrappers and checks, run eagerly (Note [compile
runs eagerly] in dyngrad/compiler.py): the same results, reprs, state_dict keys and errors as
torch's; the graphs are those torch's "eager" backend gives."""
from __future__ import annotations

import pytest
import torch

import dyngrad


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())


def test_compiled_module_is_torchs_wrapper():
    seen = []
    for lib in (torch, dyngrad):
        m = _model(lib)
        c = lib.compile(m, backend="eager")
        x = lib.ones(1, 2)
        y = c(x)
        c.eval()
        seen.append((repr(c), type(c).__name__, isinstance(c, lib.nn.Module), c._orig_mod is m,
                     list(c.state_dict()), [n for n, _ in c.named_parameters()],
                     lib.equal(y, m(x)), type(y.grad_fn).__name__, m.training))
    assert seen[1] == seen[0]


def test_compiled_module_trains_its_module():
    for lib in (torch, dyngrad):
        m = _model(lib)
        c = lib.compile(m)
        c(lib.ones(1, 2)).sum().backward()
        lib.optim.SGD(c.parameters(), lr=0.1).step()
        other = lib.compile(_model(lib))
        other.load_state_dict(c.state_dict())
        assert lib.equal(other._orig_mod[0].weight, m[0].weight)
        assert m[0].weight.grad is not None


def test_compiled_function_and_decorator():
    def f(a, b=2):
        "doc"
        return a * b
    for lib in (torch, dyngrad):
        g = lib.compile(f)
        assert (g.__name__, g.__doc__, g.__wrapped__) == ("f", "doc", f)
        assert lib.compile(fullgraph=True)(f)(lib.ones(2)).tolist() == [2.0, 2.0]
        assert lib.compile(f, disable=True) is f
        assert lib.compiler.disable(f)(3) == 6 and lib.compiler.disable(f) is not f
        assert lib.compiler.is_compiling() is False and lib.compiler.reset() is None


@pytest.mark.parametrize("kwargs", [
    dict(backend="nonexistent"), dict(mode="bad"), dict(mode="default", options={"a": 1}),
    dict(model=3), dict(backend="eager", mode="max-autotune"), dict(backend="aot_eager"),
], ids=["unknown backend", "unknown mode", "mode and options", "not callable",
        "eager backend with a mode", "debug backend"])
def test_compile_arguments_like_torch(kwargs):
    got = []
    for lib in (torch, dyngrad):
        model = kwargs.get("model", lib.nn.Identity())
        rest = {k: v for k, v in kwargs.items() if k != "model"}
        try:
            got.append(type(lib.compile(model, **rest)).__name__)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            got.append((type(e).__name__, str(e)))
    assert got[1] == got[0]


def test_list_backends_like_torch():
    for tags in ((), ("debug", "experimental")):
        kw = {} if tags else {"exclude_tags": ()}
        assert dyngrad.compiler.list_backends(**kw) == torch.compiler.list_backends(**kw)
