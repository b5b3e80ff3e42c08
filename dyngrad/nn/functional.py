"""dyngrad.nn.functional: the ops published as ``nn.functional.<name>`` (declared in dyngrad/ops)."""
from ..ops import namespace as _namespace

globals().update(_namespace("nn.functional"))
