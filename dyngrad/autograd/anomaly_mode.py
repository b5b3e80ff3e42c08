"""Anomaly detection (torch/autograd/anomaly_mode.py): find the forward line behind a failing
backward.

While anomaly mode is on:

* every node created (by the dispatcher, a custom Function or CopySlices) stores the Python
  stack of the forward call that created it in ``node.metadata["traceback_"]``: a list of
  formatted frames, outermost first, as ``traceback.format_stack()`` gives them. Frames inside
  dyngrad itself at the innermost end are left out, so the last frame is the user's line
  (torch's stack ends at the user's line too, since its ops are C++);
* a node created while the engine runs another node's backward (``create_graph=True``)
  remembers that node as ``metadata["parent_"]``;
* when a node's backward raises, the engine warns with the stored traceback of that node and
  of each of its parents, then lets the error go on (Note [Anomaly reports]);
* with ``check_nan``, a node whose returned gradients hold a NaN raises torch's
  ``Function 'DivBackward0' returned nan values in its 0th output.``

Note [Anomaly reports]
~~~~~~~~~~~~~~~~~~~~~~
torch reports through its C++ warning handler, which Python sees as one ``UserWarning`` per
traceback: first "Error detected in MulBackward0. Traceback of forward call that caused the
error:" followed by the joined frames, then, for each parent up the chain, "\\n\\nPrevious
calculation was induced by X. Traceback of forward call that induced the previous
calculation:" and its frames. A node made while anomaly mode was off has no traceback; then
the message says "No forward pass information available." We warn the same texts with
``warnings.warn``; torch's C++ suffix "(Triggered internally at …cpp:122.)" is left out.

The switches are global (torch's AnomalyMode is a process-wide flag), read by the dispatcher
in its record step and once per ``backward()`` by the engine: when anomaly mode is off it costs
one flag test there and nothing per node.
"""
from __future__ import annotations

import os
import sys
import threading
import traceback
import warnings
import weakref

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


class _AnomalyState:
    """The two global switches (one object, so readers can bind it once)."""

    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


_state = _AnomalyState()


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection also checks backward results for NaN."""
    return _state.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """``torch.set_anomaly_enabled``: switch anomaly detection on or off."""
    _state.enabled = bool(enabled)
    _state.check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager that turns anomaly detection on inside the block (not a decorator, as
    in torch 2.13).

    Args:
        check_nan: also raise when a backward function returns NaN (default True).

    Example::

        >>> with dyngrad.autograd.detect_anomaly():
        ...     y = x / x          # node made here remembers this line
        ...     y.sum().backward() # RuntimeError: Function 'DivBackward0' returned nan ...
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = _state.check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Switch anomaly detection on or off: as a call, or as a context manager that restores
    the previous state on exit.

    Args:
        mode: True to enable, False to disable.
        check_nan: also raise when a backward function returns NaN.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _state.enabled
        self.prev_check_nan = _state.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# ---------------------------------------------------------------------------------------------
# What the dispatcher and the engine call while anomaly mode is on
# ---------------------------------------------------------------------------------------------
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_current = threading.local()     # the node the engine is running in this thread (for parent_)


def _user_frame(frame):
    """The innermost frame at or above `frame` that is not dyngrad's own code."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return frame


def forward_stack() -> list:
    """The formatted stack of the user's call, outermost frame first (torch's traceback_)."""
    frame = _user_frame(sys._getframe(1))
    if frame is None:
        return []
    return traceback.format_list(traceback.extract_stack(frame))


def record_node(node) -> None:
    """Store the forward traceback (and the running node, if any) on a new node."""
    meta = node.metadata
    meta["traceback_"] = forward_stack()
    parent = getattr(_current, "node", None)
    if parent is not None:
        meta["parent_"] = parent


def run_node(fn, call, args):
    """``call(*args)`` (the engine running node `fn`) with `fn` marked as the running node:
    the parent of any node its formula or hooks record."""
    prev = getattr(_current, "node", None)
    _current.node = fn
    try:
        return call(*args)
    finally:
        _current.node = prev


def check_nan(fn, outputs) -> None:
    """torch's check after a node ran: no NaN in any gradient it returned."""
    if not (_state.enabled and _state.check_nan) or outputs is None:
        return
    for i, g in enumerate(outputs):
        if g is None:
            continue
        data = g._data
        if data.dtype.kind in "fcV" and data.size and (data != data).any():
            raise RuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th "
                               "output.")


def report_error(fn) -> None:
    """Warn with the forward traceback of failing node `fn` and of its parents
    (Note [Anomaly reports])."""
    if fn is None:
        return
    meta = fn._metadata if hasattr(fn, "_metadata") else None
    _warn_stack(fn.name(), None if meta is None else meta.get("traceback_"), is_parent=False)
    parent = None if meta is None else meta.get("parent_")
    seen = {id(fn)}
    while parent is not None and id(parent) not in seen:
        seen.add(id(parent))
        pmeta = getattr(parent, "_metadata", None) or {}
        _warn_stack(parent.name(), pmeta.get("traceback_"), is_parent=True)
        parent = pmeta.get("parent_")


def _warn_stack(name, stack, is_parent) -> None:
    if stack is None:
        msg = (f"Error detected in {name}. No forward pass information available. Enable "
               "detect anomaly during forward pass for more information.")
        line = 100
    elif not is_parent:
        msg = (f"Error detected in {name}. Traceback of forward call that caused the error:\n"
               + "".join(stack))
        line = 122
    else:
        msg = (f"\n\nPrevious calculation was induced by {name}. Traceback of forward call "
               "that induced the previous calculation:\n" + "".join(stack))
        line = 129
    msg += (" (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
            f"python_anomaly_mode.cpp:{line}.)")
    warnings.warn(msg, UserWarning, stacklevel=4)


# ---------------------------------------------------------------------------------------------
# Note [In-place diagnostics]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's version-counter error names the tensor by dtype, shape and producing node only. Ours
# keeps torch's text first, word for word, then adds lines (each indented by two spaces)
# naming the saved tensor's role (``other`` of MulBackward0, read back as ``_saved_other``)
# and, in anomaly mode, the user's line that made the saving node and the line of the
# in-place op that bumped the version past the saved one. The write sites are kept per
# Storage (shared by every view, like the counter) and only while anomaly mode is on.
# ---------------------------------------------------------------------------------------------
_writes = weakref.WeakKeyDictionary()   # Storage -> {version after the write: (op, frame)}


def note_write(tensor, spec=None, op: str | None = None) -> None:
    """Remember where the in-place write that gave `tensor` its current version happened."""
    storage = tensor._storage_obj()
    if op is None:
        base = spec.base
        op = base if base.endswith("_") else base + "_"
    frame = _user_frame(sys._getframe(1))
    where = traceback.format_list(traceback.extract_stack(frame, limit=1))[0] if frame else None
    sites = _writes.get(storage)
    if sites is None:
        sites = _writes[storage] = {}
    sites[storage.version] = (op, where)


def inplace_details(saved, node, storage) -> str:
    """The lines added after torch's version-counter error (Note [In-place diagnostics]).

    Each added line is indented by two spaces, so torch's text stays the first line alone.
    """
    role = _saved_role(saved, node)
    lines = []
    if role is not None:
        lines.append(f"The modified tensor is {role} of {node.name()} (read back as "
                     f"{node.name()}.{_attr_name(role)}).")
    if _state.enabled:
        meta = getattr(node, "_metadata", None) or {}
        stack = meta.get("traceback_")
        if stack:
            lines.append("It was saved by the forward call at:")
            lines += stack[-1].rstrip("\n").split("\n")
        site = _writes.get(storage, {}).get(saved.version + 1) if storage is not None else None
        if site is not None and site[1] is not None:
            lines.append(f"It was then modified in place by {site[0]} at:")
            lines += site[1].rstrip("\n").split("\n")
    else:
        lines.append("Enable anomaly detection during the forward pass to see where it was "
                     "saved and where it was modified.")
    return "".join("\n  " + ln for ln in lines)


def _saved_role(saved, node):
    """`self`, `other`, `result`… for an op's node, ``saved_tensors[i]`` for a Function's."""
    entries = getattr(node, "_held", None) if node is not None else None
    if not entries:
        return None
    for i, entry in enumerate(entries):
        # (an input kept without a box is matched by the tensor its box holds: Note [Saved
        # inputs without a box])
        if entry is saved or entry is getattr(saved, "tensor", saved):
            spec = getattr(type(node), "spec", None)
            if spec is not None and i < len(spec.saves):
                return f"`{spec.saves[i]}`"
            return f"saved_tensors[{i}]"
    return None


def _attr_name(role: str) -> str:
    if role.startswith("`"):
        return "_saved_" + role.strip("`")
    return role
