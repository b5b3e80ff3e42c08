"""dyngrad.nn.grad: gradients of convolutions with respect to input and weight (as torch.nn.grad)."""
from ..ops import namespace as _namespace

globals().update(_namespace("nn.grad"))
