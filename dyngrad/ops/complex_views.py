"""Complex numbers from and as real ones: ``torch.complex(real, imag)`` and ``torch.polar(abs,
angle)`` (pointwise primitives, ComplexBackward0 / PolarBackward0), and the views
``view_as_real`` (a complex tensor's memory as pairs of reals, one more dim of size 2) and
``view_as_complex`` (the inverse), which share storage and version counter with their input.

Note [Views that change the dtype]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A view kernel maps geometry in elements of one dtype; these two views change the element size.
Their primitives are geometry-preserving view ops (so the dispatcher records ``_base``, the
creation mode and the node, ViewAsRealBackward0 / ViewAsComplexBackward0, as for any view), and
the public functions then give the new tensor its real array: the storage buffer reinterpreted
with torch's geometry, strides and offset in units of the new dtype (a complex element is two
reals: strides and offset double, and a last dim of stride 1 and size 2 is added or removed).

Note [Replaying a view that changes the dtype]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
After an in-place write through a view, autograd remakes the view's history from its base
(CopySlices, view_grad_fn in autograd/views.py) with ``as_strided``, which cannot change the
dtype. As torch's ViewInfo::view_fn, each of these views carries ``_view_replay``, a function
``base -> view`` made of dyngrad ops (the input's own replay, or ``as_strided`` to the input's
geometry, then this view), which autograd calls instead; a plain view of such a view chains
its own geometry onto it (``chained_replay`` in autograd/views.py).

Differences from torch: dyngrad has no complex32, so ``view_as_complex`` of a float16 tensor
and ``complex`` of two float16 tensors raise.
"""
from __future__ import annotations

from .. import _dtypes as D
from ..autograd import forward_ad as _fwad
from .._promotion import Promote
from ..backends import numpy_backend as _npb
from ._registry import FUNCTIONS, defop
from .creation import zeros_like
from .pointwise import _not_implemented, _tensor_cls, imag, real
from .unary import cos, sin
from ._arg_parser import type_name as _tp_name

_COMPLEX_OF = {"float32": D.complex64, "float64": D.complex128}


def _require(fname, value, arg, position):
    if not isinstance(value, _tensor_cls()):
        raise TypeError(f"{fname}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{_tp_name(value)}")


# -- complex / polar ---------------------------------------------------------------------------
def _check_pair(fname, first, second, names, out):
    """torch's checks, in its order: tensors, real floating inputs of one dtype, ``out``'s."""
    _require(fname, first, names[0], 1)
    _require(fname, second, names[1], 2)
    floating = (D.float16, D.float32, D.float64)
    if first.dtype not in floating or second.dtype not in floating:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{first.dtype._legacy} and {second.dtype._legacy}")
    if first.dtype is not second.dtype:
        raise RuntimeError(f"Expected object of scalar type {first.dtype._legacy} but got scalar "
                           f"type {second.dtype._legacy} for second argument")
    if first.dtype is D.float16:
        if fname == "polar":
            raise _not_implemented("polar_cpu", first.dtype.np)
        raise NotImplementedError("complex(): dyngrad has no complex32 (ComplexHalf) dtype")
    expected = _COMPLEX_OF[first.dtype.name]
    if out is not None and out.dtype is not expected:
        raise RuntimeError(f"Expected object of scalar type {expected._legacy} but got scalar "
                           f"type {out.dtype._legacy} for argument 'out'")


def _complex_dtype(xp, x):
    return xp.complex64 if x.dtype == xp.float32 else xp.complex128


@defop("complex", node="ComplexBackward0", promote=Promote.NONE, inputs=("real", "imag"),
       variants=("out",), saves=("real", "imag"), kernel_dtypes=True, scalars=(),
       pointwise=True)
def complex_op(xp, real, imag):
    real, imag = xp.broadcast_arrays(real, imag)
    out = xp.empty(real.shape, _complex_dtype(xp, real))
    out.real = real
    out.imag = imag
    return out


@complex_op.backward
def _(ctx, grad):
    need_real, need_imag = ctx.needs_input_grad
    return real(grad) if need_real else None, imag(grad) if need_imag else None


@defop("polar", node="PolarBackward0", promote=Promote.NONE, inputs=("abs", "angle"),
       variants=("out",), saves=("result",), kernel_dtypes=True, scalars=(), pointwise=True)
def polar_op(xp, abs, angle):
    abs, angle = xp.broadcast_arrays(abs, angle)
    out = xp.empty(abs.shape, _complex_dtype(xp, abs))
    out.real = abs * xp.cos(angle)
    out.imag = abs * xp.sin(angle)
    return out


@polar_op.backward
def _(ctx, grad):
    # Note [polar's derivative]: for r = abs * e^(i angle), torch's polar_backward (conjugate
    # convention, Note [Complex gradients]) gives d abs = Re(conj(grad) * sgn(r)) (zero where r
    # is 0, as sgn(0) = 0) and d angle = Re(conj(grad) * (r * 1j)); with complex arithmetic,
    # as torch's, so an infinite r gives torch's NaNs
    result, = ctx.saved_tensors
    need_abs, need_angle = ctx.needs_input_grad
    grad_conj = grad.conj()
    grad_abs = real(grad_conj * result.sgn()) if need_abs else None
    grad_angle = real(grad_conj * (result * 1j)) if need_angle else None
    return grad_abs, grad_angle


def _or_zeros(tangent, like):
    return zeros_like(like) if tangent is None else tangent


@complex_op.jvp
def _(ctx, real_t, imag_t):
    real_p, imag_p = ctx.primals
    return complex_op(_or_zeros(real_t, real_p), _or_zeros(imag_t, imag_p))


@polar_op.jvp
def _(ctx, abs_t, angle_t):   # d r = e^(i angle) d abs + i r d angle, in real parts
    abs, angle = ctx.primals
    abs_t, angle_t = _or_zeros(abs_t, abs), _or_zeros(angle_t, angle)
    c, s = cos(angle), sin(angle)
    return complex_op(abs_t * c - abs * s * angle_t, abs_t * s + abs * c * angle_t)


def _float_pair(fname, names, spec):
    def fn(first, second, *, out=None):
        _check_pair(fname, first, second, names, out)
        return spec(first, second) if out is None else spec(first, second, out=out)
    fn.__name__ = fn.__qualname__ = fname
    return fn


complex = _float_pair("complex", ("real", "imag"), complex_op)
complex.__doc__ = "The complex tensor ``real + i imag`` (two float tensors of one dtype)."
polar = _float_pair("polar", ("abs", "angle"), polar_op)
polar.__doc__ = "The complex tensor ``abs * (cos(angle) + i sin(angle))``."


# -- view_as_real / view_as_complex ------------------------------------------------------------
@defop("view_as_real", node="ViewAsRealBackward0", view=True, variants=())
def _view_as_real(geom):
    return geom          # the new geometry is given afterwards: Note [Views that change the dtype]


@_view_as_real.backward
def _(ctx, grad):
    return view_as_complex(grad.contiguous())


@defop("view_as_complex", node="ViewAsComplexBackward0", view=True, variants=())
def _view_as_complex(geom):
    return geom


@_view_as_complex.backward
def _(ctx, grad):
    return view_as_real(grad.contiguous())


# Forward AD: the tangent of the view is the same view of the tangent. The dispatcher would
# give the tangent before the dtype changes (Note [Views that change the dtype]), so the rules
# give none and the public functions set it once the view has its array (_view_tangent).
@_view_as_real.jvp
def _(ctx, self_t):
    return None


_view_as_complex.jvp(_view_as_real.jvp_fn)


def _view_tangent(out, input, view):
    tangent = input._fw_grad
    if tangent is not None:
        with _fwad._off():
            if view is view_as_complex and tangent.stride()[-1:] != (1,):
                tangent = tangent.contiguous()
            _fwad._set_fw_grad(out, view(tangent))
    return out


def _replay(input, view):
    """How to make this view again from its base (``base -> view``), for autograd after an
    in-place write (Note [Replaying a view that changes the dtype])."""
    parent = input._view_replay
    if parent is not None:
        return lambda base: view(parent(base))
    if input._base is None:
        return view
    shape, stride = tuple(input.shape), input.stride()
    shift = input.storage_offset() - input._base.storage_offset()
    return lambda base: view(base.as_strided(shape, stride, base.storage_offset() + shift))


def _reinterpret(view, shape, stride, offset, np_dtype):
    """Give `view` (a fresh view of its storage) this geometry in units of `np_dtype`."""
    view._data = _npb.strided(view._storage.buffer, tuple(shape), tuple(stride), offset,
                              np_dtype)
    view._offset = offset
    return view


def view_as_real(input):
    """A complex tensor's memory as reals: shape ``(*input.shape, 2)`` (real, imaginary)."""
    _require("view_as_real", input, "input", 1)
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    shape, stride, offset = tuple(input.shape), input.stride(), input.storage_offset()
    out = _reinterpret(_view_as_real(input), shape + (2,), tuple(2 * s for s in stride) + (1,),
                       2 * offset, input._data.real.dtype)
    out._view_replay = _replay(input, view_as_real)
    return _view_tangent(out, input, view_as_real)


def view_as_complex(input):
    """Pairs of reals (a last dim of size 2 and stride 1) as complex numbers: a view."""
    _require("view_as_complex", input, "input", 1)
    dtype = input.dtype
    if dtype not in (D.float16, D.float32, D.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {dtype._legacy}")
    shape, stride, offset = tuple(input.shape), input.stride(), input.storage_offset()
    if not shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(st % 2 and n != 1 for n, st in zip(shape[:-1], stride[:-1])):   # size 1: any
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if dtype is D.float16:
        raise NotImplementedError("view_as_complex(): dyngrad has no complex32 (ComplexHalf) "
                                  "dtype")
    out = _reinterpret(_view_as_complex(input), shape[:-1],
                       tuple(st // 2 for st in stride[:-1]), offset // 2,
                       _COMPLEX_OF[dtype.name].np)
    out._view_replay = _replay(input, view_as_complex)
    return _view_tangent(out, input, view_as_complex)


FUNCTIONS.update({"complex": complex, "polar": polar, "view_as_real": view_as_real,
                  "view_as_complex": view_as_complex})
