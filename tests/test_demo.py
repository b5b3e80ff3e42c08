"""The tour (examples/tour.py) prints exactly what it prints with ``import torch`` instead of dyngrad."""
import pathlib
import subprocess
import sys

DEMO = pathlib.Path(__file__).resolve().parents[1] / "examples" / "tour.py"


def _run(source: str) -> str:
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          check=True).stdout


def test_demo_output_equals_torch():
    source = DEMO.read_text()
    assert "import dyngrad as torch" in source
    ours = _run(source)
    theirs = _run(source.replace("import dyngrad as torch", "import torch"))
    assert ours == theirs
    assert "x.grad" in ours


def test_training_demo_reaches_97_percent_and_reloads():
    """`make demo`: the digits CNN (BatchNorm, Dropout, DataLoader, AdamW + OneCycleLR, tqdm)
    reaches >= 97% test accuracy, and the saved-and-reloaded model scores the same."""
    out = subprocess.run([sys.executable, str(DEMO.with_name("demo.py"))], capture_output=True,
                         text=True, check=True, timeout=600).stdout
    line = next(s for s in out.splitlines() if s.startswith("test accuracy:"))
    accuracy = float(line.split()[2])
    assert accuracy >= 0.97, out
    assert f"test accuracy {accuracy:.4f}" in out.splitlines()[-1]
