"""Run one snippet on both libraries and compare the tensors it returns (or its exception).

``like_torch(fn)`` calls ``fn(torch)`` and ``fn(dyngrad)``: the results must have the same
dtypes, shapes, strides, values (exactly, or within ``rtol``/``atol``) and grad_fn names, or
both calls must raise the same exception type with the same message. ``same_outcome(fn)``
compares any result (tensors described in library-neutral terms) and the warnings given.
"""
import contextlib
import re
import warnings

import numpy as np
import torch

import dyngrad

# dyngrad's version-counter error is torch's text followed by lines of its own, each indented
# by two spaces (Note [In-place diagnostics] in dyngrad/autograd/anomaly_mode.py)
_INPLACE_EXTRA = re.compile(r"((?:check_nan=False\)\.|Good luck!))(?:\n  [^\n]*)+")


def torch_part(message: str) -> str:
    """`message` without dyngrad's lines after torch's version-counter error text."""
    return _INPLACE_EXTRA.sub(r"\1", message)


@contextlib.contextmanager
def warn_always(lib):
    """``lib.set_warn_always(True)`` for the block: TORCH_WARN_ONCE's warnings are given every
    time, whatever ran earlier in the process."""
    before = lib.is_warn_always_enabled()
    lib.set_warn_always(True)
    try:
        yield
    finally:
        lib.set_warn_always(before)


def node_chain(t):
    """The class names of t's graph along first inputs: t.grad_fn, its first next function..."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if nxt else None
    return names


def to_numpy(t):
    """t's values as a NumPy array (bfloat16, which torch cannot hand to NumPy, in float32:
    every bfloat16 value is exactly a float32 one)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return (t.float() if t.dtype is torch.bfloat16 else t).numpy()
    arr = np.array(t._data)
    return arr.astype(np.float32) if arr.dtype.kind == "V" else arr


def call(fn, lib):
    try:
        return fn(lib), None
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return None, e


def same(ours, theirs, where="", rtol=None, atol=0.0):
    """Equal tensors (or nested tuples/lists of them, or torch.Size); `rtol` None: exact."""
    if isinstance(theirs, torch.Size):
        assert repr(ours) == repr(theirs) and tuple(ours) == tuple(theirs), where
        return
    if isinstance(theirs, (tuple, list)):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs), where
        for o, t in zip(ours, theirs):
            same(o, t, where, rtol, atol)
        return
    assert str(ours.dtype) == str(theirs.dtype), where
    assert tuple(ours.shape) == tuple(theirs.shape), where
    assert ours.stride() == theirs.stride(), f"{where}: {ours.stride()} != {theirs.stride()}"
    if rtol is None:
        np.testing.assert_array_equal(to_numpy(ours), to_numpy(theirs), err_msg=where)
    else:
        np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=atol,
                                   err_msg=where)
    assert (ours.grad_fn is None) == (theirs.grad_fn is None), where
    if theirs.grad_fn is not None:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__, where


def like_torch(fn, rtol=None, atol=0.0):
    """``fn(lib)`` gives the same tensors (or the same exception) on both libraries."""
    expected, texc = call(fn, torch)
    got, exc = call(fn, dyngrad)
    if texc is not None:
        assert exc is not None, f"torch raised {texc!r}, dyngrad returned"
        assert (type(exc).__name__, torch_part(str(exc))) == (type(texc).__name__, str(texc))
        return
    if exc is not None:
        raise exc
    same(got, expected, rtol=rtol, atol=atol)


def describe(L, r):
    """A library-neutral description of a result: a tensor's class name, dtype, shape, strides,
    requires_grad, grad_fn name and values; tuples, lists and dicts item by item; types and
    dtypes by their repr; anything else itself."""
    if isinstance(r, L.Tensor):
        grad_fn = None if r.grad_fn is None else type(r.grad_fn).__name__
        return (type(r).__name__, str(r.dtype), tuple(r.shape), r.stride(), r.requires_grad,
                grad_fn, r.detach().tolist())
    if isinstance(r, (tuple, list)):
        return type(r)(describe(L, x) for x in r)
    if isinstance(r, dict):
        return {k: describe(L, v) for k, v in r.items()}
    if isinstance(r, (type, L.dtype)):
        return repr(r)
    return r


def outcome(L, fn):
    """fn(L)'s description, or its exception's (type, message); and the warnings it gave."""
    with warnings.catch_warnings(record=True) as w, warn_always(L):
        warnings.simplefilter("always")
        try:
            out = ("ok", describe(L, fn(L)))
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            out = (type(e).__name__, torch_part(str(e)))
    return out, [(m.category.__name__, str(m.message)) for m in w]


def same_outcome(fn, warns=True):
    """fn gives the same result (or exception) on both libraries, and the same warnings."""
    expected, twarn = outcome(torch, fn)
    got, dwarn = outcome(dyngrad, fn)
    assert got == expected
    if warns:
        assert dwarn == twarn
