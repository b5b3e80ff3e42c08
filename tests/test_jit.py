"""dyngrad.jit is torch.jit as torch runs it with TorchScript disabled (PYTORCH_JIT=0): the same
cases run here on dyngrad and, in a subprocess with PYTORCH_JIT=0, on torch; their outcomes
(values, exception types and messages, warnings) must agree."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import dyngrad

# Each case is an expression over `lib` (dyngrad or torch) and the helpers below; its outcome is
# compared as JSON.
SETUP = textwrap.dedent('''
    import json, warnings

    def f(x):
        return x * 2

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(2, 2)

        @lib.jit.ignore
        def debug(self, x):
            return x

        @lib.jit.export
        def extra(self, x):
            return x + 1

        @lib.jit.unused
        def unused_method(self, x):
            return x - 1

        def forward(self, x):
            if lib.jit.is_scripting():
                return x
            return self.lin(x)

    class Old(lib.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.w = lib.jit.Attribute(3.0, float)

        @lib.jit.script_method
        def forward(self, x):
            return x * self.w

    class Iface:
        def run(self, x):
            return x

    class WithProp:
        @lib.jit.unused
        @property
        def p(self):
            return 1

    def outcome(fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = ["ok", fn()]
            except Exception as e:
                value = [type(e).__name__, str(e)]
        return value + [[(w.category.__name__, str(w.message)) for w in caught]]
''')

CASES = {
    "script returns its argument": "lib.jit.script(f) is f",
    "script a module": "isinstance(lib.jit.script(lib.nn.Linear(2, 2)), lib.nn.Linear)",
    "script a number": "lib.jit.script(3, optimize=True)",
    "trace returns the function": "lib.jit.trace(f, (lib.ones(2),)) is f",
    "trace_module": "lib.jit.trace_module(m := Net(), {'forward': lib.ones(1, 2)}) is m",
    "script_method": "lib.jit.script_method(f) is f",
    "script_if_tracing calls": "lib.jit.script_if_tracing(f)(lib.ones(2)).tolist()",
    "is_scripting/is_tracing": "[lib.jit.is_scripting(), lib.jit.is_tracing()]",
    "a scripted module runs eagerly": "lib.jit.script(Net())(lib.ones(1, 2)).shape[-1]",
    "modifiers": "[Net.debug._torchscript_modifier, Net.extra._torchscript_modifier, "
                 "Net.unused_method._torchscript_modifier, Net().unused_method(3)]",
    "property unused": "[WithProp().p, WithProp.p.fget._torchscript_modifier]",
    "ignore(True)": "lib.jit.ignore(True)(f)._torchscript_modifier",
    "ignore(drop_on_export)": "lib.jit.ignore(drop_on_export=True)(f)._torchscript_modifier",
    "ignore(False)": "lib.jit.ignore(False)(f)._torchscript_modifier",
    "ignore('x')": "lib.jit.ignore('x')",
    "annotate and Attribute": "[lib.jit.annotate(int, 3), lib.jit.Attribute({}, dict)]",
    "old ScriptModule": "Old()(lib.ones(2)).tolist()",
    "ScriptModule is a Module": "[issubclass(lib.jit.ScriptModule, lib.nn.Module), "
                                "repr(lib.jit.ScriptModule())]",
    "interface of a class": "lib.jit.interface(Iface) is Iface",
    "interface of a function": "lib.jit.interface(f)",
    "freeze": "lib.jit.freeze(Net())",
    "optimize_for_inference": "lib.jit.optimize_for_inference(Net())",
    "save": "lib.jit.save(Net(), '/tmp/dyngrad_jit_test.pt')",
    "load missing": "lib.jit.load('/tmp/dyngrad_no_such_file.pt')",
    "Final": "lib.jit.Final is __import__('typing').Final",
    "Error": "issubclass(lib.jit.Error, RuntimeError)",
    "fork runs at once": "[(fut := lib.jit.fork(f, 1)).done(), lib.jit.wait(fut), "
                         "lib.jit.fork(f, x=2).wait()]",
    "fork raises at once": "lib.jit.fork(lambda: 1 / 0)",
    "torch.fork and torch.wait": "[(fut := lib.fork(f, 3)).done(), lib.wait(fut), "
                                 "lib.fork(f, x=4).wait()]",
}

DRIVER = SETUP + textwrap.dedent('''
    results = {name: outcome(lambda expr=expr: eval(expr)) for name, expr in CASES.items()}
''')


@pytest.fixture(scope="module")
def torch_outcomes():
    code = "import torch as lib\nCASES = " + repr(CASES) + "\n" + DRIVER + \
        "\nprint(json.dumps(results))"
    env = dict(os.environ, PYTORCH_JIT="0")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def dyngrad_outcomes():
    # (named as torch's `python -c` run is, so that classes defined here print alike and
    # have no source file either)
    scope = {"lib": dyngrad, "CASES": CASES, "__name__": "__main__"}
    exec(DRIVER, scope)   # noqa: S102  (the same source as torch's run)
    return json.loads(json.dumps(scope["results"]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_with_torchscript_off(name, torch_outcomes, dyngrad_outcomes):
    assert dyngrad_outcomes[name] == torch_outcomes[name]
