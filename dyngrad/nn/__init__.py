"""dyngrad.nn: neural-network building blocks (Module, layers, init, utils, functional)."""
from . import functional  # noqa: F401
from . import grad  # noqa: F401  (torch.nn.grad: conv*d_input / conv*d_weight)
from .parameter import (Buffer, Parameter, UninitializedBuffer,  # noqa: F401
                        UninitializedParameter)
from .modules import *  # noqa: F401,F403
from . import init, utils  # noqa: F401,E402
from . import parallel  # noqa: F401,E402  (DistributedDataParallel)
from .parallel import DataParallel  # noqa: F401,E402
from . import attention  # noqa: F401,E402  (torch.nn.attention: SDPBackend, sdpa_kernel)
