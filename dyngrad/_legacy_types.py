"""torch's legacy tensor types (``torch.FloatTensor``, ``torch.LongTensor`` … and their
``torch.cuda`` twins), the legacy constructor they share with ``torch.Tensor(...)`` and
``Tensor.new(...)``, and the legacy storage classes (``torch.FloatStorage`` …).

Note [Legacy tensor types]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A legacy type is not a subclass of Tensor, and nothing is ever an instance of it by class:
``torch.FloatTensor(2, 3)`` returns a plain ``Tensor`` of dtype float32, and
``isinstance(x, torch.FloatTensor)`` is a dtype test made by the metaclass (``tensortype``,
as torch names it). The CUDA types print and convert as torch's do, and constructing one
raises torch's error for a build without CUDA. The classes belong to ``dyngrad`` (so that they
pickle), but print as torch's: ``<class 'torch.FloatTensor'>``.

The legacy constructor reads its arguments as torch's argument parser does for its signatures
(``_SIGNATURES``): no argument (an empty tensor), a storage, a tensor (an alias, which must
have the type's dtype), sizes (``FloatTensor(2, 3)``, ``size=(2, 3)``, a ``torch.Size``) or
data (any other sequence or a NumPy array, converted to the type's dtype, never inferred: an
array of that dtype is shared, not copied); a ``device=`` keyword must name the cpu. Other
arguments give the parser's "invalid combination" TypeError.

Differences from torch: no quantized storages and no ``torch.cuda.*Storage``; a size too large for int64 gives torch's
message without the C++ stack trace that follows it in torch's.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence

from . import _dtypes as D
from ._device import device as _device
from ._storage import Storage, TypedStorage, warn_typed_storage_removal
from ._tensor import Tensor
from ._utils import Size
from .ops import creation, shape, tensor_new

_LEGACY_DTYPES = (D.float32, D.float64, D.float16, D.uint8, D.int8, D.int16, D.int32, D.int64,
                  D.bool_, D.bfloat16)
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


# ---------------------------------------------------------------------------------------------
# The legacy constructor
# ---------------------------------------------------------------------------------------------
def legacy_new(dtype: D.dtype, args: tuple, kwargs: dict, kind: str = "ctor") -> Tensor:
    """A tensor of `dtype` from torch's legacy constructor arguments (module docstring).

    `kind` is ``"ctor"`` for ``torch.FloatTensor(...)``, ``"base"`` for ``torch.Tensor(...)``
    (which aliases a tensor of any dtype) and ``"new"`` for ``x.new(...)``.
    """
    device = kwargs.get("device")
    device_ok = device is None or isinstance(device, (str, int, _device))
    keys = set(kwargs)
    if not args and keys <= {"device"} and device_ok:               # ()
        _check_device(device)
        return creation.empty(0, dtype=dtype)
    name, value = _single_argument(args, kwargs)
    extra = keys - {name}
    if name is not None and device_ok:
        if name in ("", "storage") and _is_storage(value) and not extra:
            return _from_storage(dtype, value)
        if name in ("", "other") and isinstance(value, Tensor):
            if extra == {"device"}:                                  # (a hidden signature)
                raise RuntimeError(_TENSOR_AND_DEVICE[kind == "new"])
            if not extra:
                return _alias(dtype, value, kind)
    if args and _is_int(args[0], first=True) and keys <= {"device"} and device_ok:
        _check_device(device)                                        # (2, 3): sizes
        return _empty(dtype, args)
    if name is not None and device_ok and extra <= {"device"}:
        if name == "size" and _is_size_sequence(value):
            _check_device(device)
            return _empty(dtype, value)
        if name in ("", "data"):
            _check_device(device)
            if name == "" and isinstance(value, Size):               # (torch.Size([2, 3]))
                return _empty(dtype, value)
            return _from_data(dtype, value)
    raise _invalid_arguments(args, kwargs)


_TENSOR_AND_DEVICE = (
    "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is not "
    "supported.  Use torch.tensor(...) or torch.as_tensor(...) instead.",
    "Legacy tensor new of the form tensor.new(tensor, device=device) is not supported.  Use "
    "torch.as_tensor(...) instead.")


def _single_argument(args, kwargs):
    """The one argument besides ``device=``: ``("", value)`` when positional, ``(keyword,
    value)`` for a keyword other than ``device``; ``(None, None)`` if there is not just one."""
    if len(args) == 1:
        return "", args[0]
    named = [k for k in kwargs if k != "device"]
    if not args and len(named) == 1:
        return named[0], kwargs[named[0]]
    return None, None


def _check_device(device) -> None:
    """The legacy constructor makes cpu tensors only (torch's check_legacy_ctor_device)."""
    if device is None:
        return
    if isinstance(device, int):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    kind = _device(device).type
    if kind != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{kind} was passed")


def _is_storage(value) -> bool:
    return isinstance(value, (Storage, TypedStorage))


def _is_int(value, first: bool = False) -> bool:
    """Whether torch's parser reads `value` as one size: an int (a bool too, but not first),
    a NumPy integer, or an integer tensor or array of one element."""
    if isinstance(value, bool):
        return not first
    if isinstance(value, int):
        return True
    if isinstance(value, Tensor):    # (a bool one too, which _empty then refuses, as torch)
        return value.dtype.category <= D.INT and value.numel() == 1
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return type(value).__module__ == "numpy" and kind in ("i", "u") and value.ndim == 0


def _is_size_sequence(value) -> bool:
    """A ``size=`` torch's parser takes: a tuple or list whose first element is a size."""
    return isinstance(value, (tuple, list)) and (not value or _is_int(value[0], first=True))


def _empty(dtype, sizes) -> Tensor:
    """An uninitialised tensor; sizes unpacked as torch's parser does, with its errors."""
    shape_ = []
    for pos, n in enumerate(sizes, 1):
        if not _is_int(n):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos} "
                            f"with error \"type must be tuple of ints,but got {_type_name(n)}\"")
        if isinstance(n, Tensor):
            if n.dtype is D.bool_:
                raise RuntimeError("Expected scalar.isIntegral( false) to be true, but got false.  "
                                   "(Could this error message be improved?  If so, please report "
                                   "an enhancement request to PyTorch.)")
            n = int(n.item())
        else:
            n = operator.index(n)
        if not _INT64_MIN <= n <= _INT64_MAX:
            # (torch's message goes on with a C++ stack trace)
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos} "
                            "with error \"Overflow when unpacking long long\"")
        shape_.append(n)
    return creation.empty(tuple(shape_), dtype=dtype)


def _from_storage(dtype, storage) -> Tensor:
    """A 1-d tensor over all of `storage` (a typed storage must hold `dtype`)."""
    if isinstance(storage, TypedStorage) and storage.dtype is not dtype:
        raise RuntimeError(f"Expected a Storage of type {dtype._legacy} or an UntypedStorage, "
                           f"but got type {storage.dtype._legacy} for argument 1 'storage'")
    return creation.empty(0, dtype=dtype).set_(storage)


def _alias(dtype, other: Tensor, kind: str) -> Tensor:
    """`other` itself under a new Tensor (torch's ``alias``: AliasBackward0 if it requires
    grad); ``torch.Tensor(x)`` takes any dtype, the typed constructors and ``new`` only their
    own."""
    if kind != "base" and other.dtype is not dtype:
        raise TypeError(f"expected {_options(dtype)} (got {_options(other.dtype)})")
    return shape.alias(other)


def _options(dtype) -> str:
    return (f"TensorOptions(dtype={creation.TYPEMETA_NAME[dtype]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _from_data(dtype, data) -> Tensor:
    """A tensor of `dtype` from a sequence or NumPy array: values converted as
    ``torch.tensor(data, dtype=dtype)`` would, but an array of `dtype` is shared, not copied
    (torch's legacy_new_from_sequence)."""
    if _is_storage(data):   # (a storage met here, by device= or data=: torch's other message)
        if isinstance(data, TypedStorage) and data.dtype is not dtype:
            raise RuntimeError(f"Expected a Storage of type {dtype._legacy} or an UntypedStorage, "
                               f"but got {data.dtype._legacy}")
        t = creation.empty(0, dtype=dtype).set_(data)
        t._storage.version = 0     # (torch's tensor starts at version 0 on this path)
        return t
    if not tensor_new._is_sequence(data):
        raise TypeError(f"new(): data must be a sequence (got {_type_name(data)})")
    return tensor_new.as_tensor(data, dtype=dtype)


# -- torch's "invalid combination of arguments" message ----------------------------------------
# Each signature as torch prints it, with its parameters in order; "*" is a parameter too in
# torch's count of them.
_SIGNATURES = (
    ("*, torch.device device = None", ("*", "device")),
    ("torch.Storage storage", ("storage",)),
    ("Tensor other", ("other",)),
    ("tuple of ints size, *, torch.device device = None", ("size", "*", "device")),
    ("object data, *, torch.device device = None", ("data", "*", "device")),
)
# What torch's message takes each parameter to match ("*" and "data" match nothing there).
_MATCHES = {
    "storage": _is_storage,
    "other": lambda v: isinstance(v, Tensor),
    "size": lambda v: isinstance(v, tuple) and all(type(n) is int for n in v),
    "device": lambda v: isinstance(v, (str, int, _device)),
}


def _invalid_arguments(args, kwargs) -> TypeError:
    """torch's parser error: each signature, and for those taking as many arguments as were
    given, which keywords it does not know or else which arguments have the wrong type. (torch
    lists the keywords from a C++ hash map: in reverse order, for a few of them; and it never
    counts ``device`` among a signature's keywords.)"""
    kw = list(kwargs.items())[::-1]
    got = creation.argument_list([_type_name(a) for a in args],
                                 [f"{k}={_type_name(v)}" for k, v in kw])
    lines = []
    for text, params in _SIGNATURES:
        lines.append(f" * ({text})\n")
        if len(params) != len(args) + len(kw):
            continue
        wrong = [k for k, _ in kw if k not in params or k == "device"]
        if wrong:
            lines.append("      didn't match because some of the keywords were incorrect: "
                         f"{', '.join(wrong)}\n")
            continue
        positional = params[:params.index("*")] if "*" in params else params
        shown = creation.argument_list(
            [_marked(p, a, _describe(a)) for p, a in zip(positional + ("*",) * len(args), args)],
            [_marked(k, v, f"{k}={_describe(v)}") for k, v in kw])
        lines.append(f"      didn't match because some of the arguments have invalid types: "
                     f"({shown})\n")
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:\n{''.join(lines)}")


def _marked(param, value, text) -> str:
    match = _MATCHES.get(param)
    return text if match is not None and match(value) else f"!{text}!"


def _type_name(value) -> str:
    """A type's name as Python's C API gives it (tp_name), with torch's class names."""
    if isinstance(value, Tensor):
        return "Tensor" if type(value) is Tensor else type(value).__name__
    return _class_name(type(value))


_TORCH_CLASS_NAMES = {D.dtype: "torch.dtype", Size: "torch.Size", _device: "torch.device",
                      TypedStorage: "torch.storage.TypedStorage",
                      Storage: "torch.storage.UntypedStorage"}


def _class_name(t: type) -> str:
    """A class's tp_name: a class written in Python (a heap type) or a builtin gives its bare
    name, any other its module's too (``numpy.float64``)."""
    if t in _TORCH_CLASS_NAMES:
        return _TORCH_CLASS_NAMES[t]
    if isinstance(t, _LegacyStorageMeta):
        return f"torch.{t.__name__}"
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _describe(value) -> str:
    """An argument as torch's parser describes it in its errors (``list of [int, float]``)."""
    if isinstance(value, list):
        return f"list of [{', '.join(_type_name(v) for v in value)}]"
    if isinstance(value, tuple):
        inner = ", ".join(_type_name(v) for v in value) + ("," if len(value) == 1 else "")
        return f"{_type_name(value)} of ({inner})"
    return _type_name(value)


# ---------------------------------------------------------------------------------------------
# The type objects
# ---------------------------------------------------------------------------------------------
class tensortype(type):
    """The class of the legacy tensor types (torch's ``torch.tensortype``).

    ``isinstance(x, torch.FloatTensor)`` is True exactly for float32 (cpu) tensors, whatever
    their class; the type's other attributes are ``Tensor``'s (``torch.FloatTensor.add``).
    """

    def __instancecheck__(cls, obj) -> bool:
        return not cls.is_cuda and isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class '{_torch_name(cls)}'>"

    @property
    def layout(cls):
        from . import strided
        return strided

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(Tensor, name)


def _torch_name(cls) -> str:
    return ("torch.cuda." if cls.is_cuda else "torch.") + cls.__name__


def _construct(cls, *args, **kwargs) -> Tensor:
    """``torch.FloatTensor(...)``: see Note [Legacy tensor types]."""
    if cls.is_cuda:
        from . import cuda
        if not cuda.is_available():
            raise TypeError(f"type {_torch_name(cls)} not available. Torch not compiled with "
                            "CUDA enabled.")
        cuda._lazy_init()
    return legacy_new(cls.dtype, args, kwargs)


def _tensor_type(dtype: D.dtype, is_cuda: bool) -> tensortype:
    return tensortype(f"{dtype._legacy}Tensor", (), {
        "__module__": "dyngrad.cuda" if is_cuda else "dyngrad",
        "__new__": _construct,
        "dtype": dtype, "is_cuda": is_cuda, "is_xpu": False, "is_sparse": False,
        "is_sparse_csr": False,
    })


def type_dtype(cls) -> D.dtype:
    """The dtype ``x.type(cls)`` converts to: a legacy type's (a CUDA one raises), the default
    dtype for ``torch.Tensor``; torch's ValueError for other classes."""
    if isinstance(cls, tensortype):
        if cls.is_cuda:
            creation.check_device("cuda")
        return cls.dtype
    if cls is Tensor:
        return D.get_default_dtype()
    raise ValueError(f"invalid type: '{_class_name(cls)}'")


def default_type_dtype(cls) -> D.dtype:
    """The dtype ``torch.set_default_tensor_type(cls)`` makes the default, with torch's
    errors: only a cpu floating-point legacy type."""
    if not isinstance(cls, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if cls.is_cuda:
        raise TypeError(f"type {_torch_name(cls)} not available. Torch not compiled with CUDA "
                        "enabled.")
    if cls.dtype.category != D.FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    return cls.dtype


_CPU_TYPES = {d: _tensor_type(d, False) for d in _LEGACY_DTYPES}
CUDA_TENSOR_TYPES = {t.__name__: _tensor_type(d, True) for d, t in _CPU_TYPES.items()}

FloatTensor = _CPU_TYPES[D.float32]
DoubleTensor = _CPU_TYPES[D.float64]
HalfTensor = _CPU_TYPES[D.float16]
ByteTensor = _CPU_TYPES[D.uint8]
CharTensor = _CPU_TYPES[D.int8]
ShortTensor = _CPU_TYPES[D.int16]
IntTensor = _CPU_TYPES[D.int32]
LongTensor = _CPU_TYPES[D.int64]
BoolTensor = _CPU_TYPES[D.bool_]
BFloat16Tensor = _CPU_TYPES[D.bfloat16]


# ---------------------------------------------------------------------------------------------
# Legacy storage classes
# ---------------------------------------------------------------------------------------------
class _LegacyStorageMeta(type):
    """The class of ``torch.FloatStorage`` …: constructing one gives a ``TypedStorage`` of its
    dtype, and ``isinstance(s, torch.FloatStorage)`` is a dtype test on TypedStorages."""

    def __instancecheck__(cls, obj) -> bool:
        return type(obj) is TypedStorage and obj.dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"

    @property
    def dtype(cls) -> D.dtype:
        warn_typed_storage_removal()   # (torch's class property warns too)
        return cls._dtype


def _construct_storage(cls, *args, wrap_storage=None, dtype=None, device=None):
    """``torch.FloatStorage()``, ``(size)``, ``(sequence)`` or ``(wrap_storage=untyped)``, with
    the errors of torch's ``_LegacyStorage``; values are converted as ``torch.tensor``'s."""
    warn_typed_storage_removal()
    usage = (f"{cls!r}.__new__ received an invalid combination of arguments. Expected one of:\n"
             " * no arguments\n * (int size)\n * (Sequence data)\n"
             " * (*, UntypedStorage wrap_storage)\n")
    for name, value in (("device", device), ("dtype", dtype)):
        if value is not None:
            raise RuntimeError(f"{usage}Keyword argument '{name}' cannot be specified")
    if wrap_storage is not None:
        if args:
            raise RuntimeError(f"{usage}No positional arguments should be given when using "
                               "'wrap_storage'")
        if not isinstance(wrap_storage, Storage):
            raise TypeError(f"{usage}Argument 'wrap_storage' must be UntypedStorage, but got "
                            f"{type(wrap_storage)}")
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls._dtype, _internal=True)
    if len(args) > 1:
        raise RuntimeError(f"{usage}Too many positional arguments")
    data = args[0] if args else 0
    if isinstance(data, Sequence):
        values = tensor_new.tensor(data, dtype=cls._dtype)
    elif _is_int(data) and not isinstance(data, Tensor):
        values = creation.empty(int(data), dtype=cls._dtype)
    else:
        raise TypeError(f"{usage}Argument type not recognized: {type(data)}")
    return TypedStorage(wrap_storage=values.untyped_storage(), dtype=cls._dtype, _internal=True)


_STORAGE_DTYPES = _LEGACY_DTYPES + (D.complex64, D.complex128)
_STORAGES = {d: _LegacyStorageMeta(f"{d._legacy}Storage", (TypedStorage,), {
    "__module__": "dyngrad", "__new__": _construct_storage, "_dtype": d})
    for d in _STORAGE_DTYPES}


def legacy_storage_class(dtype):
    """The legacy storage class of `dtype` (``Tensor.storage_type()``, and ``torch.Storage``
    for the default dtype); None for a dtype that has none."""
    return _STORAGES.get(dtype)


FloatStorage = _STORAGES[D.float32]
DoubleStorage = _STORAGES[D.float64]
HalfStorage = _STORAGES[D.float16]
ByteStorage = _STORAGES[D.uint8]
CharStorage = _STORAGES[D.int8]
ShortStorage = _STORAGES[D.int16]
IntStorage = _STORAGES[D.int32]
LongStorage = _STORAGES[D.int64]
BoolStorage = _STORAGES[D.bool_]
BFloat16Storage = _STORAGES[D.bfloat16]
ComplexFloatStorage = _STORAGES[D.complex64]
ComplexDoubleStorage = _STORAGES[D.complex128]

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor",
           "ShortTensor", "IntTensor", "LongTensor", "BoolTensor", "BFloat16Tensor",
           "BFloat16Storage", "FloatStorage", "DoubleStorage", "HalfStorage", "ByteStorage", "CharStorage",
           "ShortStorage", "IntStorage", "LongStorage", "BoolStorage", "ComplexFloatStorage",
           "ComplexDoubleStorage"]
