"""Padding and patch ops of ``torch.nn.functional``: ``pad`` (constant, reflect, replicate,
circular), ``one_hot``, ``unfold`` (im2col) and ``fold`` (col2im); also ``torch.constant_pad_nd``.

``F.pad`` routes as ATen's ``pad`` does: constant padding is ``constant_pad_nd``
(``ConstantPadNdBackward0``) for any number of dims; reflect and replicate padding are the
primitives ``reflection_pad{1,2,3}d`` / ``replication_pad{1,2,3}d`` (``ReflectionPad2DBackward0``
…) for the last 1, 2 or 3 dims of a batched or unbatched input; circular padding is a
composition (an empty tensor written through slices, so its graph is torch's ``CopySlices``).

Note [Reflect and replicate padding as gathers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each output position along a padded dim reads one input position, and the dims are independent,
so the padded tensor is the input gathered along each padded dim in turn with an index vector.
The vector is ATen's (cpu/PaddingKernel.cpp): with ``pad`` the left padding and ``n`` the input
size, output ``j`` reads ``j - pad`` inside, the mirror image ``pad - j`` / ``2n + pad - 2 - j``
(reflect) or the edge (replicate) outside, and negative padding crops. The gradient adds each
output's gradient into the input position it read (a scatter-add along each dim: the backward
primitives ``reflection_pad1d_backward``…), whose own derivative is the padding again.

im2col / col2im are adjoint in the same way: im2col reads the (dilated, strided) patches of the
zero-padded image into columns, col2im adds columns back into an image, and each is the
other's gradient.
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import canonical_dim, shape_str
from ..backends import numpy_backend as _npb
from . import shape as S
from ._registry import FUNCTIONS, defop
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD, LINEAR_IN_GRAD_OUTPUT
from .creation import alloc, checked_scalar, copy_with_strides, fill_array, preserve_strides
from .creation import check_size, suggest_memory_format
from ._geometry import memory_format_strides
from .view_backward import backward_only
from ._arg_parser import type_name as _tp_name


def _tensor_cls():
    return S._tensor_cls()


def _check_tensor(fname, value):
    if not isinstance(value, _tensor_cls()):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(value)}")


def _elem_strides(arr) -> tuple:
    return tuple(s // arr.itemsize for s in arr.strides)


def _layout_like(arr):
    """The memory format a new tensor made from ``arr`` takes (channels_last when ``arr`` looks
    so: torch's suggest_memory_format)."""
    return suggest_memory_format(arr.shape, _elem_strides(arr))


# ---------------------------------------------------------------------------------------------
# constant padding
# ---------------------------------------------------------------------------------------------
@defop("constant_pad_nd", node="ConstantPadNdBackward0", promote=Promote.NONE, variants=())
def _constant_pad_nd(xp, self, pad, value=0):
    pad = tuple(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    nd, npairs = self.ndim, len(pad) // 2
    if nd < npairs:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{nd}dimensions.")
    lead = nd - npairs
    # crop first (negative padding), as ATen's narrow calls do
    crop = self
    grows = False
    for d in range(lead, nd):
        left, right = pad[2 * (nd - d - 1)], pad[2 * (nd - d - 1) + 1]
        for amount, at_start in ((left, True), (right, False)):
            if amount < 0:
                length = crop.shape[d] + amount
                if length < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")
                index = [slice(None)] * nd
                index[d] = slice(-amount, None) if at_start else slice(0, length)
                crop = crop[tuple(index)]
            elif amount:
                grows = True
    if not grows:   # only cropping: a clone of the narrowed input
        return copy_with_strides(crop, crop.dtype,
                                 preserve_strides(crop.shape, _elem_strides(crop)))
    shape = list(self.shape)
    for d in range(lead, nd):
        left, right = pad[2 * (nd - d - 1)], pad[2 * (nd - d - 1) + 1]
        shape[d] = self.shape[d] + left + right
        if shape[d] < 0:
            raise RuntimeError(f"The input size {self.shape[d]}, plus negative padding {left} "
                               f"and {right} resulted in a negative output size, which is "
                               f"invalid. Check dimension {d} of your input.")
    shape = tuple(shape)
    d_type = D.from_np(self.dtype)
    fill = fill_array(checked_scalar(value, d_type), d_type)
    out = alloc(shape, self.dtype, memory_format_strides(shape, _layout_like(self)), fill)
    index = [slice(None)] * nd
    for d in range(lead, nd):
        left, right = pad[2 * (nd - d - 1)], pad[2 * (nd - d - 1) + 1]
        index[d] = slice(max(left, 0), shape[d] - max(right, 0))
    out[tuple(index)] = crop
    return out


@_constant_pad_nd.backward
def _(ctx, grad):
    return _constant_pad_nd(grad, tuple(-p for p in ctx.pad))


_constant_pad_nd.jvp(FROM_BACKWARD)


def constant_pad_nd(input, pad, value=0):
    """``input`` padded with ``value`` (negative padding crops): ``pad`` lists (left, right)
    amounts from the last dim backwards."""
    _check_tensor("constant_pad_nd", input)
    return _constant_pad_nd(input, _int_list("constant_pad_nd", "pad", pad, 2), value)


# ---------------------------------------------------------------------------------------------
# reflect / replicate padding. See Note [Reflect and replicate padding as gathers]
# ---------------------------------------------------------------------------------------------
def _pad_index(xp, size, left, out_size, reflect):
    j = xp.arange(out_size)
    offset = max(0, -left) - max(0, left)
    if reflect:
        outside_right = 2 * (size + left - 1) - j
        i = xp.where(j < left, 2 * left - j, xp.where(j < size + left, j, outside_right))
    else:
        i = xp.where(j < left, left, xp.where(j < size + left, j, size + left - 1))
    return i + offset


def _padded_dims(ndim, padding):
    """(dim, left, right) for each padded dim, the last dim first (F.pad's order)."""
    return [(ndim - 1 - i, padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)]


def _check_pad_input(shape, padding, npad, reflect):
    """ATen's shape checks of reflection_pad / replication_pad, with their messages."""
    nd = len(shape)
    batched = nd == npad + 2
    valid = batched or nd == npad + 1
    if valid:
        valid = all(n != 0 for n in shape[1 if batched else 0:])
    if not valid:
        raise RuntimeError(f"Expected {npad + 1}D or {npad + 2}D (batch mode) tensor with possibly "
                           f"0 batch size and other non-zero dimensions for input, but got: "
                           f"{shape_str(shape)}")
    dims = _padded_dims(nd, padding)
    if reflect:
        for i, (d, left, right) in enumerate(dims):
            if not (left < shape[d] and right < shape[d]):
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({left}, "
                                   f"{right}) at dimension {d} of input {shape_str(shape)}")
    out = list(shape)
    for d, left, right in dims:
        out[d] = shape[d] + left + right
    (w, ow), rest = (shape[-1], out[-1]), [(shape[d], out[d]) for d, _, _ in dims[1:]]
    if npad == 1 and ow < 1:
        raise RuntimeError(f"input (W: {w}) is too small. Calculated output W: {ow}")
    # for 2 and 3 padded dims ATen asks only one output size to be positive
    if npad > 1 and ow < 1 and all(o < 1 for _, o in rest):
        (h, oh) = rest[0]
        if npad == 2:
            gap = "" if reflect else " "   # replication_pad2d's text has the extra space
            raise RuntimeError(f"input (H: {h}, W: {w}{gap}) is too small. Calculated output "
                               f"H: {oh} W: {ow}")
        (d, od) = rest[1]
        raise RuntimeError(f"input (D: {d} H: {h}, W: {w}) is too small. Calculated output "
                           f"D: {od} H: {oh} W: {ow}")
    return check_size(tuple(out))


def _make_pad(kind: str, npad: int):
    """The primitive ``{kind}_pad{npad}d`` and its backward (a scatter-add) primitive."""
    reflect = kind == "reflection"
    name = f"{kind}_pad{npad}d"
    node = f"{kind.capitalize()}Pad{npad}DBackward0"

    def forward(xp, self, padding):
        padding = tuple(padding)
        if len(padding) != 2 * npad:
            raise RuntimeError(f"padding size is expected to be {2 * npad}, but got: "
                               f"{len(padding)}")
        out_shape = _check_pad_input(self.shape, padding, npad, reflect)
        if self.dtype == xp.bool_:
            raise NotImplementedError(f'"{name}" not implemented for \'Bool\'')
        out = self
        for d, left, _ in _padded_dims(self.ndim, padding):
            out = xp.take(out, _pad_index(xp, self.shape[d], left, out_shape[d], reflect), axis=d)
        strides = memory_format_strides(out_shape, _layout_like(self))
        return copy_with_strides(out, self.dtype, strides)

    def backward_kernel(xp, grad_output, self, padding):
        grad, input_sizes = grad_output, self.shape
        for d, left, _ in reversed(_padded_dims(len(input_sizes), padding)):
            index = _pad_index(xp, input_sizes[d], left, grad.shape[d], reflect)
            shape = list(grad.shape)
            shape[d] = input_sizes[d]
            summed = xp.zeros(shape, grad.dtype)
            xp.add.at(summed, (slice(None),) * d + (index,), grad)
            grad = summed
        # laid out as the input (channels_last included), as torch's gradient is
        strides = memory_format_strides(input_sizes, _layout_like(self))
        if grad.strides == tuple([n * grad.itemsize for n in strides]):
            return grad
        return copy_with_strides(grad, grad.dtype, strides)

    forward.__name__ = name
    backward_kernel.__name__ = name + "_backward"
    spec = defop(name, node=node, promote=Promote.NONE, variants=(), saves=("self",))(forward)
    back_node = node.replace("Backward0", "BackwardBackward0")
    back = backward_only(defop(name + "_backward", node=back_node, promote=Promote.NONE,
                               inputs=("grad_output", "self"), variants=())(backward_kernel))

    @spec.backward
    def _(ctx, grad):
        self, = ctx.saved_tensors
        return back(grad, self, ctx.padding)

    spec.jvp(AUTO_LINEAR)

    @back.backward
    def _(ctx, grad):
        # self only gives the shape: its gradient is zero (torch's derivatives.yaml)
        return spec(grad, ctx.padding), grad.new_zeros(ctx.self_shape)

    back.jvp(LINEAR_IN_GRAD_OUTPUT)

    return spec


_REFLECT = {n: _make_pad("reflection", n) for n in (1, 2, 3)}
_REPLICATE = {n: _make_pad("replication", n) for n in (1, 2, 3)}


# ---------------------------------------------------------------------------------------------
# circular padding: a composite, as in ATen (_pad_circular)
# ---------------------------------------------------------------------------------------------
def _pad_circular(input, padding):
    in_shape = tuple(input.shape)
    npad = len(padding) // 2
    lead = len(in_shape) - npad
    out_shape = list(in_shape)
    for i in range(npad):
        left, right = padding[2 * (npad - i - 1)], padding[2 * (npad - i - 1) + 1]
        size = in_shape[lead + i]
        out_shape[lead + i] = size + left + right
        if not (left <= size and right <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[lead + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_empty(tuple(out_shape))
    # the input (cropped where padding is negative) goes in the middle
    out_slice, in_slice = out, input
    for i in range(npad):
        d = npad - i + lead - 1
        left, right = padding[2 * i], padding[2 * i + 1]
        out_slice = S._slice(out_slice, d, max(left, 0), out_shape[d] - max(right, 0), 1)
        in_slice = S._slice(in_slice, d, max(-left, 0), in_shape[d] - max(-right, 0), 1)
    out_slice.copy_(in_slice)
    # then each side is copied from the opposite end of the result (corners more than once)
    for i in range(npad):
        d = npad - i + lead - 1
        left, right = padding[2 * i], padding[2 * i + 1]
        if left > 0:
            end = out_shape[d] - max(right, 0)
            S._slice(out, d, 0, left, 1).copy_(S._slice(out, d, end - left, end, 1))
        if right > 0:
            start = max(left, 0)
            S._slice(out, d, out_shape[d] - right, out_shape[d], 1).copy_(
                S._slice(out, d, start, start + right, 1))
    return out


# ---------------------------------------------------------------------------------------------
# F.pad
# ---------------------------------------------------------------------------------------------
_MODES = ("constant", "reflect", "replicate", "circular")


def _int_list(fname, arg, value, pos):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be tuple of ints, "
                        f"not {type(value).__name__}")
    out = []
    for i, v in enumerate(value):
        if type(v) is bool or isinstance(v, float) or not hasattr(v, "__index__"):
            raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be tuple of "
                            f"ints, but found element of type {type(v).__name__} at pos {i}")
        out.append(operator.index(v))
    return tuple(out)


def _float_arg(fname, arg, value, pos):
    if isinstance(value, _tensor_cls()) and value.numel() == 1 and not value.is_complex():
        return float(value.item())
    if isinstance(value, (bool, int, float)) or (hasattr(value, "__float__")
                                                 and not isinstance(value, complex)
                                                 and not isinstance(value, _tensor_cls())):
        return float(value)
    raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be float, not "
                    f"{type(value).__name__}")


def pad(input, pad, mode: str = "constant", value=None):
    """Pad ``input``: ``pad`` lists (left, right) amounts from the last dim backwards.

    Modes: ``"constant"`` (``value``, default 0; any number of dims; negative amounts crop),
    ``"reflect"``, ``"replicate"`` and ``"circular"`` (the last 1, 2 or 3 dims of a 2-5 dim
    tensor, with or without a batch dim).
    """
    _check_tensor("pad", input)
    pad = _int_list("pad", "pad", pad, 2)
    if value is not None:
        value = _float_arg("pad", "value", value, 4)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    nd = input.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * nd:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{nd}")
    if mode == "constant":
        return _constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    npad = len(pad) // 2
    if npad in (1, 2, 3) and nd in (npad + 1, npad + 2):
        if mode == "reflect":
            return _REFLECT[npad](input, pad)
        if mode == "replicate":
            return _REPLICATE[npad](input, pad)
        return _pad_circular(input, pad)
    raise NotImplementedError(
        f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


# ---------------------------------------------------------------------------------------------
# one_hot
# ---------------------------------------------------------------------------------------------
@defop("one_hot", promote=Promote.NONE, variants=())
def _one_hot(xp, self, num_classes=-1):
    if self.dtype != xp.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if self.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return xp.empty(self.shape + (num_classes,), xp.int64)
    if self.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(self.max()) + 1
    elif num_classes <= self.max():
        raise RuntimeError("Class values must be smaller than num_classes.")
    return xp.ascontiguousarray(self[..., None] == xp.arange(num_classes), dtype=xp.int64)


def one_hot(input, num_classes: int = -1):
    """int64 one-hot rows of ``num_classes`` (default: the largest class + 1) for each index."""
    _check_tensor("one_hot", input)
    if type(num_classes) is bool or isinstance(num_classes, float) \
            or not hasattr(num_classes, "__index__"):
        raise TypeError(f"one_hot(): argument 'num_classes' (position 2) must be int, not "
                        f"{type(num_classes).__name__}")
    return _one_hot(input, operator.index(num_classes))


# ---------------------------------------------------------------------------------------------
# im2col (F.unfold) / col2im (F.fold). See the Note at the top.
# ---------------------------------------------------------------------------------------------
def _size(shape, d):
    """TensorImpl::size(d): IndexError with torch's texts for a dim the tensor lacks."""
    if not shape:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return shape[canonical_dim(d, len(shape))]


def _check_pairs(**pairs):
    for name, value in pairs.items():
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")


def _check_window(kernel_size, dilation, padding, stride, stride_first):
    kh, kw = kernel_size
    checks = [
        ("kernel", kw > 0 and kh > 0, f"kernel size should be greater than zero, but got "
                                      f"kernel_height: {kh} kernel_width: {kw}"),
        ("dilation", dilation[1] > 0 and dilation[0] > 0,
         f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
         f"dilation_width: {dilation[1]}"),
        ("padding", padding[1] >= 0 and padding[0] >= 0,
         f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: "
         f"{padding[1]}"),
        ("stride", stride[1] > 0 and stride[0] > 0,
         f"stride should be greater than zero, but got stride_height: {stride[0]} "
         f"stride_width: {stride[1]}"),
    ]
    if stride_first:   # col2im checks the stride second, im2col last
        checks.insert(1, checks.pop())
    for _, ok, message in checks:
        if not ok:
            raise RuntimeError(message)


def _check_floating(xp, arr, name):
    if arr.dtype.kind not in "fcbV":
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{D.from_np(arr.dtype)._legacy}'")


def _blocks(size, k, d, p, s):
    """Sliding positions along one dim (floor division, as ATen's div_rtn)."""
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


@defop("im2col", node="Im2ColBackward0", promote=Promote.NONE, variants=())
def _im2col(xp, self, kernel_size, dilation, padding, stride):
    _check_pairs(kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    _check_window(kernel_size, dilation, padding, stride, stride_first=False)
    shape, nd = self.shape, self.ndim
    valid_dims = _size(shape, 1) != 0 and _size(shape, 2) != 0
    if not ((nd == 3 and shape[0] and valid_dims) or (nd == 4 and valid_dims and shape[3])):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{shape_str(shape)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    height, width = shape[-2], shape[-1]
    oh, ow = _blocks(height, kh, dh, ph, sh), _blocks(width, kw, dw, pw, sw)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({height}, {width}), kernel_size=({kh}, "
                           f"{kw}), dilation=({dh}, {dw}), padding=({ph}, {pw}), calculated "
                           f"shape of the array of sliding blocks as ({oh}, {ow}), but its "
                           f"components must be at least one.")
    _check_floating(xp, self, "im2col_out_cpu")
    x = self if nd == 4 else self[None]
    n, c = x.shape[:2]
    hp, wp = height + 2 * ph, width + 2 * pw
    padded = xp.zeros((n, c, hp, wp), self.dtype)
    padded[:, :, ph:ph + height, pw:pw + width] = x
    # every (kernel offset, block position) pair as a strided view of the padded image
    patches = _npb.strided(padded.reshape(-1), (n, c, kh, kw, oh, ow),
                           (c * hp * wp, hp * wp, dh * wp, dw, sh * wp, sw), 0)
    cols = patches.reshape(n, c * kh * kw, oh * ow)
    return cols if nd == 4 else cols[0]


@_im2col.backward
def _(ctx, grad):
    size = ctx.self_shape[-2:]
    return _col2im(grad, size, ctx.kernel_size, ctx.dilation, ctx.padding, ctx.stride)


_im2col.jvp(AUTO_LINEAR)


@defop("col2im", node="Col2ImBackward0", promote=Promote.NONE, variants=())
def _col2im(xp, self, output_size, kernel_size, dilation, padding, stride):
    _check_pairs(output_size=output_size, kernel_size=kernel_size, dilation=dilation,
                 padding=padding, stride=stride)
    _check_window(kernel_size, dilation, padding, stride, stride_first=True)
    shape, nd = self.shape, self.ndim
    if not ((nd == 2 and shape[0] != 0 and shape[1] != 0)
            or (nd == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{shape_str(shape)}")
    (height, width), (kh, kw), (dh, dw) = output_size, kernel_size, dilation
    (ph, pw), (sh, sw) = padding, stride
    planes, length = shape[-2], shape[-1]
    if planes % (kh * kw):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size=({kh}, {kw}).")
    oh, ow = _blocks(height, kh, dh, ph, sh), _blocks(width, kw, dw, pw, sw)
    window = (f"Given output_size=({height}, {width}), kernel_size=({kh}, {kw}), "
              f"dilation=({dh}, {dw}), padding=({ph}, {pw}), stride=({sh}, {sw}), ")
    if length != oh * ow:
        raise RuntimeError(f"{window}expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
                           f"input.size(2)={length}.")
    if oh < 1 or ow < 1:
        raise RuntimeError(f"{window}calculated shape of the array of sliding blocks as ({oh}, "
                           f"{ow}), which is too small (non-positive)")
    if height < 1 or width < 1:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: "
                           f"output_size=({height}, {width}).")
    _check_floating(xp, self, "col2im_out_cpu")
    x = self if nd == 3 else self[None]
    n, c = x.shape[0], planes // (kh * kw)
    cols = x.reshape(n, c, kh, kw, oh, ow)
    out = xp.zeros((n, c, height + 2 * ph, width + 2 * pw), self.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            columns = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
            out[:, :, rows, columns] += cols[:, :, i, j]
    out = xp.ascontiguousarray(out[:, :, ph:ph + height, pw:pw + width])
    return out if nd == 3 else out[0]


@_col2im.backward
def _(ctx, grad):
    return _im2col(grad, ctx.kernel_size, ctx.dilation, ctx.padding, ctx.stride)


_col2im.jvp(AUTO_LINEAR)


# torch's Im2ColBackward0 shows the input's last two sizes as these two attributes
_im2col.node_cls._saved_self_sym_argsize_minus_1 = property(lambda node: node.self_shape[-1])
_im2col.node_cls._saved_self_sym_argsize_minus_2 = property(lambda node: node.self_shape[-2])


def _pair(value):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value, value)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a batched (N, C, H, W) or unbatched (C, H, W) image as columns:
    (N, C * kh * kw, L) with L the number of block positions (im2col)."""
    _check_tensor("im2col", input)
    return _im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of ``unfold``: columns (N, C * kh * kw, L) summed back into an image
    (N, C, *output_size), overlapping blocks adding up (col2im)."""
    _check_tensor("col2im", input)
    return _col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                   _pair(padding), _pair(stride))


FUNCTIONS.update({
    "constant_pad_nd": constant_pad_nd,
    "nn.functional.pad": pad,
    "nn.functional.one_hot": one_hot,
    "nn.functional.unfold": unfold,
    "nn.functional.fold": fold,
})
