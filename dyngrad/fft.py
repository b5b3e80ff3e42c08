"""dyngrad.fft: the ops published as ``fft.<name>`` (declared in dyngrad/ops/fft.py)."""
from .ops import namespace as _namespace
from .ops._registry import picklable_by_name as _picklable_by_name

globals().update(_namespace("fft"))
_picklable_by_name(__name__, _namespace("fft"))
