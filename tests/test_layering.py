"""Layering rules the design relies on (DESIGN.md §6, STYLE.md §2 "Backends")."""
import io
import pathlib
import re
import tokenize

ROOT = pathlib.Path(__file__).resolve().parents[1] / "dyngrad"
TORCH_IMPORT = re.compile(r"^\s*(import torch\b|from torch\b)", re.M)


def names_numpy(source: str) -> bool:
    """True when code (not strings or comments) imports numpy or uses a bare `np` name."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type in (tokenize.NAME, tokenize.OP)]
    for prev, tok, nxt in zip([None] + tokens, tokens, tokens[1:] + [None]):
        if tok.string == "numpy" and prev is not None and prev.string in ("import", "from"):
            return True
        if tok.string == "np" and (prev is None or prev.string != ".") and \
                nxt is not None and nxt.string == ".":
            return True
    return False


def test_ops_never_name_numpy():
    """Kernels use `xp` (or a named helper in backends/), so a CuPy backend can plug in."""
    offenders = [p.name for p in (ROOT / "ops").glob("*.py") if names_numpy(p.read_text())]
    assert offenders == []


def test_the_check_can_fail():
    assert names_numpy("import numpy as np\n")
    assert names_numpy("x = np.zeros(3)\n")
    assert not names_numpy("s = 'np.ndarray'\nd.np.type(1)\n")


def test_library_never_imports_torch():
    """torch is the tests' oracle, never a dependency of the library."""
    offenders = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                 if TORCH_IMPORT.search(p.read_text())]
    assert offenders == []
