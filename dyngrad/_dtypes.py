"""dtype objects with torch's names, their NumPy counterparts, finfo/iinfo and the default dtype.

A dyngrad ``dtype`` prints as torch's does (``torch.float32``) so that reprs and error messages
read exactly like PyTorch's. Tensors keep their values in NumPy arrays; ``to_np`` and
``from_np`` translate between the two worlds.
"""
from __future__ import annotations

import numpy as np

try:   # Note [bfloat16 through ml_dtypes]
    import ml_dtypes as _ml_dtypes
except ImportError:   # pragma: no cover - exercised with a monkeypatched import
    _ml_dtypes = None

# Categories, in torch's promotion order: bool < integer < floating < complex.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type (``dyngrad.float32`` …); mirrors ``torch.dtype``."""

    __slots__ = ("name", "np", "itemsize", "category", "is_signed", "_legacy", "abbr")

    def __init__(self, name: str, np_dtype, category: int, legacy: str, abbr: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category
        self.is_signed = name != "bool" and not name.startswith("uint")
        self._legacy = legacy  # torch.FloatTensor style name, used in error messages
        self.abbr = abbr

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOAT

    @property
    def is_complex(self) -> bool:
        return self.category == COMPLEX

    def to_complex(self) -> "dtype":
        # torch gives complex32 for float16; NumPy has no such type (README: differences)
        return {float16: complex64, bfloat16: complex64, float32: complex64,
                float64: complex128}.get(self, self)

    def to_real(self) -> "dtype":
        return {complex64: float32, complex128: float64}.get(self, self)

    def __repr__(self) -> str:
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self):
        return (_by_name, (self.name,))


class _MissingBFloat16(dtype):
    """bfloat16 while ml_dtypes is not installed: the dtype exists (its repr, itemsize,
    is_floating_point, promotion), but anything needing its NumPy type (a tensor of it) raises."""

    __slots__ = ()

    def __init__(self):
        self.name, self.itemsize, self.category, self.is_signed = "bfloat16", 2, FLOAT, True
        self._legacy, self.abbr = "BFloat16", "bf16"

    @property
    def np(self):
        raise RuntimeError("bfloat16 tensors need the ml_dtypes package (NumPy has no bfloat16 "
                           "type): install it with `pip install dyngrad[bf16]`")


bool_ = dtype("bool", np.bool_, BOOL, "Bool", "b1")
uint8 = dtype("uint8", np.uint8, INT, "Byte", "u1")
int8 = dtype("int8", np.int8, INT, "Char", "i1")
int16 = dtype("int16", np.int16, INT, "Short", "i2")
int32 = dtype("int32", np.int32, INT, "Int", "i4")
int64 = dtype("int64", np.int64, INT, "Long", "i8")
float16 = dtype("float16", np.float16, FLOAT, "Half", "f2")
float32 = dtype("float32", np.float32, FLOAT, "Float", "f4")
float64 = dtype("float64", np.float64, FLOAT, "Double", "f8")
# Note [bfloat16 through ml_dtypes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# NumPy has no bfloat16; the optional ml_dtypes package (``dyngrad[bf16]``) adds one whose
# ufuncs compute each element in float32 and round to nearest even, as torch's CPU kernels do.
# Its NumPy kind is "V" (not "f"): no other "V" dtype ever backs a tensor, so kind tests read
# "fV" / "fcV" for "floating" / "differentiable". Kernels that accumulate (sums, matmul) or chain
# several ufuncs compute in float32 and round once (``_npb.opmath``), as torch's "opmath" does.
bfloat16 = (dtype("bfloat16", _ml_dtypes.bfloat16, FLOAT, "BFloat16", "bf16")
            if _ml_dtypes is not None else _MissingBFloat16())
complex64 = dtype("complex64", np.complex64, COMPLEX, "ComplexFloat", "c8")
complex128 = dtype("complex128", np.complex128, COMPLEX, "ComplexDouble", "c16")
# torch's "limited support" unsigned types (Note [Limited unsigned dtypes] in _promotion.py)
uint16 = dtype("uint16", np.uint16, INT, "UInt16", "u2")
uint32 = dtype("uint32", np.uint32, INT, "UInt32", "u4")
uint64 = dtype("uint64", np.uint64, INT, "UInt64", "u8")
LIMITED_UNSIGNED = frozenset((uint16, uint32, uint64))

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64,
              complex64, complex128, uint16, uint32, uint64, bfloat16)
HAS_BFLOAT16 = _ml_dtypes is not None
# the dtypes whose tensors can exist here (bfloat16 only with ml_dtypes)
NP_DTYPES = ALL_DTYPES if HAS_BFLOAT16 else ALL_DTYPES[:-1]
BF16_NP = bfloat16.np if HAS_BFLOAT16 else None

# Fast lookups from NumPy dtypes (and their scalar types) to ours.
_FROM_NP: dict = {}
for _d in NP_DTYPES:
    _FROM_NP[_d.np] = _d
    _FROM_NP[_d.np.type] = _d
_BY_NAME = {d.name: d for d in ALL_DTYPES}


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_np(np_dtype) -> dtype:
    """The dyngrad dtype of a NumPy dtype; TypeError for types torch does not have."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        d = np.dtype(np_dtype)
        if d in _FROM_NP:
            return _FROM_NP[d]
        raise TypeError(
            f"can't convert np.ndarray of type {np_type_name(d)}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint64, uint32, uint16, uint8, and bool.") from None


def np_type_name(d) -> str:
    """A NumPy dtype as torch's errors name it: ``numpy.int32``, ``ml_dtypes.bfloat16``."""
    d = np.dtype(d)
    return f"{d.type.__module__.split('.')[0]}.{d.type.__name__}" if d.kind == "V" else \
        f"numpy.{d.name}"


def user_np(np_dtype) -> dtype:
    """``from_np`` for arrays a user hands over (from_numpy, tensor(ndarray)): torch refuses
    ml_dtypes' bfloat16 as any other NumPy type it does not have."""
    if np_dtype is BF16_NP or (BF16_NP is not None and np_dtype == BF16_NP):
        raise TypeError(
            f"can't convert np.ndarray of type {np_type_name(np_dtype)}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint64, uint32, uint16, uint8, and bool.")
    return from_np(np_dtype)


def to_np(d: dtype) -> np.dtype:
    return d.np


def type_string(d: dtype) -> str:
    """torch's Tensor::toString() of a CPU tensor: its legacy type (``torch.FloatTensor``), or
    ``CPU<Name>Type`` for the dtypes that have none (bool, complex, uint16/32/64)."""
    if d is bool_ or d.category == COMPLEX or d in LIMITED_UNSIGNED:
        return f"CPU{d._legacy}Type"
    return f"torch.{d._legacy}Tensor"


# ---------------------------------------------------------------------------------------------
# Default dtype (torch.set_default_dtype / get_default_dtype)
# ---------------------------------------------------------------------------------------------
class _Defaults:
    float = float32
    complex = complex64


_defaults = _Defaults()


def get_default_dtype() -> dtype:
    """The dtype given to Python floats (``float32`` unless changed)."""
    return _defaults.float


def set_default_dtype(d: dtype) -> None:
    """Set the floating dtype used for Python floats; only float32 and float64, as torch."""
    if not isinstance(d, dtype) or d.category != FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    _defaults.float = d
    # (torch has no complex type for a bfloat16 default: "invalid default scalar type")
    _defaults.complex = complex128 if d is float64 else None if d is bfloat16 else complex64


def get_default_complex_dtype() -> dtype:
    if _defaults.complex is None:
        raise RuntimeError("invalid default scalar type for complex")
    return _defaults.complex


# ---------------------------------------------------------------------------------------------
# finfo / iinfo with torch's repr
# ---------------------------------------------------------------------------------------------
class finfo:
    """Machine limits of a floating dtype, as ``torch.finfo``."""

    def __init__(self, type: dtype | None = None):
        type = type or get_default_dtype()
        if type.category not in (FLOAT, COMPLEX):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        real = type.to_real()
        self.dtype = real.name
        if real is bfloat16:   # (its limits, with or without ml_dtypes)
            self.bits, self.eps, self.resolution = 16, 2.0 ** -7, 0.01
            self.max = (2 - 2.0 ** -7) * 2.0 ** 127
            self.min = -self.max
            self.tiny = self.smallest_normal = 2.0 ** -126
            return
        info = np.finfo(real.np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        # NumPy keeps resolution as a float16 (0.0010004); torch reports the decimal 10**-precision
        self.resolution = float(10.0 ** -int(info.precision))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype, as ``torch.iinfo``."""

    def __init__(self, type: dtype):
        if type.category not in (INT, BOOL) or type is bool_:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = info.bits
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # torch's %g
