"""Products built from other ops, as torch builds them: ``einsum``, ``tensordot``, ``kron``,
``linalg.multi_dot``, ``linalg.vecdot``, ``linalg.matmul`` and ``linalg.matrix_power``.

None of them has a node of its own: torch composes them from views, ``sum``, ``mul``, ``mm``
and ``bmm``, and following the same steps gives the same graph, strides and error texts.

Note [einsum as torch contracts it]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each operand is aligned to one common dim order: the output labels first (the implicit output
is the ellipsis then the labels seen once, in torch's label order A-Z before a-z), then the
contracted ones. A repeated label takes a ``diagonal`` (moved back in place); a missing one
is an ``unsqueeze``; then one ``permute``. Operands are then contracted left to right (torch
has no opt_einsum here): dims that only one side still carries are summed first, and each pair
is multiplied by ``sumproduct_pair``, a permute/reshape around one ``bmm`` (or a plain ``mul``
when nothing is summed). A final ``view`` drops the contracted dims (``sum`` for one operand).
"""
from __future__ import annotations


from .._utils import canonical_dim, shape_str
from . import _dispatch, _registry
from ._registry import FUNCTIONS, METHODS, OPS
from .linalg import cpp_type_name, matmul, mm


def _m(name: str):
    """A Tensor method from the registry, looked up when called (modules register in turn)."""
    return METHODS[name]


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _write_out(result, out, op=None):
    """Copy a composite's result into ``out=`` (torch resizes it); `op` names the op in torch's
    error for a result that requires grad."""
    if out is None:
        return result
    if op is not None and result.requires_grad:
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if op != "matmul":   # (an expanded out=: Note [out= and memory overlap] in _dispatch.py;
        out._check_writeable()   # matmul's takes one where it is mv's, as torch's)
    from ..backends import numpy_backend as npb
    return _dispatch._write_out(OPS["mm"], out, npb.xp.array(result._data, order="C"))


# -- einsum --------------------------------------------------------------------------------------
_ELLIPSIS = 52


def _subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + 26


def _label(s: int) -> str:
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _sumproduct_pair(left, right, sum_dims):
    """``(left * right).sum(sum_dims, keepdim=True)`` through one bmm, as torch's helper."""
    if not sum_dims:
        return FUNCTIONS["mul"](left, right)
    dim = left.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = _m("sum")(left, i, True)
            elif sr:
                right = _m("sum")(right, i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    if lo and ro and ro[-1] < lo[0]:
        # torch swaps the operands so that bmm writes the result in the output's order
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_size = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + \
        [1] * len(sum_dims) + [right.shape[d] for d in ro]
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = _m("reshape")(_m("permute")(left, lperm), (lro_size, lo_size, sum_size))
    right = _m("reshape")(_m("permute")(right, rperm), (lro_size, sum_size, ro_size))
    result = FUNCTIONS["bmm"](left, right)
    return _m("permute")(_m("view")(result, out_size), operm)


def _parse_operands(lhs: str, num_ops: int):
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input = False
    curr = 0
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {curr} for which an "
                                   "ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {curr} that is not part "
                                   "of any ellipsis")
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            curr += 1
            if curr >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            ell_in_input = False
        else:
            if not (c.isascii() and c.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            op_labels[curr].append(_subscript(c))
        i += 1
    if curr != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return op_labels


def _einsum(equation: str, operands):
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_operands(lhs, num_ops)

    label_count = [0] * 52
    ell_num_dim = 0
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        nlabels = len(labels)
        has_ell = _ELLIPSIS in labels
        if has_ell:
            nlabels -= 1
            ell_num_dim = max(ell_num_dim, op.ndim - nlabels)
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1
        if (nlabels > op.ndim) if has_ell else (nlabels != op.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + ("is more than" if has_ell else "does not match")
                + f" the number of dimensions ({op.ndim}) for operand {i}"
                + ("" if has_ell else " and no ellipsis was given"))

    perm_index_of = [-1] * 52
    perm_index = ell_index = 0
    ell_in_output = False
    if arrow < 0:      # implicit output: the ellipsis, then the labels seen once
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(52):
            if label_count[s] == 1:
                perm_index_of[s] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) "
                                       "was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of "
                                       "any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not (c.isascii() and c.isalpha()):
                    raise RuntimeError(f"einsum(): invalid subscript given at index "
                                       f"{len(lhs) + 2 + i} in the equation string, "
                                       "subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if not (label_count[s] > 0 and perm_index_of[s] == -1):
                    raise RuntimeError(
                        f"einsum(): output subscript {c}"
                        + (" appears more than once in the output" if perm_index_of[s] > -1
                           else " does not appear in the equation for any input operand"))
                perm_index_of[s] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(52):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm_index
            perm_index += 1

    # align every operand to the common order (Note [einsum as torch contracts it])
    label_size = [1] * 52
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for i, operand in enumerate(operands):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for s in op_labels[i]:
            if s == _ELLIPSIS:
                ndim = operand.ndim - (len(op_labels[i]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    if op.shape[dim] != 1:
                        if ell_sizes[j] not in (1, op.shape[dim]):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}"
                                f"has size {op.shape[dim]} which does not broadcast with "
                                f"previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = op.shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[s]] == -1:
                if op.shape[dim] != 1:
                    if label_size[s] not in (1, op.shape[dim]):
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {op.shape[dim]} for "
                            f"operand {i} which does not broadcast with previously seen size "
                            f"{label_size[s]}")
                    label_size[s] = op.shape[dim]
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]] = dim
                dim += 1
            else:   # a repeated label: take the diagonal
                prev = permutation[perm_index_of[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = FUNCTIONS["movedim"](FUNCTIONS["diagonal"](op, 0, prev, dim), -1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = _m("unsqueeze")(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(_m("permute")(op, permutation))

    while len(ops) > 1:     # contract left to right
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(out_num_dim, perm_index):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = _m("sum")(a, a_sum, True)
        if b_sum:
            b = _m("sum")(b, b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return _m("view")(ops[0], list(ops[0].shape[:out_num_dim]))
        return _m("sum")(ops[0], list(range(out_num_dim, perm_index)))
    return ops[0]


def _sublist_label(n) -> str:
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` or the sublist form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. See Note [einsum as torch contracts it].

    Differences from torch: operands are always contracted left to right (torch does the same
    when opt_einsum is not installed, as in the reference environment).
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], _registry._Tensor):
        equation = ",".join("".join(_sublist_label(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_label(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _einsum(equation, list(operands))


# -- tensordot, kron ------------------------------------------------------------------------------
def _tensordot(input1, input2, dims1, dims2):
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if input1.dtype is not input2.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = input1, input2
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = input1.size(d1), input2.size(d2)
        if s2 == 1:      # a broadcast dim is summed right away (in the input's dtype)
            t1 = _m("sum")(t1, d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = _m("sum")(t2, d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size "
                                   f"{s1} in dim {d1} and second has size {s2} in dim {d2}")
            csize *= s1
    c1 = {canonical_dim(d, input1.ndim) for d in dims1}
    c2 = {canonical_dim(d, input2.ndim) for d in dims2}
    p1 = [i for i in range(input1.ndim) if i not in c1] + list(dims1)
    p2 = list(dims2) + [i for i in range(input2.ndim) if i not in c2]
    rsizes = [t1.shape[i] for i in range(input1.ndim) if i not in c1] + \
        [t2.shape[i] for i in range(input2.ndim) if i not in c2]
    size1 = _numel(t1.shape[i] for i in range(input1.ndim) if i not in c1)
    size2 = _numel(t2.shape[i] for i in range(input2.ndim) if i not in c2)
    t1, t2 = _m("permute")(t1, p1), _m("permute")(t2, p2)
    if size1 == 1 and size2 == 1:
        # nothing left but the contraction: torch takes a dot of the flattened operands, or,
        # when one cannot be flattened as a view, the sum of their squeezed product
        if t1.is_contiguous() and t2.is_contiguous():
            t1 = t1 if t1.dim() == 1 else _m("reshape")(t1, (csize,))
            t2 = t2 if t2.dim() == 1 else _m("reshape")(t2, (csize,))
            return _m("reshape")(FUNCTIONS["dot"](t1, t2), rsizes)
        product = FUNCTIONS["mul"](_m("squeeze")(t1), _m("squeeze")(t2))
        return _m("reshape")(_m("sum")(product, dtype=product.dtype), rsizes)
    t1 = _m("reshape")(t1, (size1, csize))
    t2 = _m("reshape")(t2, (csize, size2))
    return _m("reshape")(mm(t1, t2), rsizes)


def tensordot(a, b, dims=2, out=None):
    """Contract `dims` (an int: the last dims of `a` with the first of `b`; or two lists)."""
    if isinstance(dims, bool) or not isinstance(dims, (tuple, list, int, _registry._Tensor)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, _registry._Tensor):
        dims = dims.tolist()
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
        for name, d in (("dims_self", dims_a), ("dims_other", dims_b)):
            if isinstance(d, int):
                raise TypeError(f"tensordot(): argument '{name}' (position "
                                f"{3 if name == 'dims_self' else 4}) must be tuple of ints, "
                                "not int")
        dims_a, dims_b = list(dims_a), list(dims_b)
    else:
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    return _write_out(_tensordot(a, b, dims_a, dims_b), out)


def _unsafe_view(t, shape):
    """torch's _unsafe_view: a view, so a layout it cannot view raises view's error."""
    from ._geometry import compute_stride
    from .shape import VIEW_ERROR
    if compute_stride(tuple(t.shape), t.stride(), tuple(shape)) is None:
        raise RuntimeError(VIEW_ERROR)
    return OPS["_unsafe_view"](t, tuple(shape))


def kron(input, other, *, out=None):
    """The Kronecker product: ``input`` and ``other`` interleaved dim by dim and multiplied."""
    maxdim = max(input.ndim, other.ndim)
    pad_self, pad_other = maxdim - input.ndim, maxdim - other.ndim
    a_shape, b_shape, result_shape = [], [], []
    for i in range(maxdim):
        a = input.shape[i - pad_self] if i >= pad_self else 1
        b = other.shape[i - pad_other] if i >= pad_other else 1
        a_shape += [a, 1]
        b_shape += [1, b]
        result_shape.append(a * b)
    product = FUNCTIONS["mul"](_unsafe_view(input, a_shape), _unsafe_view(other, b_shape))
    return _write_out(_unsafe_view(product, result_shape), out, "mul")


# -- linalg.multi_dot, vecdot, matmul ------------------------------------------------------------
def _chain_order(tensors):
    """The split points of the cheapest parenthesisation (the textbook dynamic programme)."""
    n = len(tensors)
    p = [t.shape[0] for t in tensors] + [tensors[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j] = q
                    split[i][j] = k
    return split


def _chain(tensors, split, i, j):
    if i == j:
        return tensors[i]
    return mm(_chain(tensors, split, i, split[i][j]), _chain(tensors, split, split[i][j] + 1, j))


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices (the first and last may be vectors), in the order
    that costs the fewest multiplications."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    ts = list(tensors)
    out_shape = []
    first, last = ts[0], ts[-1]
    if first.ndim == 1:
        ts[0] = _m("unsqueeze")(first, 0)
    elif first.ndim == 2:
        out_shape.append(first.shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.ndim}D")
    if last.ndim == 1:
        ts[-1] = _m("unsqueeze")(last, -1)
    elif last.ndim == 2:
        out_shape.append(last.shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    for i in range(1, n):
        if ts[i].dtype is not ts[0].dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {cpp_type_name(ts[0].dtype)} and tensor {i} "
                               f"{cpp_type_name(ts[i].dtype)}")
        if ts[i - 1].shape[-1] != ts[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{shape_str(tensors[i - 1].shape)} and "
                               f"{shape_str(tensors[i].shape)} cannot be multiplied")
    if n == 2:
        result = mm(ts[0], ts[1])
    elif n == 3:
        a, b = ts[0].shape[0], ts[1].shape[0]
        c, d = ts[2].shape
        if a * c * (b + d) > b * d * (a + c):
            result = mm(ts[0], mm(ts[1], ts[2]))
        else:
            result = mm(mm(ts[0], ts[1]), ts[2])
    else:
        result = _chain(ts, _chain_order(ts), 0, n - 1)
    return _write_out(_m("view")(result, out_shape), out, "mm")


def vecdot(x, y, *, dim: int = -1, out=None):
    """The dot product of vectors along `dim` (conjugating `x`), broadcasting the rest."""
    if x._data.dtype.kind not in "fcV":
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype._legacy}")
    if x.dtype is not y.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x.dtype._legacy} and y of type {y.dtype._legacy} "
                           "instead")
    if x.ndim == 1 and y.ndim == 1:
        return _write_out(FUNCTIONS["vdot"](x, y), out, "vdot")
    product = FUNCTIONS["mul"](_conj(x) if x.is_complex() else x, y)
    return _write_out(_m("sum")(product, dim), out, "sum")


def _conj(t):
    """``t.conj()``: from the arrays (no autograd for complex tensors) while Tensor.conj is
    missing."""
    if hasattr(t, "conj"):
        return t.conj()
    from ..backends import numpy_backend as npb
    return _dispatch._wrap(npb.xp.conj(t._data))


FUNCTIONS["einsum"] = einsum
FUNCTIONS["tensordot"] = tensordot
FUNCTIONS["kron"] = METHODS["kron"] = kron
FUNCTIONS["linalg.multi_dot"] = multi_dot
FUNCTIONS["linalg.vecdot"] = vecdot
FUNCTIONS["linalg.matmul"] = matmul


# -- matrix_power ---------------------------------------------------------------------------------
def _square_check(A, name: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def matrix_power(A, n: int, *, out=None):
    """``A`` to the integer power ``n`` (``n < 0`` inverts first), by binary powering."""
    _square_check(A, "linalg.matrix_power")
    if n == 0:
        eye = FUNCTIONS["eye"](A.shape[-2], A.shape[-1], dtype=A.dtype)
        result = _m("copy_")(_m("clone")(A, memory_format=_contiguous()), eye.expand_as(A))
        return _write_out(result, out)
    if n == 1:
        return _write_out(_m("clone")(A, memory_format=_contiguous()), out)
    if n == -1:
        return _write_out(FUNCTIONS["linalg.inv"](A), out, "linalg_inv_ex")
    a = A
    if n < 0:
        a = FUNCTIONS["linalg.inv"](A)
        n = -n
    if n == 2:
        return _write_out(matmul(a, a), out, "matmul")
    if n == 3:
        return _write_out(matmul(matmul(a, a), a), out, "matmul")
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = a if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return _write_out(result, out, "matmul")


def _contiguous():
    from ._geometry import _memory_formats
    return _memory_formats()[0]     # contiguous_format


FUNCTIONS["linalg.matrix_power"] = matrix_power
FUNCTIONS["matrix_power"] = METHODS["matrix_power"] = matrix_power

