"""dyngrad.linalg: the ops published as ``linalg.<name>`` (declared in dyngrad/ops)."""
from .ops import namespace as _namespace

globals().update(_namespace("linalg"))
