"""dyngrad.special: the ops published as ``special.<name>`` (declared in dyngrad/ops)."""
from .ops import namespace as _namespace

globals().update(_namespace("special"))
