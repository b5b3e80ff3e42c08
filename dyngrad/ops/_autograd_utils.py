"""Helpers that backward formulas share, written with dyngrad ops so they are differentiable.

Note [Complex gradients]
~~~~~~~~~~~~~~~~~~~~~~~~
dyngrad follows torch's convention for complex autograd (Wirtinger calculus): the gradient a
complex tensor ``z = x + iy`` receives from a real loss ``L`` is the conjugate Wirtinger
derivative ``dL/dx + i dL/dy``, and a backward formula maps the gradient of an output to that of
an input by the *conjugate* of the chain rule's factor. For a holomorphic ``f`` this is
``grad * f'(z).conj()`` (exp: ``grad * result.conj()``; mul: ``grad * other.conj()``; mm:
``grad @ mat2.mH``); for a non-holomorphic one (abs, sgn, angle, real, imag) the formula is
written out (``abs``: ``grad * self.sgn()``). ``conj`` below returns a real tensor itself, so
these formulas build the same graph as before for real dtypes.

Where a real input meets a complex one (``real_tensor * complex_tensor``, ``x + 1j``), its
gradient is the real part of the formula's complex value: torch's ``handle_r_to_c``, which
torch applies inside the formulas of add, sub, rsub, mul, div, addcmul, addcdiv and pow (and a
few others). Ops without it (``where``, ``masked_fill``, ``logaddexp``) leave the complex
gradient for the engine, which raises torch's "Expected isFloatingType(grad.scalar_type())…"
error, as torch does.

Note [Array formulas]
~~~~~~~~~~~~~~~~~~~~~
A formula is written with dyngrad ops so that ``create_graph=True`` records the graph of the
gradient. In the commonest backward, without ``create_graph``, grad mode is off in the engine and
nothing is recorded, yet the formula still dispatches each of its ops only to reach their arrays:
the 2-norm's gradient is six of them (two unsqueezes, a division, a comparison, ``masked_fill_``
and a product), 17 us on its own where one NumPy expression takes 5, and twice that inside a
training step. So the hottest formulas have a second form, the same NumPy calls the ops' kernels
make, in the same order, on the arrays (so the same numbers), wrapped as a new tensor at the end:
mm and addmm (their products), the 2-norm, mean, pow with a number, tanh's double backward,
silu, and the backward primitives a formula calls (``backward_op``: relu's ``threshold_backward``,
``tanh_backward``, softmax's and log_softmax's; nll_loss's directly, its target being an
integer tensor). They take it only when
``arrays_only`` says nothing could tell the difference: grad mode off; no profiler, inference
block or forward-AD level (the dispatcher's fast paths are on: those watch or extend every op);
NumPy arrays of one float32 or float64 dtype; and where the result's layout would follow the
inputs', C-contiguous inputs. The op form stays the definition, and the op tests run both
against torch: a first backward takes the array form, ``gradgradcheck``'s the op form. An array
form returns new arrays (or views made by the view ops), never a view of an input, so what the
engine may steal for ``.grad`` is decided as before. In the gradient penalty's second backward
this takes 175 -> 133 us; in the MLP step's backward, 307 -> 291.
"""
from __future__ import annotations

from .._utils import contiguous_strides, shape_str
from ..autograd import grad_mode as _gm
from ..autograd.graph import unobserved  # noqa: F401  (the formulas' import)
from ..backends.numpy_backend import ndarray, xp as _xp
from . import _dispatch
from ._geometry import _memory_formats
from ._registry import METHODS


_FLOATS = frozenset(_xp.dtype(d) for d in ("float32", "float64"))


def arrays_only(*tensors) -> bool:
    """Whether a formula may take its array form (Note [Array formulas]) for `tensors` (tensors,
    never None): grad mode off, the fast paths on, NumPy arrays of one float32/float64 dtype."""
    if _gm._state.grad_enabled or _dispatch._fast_off:
        return False
    a = tensors[0]._data
    dt = a.dtype
    if type(a) is not ndarray or dt not in _FLOATS:
        return False
    for t in tensors[1:]:
        a = t._data
        if type(a) is not ndarray or a.dtype is not dt:
            return False
    return True


def conj(value):
    """``value.conj()`` for a complex tensor or number; a real one is returned itself.

    See Note [Complex gradients]: formulas call this on every backward, so for real tensors it
    costs one dtype check and no op."""
    try:
        if value._data.dtype.kind != "c":
            return value
    except AttributeError:   # a Python number (a saved scalar argument)
        return value.conjugate() if type(value) is complex else value
    return value.conj()


def reduction_tangent(grad, tangent, result, dims, keepdim=False):
    """The tangent of a reduction (a norm, var, prod) along `tangent`, from `grad`, its
    backward's value for a gradient of ones: ``sum(conj(grad) * tangent)`` over `dims` (None or
    empty: every dim; a 0-dim input is not summed), its real part when `result` is real.

    The backward gives the conjugate Wirtinger gradient (Note [Complex gradients]). For a
    holomorphic reduction (prod) its conjugate is the plain derivative. For a real one r of
    z = x + iy, ``g = dr/dx + i dr/dy`` and the derivative along ``t = tx + i ty`` is
    ``dr/dx tx + dr/dy ty = Re(conj(g) * t)``. For real inputs both are the plain ``g * t``."""
    term = conj(grad) * tangent
    if term._data.dtype.kind == "c" and result._data.dtype.kind != "c":
        term = term.real
    if not term.dim():
        return term
    return term.sum(list(dims or ()) or list(range(term.dim())), keepdim)


def from_array(result):
    """An array form's result as a new tensor (a NumPy scalar from 0-dim arrays included)."""
    if type(result) is not ndarray or not result.size:   # (else _as_array gives it back)
        result = _dispatch._as_array(result)
    return _dispatch._wrap(result)


def backward_op(spec, *args):
    """``spec(*args)``, a backward primitive called by a formula (``threshold_backward``,
    ``tanh_backward``...); in a backward that records nothing (Note [Array formulas]), with
    C-contiguous tensor inputs, the op's kernel on their arrays: all that is left of the
    dispatcher's work for such a call, as the inputs need no promotion, the result no new
    layout and no node."""
    n = spec.n_inputs
    tensors = args[:n]
    if not (arrays_only(*tensors) and contiguous(*tensors)):
        return spec(*args)
    dt = tensors[0]._data.dtype
    result = spec.kernel(_xp, *[t._data for t in tensors], *args[n:])
    if result.dtype is not dt and not spec.kernel_dtypes:   # (the dispatcher's cast)
        result = result.astype(dt)
    return from_array(result)


def contiguous(*tensors) -> bool:
    """Every tensor's array C-contiguous: an array form's pointwise result then has the
    layout the ops' results would have (Note [Array formulas])."""
    for t in tensors:
        if not t._data.flags.c_contiguous:
            return False
    return True


def row_major(t):
    """`t`, or a row-major copy of it (size-1 dims' strides included): the layout of the
    gradients torch's kernels write into a contiguous buffer (mse_loss's, glu's), whatever the
    layouts of their operands."""
    arr = t._data
    if arr.flags.c_contiguous and 1 not in arr.shape:   # (the common case, decided cheaply)
        return t
    if arr.strides == tuple([s * arr.itemsize for s in contiguous_strides(arr.shape)]):
        return t
    return t.clone(memory_format=_memory_formats()[0])


def handle_r_to_c(ctx, i, grad):
    """torch's handle_r_to_c: the real part of a complex gradient for the node's real input `i`
    (its i-th edge). See Note [Complex gradients]."""
    if grad is None or grad._data.dtype.kind != "c":
        return grad
    meta = ctx._meta[i]
    if meta is not None and meta[1].kind != "c":
        return grad.real
    return grad


def expandable(size, shape) -> bool:
    """Whether `size` broadcasts to `shape` (so a gradient of `shape` sums down to `size`)."""
    lead = len(shape) - len(size)
    return lead >= 0 and all(s == 1 or s == g for s, g in zip(size, shape[lead:]))


def sum_to_size(grad, *size):
    """Sum `grad` down to `size` (torch's Tensor.sum_to_size / at::sum_to).

    Leading dims are summed away; dims where `size` has 1 are summed with keepdim.
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(size)
    gshape = tuple(grad.shape)
    if gshape == size:
        return grad
    if not expandable(size, gshape):
        raise RuntimeError(f"size {{{shape_str(size)}}} is not expandable to size "
                           f"{{{shape_str(gshape)}}}.")
    lead = len(gshape) - len(size)
    dims = list(range(lead)) + [lead + d for d, s in enumerate(size)
                                if s == 1 and gshape[lead + d] != 1]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(size)
    return grad


METHODS["sum_to_size"] = sum_to_size
