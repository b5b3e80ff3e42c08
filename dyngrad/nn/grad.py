"""dyngrad.nn.grad: gradients of convolutions with respect to input and weight (as torch.nn.grad)."""
from ..ops import namespace as _namespace
from ..ops._registry import picklable_by_name as _picklable_by_name

globals().update(_namespace("nn.grad"))
_picklable_by_name(__name__, _namespace("nn.grad"))
