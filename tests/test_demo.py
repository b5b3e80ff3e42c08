"""The main demo prints exactly what it prints with ``import torch`` instead of dyngrad."""
import pathlib
import subprocess
import sys

DEMO = pathlib.Path(__file__).resolve().parents[1] / "examples" / "demo.py"


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
