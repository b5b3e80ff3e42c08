"""torch.backends.cudnn / mkldnn / mps / cuda against live torch (a CPU build, like dyngrad's
NumPy kernels: none of these libraries is used, the flags are kept and read back)."""
import contextlib

import pytest
import torch

import dyngrad

LIBS = [torch, dyngrad]


@contextlib.contextmanager
def restored(lib):
    """Put the library's backend flags back as they were after the test."""
    cudnn, mkldnn = lib.backends.cudnn, lib.backends.mkldnn
    saved = ([getattr(cudnn, k) for k in ("enabled", "benchmark", "deterministic", "allow_tf32")],
             [getattr(mkldnn, k) for k in ("enabled", "deterministic")],
             lib.get_float32_matmul_precision())
    try:
        yield
    finally:
        if lib is torch:
            torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True
        else:
            dyngrad.backends._flags._frozen = False
        for k, v in zip(("enabled", "benchmark", "deterministic", "allow_tf32"), saved[0]):
            setattr(cudnn, k, v)
        for k, v in zip(("enabled", "deterministic"), saved[1]):
            setattr(mkldnn, k, v)
        lib.set_float32_matmul_precision(saved[2])


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- compared with torch's
        return type(e).__name__, str(e)
    return None


def _cudnn_program(lib):
    c = lib.backends.cudnn
    seen = [(c.is_available(), c.version(), c.is_acceptable(lib.ones(2)), c.benchmark_limit)]
    seen.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32))
    c.deterministic = True
    c.benchmark = False
    seen.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32))
    with c.flags():
        seen.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32))
        with c.flags(enabled=True, benchmark=True, allow_tf32=False):
            seen.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32))
        seen.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32))
    seen.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32))
    seen.append(c.set_flags(False, True, 5, False, False)[:5])
    seen.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32))
    seen.append(lib.backends.flags_frozen())
    lib.backends.disable_global_flags()
    seen.append(lib.backends.flags_frozen())
    seen.append(_error(lambda: setattr(c, "deterministic", False)))
    with c.flags(deterministic=True):   # a block may still set them
        seen.append(c.deterministic)
    seen.append(c.deterministic)
    return seen


def test_cudnn_flags():
    got = {}
    for lib in LIBS:
        with restored(lib):
            got[lib] = _cudnn_program(lib)
    assert got[dyngrad] == got[torch]


def _mkldnn_program(lib):
    m = lib.backends.mkldnn
    seen = [(m.enabled, m.deterministic)]
    m.deterministic = True
    with m.flags(enabled=False):
        seen.append((m.enabled, m.deterministic))
    seen.append((m.enabled, m.deterministic))
    seen.append(m.set_flags(False, False)[:2])
    seen.append((m.enabled, m.deterministic))
    return seen


def test_mkldnn_flags():
    got = {}
    for lib in LIBS:
        with restored(lib):
            got[lib] = _mkldnn_program(lib)
    assert got[dyngrad] == got[torch]
    # the one difference: dyngrad has no oneDNN (torch's CPU build does)
    assert dyngrad.backends.mkldnn.is_available() is False


def test_mps_and_cuda_build_queries():
    for name in ("is_built", "is_available"):
        assert getattr(dyngrad.backends.mps, name)() is getattr(torch.backends.mps, name)()
    # (torch's functions are lru_cached: its error is compared through the uncached function)
    assert _error(lambda: dyngrad.backends.mps.is_macos13_or_newer()) == \
        _error(lambda: torch.backends.mps.is_macos13_or_newer.__wrapped__())
    assert _error(lambda: dyngrad.backends.mps.is_macos_or_newer(14, 0)) == \
        _error(lambda: torch.backends.mps.is_macos_or_newer.__wrapped__(14, 0))
    assert dyngrad.backends.cuda.is_built() is torch.backends.cuda.is_built()


def _matmul_program(lib):
    m = lib.backends.cuda.matmul
    seen = [(m.allow_tf32, lib.get_float32_matmul_precision())]
    m.allow_tf32 = True
    seen.append((m.allow_tf32, lib.get_float32_matmul_precision()))
    for p in ("highest", "medium", "high"):
        lib.set_float32_matmul_precision(p)
        seen.append(m.allow_tf32)
    m.allow_tf32 = False
    seen.append(_error(lib.get_float32_matmul_precision))   # the halves disagree: refused
    for steps in (["T"], ["F"], ["high", "T"], ["medium", "T"], ["medium", "F"], ["highest", "T"],
                  ["T", "medium"], ["high", "F", "T"], ["medium", "T", "highest"]):
        lib.set_float32_matmul_precision("highest")
        for step in steps:
            if step in ("T", "F"):
                m.allow_tf32 = step == "T"
            else:
                lib.set_float32_matmul_precision(step)
        seen.append((steps, m.allow_tf32, _error(lib.get_float32_matmul_precision)
                     or lib.get_float32_matmul_precision()))
    for kind in ("fp16", "bf16"):
        name = f"allow_{kind}_reduced_precision_reduction"
        seen.append((getattr(m, name), getattr(m, name + "_split_k")))
        for value in (False, (True, False), (False, False), [False], (True,), 1, (),
                      (True, True, True), (True, 0)):
            seen.append(_error(lambda: setattr(m, name, value)))
            seen.append((getattr(m, name), getattr(m, name + "_split_k")))
        setattr(m, name, True)
    seen.append(_error(lambda: m.no_such_flag))
    seen.append(_error(lambda: setattr(m, "no_such_flag", 1)))
    return seen


@pytest.mark.parametrize("_", [0])
def test_cuda_matmul_settings(_):
    got = {}
    for lib in LIBS:
        with restored(lib):
            got[lib] = _matmul_program(lib)
    assert got[dyngrad] == got[torch]
