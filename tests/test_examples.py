"""The scripts in examples/ (the notes' scenarios) run, print what they should, and print exactly
what they print when ``import dyngrad as torch`` is given real torch.

Each script runs in its own subprocess with this interpreter (the project's .venv). For the
comparison, one more subprocess runs every script with ``dyngrad`` aliased to ``torch``; the
scripts use no random numbers, so both libraries must print the same lines.
"""
import json
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = ["manual_sgd", "gradient_penalty", "custom_function", "higher_order",
           "freeze_submodule"]

TORCH_RUNNER = r"""
import contextlib, io, json, runpy, sys
import torch
sys.modules.update({"dyngrad": torch, "dyngrad.nn": torch.nn,
                    "dyngrad.autograd": torch.autograd})
out = {}
for path in sys.argv[1:]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        runpy.run_path(path, run_name="__main__")
    out[path] = buf.getvalue()
print(json.dumps(out))
"""


def run_with_dyngrad(name: str) -> str:
    proc = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], capture_output=True,
                          text=True, timeout=120, cwd=EXAMPLES.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout


@pytest.fixture(scope="module")
def torch_outputs():
    paths = [str(EXAMPLES / f"{name}.py") for name in SCRIPTS]
    proc = subprocess.run([sys.executable, "-c", TORCH_RUNNER, *paths], capture_output=True,
                          text=True, timeout=300, cwd=EXAMPLES.parent)
    assert proc.returncode == 0, proc.stderr
    by_path = json.loads(proc.stdout)
    return {name: by_path[str(EXAMPLES / f"{name}.py")] for name in SCRIPTS}


def check_manual_sgd(out):
    assert "after 5 steps: tensor(2.3446, requires_grad=True)" in out
    losses = [float(v) for v in re.findall(r"loss (\d+\.\d+)", out)]
    assert losses[0] > 1 and losses[-1] < 0.002
    assert "learned: w = 3.00, b = 2.00" in out
    assert "the update was not recorded: True" in out


def check_gradient_penalty(out):
    assert "grad = 4.0  penalty = 9.0  d penalty/dx = 12.0" in out
    norms = [float(v) for v in re.findall(r"mean \|\|grad\|\| (\d+\.\d+)", out)]
    assert abs(norms[0] - 1) > 0.5 and abs(norms[-1] - 1) < 0.01   # the penalty did its job
    assert "g has a grad_fn (create_graph=True): True" in out


def check_custom_function(out):
    assert "MyLeakyReLU     grad of (y * [1, 2, 3]).sum(): tensor([0.1000, 0.2000, 3.0000])" in out
    assert "NotesLeakyReLU  grad of (y * [1, 2, 3]).sum(): tensor([0.1000, 0.1000, 1.0000])" in out
    failed = "gradcheck failed: Jacobian mismatch for output 0 with respect to input 0,"
    assert out.count(failed) == 3
    assert "MyLeakyReLU     away from the kink     gradcheck: True" in out
    assert "MyLeakyReLU gradgradcheck: True" in out
    assert "grad_fn name: MyLeakyReLUBackward" in out


def check_higher_order(out):
    assert "dy/dx   = tensor(12., grad_fn=<MulBackward0>)" in out
    assert "d2y/dx2 = tensor(12., grad_fn=<MulBackward0>)" in out
    assert "d3y/dx3 = tensor(6.)" in out
    derived = re.findall(r"sin\(t\) at 0\.5 = ([+-]\d\.\d+)", out)
    closed = re.search(r"closed forms: (.*)", out).group(1).split()
    assert derived == closed and len(closed) == 4
    assert "symmetric (d2f/dadb == d2f/dbda): True" in out
    assert "tensor([[16., 24.],\n        [24., 12.]], dtype=torch.float64)" in out


def check_freeze_submodule(out):
    assert "trainable: ['4.weight', '4.bias']" in out
    assert "trainable parameters: 9 of 121" in out
    assert "backbone output requires_grad: False  grad_fn: None" in out
    losses = [float(v) for v in re.findall(r"loss (\d+\.\d+)", out)]
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0] / 4
    assert "changed by training: ['4.weight', '4.bias']" in out
    assert "frozen grads: [None, None, None, None]" in out
    assert "after unfreezing, all trainable: True" in out


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_runs_and_prints_what_torch_prints(name, torch_outputs):
    out = run_with_dyngrad(name)
    globals()[f"check_{name}"](out)
    check = globals()[f"check_{name}"]
    check(torch_outputs[name])             # the expectations hold for torch too
    assert out == torch_outputs[name]
