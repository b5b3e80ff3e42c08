"""Matrix products: the primitives ``mm``, ``mv``, ``dot``, ``bmm`` (each with its derivative)
and ``matmul`` over them.

These ops do not promote: both operands must have the same dtype (torch's errors otherwise).
Each primitive checks its operands in the order torch does (ranks first; sizes and dtypes in
an order that differs per op), so that ``matmul``, which only reshapes and dispatches, raises
exactly torch's message for the path it takes.

Note [matmul is a resolver]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``matmul`` has no node of its own: 1-D @ 1-D is ``dot``, 2-D @ 1-D ``mv``, 2-D @ 2-D
``mm``, 1-D @ 2-D ``unsqueeze(0).mm().squeeze(0)``; with batches, the larger operand is folded
into a matrix for one ``mm``/``mv`` when that costs no copy (``should_fold``), and otherwise
both are broadcast and flattened for ``bmm``. Following the same paths gives the same node
names, the same result strides (always contiguous) and the same error texts.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_shapes, shape_str
from . import _registry
from ._registry import FUNCTIONS, METHODS, defop

# C++ type names, as torch's "expected m1 and m2 to have the same dtype" message spells them.
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int", "float16": "c10::Half",
              "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _legacy(arr) -> str:
    return D.from_np(arr.dtype)._legacy


def cpp_type_name(dtype) -> str:
    """A dtype as torch's messages sometimes spell it: its C++ type ("long int")."""
    return _CPP_NAMES[dtype.name]


def _cpp(arr) -> str:
    return cpp_type_name(D.from_np(arr.dtype))


def _check_bool(arr, kernel_name: str) -> None:
    if arr.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{_legacy(arr)}'")


def _product(xp, fn, a, b):
    """a @ b; float16 accumulates in float32 as torch's CPU kernels do."""
    if a.dtype == xp.float16:
        return fn(a.astype(xp.float32), b.astype(xp.float32)).astype(xp.float16)
    return fn(a, b)


# Differences from torch: mm keeps both operands, where torch keeps each only when the other's
# gradient is needed (plus both strides, which the formula's column-major test reads).
@defop("mm", node="MmBackward0", promote=Promote.NONE, inputs=("self", "mat2"),
       variants=("function", "method", "out"), saves=("self", "mat2"), scalars=())
def mm(xp, self, mat2):
    if self.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x"
                           f"{self.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    if self.dtype != mat2.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_cpp(self)} != {_cpp(mat2)}")
    _check_bool(self, "addmm_impl_cpu_")
    return _product(xp, xp.matmul, self, mat2)


def _column_major(t) -> bool:
    stride = t.stride()
    return stride[0] == 1 and stride[1] == t.shape[0]


@mm.backward
def _(ctx, grad):
    self, mat2 = ctx.saved_tensors
    need_self, need_mat2 = ctx.needs_input_grad
    grad_self = grad_mat2 = None
    # a column-major input gets a column-major gradient (torch's mm_mat1/mat2_backward)
    if need_self:
        grad_self = mat2.mm(grad.t()).t() if _column_major(self) else grad.mm(mat2.t())
    if need_mat2:
        grad_mat2 = grad.t().mm(self).t() if _column_major(mat2) else self.t().mm(grad)
    return grad_self, grad_mat2


# torch's MmBackward0 also shows the operands' strides
mm.node_cls._saved_self_sym_strides = property(lambda ctx: ctx._saved_self.stride())
mm.node_cls._saved_mat2_sym_strides = property(lambda ctx: ctx._saved_mat2.stride())


@defop("mv", node="MvBackward0", promote=Promote.NONE, inputs=("self", "vec"),
       variants=("function", "method", "out"), saves={"self": "vec", "vec": "self"},
       scalars=())
def mv(xp, self, vec):
    if self.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    if self.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self.shape[0]}), mat ({self.shape[0]}x"
                           f"{self.shape[1]}), vec ({vec.shape[0]})")
    if self.dtype != vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{_legacy(vec)}, {_legacy(self)}, and {_legacy(vec)}")
    _check_bool(self, "addmv_impl_cpu")
    return _product(xp, xp.matmul, self, vec)


@mv.backward
def _(ctx, grad):
    self, vec = ctx.saved_tensors
    need_self, need_vec = ctx.needs_input_grad
    return (grad.unsqueeze(1) * vec if need_self else None,    # the outer product grad ⊗ vec
            self.t().mv(grad) if need_vec else None)


@defop("dot", node="DotBackward0", promote=Promote.NONE, inputs=("self", "tensor"),
       variants=("function", "method", "out"), saves={"self": "tensor", "tensor": "self"},
       scalars=())
def dot(xp, self, tensor):
    if self.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D "
                           "tensors")
    if self.dtype != tensor.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{_legacy(self)} and {_legacy(tensor)}")
    if self.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{self.shape[0]}] and "
                           f"src [{tensor.shape[0]}] to have the same number of elements, but "
                           f"got {self.shape[0]} and {tensor.shape[0]} elements respectively")
    _check_bool(self, "dot")
    return _product(xp, xp.dot, self, tensor)


@dot.backward
def _(ctx, grad):
    self, tensor = ctx.saved_tensors
    need_self, need_tensor = ctx.needs_input_grad
    return grad * tensor if need_self else None, grad * self if need_tensor else None


@defop("bmm", node="BmmBackward0", promote=Promote.NONE, inputs=("self", "mat2"),
       variants=("function", "method", "out"), saves={"self": "mat2", "mat2": "self"},
       scalars=())
def bmm(xp, self, mat2):
    if self.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    want = [self.shape[0], self.shape[2]]
    if list(mat2.shape[:2]) != want:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"{shape_str(want)} but got: {shape_str(mat2.shape[:2])}.")
    if self.dtype != mat2.dtype:
        raise RuntimeError(f"expected scalar type {_legacy(self)} but found {_legacy(mat2)}")
    _check_bool(self, "bmm")
    return _product(xp, xp.matmul, self, mat2)


@bmm.backward
def _(ctx, grad):
    self, mat2 = ctx.saved_tensors
    need_self, need_mat2 = ctx.needs_input_grad
    return (grad.bmm(mat2.transpose(1, 2)) if need_self else None,
            self.transpose(1, 2).bmm(grad) if need_mat2 else None)


# -- matmul ------------------------------------------------------------------------------------
def _shape_op(name: str):
    """A shape op from ops/shape.py, looked up when called (it registers after this module)."""
    return METHODS[name]


def _should_fold(t1, t2) -> bool:
    """torch's should_fold: fold the larger operand into a matrix for one mm/mv (no out=)."""
    larger_first = t1.ndim >= t2.ndim
    big = t1 if larger_first else t2
    small = t2 if larger_first else t1
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True      # torch folds to keep the backward from broadcasting the small operand
    if t1.ndim == 2:
        return False     # folding would need a transpose and a copy of the result
    if big.numel() == 0:
        return True
    shape, stride = tuple(big.shape), big.stride()
    if not larger_first:     # the larger operand enters transposed (t2.mT)
        shape = shape[:-2] + (shape[-1], shape[-2])
        stride = stride[:-2] + (stride[-1], stride[-2])
    # the batch dims must collapse into the rows without a copy
    return all(stride[i] == stride[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def matmul(input, other, *, out=None):
    """Matrix product with torch's broadcasting rules. See Note [matmul is a resolver]."""
    for i, (name, t) in enumerate((("input", input), ("other", other))):
        if not isinstance(t, _registry._Tensor):
            raise TypeError(f"matmul(): argument '{name}' (position {i + 1}) must be Tensor, "
                            f"not {type(t).__name__}")
    d1, d2 = input.ndim, other.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    kw = {} if out is None else {"out": out}
    if d1 == 1 and d2 == 1:
        return dot(input, other, **kw)
    if d1 == 2 and d2 == 1:
        return mv(input, other, **kw)
    if d1 == 2 and d2 == 2:
        return mm(input, other, **kw)
    if d1 == 1 and d2 == 2:   # torch squeezes in place here (SqueezeBackward4)
        result = _shape_op("squeeze_")(mm(_shape_op("unsqueeze")(input, 0), other), 0)
    elif _should_fold(input, other):
        result = _folded(input, other)
    else:
        if d1 == 3 and d2 == 3 and input.shape[0] != other.shape[0]:
            # a unit batch that requires grad is squeezed rather than broadcast (torch does
            # this so that its gradient is not summed over an expanded batch)
            squeeze = _shape_op("squeeze")
            if input.shape[0] == 1 and input.requires_grad:
                return matmul(squeeze(input, 0), other, **kw)
            if other.shape[0] == 1 and other.requires_grad:
                return matmul(input, squeeze(other, 0), **kw)
        result = _batched(input, other)
    if out is not None:
        return _registry._write_out(mm, out, result._data)
    return result


def _unsafe_view(t, shape):
    """torch gives matmul's result its final shape with _unsafe_view (UnsafeViewBackward0)."""
    return _registry.OPS["_unsafe_view"](t, shape)


def _folded(input, other):
    reshape = _shape_op("reshape")

    def mT(t):
        return _shape_op("transpose")(t, -2, -1)

    transpose = other.ndim > input.ndim
    t1 = mT(other) if transpose else input
    t2 = (_shape_op("t")(input) if input.ndim == 2 else input) if transpose else other
    batch = tuple(t1.shape[:-1])
    rows = 1
    for n in batch:
        rows *= n
    t1_folded = reshape(t1, (rows, t1.shape[-1]))
    if t2.ndim == 1:
        return _unsafe_view(mv(t1_folded, t2), batch)
    result = _unsafe_view(mm(t1_folded, t2), batch + (t2.shape[1],))
    return _shape_op("contiguous")(mT(result)) if transpose else result


def _batched(input, other):
    reshape, expand = _shape_op("reshape"), _shape_op("expand")
    d1, d2 = input.ndim, other.ndim
    n = input.shape[-2] if d1 > 1 else 1
    m1 = input.shape[-1]
    m2 = other.shape[-2] if d2 > 1 else other.shape[0]
    p = other.shape[-1] if d2 > 1 else 1
    batch = tuple(broadcast_shapes(tuple(input.shape[:-2]), tuple(other.shape[:-2])))
    count = 1
    for s in batch:
        count *= s
    a = reshape(expand(input, batch + (n, m1)), (count, n, m1))
    if d2 == 1:
        b = _shape_op("unsqueeze")(reshape(expand(other, batch + (m2,)), (count, m2)), 2)
    else:
        b = reshape(expand(other, batch + (m2, p)), (count, m2, p))
    result = bmm(a, b)
    if d2 == 1:
        result = _shape_op("squeeze")(result, -1)
    return _unsafe_view(result, batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ()))


FUNCTIONS["matmul"] = METHODS["matmul"] = matmul
