"""Sparse COO tensors: the factory, the conversions, the accessors, and the kernels the
dispatcher runs for an op given a sparse tensor (Note [Sparse COO tensors] in
backends/sparse_coo.py says what one holds).

Note [Sparse dispatch]
~~~~~~~~~~~~~~~~~~~~~~
torch runs an op on a sparse tensor with the op's SparseCPU kernel, and refuses an op that has
none ("Could not run 'aten::exp' with arguments from the 'SparseCPU' backend"). dyngrad does
the same from its one intercepting entry (``_intercepted`` in _dispatch.py), switched on
while any COO object is alive (``sparse_coo.live``, counted as they are made and freed), so
programs without sparse tensors keep the fast paths. ``run`` takes the op's own OpSpec (its
node name, backward formula and saved values) and its sparse kernel from ``KERNELS``; it
promotes, records the node and writes in-place results as the general path does. The
backward formulas are the dense ones: torch's derivatives are written once for every layout
too, and give sparse or dense gradients by what their ops return (``mm``'s gradient of a
sparse ``self`` is dense, ``mul``'s is sparse).

The ops made for sparse tensors (``to_dense``, ``coalesce``, ``values``, ``torch.sparse.mm``,
``sparse_mask``...) are declared here with their torch node names.
"""
from __future__ import annotations

import contextlib

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import canonical_dim
from ..autograd import grad_mode as _gm
from ..autograd.graph import _argument_property
from ..backends import numpy_backend as _npb
from ..backends import sparse_coo as _coo
from . import _dispatch
from ._registry import defop
from .activation import _unlisted

COO = _coo.COO
_Tensor = None     # dyngrad.Tensor, bound on first use
_xp = _npb.xp
_grad_state = _gm._state


def _tensor_cls():
    global _Tensor
    if _Tensor is None:
        from .._tensor import Tensor
        _Tensor = Tensor
    return _Tensor


def is_sparse(t) -> bool:
    return type(getattr(t, "_data", None)) is COO


def among(args, kwargs) -> bool:
    """Whether a sparse tensor is among an op's arguments (a list's items included)."""
    for a in args:
        if type(a) in (list, tuple):
            if any(is_sparse(x) for x in a):
                return True
        elif is_sparse(a):
            return True
    return any(is_sparse(v) for v in kwargs.values())


def wrap(data):
    """A new tensor holding `data` (a COO or an array)."""
    return _dispatch._wrap(data)


# ---------------------------------------------------------------------------------------------
# the dispatcher's sparse path
# ---------------------------------------------------------------------------------------------
def _could_not_run(name) -> NotImplementedError:
    """torch's dispatcher error for an op without a SparseCPU kernel (its list of the
    backends that have one is shortened here)."""
    op = "aten::" + name
    return NotImplementedError(
        f"Could not run '{op}' with arguments from the 'SparseCPU' backend. This could be "
        "because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build). If you are a Facebook employee "
        "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
        f"resolutions. '{op}' is only available for these backends: [CPU, Meta].")


KERNELS = {}           # op name -> kernel(*arrays, *rest, **kwargs) on COO objects and arrays
INPLACE_KERNELS = {}   # the same for the op's in-place variant (x.add_(s))


def kernel(*names, inplace=False):
    def deco(fn):
        for name in names:
            (INPLACE_KERNELS if inplace else KERNELS)[name] = fn
        return fn
    return deco


def run(spec, args, kwargs, target=None, inplace=False):
    """One call of `spec` with a sparse argument (Note [Sparse dispatch])."""
    table = INPLACE_KERNELS if inplace else KERNELS
    fn = table.get(spec.name)
    if fn is None:
        raise _could_not_run(spec.name + ("_" if inplace and "." not in spec.name else ""))
    if kwargs.get("out") is not None:
        raise _could_not_run(spec.name.split(".")[0] + ".out")
    n = spec.n_inputs
    if kwargs or len(args) < n:
        args, kwargs = spec.bind(args, kwargs)
    inputs, rest = args[:n], args[n:]
    Tensor = _tensor_cls()
    arrays = [a._data if isinstance(a, Tensor) else a for a in inputs]
    res_dt = None
    if not spec.view and not spec.kernel_dtypes:
        # (a key of its own in the op's dtype cache, whose entries under the general path's
        # keys the fast paths read in another form)
        key = (COO,) + tuple(a._data.dtype if isinstance(a, Tensor) and a._data.ndim else
                             (a._data.dtype, 0) if isinstance(a, Tensor) else type(a)
                             for a in inputs)
        comp, res_dt = spec.dtypes_for(key, inputs)[:2]
        if kwargs.get("dtype") is not None:
            res_dt = kwargs["dtype"].np
        if spec.promote is not Promote.NONE:
            arrays = [a.astype(comp) if isinstance(a, (COO, _npb.ndarray)) and a.dtype != comp
                      and i not in spec.nopromote else a for i, a in enumerate(arrays)]
    grad_in = any(isinstance(a, Tensor) and a._requires_grad for a in inputs)
    record = grad_in and _grad_state.grad_enabled and spec.node_cls is not None
    if inplace:
        _dispatch._check_inplace_autograd(spec, target, inputs)
    result = fn(*arrays, *rest, **kwargs)
    if type(result) is not tuple and type(result) is not COO:
        result = _dispatch._as_array(result)   # (a NumPy scalar from a full reduction)
    if res_dt is not None and not inplace and type(result) is not tuple \
            and result.dtype != res_dt and not spec.kernel_dtypes:
        result = result.astype(res_dt)
    if inplace:
        return _write(spec, target, result, inputs, rest, kwargs, record)
    outs = tuple(wrap(r) for r in result) if type(result) is tuple else (wrap(result),)
    if record:
        _dispatch._record(spec, inputs, rest, kwargs, outs)
    return outs if type(result) is tuple else outs[0]


def _write(spec, target, result, inputs, rest, kwargs, record):
    """An in-place op's result into `target`: a sparse target takes the new addresses and
    values (every tensor sharing them sees the change); a dense one, the values."""
    if type(target._data) is not COO:
        if type(result) is COO:
            result = _coo.to_dense(result)
        return _dispatch._write_inplace(spec, target, result, inputs, rest, kwargs, record)
    if record:
        node = _dispatch._record(spec, inputs, rest, kwargs, ())
    if result is not target._data:
        target._data.assign(result.astype(target._data.dtype))
    _dispatch._wrote(target, spec)
    if record:
        _dispatch._attach_inplace(spec, node, target, False)
    return target


# ---------------------------------------------------------------------------------------------
# kernels of torch's ops on sparse arguments
# ---------------------------------------------------------------------------------------------
def _dense_sparse_add(dense, s, alpha):
    """``dense + alpha * s`` as torch's CPU kernel adds: element by element in the order of
    `s`'s values, each a fused multiply-add rounded once (done here in float64 for the float32
    and narrower types, whose products float64 holds exactly)."""
    dtype = _xp.result_type(dense, s.values)
    out = _xp.array(dense, dtype=dtype, copy=True)
    for addresses, picked in _by_occurrence(s):   # (a repeated address: in order)
        out[addresses] = _coo.fma(out[addresses], alpha, s.values[picked], dtype)
    return out


def _by_occurrence(s):
    """`s`'s elements in rounds of distinct addresses (``sparse_coo.rounds``), as (address
    tuple, element positions): a repeated address is written once per round, in order."""
    if not s.nnz:
        return
    for picked in _coo.rounds(_coo.linear_index(s.indices, s.shape[:s.sparse_dim])):
        yield tuple(s.indices[:, picked]), picked


def _add(name, sign):
    def add(self, other, alpha=1):
        alpha = alpha * sign
        if type(self) is COO:
            if type(other) is not COO:
                raise RuntimeError(f"{name}(sparse, dense) is not supported. Use {name}(dense, "
                                   "sparse) instead.")
            _same_shape(name, self, other)
            return _coo.add(self, other, alpha)
        _same_shape(name, self, other)
        return _dense_sparse_add(self, other, alpha)
    return add


def _same_shape(name, a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{name}: expected 'self' and 'other' to have same size, but self has "
                           f"size {list(a.shape)} while other has size {list(b.shape)} (FYI: "
                           f"dense-sparse addition does not currently support broadcasting)")


kernel("add.Tensor")(_add("add", 1))
kernel("sub.Tensor")(_add("sub", -1))


def _add_(name, sign):
    def add_(self, other, alpha=1):
        if type(self) is COO:
            if type(other) is not COO:
                raise RuntimeError(f"{name}(sparse, dense) is not supported. Use {name}(dense, "
                                   "sparse) instead.")
            _same_shape(name, self, other)
            return _coo.add(self, other, alpha * sign)
        _same_shape(name, self, other)
        return _dense_sparse_add(self, other, alpha * sign)
    return add_


kernel("add.Tensor", inplace=True)(_add_("add", 1))
kernel("sub.Tensor", inplace=True)(_add_("sub", -1))


def _scalar(x):
    return type(x) is not COO and (not isinstance(x, _npb.ndarray) or x.ndim == 0)


@kernel("mul.Tensor")
def _mul(self, other):
    if type(self) is not COO:
        self, other = other, self
    if _scalar(other):
        return self.with_values(self.values * other)
    if type(other) is COO:   # the product where both hold an address
        if self.shape != other.shape or self.sparse_dim != other.sparse_dim:
            raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with "
                               "equal dimensionality, number of sparse dimensions, and shape "
                               "of sparse dimensions")
        a, b = _coo.coalesce(self), _coo.coalesce(other)
        la = _coo.linear_index(a.indices, a.shape)
        lb = _coo.linear_index(b.indices, b.shape)
        common, ia, ib = _xp.intersect1d(la, lb, assume_unique=True, return_indices=True)
        return COO(a.indices[:, ia], a.values[ia] * b.values[ib], a.shape, True)
    try:   # (the dense operand broadcast to the sparse one's shape)
        other = _xp.broadcast_to(other, self.shape)
    except ValueError:
        raise RuntimeError(_broadcast_message(other.shape, self.shape)) from None
    return self.with_values(self.values * other[tuple(self.indices)])


def _broadcast_message(a, b):
    """torch's words for shapes `a` and `b` that do not broadcast."""
    for k in range(1, min(len(a), len(b)) + 1):
        if a[-k] != b[-k] and 1 not in (a[-k], b[-k]):
            return (f"The size of tensor a ({a[-k]}) must match the size of tensor b ({b[-k]}) "
                    f"at non-singleton dimension {max(len(a), len(b)) - k}")
    return f"shapes {list(a)} and {list(b)} do not broadcast"


@kernel("mul.Tensor", inplace=True)
def _mul_(self, other):
    if type(self) is not COO:   # a dense target keeps the product where `other` holds one
        return _coo.to_dense(_mul(other, self))
    return _mul(self, other)


@kernel("div.Tensor")
def _div(self, other):
    if type(self) is not COO or not _scalar(other):
        raise RuntimeError("Sparse division requires a scalar or zero-dim dense tensor divisor "
                           f"(got shape {list(other.shape)} for divisor)")
    return self.with_values(self.values / other)


kernel("div.Tensor", inplace=True)(_div)


def _valuewise(spec_name, coalesce_first):
    """An op that maps zero to zero, on the values: the dense op's kernel (its dtype checks
    and messages included); the non-linear ones on the coalesced values, as torch's."""
    def fn(self, *args, **kwargs):
        from ._registry import OPS
        c = _coo.coalesce(self) if coalesce_first else self
        values = OPS[spec_name].kernel(_xp, c.values, *args, **kwargs)
        return c.with_values(values, True if coalesce_first else None)
    KERNELS[spec_name] = fn


_valuewise("neg", False)
for _name in ("sqrt", "tanh", "sin", "abs", "relu", "sinh", "tan", "asin", "atan", "expm1",
              "log1p", "sgn", "sign", "trunc", "floor", "ceil", "deg2rad", "rad2deg"):
    _valuewise(_name, True)


@kernel("pow.Tensor_Scalar")
def _pow(self, exponent):
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the "
                           "result tensor dense")
    from ._registry import OPS
    c = _coo.coalesce(self)
    return c.with_values(OPS["pow.Tensor_Scalar"].kernel(_xp, c.values, exponent), True)


@kernel("sum")
def _sum(self, dtype=None):
    return self.values.sum(dtype=None if dtype is None else dtype.np)


@kernel("sum.dim_IntList")
def _sum_dims(self, dim, keepdim=False, dtype=None):
    out = _sparse_sum.kernel(_xp, self, dim, dtype)
    if keepdim:   # (torch unsqueezes the sum where it summed)
        for d in sorted({canonical_dim(d, self.ndim) for d in ([dim] if type(dim) is int
                                                                else dim)}):
            out = _unsqueeze(out, d) if type(out) is COO else _xp.expand_dims(out, d)
    return out


@kernel("unsqueeze")
def _unsqueeze(self, dim):
    """A dim of size 1 at `dim`: a sparse one (addresses 0) up to the sparse dims' end, else a
    dense one of the values."""
    d = canonical_dim(dim, self.ndim + 1)
    shape = self.shape[:d] + (1,) + self.shape[d:]
    if d <= self.sparse_dim:
        indices = _xp.insert(self.indices, d, 0, axis=0)
        return COO(indices, self.values, shape, False)
    return COO(self.indices, _xp.expand_dims(self.values, d - self.sparse_dim + 1), shape,
               self.coalesced)


@kernel("permute")
def _permute(self, dims):
    dims = [canonical_dim(d, self.ndim) for d in dims]
    if sorted(dims) != list(range(self.ndim)):
        raise RuntimeError("permute(sparse_coo): dims don't match in permute")
    sd = self.sparse_dim
    if sorted(dims[sd:]) != list(range(sd, self.ndim)):
        raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense "
                           "dimensions are not allowed.Only transpositions within sparse and "
                           "dense dimensions are supported.")
    values = self.values.transpose([0] + [d - sd + 1 for d in dims[sd:]])
    return COO(self.indices[dims[:sd]], values, [self.shape[d] for d in dims], False)


@kernel("clone")
def _clone(self, memory_format=None):
    if memory_format is not None and memory_format.name != "preserve_format":
        name = {"contiguous_format": "Contiguous", "channels_last": "ChannelsLast",
                "channels_last_3d": "ChannelsLast3d"}[memory_format.name]
        raise RuntimeError(f"unsupported memory format option {name}")
    return self.copy()


@kernel("_to_copy")
def _to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    return self.copy() if dtype is None else self.astype(dtype.np)


@kernel("zero_", inplace=True)
def _zero_(self):
    return _coo.empty(self.shape, self.sparse_dim, self.dtype)


@kernel("copy_", inplace=True)
def _copy_(self, src, non_blocking=False):
    if type(self) is COO and type(src) is COO:
        return src.copy()
    kinds = [f"torch.{'sparse.' if type(a) is COO else ''}{D.from_np(a.dtype)._legacy}Tensor"
             for a in (self, src)]
    raise RuntimeError("copy_() between dense and sparse Tensors is not implemented! Found self "
                       f"type = {kinds[0]} and src type = {kinds[1]}")


def _transpose(self, dim0, dim1):
    d0, d1 = canonical_dim(dim0, self.ndim), canonical_dim(dim1, self.ndim)
    if d0 >= self.sparse_dim or d1 >= self.sparse_dim:
        raise RuntimeError("transpose of a sparse tensor's dense dims is not supported")
    indices = self.indices.copy()
    indices[[d0, d1]] = indices[[d1, d0]]
    shape = list(self.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return COO(indices, self.values, shape, self.coalesced and d0 == d1)


@kernel("t")
def _t(self):
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but "
                           f"self is {self.sparse_dim} sparse and {self.dense_dim} dense")
    return _transpose(self, 0, -1) if self.ndim == 2 else self.copy()


kernel("transpose.int")(_transpose)


def _spmm(s, d):
    """sparse (n, k) @ dense (k, m) -> dense (n, m)."""
    out = _xp.zeros((s.shape[0], d.shape[1]), _xp.result_type(s.values, d))
    if s.nnz:
        rows, cols = s.indices
        _xp.add.at(out, rows, s.values[:, None] * d[cols])
    return out


def _check_mm(a, b):
    """torch's checks of a sparse matrix times a dense one (its addmm's words)."""
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{'self' if a.ndim != 2 else 'mat2'} must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[1]}, got "
                           f"{b.shape[0]}")
    if a.dtype.kind == "b":
        raise NotImplementedError('"addmm_sparse_dense" not implemented for \'Bool\'')


@kernel("mm")
def _mm(self, mat2):
    if type(self) is not COO:
        if type(mat2) is not COO:   # (torch.sparse.mm of two dense matrices)
            _check_mm(self, mat2)
            return self @ mat2
        return _mm(_transpose(mat2, 0, 1), self.T).T   # d @ s is (s.T @ d.T).T, as torch's
    _check_mm(self, mat2)
    if type(mat2) is COO:
        return _coo.from_dense(_spmm(self, _coo.to_dense(mat2)), 2)
    return _spmm(self, mat2)


@kernel("mv")
def _mv(self, vec):
    if type(self) is not COO or vec.ndim != 1:
        raise _could_not_run("mv")
    if self.shape[1] != vec.shape[0]:
        raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    return _spmm(self, vec[:, None])[:, 0]


@kernel("addmm")
def _addmm(self, mat1, mat2, beta=1, alpha=1):
    if type(self) is COO:
        raise _could_not_run("addmm")
    _check_mm(mat1, mat2)
    prod = _mm(mat1, mat2)
    return (beta * self if beta != 1 else self) + (alpha * prod if alpha != 1 else prod)


# ---------------------------------------------------------------------------------------------
# the sparse-only ops
# ---------------------------------------------------------------------------------------------
def _sparse_input(name, x, layout="coordinate "):
    if type(x) is not COO:
        raise RuntimeError(f"{name} expected sparse {layout}tensor layout but got Strided")


def _sparse_kernel_only(name, x, backends="SparseCPU, SparseMeta, "):
    """torch's error for an op that has sparse kernels only, given a strided tensor."""
    if type(x) is not COO:
        from .batch_norm_stats import no_cpu_kernel
        raise no_cpu_kernel("aten::" + name, backends)


@defop("_to_dense", node="ToDenseBackward0", promote=Promote.NONE, variants=(), scalars=(),
       saves=("self",), kernel_dtypes=True)
def _to_dense(xp, self, dtype=None, masked_grad=None):
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    return _coo.to_dense(self)


@_to_dense.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return sparse_mask_op(grad, coalesce_op(self))


@defop("sparse_mask", node="SparseMaskBackward0", promote=Promote.NONE, variants=(),
       inputs=("self", "mask"), differentiable=("self",), scalars=(), saves=("mask",),
       kernel_dtypes=True)
def sparse_mask_op(xp, self, mask):
    _sparse_kernel_only("sparse_mask", mask, "SparseCPU, SparseCsrCPU, SparseCsrMeta, ")
    if type(self) is COO:
        self = _coo.to_dense(self)
    if tuple(self.shape) != mask.shape:
        raise RuntimeError("sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(self.shape)} but mask has size {list(mask.shape)}")
    return _coo.sparse_mask(self, mask)


@sparse_mask_op.backward
def _(ctx, grad):
    mask, = ctx.saved_tensors
    if is_sparse(grad):   # (torch projects the gradient onto the mask first)
        grad = _sparse_mask_projection(grad, mask)
    return (grad.to_dense(),)


@defop("_sparse_mask_projection", node="NotImplemented", promote=Promote.NONE, variants=(),
       inputs=("self", "mask"), differentiable=("self",), scalars=(), kernel_dtypes=True)
def _sparse_mask_projection(xp, self, mask):
    """`self`'s elements summed at each of `mask`'s addresses (none elsewhere)."""
    return _coo.sparse_mask(_coo.to_dense(self), mask)


@_sparse_mask_projection.backward
def _(ctx, grad):
    raise RuntimeError("derivative for aten::_sparse_mask_projection is not implemented")


@defop("coalesce", node="CoalesceBackward0", promote=Promote.NONE, variants=(), scalars=(),
       kernel_dtypes=True)
def coalesce_op(xp, self):
    _sparse_input("coalesce", self)
    return _coo.coalesce(self)


@coalesce_op.backward
def _(ctx, grad):
    return grad


@defop("values", node="ValuesBackward0", promote=Promote.NONE, variants=(), scalars=(),
       saves=("self",), kernel_dtypes=True)
def _values_op(xp, self):
    _sparse_input("values", self, "")
    if not self.coalesced:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return self.values


@_values_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return sparse_from_values(self._data.indices, grad, self.shape, True)


def _to_sparse_kernel(xp, self, sparse_dim=None):
    if type(self) is COO:
        return self
    if sparse_dim is None:
        sparse_dim = self.ndim
    if not 0 <= sparse_dim <= self.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{self.ndim}] "
                           f"range, but {sparse_dim} is given")
    if sparse_dim == 0:
        if self.ndim:
            raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                               "self.dim()>0")
        return COO(xp.zeros((0, 1), xp.int64), self.reshape(1).copy(), (), True)
    return _coo.from_dense(self, sparse_dim)


# x.to_sparse() and x.to_sparse(sparse_dim): torch's two overloads, two node names
_to_sparse = defop("_to_sparse", node="ToSparseBackward1", promote=Promote.NONE, variants=(),
                   scalars=(), kernel_dtypes=True, complex_autograd=False)(
    lambda xp, self: _to_sparse_kernel(xp, self))
_to_sparse_dim = defop("_to_sparse.sparse_dim", node="ToSparseBackward0", promote=Promote.NONE,
                       variants=(), scalars=(), kernel_dtypes=True, complex_autograd=False)(
    _to_sparse_kernel)


@_to_sparse.backward
@_to_sparse_dim.backward
def _(ctx, grad):
    return grad.to_dense()


@defop("_sparse_addmm", node="SparseAddmmBackward0", promote=Promote.NONE, variants=(),
       inputs=("self", "mat1", "mat2"), saves=("mat1", "mat2"), scalars=(), kernel_dtypes=True)
def _sparse_addmm(xp, self, mat1, mat2, beta=1, alpha=1, _mat2_strides=None):
    """``beta * self + alpha * (mat1 @ mat2)``, `mat1` sparse (torch.sparse.mm and addmm).
    (``_mat2_strides``: what the node shows as ``_saved_mat2_sym_strides``.)"""
    _check_mm(mat1, mat2)
    if mat1.dtype.kind in "iu":   # (the coefficients in the integer type, as torch takes them)
        beta, alpha = _integer_coefficients(beta, alpha, mat1.dtype)
    prod = _mm(mat1, mat2)
    out = prod * alpha if alpha != 1 else prod
    out = out if beta == 0 else out + (self * beta if beta != 1 else self)
    return out.astype(mat2.dtype, copy=False)   # (NumPy computes bfloat16 in float32)


# the node attributes torch's nodes show beyond the ops' arguments and saved values
_sparse_addmm.node_cls._saved_mat2_sym_strides = _argument_property(_sparse_addmm,
                                                                     "_mat2_strides")
_to_sparse.node_cls._saved_self_self_sym_blocksize_opt = property(lambda ctx: None)
_to_sparse_dim.node_cls._saved_self_self_sym_blocksize_opt = property(lambda ctx: None)

def _integer_coefficients(beta, alpha, dtype):
    """The coefficients as torch's sparse addmm takes them for an integer `dtype`: ``alpha``
    converted to it (truncated; refused out of range); a float ``beta`` other than 0 or 1
    refused, as the float product ``beta * self`` cannot be cast back."""
    from .creation import checked_scalar
    d = D.from_np(dtype)
    if type(beta) is float and beta not in (0.0, 1.0):
        raise RuntimeError(f"result type Double can't be cast to the desired output type "
                           f"{d._legacy}")
    return checked_scalar(beta, d), checked_scalar(alpha, d)


@_sparse_addmm.backward
def _(ctx, grad):
    mat1, mat2 = ctx.saved_tensors
    g = g1 = g2 = None
    if ctx.needs_input_grad[0]:
        g = grad * ctx.beta if ctx.beta != 1 else grad
    if ctx.needs_input_grad[1]:
        g1 = grad @ mat2.t()
        if is_sparse(mat1):   # the gradient where mat1 holds an address
            g1 = sparse_mask_op(g1, coalesce(mat1))
        g1 = g1 * ctx.alpha if ctx.alpha != 1 else g1
    if ctx.needs_input_grad[2]:
        g2 = mat1.t() @ grad
        g2 = g2 * ctx.alpha if ctx.alpha != 1 else g2
    return g, g1, g2


@defop("_sparse_sum", node="SparseSumBackward0", promote=Promote.NONE, variants=(),
       scalars=(), saves=("self",), kernel_dtypes=True)
def _sparse_sum(xp, self, dim=None, dtype=None):
    _sparse_input("_sparse_sum", self)
    values = self.values if dtype is None else self.values.astype(dtype.np)
    if dim is None:   # (integers sum in int64, as torch's)
        return values.sum(dtype=_xp.int64 if values.dtype.kind in "biu" else None)
    dims = sorted({canonical_dim(d, self.ndim) for d in ([dim] if type(dim) is int else dim)})
    keep = [d for d in range(self.sparse_dim) if d not in dims]
    dense_dims = tuple(d - self.sparse_dim + 1 for d in dims if d >= self.sparse_dim)
    # a dense result (every sparse dim summed) sums integers in int64; a sparse one keeps
    # the values' type (a bool sum is then an "or")
    dt = _xp.int64 if not keep and values.dtype.kind in "biu" else values.dtype
    if dense_dims:
        values = values.sum(axis=dense_dims, dtype=dt)
    shape = [n for d, n in enumerate(self.shape) if d not in dims]
    if not keep:
        return values.sum(0, dtype=dt)
    return _coo.coalesce(COO(self.indices[keep], values, shape))


@_sparse_sum.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return _sparse_sum_backward(grad, self, ctx.dim)


@defop("_sparse_sum_backward", node="NotImplemented", promote=Promote.NONE, variants=(),
       inputs=("grad", "self"), scalars=(), kernel_dtypes=True)
def _sparse_sum_backward(xp, grad, self, dim):
    """The gradient of ``torch.sparse.sum(self, dim)``: each element of the (coalesced)
    `self` takes the incoming gradient at the address it was summed into."""
    dense = _coo.to_dense(grad) if type(grad) is COO else grad
    data = _coo.coalesce(self)   # (torch's gradient has the coalesced addresses)
    dims = sorted({canonical_dim(d, data.ndim) for d in ([dim] if type(dim) is int else dim)})
    for d in dims:
        dense = xp.expand_dims(dense, d)
    sd = data.sparse_dim
    index = tuple(data.indices[d] if d not in dims else xp.zeros(data.nnz, xp.int64)
                  for d in range(sd))
    values = xp.broadcast_to(dense, data.shape[:sd] + dense.shape[sd:])[index] if sd else dense
    values = xp.ascontiguousarray(xp.broadcast_to(values, data.values.shape))
    return COO(data.indices, values.astype(grad.dtype, copy=False), data.shape)


@_sparse_sum_backward.backward
def _(ctx, grad):
    raise RuntimeError("derivative for aten::_sparse_sum_backward is not implemented")


def _native(*specs):
    """The sparse-only ops' kernels are their sparse kernels."""
    for spec in specs:
        KERNELS[spec.name] = _native_kernel(spec)


def _native_kernel(spec):
    def fn(*args, **kwargs):
        return spec.kernel(_xp, *args, **kwargs)
    return fn


# ---------------------------------------------------------------------------------------------
# making sparse tensors
# ---------------------------------------------------------------------------------------------
@defop("_sparse_coo_tensor_with_dims_and_tensors", promote=Promote.NONE, variants=(),
       node="SparseCooTensorWithDimsAndTensorsBackward0", inputs=("indices", "values"),
       differentiable=("values",), nopromote=("indices",), scalars=(), saves=("result",),
       kernel_dtypes=True)
def _from_values(xp, indices, values, size, coalesced=False):
    return COO(indices, values, size, coalesced)


@_from_values.backward
def _(ctx, grad):
    # (torch's formula reads the gradient's values without a history: the values' gradient
    # is not differentiable, even with create_graph)
    result, = ctx.saved_tensors
    data = grad._data
    dense = _coo.to_dense(data) if type(data) is COO else data
    index = tuple(result._data.indices)
    return wrap(_xp.ascontiguousarray(dense[index] if index else dense[None]))


# (the backward-only primitives stay out of OPS, the table the op database must reach with
# forward samples: tests/opinfo/sparse.py reaches them through the gradient tests)
_unlisted(_sparse_sum_backward)
_unlisted(_sparse_mask_projection)
_native(_sparse_mask_projection, _to_dense, sparse_mask_op, coalesce_op, _values_op, _to_sparse,
        _to_sparse_dim, _sparse_addmm, _sparse_sum, _sparse_sum_backward, _from_values)


def sparse_from_values(indices, values, size, coalesced=False):
    """A sparse tensor of `values` (a tensor, recorded) at `indices` (an int64 array)."""
    return _from_values(wrap(indices), values, tuple(size), coalesced)


def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None,
                      is_coalesced=None):
    """``torch.sparse_coo_tensor``: a COO tensor of `values` at `indices` (columns of
    addresses), of shape `size` (by default the smallest that holds every address); with
    `size` alone, one with no element specified."""
    if indices is None and values is None and size is not None:
        return sparse_coo_tensor_size_only(size, dtype=dtype, device=device,
                                           requires_grad=requires_grad)
    from .creation import check_device
    from .. import tensor as _as_tensor
    Tensor = _tensor_cls()
    check_device(device)
    if indices is None:   # (torch.sparse_coo_tensor(size=...) via its size-only overload)
        raise TypeError("sparse_coo_tensor() missing required argument 'indices'")
    if not isinstance(indices, Tensor):
        indices = _as_tensor(indices)
    if not isinstance(values, Tensor):
        values = _as_tensor(values, dtype=dtype)
    elif dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if indices.dim() != 2:
        sd = indices.dim()
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
                           f"{len(size) if size is not None else sd}, sparse_dim = "
                           f"{indices.shape[0] if indices.dim() else 1}, dense_dim = "
                           f"{max(values.dim() - 1, 0)}")
    idx = indices._data.astype(_xp.int64)
    sparse_dim, nnz = idx.shape
    if values.dim() == 0 or values.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {values.shape[0] if values.dim() else 0}")
    dense_shape = tuple(values.shape[1:])
    if size is None:
        size = tuple(int(r.max()) + 1 if nnz else 0 for r in idx) + dense_shape
    size = tuple(int(n) for n in size)
    if len(size) != sparse_dim + len(dense_shape):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
                           f"{len(size)}, sparse_dim = {sparse_dim}, dense_dim = "
                           f"{len(dense_shape)}")
    if check_invariants:
        for d, row in enumerate(idx):
            if nnz and (row.min() < 0 or row.max() >= size[d]):
                bad = row.min() if row.min() < 0 else row.max()
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                                   f"{size[d]} but found index {bad}")
    with _gm.no_grad() if requires_grad else contextlib.nullcontext():
        out = _from_values(wrap(idx), values, size, bool(is_coalesced) or nnz <= 1)
    if requires_grad:
        out.requires_grad_()
    return out


def rebuild_sparse(indices, values, size, coalesced, requires_grad=False):
    """A sparse tensor from its parts (unpickling one, or its deep copy)."""
    out = wrap(COO(indices, values, size, coalesced))
    return out.requires_grad_() if requires_grad else out


def sparse_coo_tensor_size_only(size, *, dtype=None, device=None, requires_grad=False):
    """``torch.sparse_coo_tensor(size=...)``: no element specified."""
    from .. import get_default_dtype
    dt = (dtype or get_default_dtype()).np
    out = wrap(_coo.empty(tuple(size), len(size), dt))
    return out.requires_grad_() if requires_grad else out


# ---------------------------------------------------------------------------------------------
# sparse gradients of dense ops
# ---------------------------------------------------------------------------------------------
def embedding_sparse_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """``embedding(..., sparse=True)``'s gradient w.r.t. the weight: each looked-up row's
    gradient at its row's address (uncoalesced; none for ``padding_idx``), as torch's."""
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse "
                           "gradients")
    features = grad.shape[-1] if grad.dim() else 1
    idx = indices._data.reshape(-1).astype(_xp.int64)
    values = grad.reshape(-1, features)
    if padding_idx is not None and padding_idx >= 0:
        keep = idx != padding_idx
        idx = idx[keep]
        values = values[wrap(keep)]
    return sparse_from_values(idx.reshape(1, -1), values, (num_weights, features))


def gather_sparse_backward(shape, dim, index, grad):
    """``gather(..., sparse_grad=True)``'s gradient w.r.t. the input: each element of `grad` at
    the address it was gathered from, in `grad`'s row-major order, as torch's."""
    if len(shape) == 0:
        return sparse_from_values(_xp.zeros((0, grad.numel()), _xp.int64), grad, shape)
    if grad.dim() == 0:
        return sparse_from_values(index._data.reshape(1, 1).astype(_xp.int64), grad, shape)
    d = canonical_dim(dim, len(shape))
    addresses = _xp.indices(grad.shape).reshape(len(shape), -1)
    addresses[d] = index._data.reshape(-1)
    return sparse_from_values(addresses, grad.reshape(-1), shape)


def sparse_like(input, dtype, fill, requires_grad):
    """``zeros_like``/``empty_like`` of a sparse tensor: one of its shape with no element
    specified; a fill other than zero is refused, as torch's ``fill_``."""
    from .creation import ZEROS
    if fill is not None and fill is not ZEROS:
        raise _could_not_run("fill_.Scalar")
    data = input._data
    dt = data.dtype if dtype is None else dtype.np
    out = wrap(_coo.empty(data.shape, data.sparse_dim, dt))
    return out.requires_grad_() if requires_grad else out


# ---------------------------------------------------------------------------------------------
# the public functions and methods
# ---------------------------------------------------------------------------------------------
def to_dense(self, dtype=None, *, masked_grad=None):
    """A sparse tensor's dense form (``ToDenseBackward0``); a strided tensor itself."""
    if type(self._data) is not COO:
        return self if dtype is None else self.to(dtype)
    return _to_dense(self, dtype)


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """The COO form, its first `sparse_dim` dims sparse (all by default)."""
    if layout is not None and layout is not _sparse_coo_layout():
        raise NotImplementedError(f"to_sparse with layout {layout} is not supported")
    return _to_sparse(self) if sparse_dim is None else _to_sparse_dim(self, sparse_dim)


def _sparse_coo_layout():
    from .._formats import sparse_coo
    return sparse_coo


def coalesce(self):
    """The coalesced tensor (``CoalesceBackward0``): `self` when it is marked coalesced."""
    if type(self._data) is COO and self._data.coalesced:
        return self
    return coalesce_op(self)


def values(self):
    return _values_op(self)


def _values(self):
    """The values as stored (uncoalesced too), an alias without history."""
    _sparse_kernel_only("_values", self._data)
    return wrap(self._data.values)


def indices(self):
    _sparse_input("indices", self._data)
    if not self._data.coalesced:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return wrap(self._data.indices)


def _indices(self):
    _sparse_kernel_only("_indices", self._data)
    return wrap(self._data.indices)


def _nnz(self) -> int:
    _sparse_kernel_only("_nnz", self._data,
                        "SparseCPU, SparseMeta, SparseCsrCPU, SparseCsrMeta, ")
    return self._data.nnz


def is_coalesced(self) -> bool:
    _sparse_input("is_coalesced", self._data)
    return self._data.coalesced


def sparse_dim(self) -> int:
    return self._data.sparse_dim if type(self._data) is COO else 0


def dense_dim(self) -> int:
    return self._data.dense_dim if type(self._data) is COO else self.dim()


def sparse_mask(self, mask):
    return sparse_mask_op(self, mask)


def mm(mat1, mat2, *, reduce=None):
    """``torch.sparse.mm``: the product of a sparse and a dense (or sparse) matrix, whose
    gradient w.r.t. the sparse one is sparse (``SparseAddmmBackward0``)."""
    if not is_sparse(mat1):   # (torch's: the transposed product, transposed back)
        return _sparse_mm(mat2.transpose(0, 1), mat1.transpose(0, 1)).transpose(0, 1)
    return _sparse_mm(mat1, mat2)


def _sparse_mm(mat1, mat2):
    zeros = wrap(_xp.zeros((mat1.shape[0], mat2.shape[1] if mat2.dim() == 2 else 0),
                           mat2._data.dtype))
    return _sparse_addmm(zeros, mat1, mat2, 0, 1, _mat2_strides=mat2.stride())


def addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``torch.sparse.addmm``: ``beta * input + alpha * (mat1 @ mat2)``, one node
    (``SparseAddmmBackward0``)."""
    return _sparse_addmm(input, mat1, mat2, beta, alpha, _mat2_strides=mat2.stride())


def sparse_sum(input, dim=None, dtype=None):
    """``torch.sparse.sum``: the sum over `dim` (all dims by default); a sparse result while
    sparse dims are left (``SparseSumBackward0``)."""
    if dim is None:   # (torch's composite: three nodes, SumBackward0 on ValuesBackward0)
        total = input.coalesce().values()
        return total.sum() if dtype is None else total.sum(dtype=dtype)
    return _sparse_sum(input, dim, dtype)


_METHODS = {f.__name__: f for f in (to_dense, to_sparse, coalesce, values, _values, indices,
                                   _indices, _nnz, is_coalesced, sparse_dim, dense_dim,
                                   sparse_mask)}


def _publish():
    """The methods and ``torch.sparse_coo_tensor``, into the registry's tables."""
    from ._registry import FUNCTIONS, METHODS
    METHODS.update(_METHODS)
    FUNCTIONS["sparse_coo_tensor"] = sparse_coo_tensor
    FUNCTIONS["spmm"] = FUNCTIONS["mm"]   # (torch.spmm: mm, MmBackward0)


_publish()
