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

functional.grad = grad   # (torch.nn.functional.grad is the torch.nn.grad module)

_FACTORY_KEYS = frozenset(("device", "dtype", "memory_format"))


def factory_kwargs(kwargs):
    """The factory keywords (device, dtype, memory_format) of a module's ``**kwargs`` as one
    dict to pass to ``empty``/``zeros``...: unknown keys raise, and a nested
    ``factory_kwargs={...}`` supplies keys whose names the caller's signature uses for
    something else (a key given both ways raises)."""
    if kwargs is None:
        return {}
    unknown = kwargs.keys() - _FACTORY_KEYS - {"factory_kwargs"}
    if unknown:
        raise TypeError(f"unexpected kwargs {unknown}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in ("device", "dtype", "memory_format"):
        if key in kwargs:
            if key in result:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            result[key] = kwargs[key]
    return result
