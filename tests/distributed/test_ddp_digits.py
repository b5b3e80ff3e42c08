"""Issue #11 item 5: the demo's digits CNN trained data-parallel (examples/ddp_digits.py) on 2
and 4 processes reaches the demo's accuracy (the 1-process demo is tested in tests/test_demo.py).

6 epochs instead of the demo's 12 keep it quick; measured: 98.7% on 2 ranks, 98.4% on 4.
BatchNorm statistics are per rank, so the runs agree with one process only approximately."""
from __future__ import annotations

import re

import pytest

from .mpi_helpers import ROOT, run_workers

EXAMPLE = ROOT / "examples" / "ddp_digits.py"


@pytest.mark.parametrize("n", [2, 4])
def test_ddp_digits_reaches_97_percent(n):
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")                 # examples/demo.py imports it
    # an absolute path: run_workers' WORKERS / script is then the example itself
    proc = run_workers(n, str(EXAMPLE), "--epochs", "6", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    found = re.findall(rf"world_size={n} test accuracy: (\d\.\d+)", out)
    assert len(found) == 1, out                 # printed by rank 0 only
    assert float(found[0]) >= 0.97, out
