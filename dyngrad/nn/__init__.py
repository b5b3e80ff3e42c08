"""dyngrad.nn: neural-network building blocks (``functional`` for now)."""
from . import functional  # noqa: F401
from . import grad  # noqa: F401  (torch.nn.grad: conv*d_input / conv*d_weight)
