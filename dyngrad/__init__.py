"""dyngrad: PyTorch's tensor and autograd system, in plain Python on NumPy.

``import dyngrad as torch`` runs ordinary PyTorch code; see README.md for what is covered.
"""
from __future__ import annotations

import sys as _sys

from . import _dtypes
from ._dtypes import (  # noqa: F401
    bool_ as bool, uint8, int8, int16, int32, int64, float16, float32, float64,
    complex64, complex128, uint16, uint32, uint64, bfloat16, dtype, finfo, iinfo, get_default_dtype,
)
from ._device import device  # noqa: F401
from ._promotion import promote_types, result_type, can_cast  # noqa: F401
from ._tensor import (  # noqa: F401
    Tensor, contiguous_format, channels_last, channels_last_3d, preserve_format, memory_format,
    layout, strided, sparse_coo,
)
legacy_contiguous_format = contiguous_format   # (torch's old name for it, the same object)
from ._utils import Size, broadcast_shapes  # noqa: F401
from ._storage import Storage as UntypedStorage, TypedStorage  # noqa: F401
from ._tensor_str import set_printoptions, get_printoptions  # noqa: F401
from .autograd.grad_mode import (  # noqa: F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)
from . import ops as _ops
from .amp import _policy as _amp_policy  # noqa: E402  (Note [Autocast]: wraps composites)
_amp_policy.wrap_composites(_ops.FUNCTIONS, _ops.METHODS, _ops.OPS, vars(_ops))
from . import autograd  # noqa: F401
from .autograd.anomaly_mode import (  # noqa: F401
    is_anomaly_enabled, is_anomaly_check_nan_enabled, set_anomaly_enabled,
)
from . import cuda  # noqa: F401
from . import mps, xpu  # noqa: F401,E402  (device modules of backends this build has not)
from . import accelerator  # noqa: F401,E402  (torch.accelerator: none here)
from ._streams import Stream, Event  # noqa: F401,E402  (torch.Stream, torch.Event)
from . import cpu  # noqa: F401,E402  (torch.cpu, for get_device_module)
from . import fft, func, linalg, nn, signal, sparse, special  # noqa: F401,E402  (namespaces filled from the op registry)
from . import masked  # noqa: F401,E402  (torch.masked: its functional reductions)
from .func import vmap  # noqa: F401,E402  (torch.vmap is torch.func.vmap)
from ._settings import *  # noqa: F401,F403,E402  (threads, determinism, default device...)
from . import optim  # noqa: F401,E402  (optimizers and lr schedulers)
from . import distributed  # noqa: F401,E402  (c10d API; mpi4py is imported only by backend 'mpi')
from .ops import random  # noqa: F401  (torch.random: seeding and generator state)
_sys.modules[__name__ + ".random"] = random   # so that `import dyngrad.random` works
from ._tensor import install_methods as _install_methods, install_operators as _install_operators

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128

from ._legacy_types import *  # noqa: F401,F403,E402  (torch.FloatTensor, torch.LongTensor...)
from ._legacy_types import legacy_storage_class as _legacy_storage_class  # noqa: E402
Storage = FloatStorage  # noqa: F405  (torch.Storage: the default dtype's; set_default_dtype)
from . import version, torch_version, types  # noqa: E402,F401
from . import __future__  # noqa: E402,F401  (torch.__future__: Module conversion switches)
from .torch_version import __version__  # noqa: E402,F401  (a TorchVersion: compares as one)
from .cuda import OutOfMemoryError, AcceleratorError  # noqa: E402,F401


def set_default_dtype(d) -> None:
    """Set the dtype of Python floats in new tensors (float32 or float64, as torch)."""
    _dtypes.set_default_dtype(d)
    _ops._registry.clear_dtype_caches()
    global Storage
    Storage = _legacy_storage_class(get_default_dtype())


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input) -> int:
    return input.numel()


# (Note [Parser errors] in ops/_arg_parser.py: Python functions get a frame wording failures)
_published = _ops._arg_parser.published({k: v for k, v in _ops.FUNCTIONS.items()
                                         if "." not in k})
globals().update(_published)
_ops._registry.picklable_by_name(__name__, _published)
del _published
_install_methods(_ops.METHODS)
_install_operators()
from . import _tensor_python  # noqa: E402  (the methods torch writes in Python: after the rest)
_tensor_python.install(_sys.modules[__name__])

from . import utils  # noqa: E402  (torch.utils.data works after `import torch`)
from .utils import data as _utils_data  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import distributions  # noqa: E402,F401  (torch.distributions)
from ._constants import e, inf, nan, newaxis, pi  # noqa: E402,F401  (math's floats, as torch)
from . import testing  # noqa: E402,F401  (torch.testing: assert_close, make_tensor)
from .utils import dlpack as _utils_dlpack  # noqa: E402,F401  (torch.utils.dlpack after import)
from . import profiler  # noqa: E402,F401  (torch.profiler works after `import torch`)
from . import multiprocessing  # noqa: E402,F401  (torch.multiprocessing: registers its reducers)
from . import compiler  # noqa: E402,F401  (torch.compiler; compile runs eagerly)
from . import futures  # noqa: E402,F401  (torch.futures: Future, collect_all, wait_all)
from .futures import Future  # noqa: E402,F401  (torch.Future)
from . import jit  # noqa: E402,F401  (torch.jit as with PYTORCH_JIT=0: annotations off)
from .jit import _fork as fork, _wait as wait  # noqa: E402,F401  (torch.fork, torch.wait)
from . import storage  # noqa: E402,F401  (torch.storage: the storage classes)
from . import functional  # noqa: E402,F401  (torch.functional: einsum, stft, norm, ...)
from . import library  # noqa: E402,F401  (torch.library: custom ops; torch.ops lookup in ops/)
from . import overrides, _C  # noqa: E402,F401  (torch.overrides, torch._C: __torch_function__)
from .overrides import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402,F401
from .compiler import compile  # noqa: E402,F401,A001  (torch.compile)
from . import amp  # noqa: E402,F401  (torch.amp: autocast, GradScaler)
from .amp import autocast, GradScaler  # noqa: E402,F401  (torch.autocast, torch.GradScaler)
from .amp._state import *  # noqa: E402,F401,F403  (is_autocast_enabled, set_autocast_dtype...)
from .amp.grad_scaler import (  # noqa: E402,F401
    _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_,
)
from .amp import cpu_amp as _cpu_amp  # noqa: E402
cpu.amp = _sys.modules[__name__ + ".cpu.amp"] = _cpu_amp   # torch.cpu.amp (deprecated)
from .amp import cuda_amp as _cuda_amp  # noqa: E402
cuda.amp = _sys.modules[__name__ + ".cuda.amp"] = _cuda_amp   # torch.cuda.amp (deprecated)

# The public classes carry the module torch names them by, as torch's own do (torch sets
# ``Tensor.__module__ = "torch"``): ``type(x)`` prints ``<class 'dyngrad.Tensor'>``, and
# pickle finds each class at that address. Their code stays in the files named by their
# methods' ``__module__`` (_tensor.py, _utils.py, _dtypes.py, _device.py, _storage.py).
from ._tensor import seal_read_only as _seal_read_only  # noqa: E402
_seal_read_only(Tensor)   # Note [Read-only attributes] (once every property is installed)

for _cls in (Tensor, Size, dtype, device, finfo, iinfo):
    _cls.__module__ = __name__
for _cls in (storage.TypedStorage, storage.UntypedStorage):
    _cls.__module__ = __name__ + ".storage"
del _cls
