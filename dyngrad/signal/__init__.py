"""dyngrad.signal (torch.signal): ``signal.windows``, filled from the op registry."""
from . import windows  # noqa: F401
