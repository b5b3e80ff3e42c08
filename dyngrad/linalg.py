"""dyngrad.linalg: the ops published as ``linalg.<name>`` (declared in dyngrad/ops)."""
from .ops import namespace as _namespace
from .ops._arg_parser import published as _published
from .ops._registry import picklable_by_name as _picklable_by_name

# torch.linalg.<name> is the binding linalg_<name>: its TypeError for a wrong argument
_functions = _published(_namespace("linalg"), binding=lambda name: "linalg_" + name)
globals().update(_functions)
_picklable_by_name(__name__, _functions)
del _functions
