"""In-place view ops (``t_``, ``squeeze_``, ``as_strided_``…) and ``resize_``: the tensor itself
takes a new geometry.

Each in-place view op shares its geometry kernel and its derivative with the view op it mirrors
(shape.py) but records its own node, as torch does (``t_`` -> ``TBackward1``).
"""
from __future__ import annotations

from ..backends import numpy_backend as _npb
from ._geometry import memory_format_strides, storage_extent
from ._dispatch import check_inference_inplace
from ._record import _record
from ._registry import METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR, restride_tangent
from ..autograd.views import check_inplace_view
from .._utils import dims_spelled_out
from .shape import (_as_strided, _as_strided_args, _int_tuple, _squeeze_all, _squeeze_dim,
                    _squeeze_dims, _t, _t_geom, _transpose, _unsqueeze)


def _restride_(self, spec, *args):
    """Give ``self`` the geometry ``spec``'s kernel computes from its own; bump its version.

    With autograd, ``self``'s history is rebased as torch does: the op's node (``TBackward1``…)
    takes ``self``'s old gradient edge and becomes its ``grad_fn``. A leaf that requires grad,
    or a view of one, cannot change in place (torch's check_inplace errors).
    """
    from ..autograd import grad_mode
    check_inference_inplace(self)
    node = None
    if self._requires_grad and grad_mode._state.grad_enabled:
        if self._base is not None:
            check_inplace_view(self)
        if self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
    shape, stride, offset = spec.kernel((self._data.shape, self.stride(), self._offset), *args)
    if self._requires_grad and grad_mode._state.grad_enabled:
        node = _record(spec, (self,), args, None, ())   # edge and shape from before the change
    st = self._storage_obj()
    self._data = _npb.strided(st.buffer, shape, stride, offset, self._data.dtype)
    self._offset = offset
    self._bump_version()
    if node is not None:
        self._grad_fn = node
        self._output_nr = 0
        if self._base is not None:   # the new node is current (autograd/views.py)
            self._view_version = st.version
    if self._fw_grad is not None:   # the tangent takes the same geometry (forward_ad.py)
        restride_tangent(self, spec, args)
    return self


def _inplace_view(name, node, of):
    """The in-place twin of the view op `of`: same geometry kernel, same formula, own node."""
    spec = defop(name, node=node, view=True, variants=())(of.kernel)
    spec.backward(of.backward_fn)
    spec.jvp(of.jvp_fn)
    return spec


@defop("t_", node="TBackward1", view=True, variants=())
def _t_inplace(geom):
    return _t_geom(geom, "t_")


_t_inplace.backward(_t.backward_fn)
_t_inplace.jvp(AUTO_LINEAR)
_transpose_inplace = _inplace_view("transpose_", "TransposeBackward1", _transpose)
_squeeze_all_inplace = _inplace_view("squeeze_", "SqueezeBackward3", _squeeze_all)
_squeeze_dim_inplace = _inplace_view("squeeze_.dim", "SqueezeBackward4", _squeeze_dim)
_squeeze_dims_inplace = _inplace_view("squeeze_.dims", "SqueezeBackward5", _squeeze_dims)
_unsqueeze_inplace = _inplace_view("unsqueeze_", "UnsqueezeBackward1", _unsqueeze)
_as_strided_inplace = _inplace_view("as_strided_", "AsStridedBackward1", _as_strided)


def transpose_(self, dim0: int, dim1: int):
    return _restride_(self, _transpose_inplace, dim0, dim1)


def swapaxes_(self, axis0: int, axis1: int):
    return _restride_(self, _transpose_inplace, axis0, axis1)


def swapdims_(self, dim0: int, dim1: int):
    return _restride_(self, _transpose_inplace, dim0, dim1)


def t_(self):
    return _restride_(self, _t_inplace)


def squeeze_(self, dim=None, *more):
    if more:   # x.squeeze_(0, 1), as x.squeeze(0, 1)
        dim = dims_spelled_out("squeeze_", (dim,) + more)
    if dim is None:
        return _restride_(self, _squeeze_all_inplace)
    if isinstance(dim, (tuple, list)):
        return _restride_(self, _squeeze_dims_inplace, tuple(dim))
    return _restride_(self, _squeeze_dim_inplace, dim)


def unsqueeze_(self, dim: int):
    return _restride_(self, _unsqueeze_inplace, dim)


def as_strided_(self, size, stride, storage_offset=None):
    size, stride, _ = _as_strided_args(self, size, stride, storage_offset)
    geometry = (self._data.shape, self.stride(), self._offset)
    return _restride_(self, _as_strided_inplace, size, stride, storage_offset, geometry)


def resize_(self, *sizes, memory_format=None):
    """Give ``self`` a new shape with contiguous strides, growing its storage if needed.

    Differences from torch: when the storage grows, the other tensors sharing it keep seeing
    the old memory (torch moves them all to the new allocation).
    """
    check_inference_inplace(self)
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = _int_tuple("resize_", "size", sizes)
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    if shape == self._data.shape and memory_format is None:
        return self
    strides = memory_format_strides(shape, memory_format)
    st = self._storage_obj()
    dtype = self._data.dtype
    extent = storage_extent(shape, strides)
    need = (self._offset + extent) * dtype.itemsize if extent else 0
    buf = st.buffer
    if need > buf.nbytes:
        xp = _npb.xp
        grown = xp.zeros(-(-need // buf.itemsize), buf.dtype)
        grown[:buf.size] = buf
        st.buffer = buf = grown
    self._data = _npb.strided(buf, shape, strides, self._offset, dtype)
    self._bump_version()
    return self


for _fn in (transpose_, swapaxes_, swapdims_, t_, squeeze_, unsqueeze_, as_strided_, resize_):
    METHODS[_fn.__name__] = _fn
