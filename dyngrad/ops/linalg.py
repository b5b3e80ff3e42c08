"""Matrix products: the primitives ``mm``, ``mv``, ``dot``, ``bmm`` (each with its derivative)
and ``matmul`` over them; ``vdot`` and ``outer``/``ger``; the fused BLAS-style products
``addmm``, ``addmv``, ``addr``, ``baddbmm`` and ``addbmm`` (Note [beta and alpha]).

Other linear algebra lives beside this file: linalg_structure.py (trace, tril/triu, diagonals,
cross), linalg_products.py (einsum, tensordot, kron, multi_dot, vecdot, matrix_power),
linalg_decomp.py (inv, det, slogdet, solve, cholesky, triangular solvers) and
linalg_spectral.py (qr, svd, eigh, pinv, lstsq, matrix_rank).

Except ``addr``, these ops do not promote: both operands must have the same dtype (torch's errors otherwise).
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
from ..backends import numpy_backend as _npb
from ..backends.blas import gemm_plus
from . import _dispatch, _registry
from ._autograd_utils import arrays_only, conj, from_array, unobserved
from ..autograd.engine import summed_view
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from ..autograd.forward_ad import MULTILINEAR

# C++ type names, as torch's "expected m1 and m2 to have the same dtype" message spells them.
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16",
              "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>", "uint16": "short unsigned int",
              "uint32": "unsigned int", "uint64": "long unsigned int"}


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
    kind = a.dtype.kind
    if kind in "fV" and a.itemsize == 2:
        return fn(a.astype(xp.float32), b.astype(xp.float32)).astype(a.dtype)
    if kind not in "fV" and kind != "c":
        return fn(a, b)
    # a matrix BLAS cannot read (neither C- nor F-ordered: an expanded gradient) is copied to
    # C order first, since NumPy's matmul falls back to a slow loop for other strides
    if a.ndim == 2 and not a.flags.c_contiguous and not a.flags.f_contiguous:
        a = xp.ascontiguousarray(a)
    if fn is not xp.matmul or a.ndim != 2:
        return fn(a, b)
    if b.ndim == 1:
        return _npb.dot(a, b)
    if b.ndim != 2:
        return fn(a, b)
    # two matrices (mm, addmm, a linear layer): Note [np.dot or np.matmul]
    fb = b.flags
    if not fb.c_contiguous:
        if not fb.f_contiguous:
            b = xp.ascontiguousarray(b)
        elif _few_rows_times_transposed(a, b):
            return xp.ascontiguousarray(fn(b.T, a.T).T)
    if a.shape[1] >= 2 and a.shape[0] * b.shape[1] >= _MATMUL_FROM:
        return xp.matmul(a, b)
    return _npb.dot(a, b)


# Note [np.dot or np.matmul]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Both hand two float matrices to BLAS's gemm, and their results are the same. np.dot
# first fills its result with zeros, which costs a pass over the result. This pass matters
# most when the inner dimension is short: a weight's gradient at a small batch,
# (256 x 32) @ (32 x 784), takes 98 us through np.dot and 86 through np.matmul, and
# (256 x 4) @ (4 x 256) takes 12.1 against 8.2 (float32, one OpenBLAS thread, Intel Xeon; the
# same in float64). np.matmul has other costs. It computes an inner dimension of 1 (an outer
# product) in its own loop, 5x slower than BLAS, and it spends about 0.3 us more per call,
# which a small result never earns back: (64 x 32) @ (32 x 64) takes 1.7 us through np.dot
# and 2.0 through np.matmul. So np.matmul takes products with an inner dimension of at least
# 2 and a result of at least _MATMUL_FROM elements (64 KB in float32), and np.dot takes the
# rest, along with matrix @ vector, where np.matmul is slower too. The choice holds at every
# layout of the operands, and for long inner dimensions the two run level.
_MATMUL_FROM = 16384


def _few_rows_times_transposed(a, b) -> bool:
    """a few rows times a transposed matrix (a linear layer, x @ W.t(), at small batch), where
    OpenBLAS is faster at the transposed product W @ x.t(), even with the copy back to rows. In
    float32 on an AVX-512 EPYC with OpenBLAS's own kernels: 1.7x for 32x784 @ 784x256 (the
    bench's MLP), 1.1-2.2x over 8-64 rows, 128-784 inner and 128-512 output columns; slower
    below these sizes (1.5x slower for 64x32 @ 32x64) and for float64. (`b` column-major.)"""
    rows, inner = a.shape
    return a.itemsize == 4 and 8 <= rows <= 64 and b.shape[1] >= 128 \
        and inner >= (128 if rows <= 32 else 256) and b.flags.f_contiguous


# Differences from torch: mm keeps both operands, where torch keeps each only when the other's
# gradient is needed (plus both strides, which the formula's column-major test reads).
@defop("mm", node="MmBackward0", promote=Promote.NONE, inputs=("self", "mat2"),
       variants=("function", "method", "out"), saves=("self", "mat2"), scalars=(), fast=True)
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
    """stride() == (1, rows): torch's test for a transposed matrix (from the array's strides)."""
    a = t._data
    return a.strides[0] == a.itemsize and a.strides[1] == a.shape[0] * a.itemsize


# Note [Transposed gradients as arrays]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A linear layer's weight ``w`` enters its product as ``w.t()``, so its gradient takes two
# transposes: AddmmBackward0 computes the product in the layout of ``w`` and hands it on
# transposed (torch's mm_mat2_backward: ``grad.t().mm(mat1).t()``), and TBackward0 transposes it
# back for AccumulateGrad, which keeps it as ``.grad``. In torch both are views. Made as views
# here, they cost a view's bookkeeping twice and the steal a check that nothing else reaches the
# memory (Note [Stealing a gradient that is a view] in autograd/engine.py): 22-45 us of a
# 1.2 ms MLP step at batch 32 (three layers; side by side in one process, on an Intel Xeon).
# Where nothing but the engine can see these gradients (``graph.unobserved``: they go to an op's
# node or a leaf, not to a custom Function's backward; no hook on the nodes or the leaf; no
# ``inputs=``), each is instead a new tensor over the NumPy transpose: the product is fresh,
# and TBackward0 takes that form only for a gradient whose memory nothing else reaches
# (``shape._sole_owner``), so the tensor it makes is as much the sole owner of its memory as
# any new result, and AccumulateGrad keeps it without further checks. Values, strides and the
# leaf's ``.grad`` are the same; where a hook, a custom Function or ``inputs=`` looks, the
# views are made as torch makes them (and the bias's gradient is summed as a view too, as
# torch's sum_to makes it).
def _product_grads(ctx, first, grad, mat1, mat2, need1, need2):
    """The gradients of ``mat1 @ mat2`` (inputs `first` and `first` + 1 of the node `ctx`) in
    their array form (Note [Array formulas]): the products the op forms below dispatch, on the
    arrays, a column-major input's gradient transposed back: by the ``t`` op as there where a
    hook could see it, else as the array's transpose (Note [Transposed gradients as arrays])."""
    xp = _npb.xp
    g, a, b = grad._data, mat1._data, mat2._data
    g1 = g2 = None
    if need1:
        g1 = _transposed(ctx, first, _product(xp, xp.matmul, b, g.T)) if _column_major(mat1) \
            else from_array(_product(xp, xp.matmul, g, b.T))
    if need2:
        g2 = _transposed(ctx, first + 1, _product(xp, xp.matmul, g.T, a)) \
            if _column_major(mat2) else from_array(_product(xp, xp.matmul, a.T, g))
    return g1, g2


def _transposed(ctx, i, product):
    """The transpose of a fresh product, as the gradient `ctx` passes to its input `i`."""
    return from_array(product.T) if unobserved(ctx, i) else from_array(product).t()


@mm.backward
def _(ctx, grad):
    self, mat2 = ctx.saved_tensors
    need_self, need_mat2 = ctx.needs_input_grad
    if arrays_only(grad, self, mat2):
        return _product_grads(ctx, 0, grad, self, mat2, need_self, need_mat2)
    grad_self = grad_mat2 = None
    # a column-major input gets a column-major gradient (torch's mm_mat1/mat2_backward);
    # complex operands enter conjugated (Note [Complex gradients]: grad @ mat2.mH)
    if need_self:
        grad_self = conj(mat2).mm(grad.t()).t() if _column_major(self) \
            else grad.mm(conj(mat2.t()))
    if need_mat2:
        grad_mat2 = grad.t().mm(conj(self)).t() if _column_major(mat2) \
            else conj(self.t()).mm(grad)
    return grad_self, grad_mat2


mm.jvp(MULTILINEAR)


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
    return (grad.unsqueeze(1) * conj(vec) if need_self else None,   # grad ⊗ vec.conj()
            conj(self).t().mv(grad) if need_vec else None)


mv.jvp(MULTILINEAR)


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
    return (grad * conj(tensor) if need_self else None,
            grad * conj(self) if need_tensor else None)


dot.jvp(MULTILINEAR)


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
        # torch's naive kernel (under 400 multiply-adds a batch) reads self's type first, its
        # BLAS path the other way round
        a, b = (self, mat2) if self.shape[1] * self.shape[2] * mat2.shape[2] < 400 else \
            (mat2, self)
        raise RuntimeError(f"expected scalar type {_legacy(a)} but found {_legacy(b)}")
    _check_bool(self, "bmm")
    return _product(xp, xp.matmul, self, mat2)


@bmm.backward
def _(ctx, grad):
    self, mat2 = ctx.saved_tensors
    need_self, need_mat2 = ctx.needs_input_grad
    return (grad.bmm(conj(mat2.transpose(1, 2))) if need_self else None,
            conj(self.transpose(1, 2)).bmm(grad) if need_mat2 else None)


bmm.jvp(MULTILINEAR)


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
        return _dispatch._write_out(mm, out, result._data)
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


# -- vdot, outer -------------------------------------------------------------------------------
@defop("vdot", node="VdotBackward0", promote=Promote.NONE, inputs=("self", "other"),
       variants=("function", "method", "out"), saves={"self": "other", "other": "self"},
       scalars=())
def vdot(xp, self, other):
    if self.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors")
    if self.dtype != other.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{_legacy(self)} and {_legacy(other)}")
    if self.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{self.shape[0]}] and "
                           f"src [{other.shape[0]}] to have the same number of elements, but "
                           f"got {self.shape[0]} and {other.shape[0]} elements respectively")
    _check_bool(self, "dot")
    return _product(xp, xp.vdot, self, other)


@vdot.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    return (conj(grad) * other if need_self else None,
            grad * self if need_other else None)


vdot.jvp(MULTILINEAR)


def outer(input, vec2, *, out=None):
    """The outer product of two vectors, ``input.reshape(n, 1) * vec2`` as torch computes it."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    result = _shape_op("reshape")(input, (input.shape[0], 1))
    return FUNCTIONS["mul"](result, vec2, **({} if out is None else {"out": out}))


def ger(input, vec2, *, out=None):
    """``torch.ger``: the deprecated name of ``outer`` (torch warns only with ``out=``)."""
    if out is not None:
        from ._selection import warn_at_caller
        warn_at_caller("torch.ger is deprecated and will be removed in a future PyTorch "
                       "release. Use torch.outer instead. (Triggered internally at "
                       "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1270.)")
    return outer(input, vec2, out=out)


FUNCTIONS["outer"] = METHODS["outer"] = outer
FUNCTIONS["ger"] = METHODS["ger"] = ger


# -- fused products: addmm, addmv, addr, baddbmm, addbmm -----------------------------------------
# Note [beta and alpha]
# ~~~~~~~~~~~~~~~~~~~~~
# ``addmm(self, m1, m2, beta=, alpha=)`` is ``beta * self + alpha * (m1 @ m2)``, with BLAS's
# convention that beta == 0 ignores ``self`` entirely (NaN and inf in it do not propagate). For
# integer tensors torch converts the scalars to the tensor's type (alpha=1.5 acts as 1), for
# bool ones to bool. The gradients are ``beta * grad`` for self (zeros when beta == 0, not None)
# and ``alpha *`` the plain product's gradients; a scalar equal to 1 multiplies nothing.
def _scalar_as(value, arr):
    if arr.dtype.kind == "b":
        return bool(value)
    if arr.dtype.kind in "iu":
        return int(value)
    return value


def _fused(xp, self, product, beta, alpha):
    """beta * self + alpha * product (Note [beta and alpha]); `self` broadcast already."""
    beta, alpha = _scalar_as(beta, product), _scalar_as(alpha, product)
    if product.dtype.kind == "b":
        scaled = product & alpha
        return scaled | (self & beta) if beta else scaled.copy()
    if alpha != 1:
        product = product * xp.asarray(alpha).astype(product.dtype)
    if not beta:
        return xp.array(product, dtype=product.dtype)
    if beta != 1:
        self = self * xp.asarray(beta).astype(self.dtype)
    return (self + product).astype(product.dtype)


def _expand_self(self, size, op_name=None):
    if self.shape == tuple(size) or (self.ndim == 1 and self.shape[0] == size[-1]):
        return tuple(size)                         # the common bias shapes expand trivially
    from ._geometry import expand_geometry
    itemsize = self.itemsize
    kind = f"torch.{_legacy(self)}Tensor"
    shape, _ = expand_geometry(self.shape, tuple(s // itemsize for s in self.strides),
                               tuple(size), kind)
    return shape


def _scale(t, s):
    """A gradient times a beta or alpha, conjugated (Note [Complex gradients])."""
    if s == 1:
        return t
    return t * (s.conjugate() if type(s) is complex else s)


def _inplace_shape_check(self, shape):
    if tuple(self.shape) != tuple(shape):
        raise RuntimeError(f"Bad in-place call: input tensor size {shape_str(self.shape)} and "
                           f"output tensor size {shape_str(shape)} should match")


def _fused_product_jvp(ctx, self_t, m1_t, m2_t):
    """JVP of beta * self + alpha * (m1 x m2) (addmm, addmv, addr, baddbmm, addbmm): the op on
    (self_t, m1_t, m2) plus alpha * (m1 x m2_t), the latter as the op with beta = 0."""
    spec = type(ctx).spec
    self, m1, m2 = ctx.primals
    kw = ctx._kwargs or {}
    alpha = kw.get("alpha", 1)
    result = spec(self_t, m1_t, m2, beta=kw.get("beta", 1), alpha=alpha)
    if ctx.needs_input_grad[2]:
        result = result + spec(self_t, m1, m2_t, beta=0, alpha=alpha)
    return result


@defop("addmm", node="AddmmBackward0", promote=Promote.NONE, inputs=("self", "mat1", "mat2"),
       variants=("function", "method", "out"), saves=("mat1", "mat2"), scalars=(), fast=True)
def addmm(xp, self, mat1, mat2, *, beta=1, alpha=1):
    if mat1.ndim != 2 or mat2.ndim != 2:
        name, m = ("mat1", mat1) if mat1.ndim != 2 else ("mat2", mat2)
        raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    dt = mat2.dtype
    if self.dtype is not dt or mat1.dtype is not dt:
        for name, m in (("self", self), ("mat1", mat1)):
            if m.dtype != dt:
                raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                                   f"{_legacy(m)} and {_legacy(mat2)}")
    shape = (mat1.shape[0], mat2.shape[1])
    _expand_self(self, shape)
    _check_bool(self, "addmm_impl_cpu_")
    if dt.kind in "fV" and dt.itemsize == 2:
        # half/bfloat16: torch's gemm sums in float32 and adds the bias there, rounding once
        f = xp.float32
        r = _fused(xp, xp.broadcast_to(self.astype(f), shape), _product(xp, xp.matmul, mat1.astype(f),
                                                                         mat2.astype(f)), beta, alpha)
        return r.astype(dt)
    if beta == 1 and alpha == 1 and not _few_rows_times_transposed(mat1, mat2):
        result = gemm_plus(self, mat1, mat2)   # Note [gemm onto the bias] (None: no SciPy)
        if result is not None:
            return result
    product = _product(xp, xp.matmul, mat1, mat2)
    if beta == 1 and alpha == 1 and product.dtype.kind in "fV":
        product += self          # a linear layer's case: the fresh product takes the bias
        return product
    return _fused(xp, xp.broadcast_to(self, shape), product, beta, alpha)


def _bias_grad(ctx, grad):
    """A linear layer's bias gradient in the array form: `grad` summed over its rows as the
    engine would sum it to the bias's shape (the same call, Note [Leading-axis sums as
    products]), here, without the engine's round trip (as its view of a keepdim sum where a
    hook or inputs= can see it); `grad` itself for any other shape."""
    g = grad._data
    if g.ndim == 2 and ctx._meta[0][0] == g.shape[1:]:
        total = _npb.leading_sum(g, 1)
        if total is not None:
            return from_array(total) if unobserved(ctx, 0) else summed_view(total, 1)
    return grad


@addmm.backward
def _(ctx, grad):
    mat1, mat2 = ctx.saved_tensors
    need0, need1, need2 = ctx.needs_input_grad
    # (beta and alpha are keyword-only: a linear layer's call passes neither)
    if not ctx._kwargs and arrays_only(grad, mat1, mat2):
        return (_bias_grad(ctx, grad) if need0 else None,) + \
            _product_grads(ctx, 1, grad, mat1, mat2, need1, need2)
    beta, alpha = (ctx.beta, ctx.alpha) if ctx._kwargs else (1, 1)
    g1 = g2 = None
    if need1:
        g1 = _scale(conj(mat2).mm(grad.t()).t() if _column_major(mat1)
                    else grad.mm(conj(mat2.t())), alpha)
    if need2:
        g2 = _scale(grad.t().mm(conj(mat1)).t() if _column_major(mat2)
                    else conj(mat1.t()).mm(grad), alpha)
    return _scale(grad, beta) if need0 else None, g1, g2


addmm.jvp(_fused_product_jvp)


addmm.node_cls._saved_mat1_sym_strides = property(lambda ctx: ctx._saved_mat1.stride())
addmm.node_cls._saved_mat2_sym_strides = property(lambda ctx: ctx._saved_mat2.stride())


@defop("addmv", node="AddmvBackward0", promote=Promote.NONE, inputs=("self", "mat", "vec"),
       variants=("function", "method", "out"), saves=("mat", "vec"), scalars=())
def addmv(xp, self, mat, vec, *, beta=1, alpha=1):
    if not (mat.ndim == 2 and vec.ndim == 1 and self.ndim <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    n = self.shape[0] if self.ndim else 1
    if mat.shape[1] != vec.shape[0] or (self.ndim and n not in (mat.shape[0], 1)):
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({mat.shape[0]}x"
                           f"{mat.shape[1]}), vec ({vec.shape[0]})")
    if not self.dtype == mat.dtype == vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{_legacy(self)}, {_legacy(mat)}, and {_legacy(vec)}")
    _check_bool(self, "addmv_impl_cpu")
    product = _product(xp, xp.matmul, mat, vec)
    return _fused(xp, xp.broadcast_to(self, product.shape), product, beta, alpha)


@addmv.backward
def _(ctx, grad):
    mat, vec = ctx.saved_tensors
    _, need_mat, need_vec = ctx.needs_input_grad
    return (_scale(grad, ctx.beta),
            _scale(outer(grad, conj(vec)), ctx.alpha) if need_mat else None,
            _scale(conj(mat.t()).mv(grad), ctx.alpha) if need_vec else None)


addmv.jvp(_fused_product_jvp)


def _check_addr_scalar(dtype, value, name):
    if isinstance(value, bool) and dtype.kind != "b":
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if dtype.kind not in "fcV" and isinstance(value, float):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                           "floating point number.")


@defop("addr", node="AddrBackward0", promote=Promote.DEFAULT, inputs=("self", "vec1", "vec2"),
       variants=("function", "method", "out"), saves=("vec1", "vec2"), scalars=())
def addr(xp, self, vec1, vec2, *, beta=1, alpha=1):
    from .._layout import elementwise_strides
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    _check_addr_scalar(vec1.dtype, beta, "beta")
    _check_addr_scalar(vec1.dtype, alpha, "alpha")
    shape = (vec1.shape[0], vec2.shape[0])
    _expand_self(self, shape)
    product = vec1[:, None] & vec2[None, :] if vec1.dtype.kind == "b" \
        else _product(xp, xp.multiply, vec1[:, None], vec2[None, :])
    result = _fused(xp, xp.broadcast_to(self, shape), product, beta, alpha)
    # torch's kernel is a TensorIterator over (self, vec1 as a column, vec2): its layout
    strides = elementwise_strides(shape, [xp.broadcast_to(self, shape), vec1[:, None], vec2])
    if strides != (shape[1], 1) and result.size > 1:
        from ..backends import numpy_backend as npb
        out = npb.strided(xp.empty(result.size, result.dtype), shape, strides, 0)
        out[...] = result
        return out
    return result


@addr.backward
def _(ctx, grad):
    vec1, vec2 = ctx.saved_tensors
    _, need1, need2 = ctx.needs_input_grad
    return (_scale(grad, ctx.beta),
            _scale(grad.mv(conj(vec2)), ctx.alpha) if need1 else None,
            _scale(grad.t().mv(conj(vec1)), ctx.alpha) if need2 else None)


addr.jvp(_fused_product_jvp)


def _check_batches(batch1, batch2):
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")


@defop("baddbmm", node="BaddbmmBackward0", promote=Promote.NONE,
       inputs=("self", "batch1", "batch2"), variants=("function", "method", "out"),
       saves=("batch1", "batch2"), scalars=())
def baddbmm(xp, self, batch1, batch2, *, beta=1, alpha=1):
    _check_batches(batch1, batch2)
    want = [batch1.shape[0], batch1.shape[2]]
    if list(batch2.shape[:2]) != want:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"{shape_str(want)} but got: {shape_str(batch2.shape[:2])}.")
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    _expand_self(self, shape)
    if self.dtype != batch1.dtype or self.dtype != batch2.dtype and \
            batch1.dtype == batch2.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cpp(self)}, batch1: "
                           f"{_cpp(batch1)}, batch2: {_cpp(batch2)}")
    if batch1.dtype != batch2.dtype:
        raise RuntimeError(f"expected scalar type {_legacy(batch1)} but found {_legacy(batch2)}")
    _check_bool(self, "baddbmm")
    product = _product(xp, xp.matmul, batch1, batch2)
    return _fused(xp, xp.broadcast_to(self, shape), product, beta, alpha)


@baddbmm.backward
def _(ctx, grad):
    batch1, batch2 = ctx.saved_tensors
    _, need1, need2 = ctx.needs_input_grad
    return (_scale(grad, ctx.beta),
            _scale(grad.bmm(conj(batch2.transpose(1, 2))), ctx.alpha) if need1 else None,
            _scale(conj(batch1.transpose(1, 2)).bmm(grad), ctx.alpha) if need2 else None)


baddbmm.jvp(_fused_product_jvp)


@defop("addbmm", node="AddbmmBackward0", promote=Promote.NONE,
       inputs=("self", "batch1", "batch2"), variants=("function", "method", "out"),
       saves=("batch1", "batch2"), scalars=())
def addbmm(xp, self, batch1, batch2, *, beta=1, alpha=1):
    _check_batches(batch1, batch2)
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    shape = (batch1.shape[1], batch2.shape[2])
    _expand_self(self, shape)
    for name, m in (("self", self), ("mat1", batch1)):
        if m.dtype != batch2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{_legacy(m)} and {_legacy(batch2)}")
    _check_bool(self, "addmm_impl_cpu_")
    if batch1.shape[0] == 0:
        product = xp.zeros(shape, batch1.dtype)
    else:
        product = _product(xp, xp.matmul, batch1, batch2).sum(0, dtype=batch1.dtype)
    return _fused(xp, xp.broadcast_to(self, shape), product, beta, alpha)


@addbmm.backward
def _(ctx, grad):
    batch1, batch2 = ctx.saved_tensors
    _, need1, need2 = ctx.needs_input_grad
    g1 = g2 = None
    if need1 or need2:
        expanded = grad.unsqueeze(0).expand(batch1.shape[0], batch1.shape[1], batch2.shape[2])
        if need1:
            g1 = _scale(expanded.bmm(conj(batch2.transpose(1, 2))), ctx.alpha)
        if need2:
            g2 = _scale(conj(batch1.transpose(1, 2)).bmm(expanded), ctx.alpha)
    return _scale(grad, ctx.beta), g1, g2


addbmm.jvp(_fused_product_jvp)


addbmm.node_cls._saved_batch1_sym_argsize_0 = property(lambda ctx: ctx._saved_batch1.shape[0])
addbmm.node_cls._saved_batch1_sym_argsize_1 = property(lambda ctx: ctx._saved_batch1.shape[1])
addbmm.node_cls._saved_batch2_sym_argsize_2 = property(lambda ctx: ctx._saved_batch2.shape[2])


def _inplace_variant(spec, shape_of, message=None):
    """``Tensor.addmm_`` and friends: torch's own shape check before the dispatcher's."""
    def method(self, *args, **kwargs):
        shape = shape_of(*args)
        if shape is not None:
            if message is not None:
                message(self, shape, *args)
            _inplace_shape_check(self, shape)
        return spec.call_inplace(self, *args, **kwargs)
    method.__name__ = spec.base + "_"
    METHODS[spec.base + "_"] = INPLACE[spec.base + "_"] = method


def _dims(*pairs):
    """The result shape from (tensor, dim) pairs, or None when a rank is wrong (the kernel
    raises torch's message for that)."""
    shape = []
    for t, d in pairs:
        if not isinstance(t, _registry._Tensor) or d >= t.ndim:
            return None
        shape.append(t.shape[d])
    return tuple(shape)


_inplace_variant(addmm, lambda m1, m2, **k: _dims((m1, 0), (m2, 1)))
_inplace_variant(addmv, lambda m, v, **k: _dims((m, 0)))
def _addr_inplace_check(self, shape, vec1, vec2, *args):
    if self.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
    if tuple(self.shape) != shape:
        raise RuntimeError(f"size mismatch, input: {shape_str(self.shape)}, v1: "
                           f"{shape_str(vec1.shape)}, v2: {shape_str(vec2.shape)}")


_inplace_variant(addr, lambda v1, v2, **k: _dims((v1, 0), (v2, 0)), _addr_inplace_check)
_inplace_variant(baddbmm, lambda b1, b2, **k: _dims((b1, 0), (b1, 1), (b2, 2)))
_inplace_variant(addbmm, lambda b1, b2, **k: None)
