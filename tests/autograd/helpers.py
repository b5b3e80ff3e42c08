"""Run one snippet on both libraries and compare what it prints (tinygrad's trick, STYLE §6)."""
import contextlib
import io
import re
import warnings

import torch

import dyngrad
from compare import torch_part

_ADDR = re.compile(r" at 0x[0-9a-f]+")


def run_printing(fn, lib):
    """Call ``fn(lib)`` and return what it printed (addresses masked) or the exception."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(lib)
            err = None
        except Exception as e:  # noqa: BLE001 -- compared against torch's below
            err = (type(e).__name__, torch_part(str(e)))
    text = _ADDR.sub(" at 0x…", torch_part(buf.getvalue()))
    return text, err, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def assert_prints_like_torch(fn, check_warnings=True):
    """The snippet prints the same text, raises the same error and warns alike on both."""
    want = run_printing(fn, torch)
    got = run_printing(fn, dyngrad)
    assert got[0] == want[0], f"printed:\n{got[0]}\ntorch printed:\n{want[0]}"
    assert got[1] == want[1]
    if check_warnings:
        assert len(got[2]) == len(want[2]), (got[2], want[2])
