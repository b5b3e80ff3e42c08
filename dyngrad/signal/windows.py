"""dyngrad.signal.windows: the window functions published as ``signal.windows.<name>``
(declared in dyngrad/ops/windows.py)."""
from ..ops import namespace as _namespace

globals().update(_namespace("signal.windows"))
