"""dyngrad.linalg: the ops published as ``linalg.<name>`` (declared in dyngrad/ops)."""
from .ops import namespace as _namespace
from .ops._registry import picklable_by_name as _picklable_by_name

globals().update(_namespace("linalg"))
_picklable_by_name(__name__, _namespace("linalg"))
