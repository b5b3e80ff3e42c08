"""Small helpers shared by ops and the Tensor class: dims, shapes and torch's error texts."""
from __future__ import annotations


class Size(tuple):
    """A tensor's shape; a tuple of ints that prints as ``torch.Size([2, 3])``.

    Made from anything torch takes as an int (a bool, a NumPy integer, a one-element integer
    tensor: each is stored as the int it holds); anything else is torch's TypeError. (A
    tensor's own ``.shape`` skips the check: NumPy's shapes hold ints.)"""

    __slots__ = ()

    def __new__(cls, sizes=()):
        t = tuple.__new__(cls, sizes)
        for v in t:
            if type(v) is not int:
                return tuple.__new__(cls, [_size_item(i, v) for i, v in enumerate(t)])
        return t

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __reduce__(self):
        return Size, (tuple(self),)

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        if not -(1 << 63) <= n < (1 << 63):   # (torch's int64 product wraps around)
            n = (n + (1 << 63)) % (1 << 64) - (1 << 63)
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return tuple.__new__(Size, r) if isinstance(item, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f'can only concatenate {type(other).__name__} (not "torch.Size") '
                            f"to {type(other).__name__}")
        return Size(other + tuple(self))

    def __mul__(self, n):
        return tuple.__new__(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__


def _size_item(i: int, v) -> int:
    """Item `i` of a Size: the int `v` stands for, or torch's TypeError."""
    if type(v) is not float and hasattr(v, "__index__"):
        try:
            v = v.__index__()
        except TypeError:
            pass
        else:
            if not -(1 << 63) <= v < (1 << 63):
                raise ValueError("Overflow when unpacking long long")
            return v
    name = "Tensor" if type(v).__name__ == "Tensor" else type(v).__name__
    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{name}')")


def shape_str(shape) -> str:
    """torch's way of writing a shape inside messages: ``[2, 3]``."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def plain_int(v):
    """`v`, or the int a NumPy integer or a 0-dim integer tensor holds, for the overload checks
    that look for ``int``: torch's parser takes NumPy integers wherever it takes an int
    (THPUtils_checkLong), and a 0-dim tensor of an integer dtype (not bool) that does not
    require grad (``x.argmax(n - 1)``; Note [Tensors for numbers] in ops/_dispatch.py)."""
    t = type(v)
    if t is int:
        return v
    if t.__module__ == "numpy" and hasattr(v, "__index__") and t.__name__ != "bool":
        return v.__index__()
    if reads_as_number(v) and v._data.dtype.kind in "iu":
        return int(v.item())
    return v


def reads_as_number(v) -> bool:
    """Whether `v` is a 0-dim tensor that does not require grad: what torch's parser reads as
    a number where a parameter is one (Note [Tensors for numbers] in ops/_dispatch.py)."""
    # (a Tensor, told by its slot: no import here)
    return hasattr(v, "_requires_grad") and v._data.ndim == 0 and not v._requires_grad


def scalar_value(v):
    """`v`, or the value it holds where it reads as a number (``reads_as_number``)."""
    return v.item() if reads_as_number(v) else v


def dims_spelled_out(name: str, args) -> tuple:
    """The dims of ``x.squeeze(0, 1)``: torch's parser takes a method's only int-list argument
    spelled out as separate ints. Anything else there is a TypeError, which the method's
    wrapper rewords as torch's parser does (Note [Parser errors] in ops/_arg_parser.py)."""
    for a in args:
        if type(a) is bool or not hasattr(a, "__index__"):
            raise TypeError(f"{name}(): dims must be ints, got {type(a).__name__}")
    return tuple(a.__index__() for a in args)


def canonical_dim(dim: int, ndim: int, wrap_scalar: bool = True) -> int:
    """Wrap a possibly negative dim into [0, ndim); IndexError with torch's text otherwise."""
    if type(dim) is not int:   # (no call for the commonest dim, an int)
        dim = plain_int(dim)
    n = ndim if ndim > 0 or not wrap_scalar else 1
    if not -n <= dim < n:
        if n == 0:
            raise IndexError(f"dimension specified as {dim} but tensor has no dimensions")
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def canonical_dims(dims, ndim: int) -> tuple:
    # (the commonest call first: one dim, in range)
    d = dims if type(dims) is int else \
        dims[0] if (type(dims) is tuple or type(dims) is list) and len(dims) == 1 else None
    if type(d) is int and -ndim <= d < ndim:
        return (d + ndim if d < 0 else d,)
    if isinstance(dims, int) or (hasattr(dims, "__index__") and not hasattr(dims, "__len__")):
        dims = (dims,)   # (one dim: an int, or a NumPy integer)
    elif hasattr(dims, "_requires_grad"):
        # one tensor: torch's int[1] takes whatever has __index__ (a one-element integer or
        # bool tensor, any shape); another raises its TypeError, which the parser rewords
        dims = (dims.__index__(),)
    out = tuple(canonical_dim(d, ndim) for d in dims)
    seen = set()
    for d in out:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return out


def value_error(message: str) -> ValueError:
    """The ValueError of one of torch's TORCH_CHECK_VALUE checks, raised by a kernel: marked, so
    that the dispatcher passes it on as it is (it turns NumPy's own ValueErrors, which torch
    would give as RuntimeErrors, into those)."""
    error = ValueError(message)
    error.torch_check = True
    return error


def broadcast_error(shapes) -> RuntimeError:
    """The RuntimeError torch's infer_size raises for shapes that do not broadcast."""
    a, b = shapes[0], shapes[1]
    ndim = max(len(a), len(b))
    for i in range(ndim - 1, -1, -1):
        ia, ib = i - (ndim - len(a)), i - (ndim - len(b))
        sa = a[ia] if ia >= 0 else 1
        sb = b[ib] if ib >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            return RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b "
                                f"({sb}) at non-singleton dimension {i}")
    if len(shapes) > 2:
        return broadcast_error([broadcast_shapes(a, b)] + list(shapes[2:]))
    return RuntimeError(f"shapes {shape_str(a)} and {shape_str(b)} cannot be broadcast")


def broadcast_shapes(*shapes) -> Size:
    """torch.broadcast_shapes: the shape all inputs broadcast to, or torch's RuntimeError."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s):
            j = ndim - len(s) + i
            if out[j] == 1:
                out[j] = n
            elif n != 1 and n != out[j]:
                raise broadcast_error([tuple(out), tuple(s)])
    return Size(out)


def contiguous_strides(shape) -> tuple:
    """Row-major strides as torch computes them (size-0 and size-1 dims count as 1)."""
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))
