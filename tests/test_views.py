"""View and shape ops against live torch: geometry (shape, stride, storage offset), contiguity,
values, storage sharing, ``_base`` and writes through views, plus torch's error texts.

Every case runs one lambda on both libraries over the same NumPy data (tinygrad's trick).
"""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import dyngrad

LIBS = (dyngrad, torch)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _base_of(t):
    return getattr(t, "_base", None)


def _root(t):
    b = _base_of(t)
    return t if b is None else b


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


def _ptr(t):
    return t.untyped_storage().data_ptr()


BASES = {
    "contiguous": lambda lib: lib.tensor(np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)),
    "transposed": lambda lib: lib.tensor(
        np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)).transpose(1, 3),
    "channels_last": lambda lib: lib.tensor(
        np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)).contiguous(
            memory_format=lib.channels_last),
    "sliced": lambda lib: lib.tensor(
        np.arange(240, dtype=np.float32).reshape(2, 4, 6, 5))[:, 1:, ::2],
}

# (name, fn(lib, x)); x is 4-d. Each returns a tensor or a tuple/list of tensors.
VIEW_CASES = [
    ("view_flat", lambda lib, x: x.view(-1)),
    ("view_2d", lambda lib, x: x.view(6, 20)),
    ("view_tuple", lambda lib, x: x.view((2, 3, 20))),
    ("view_split_last", lambda lib, x: x.view(2, 3, 4, 5, 1)),
    ("view_infer", lambda lib, x: x.view(2, -1, 5)),
    ("view_as", lambda lib, x: x.view_as(x)),
    ("reshape", lambda lib, x: x.reshape(6, 4, 5)),
    ("reshape_flat", lambda lib, x: x.reshape(-1)),
    ("reshape_fn", lambda lib, x: lib.reshape(x, (2, 60))),
    ("reshape_as", lambda lib, x: x.reshape_as(x[0])),
    ("transpose", lambda lib, x: x.transpose(0, 2)),
    ("transpose_neg", lambda lib, x: lib.transpose(x, -1, -3)),
    ("swapaxes", lambda lib, x: x.swapaxes(1, 2)),
    ("swapdims", lambda lib, x: lib.swapdims(x, 0, 3)),
    ("t", lambda lib, x: x[0, 0].t()),
    ("t_1d", lambda lib, x: x[0, 0, 0].t()),
    ("T_2d", lambda lib, x: x[0, 0].T),
    ("mT", lambda lib, x: x.mT),
    ("permute", lambda lib, x: x.permute(3, 1, 0, 2)),
    ("permute_tuple", lambda lib, x: x.permute((2, 0, 3, 1))),
    ("permute_fn_neg", lambda lib, x: lib.permute(x, (-1, 0, -2, 1))),
    ("movedim", lambda lib, x: x.movedim(0, 2)),
    ("movedim_multi", lambda lib, x: lib.movedim(x, (0, 3), (2, 0))),
    ("moveaxis", lambda lib, x: lib.moveaxis(x, -1, 0)),
    ("expand", lambda lib, x: x[:, :1].expand(2, 3, 4, 5)),
    ("expand_minus1_lead", lambda lib, x: x[:, :1, :, :1].expand(7, -1, 3, -1, 6)),
    ("expand_as", lambda lib, x: x[:1].expand_as(x)),
    ("expand_lead1", lambda lib, x: x[0, 0, 0].expand(1, 2, 1, 5)),
    ("squeeze_all", lambda lib, x: x[:, :1, :, :1].squeeze()),
    ("squeeze_dim", lambda lib, x: x[:, :1].squeeze(1)),
    ("squeeze_dim_noop", lambda lib, x: x.squeeze(2)),
    ("squeeze_dims", lambda lib, x: x[:1, :, :, :1].squeeze((0, -1))),
    ("unsqueeze0", lambda lib, x: x.unsqueeze(0)),
    ("unsqueeze_mid", lambda lib, x: x.unsqueeze(2)),
    ("unsqueeze_end", lambda lib, x: x.unsqueeze(-1)),
    ("flatten", lambda lib, x: x.flatten()),
    ("flatten_mid", lambda lib, x: lib.flatten(x, 1, 2)),
    ("flatten_noop", lambda lib, x: x.flatten(1, 1)),
    ("flatten_0d", lambda lib, x: x[0, 0, 0, 0].flatten()),
    ("unflatten", lambda lib, x: x.unflatten(3, (5, 1))),
    ("unflatten_infer", lambda lib, x: lib.unflatten(x.flatten(), 0, (4, -1))),
    ("narrow", lambda lib, x: x.narrow(1, 1, 2)),
    ("narrow_neg", lambda lib, x: lib.narrow(x, -1, -3, 2)),
    ("select", lambda lib, x: x.select(2, 1)),
    ("select_neg", lambda lib, x: lib.select(x, -1, -1)),
    ("unbind", lambda lib, x: x.unbind(1)),
    ("split_int", lambda lib, x: x.split(2, 2)),
    ("split_list", lambda lib, x: lib.split(x, [1, 3, 1], dim=3)),
    ("chunk", lambda lib, x: x.chunk(2, 3)),
    ("chunk_uneven", lambda lib, x: lib.chunk(x, 4, 1)),
    ("tensor_split_sections", lambda lib, x: x.tensor_split(3, 3)),
    ("tensor_split_indices", lambda lib, x: lib.tensor_split(x, [1, 3], dim=2)),
    ("diagonal", lambda lib, x: x.diagonal()),
    ("diagonal_off", lambda lib, x: lib.diagonal(x, 1, 2, 3)),
    ("diagonal_neg", lambda lib, x: x.diagonal(-1, -1, 1)),
    ("diagonal_empty", lambda lib, x: x.diagonal(9)),
    ("unfold", lambda lib, x: x.unfold(3, 2, 2)),
    ("unfold_overlap", lambda lib, x: x.unfold(2, 3, 1)),
    ("as_strided", lambda lib, x: x.as_strided((3, 4), (2, 3), 5)),
    ("as_strided_default_off", lambda lib, x: lib.as_strided(x[1], (2, 2), (1, 1))),
    ("getitem_int", lambda lib, x: x[1]),
    ("getitem_slices", lambda lib, x: x[:, 1:, ::2]),
    ("getitem_mixed", lambda lib, x: x[1, None, ..., 1:3]),
    ("getitem_ellipsis", lambda lib, x: x[...]),
    ("contiguous", lambda lib, x: x.contiguous()),
    ("contiguous_cl", lambda lib, x: x.contiguous(memory_format=lib.channels_last)),
    ("clone", lambda lib, x: x.clone()),
    ("clone_contig", lambda lib, x: lib.clone(x, memory_format=lib.contiguous_format)),
    ("clone_cl", lambda lib, x: x.clone(memory_format=lib.channels_last)),
    ("view_dtype_same", lambda lib, x: x.view(lib.int32)),
    ("view_dtype_smaller", lambda lib, x: x.contiguous().view(lib.float16)),
    ("reshape_chain", lambda lib, x: x.permute(0, 2, 1, 3).reshape(8, 15).t()),
]


def _outputs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _writable(t):
    """Every element at its own memory location (writes through overlapping views are UB)."""
    offsets = np.zeros((), np.int64)
    for n, s in zip(t.shape, t.stride()):
        offsets = offsets[..., None] + np.arange(n) * s
    return np.unique(offsets).size == offsets.size


@pytest.mark.parametrize("base_name", list(BASES))
@pytest.mark.parametrize("name,fn", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_like_torch(base_name, name, fn):
    got = {}
    for lib in LIBS:
        base = BASES[base_name](lib)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = fn(lib, base)
        except Exception as e:   # noqa: BLE001  (compared across libraries below)
            got[lib] = (type(e), str(e))
            continue
        outs = _outputs(r)
        info = [(type(r).__name__ if isinstance(r, (tuple, list)) else "T")]
        for v in outs:
            info.append((tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(),
                         str(v.dtype).split(".")[-1], _ptr(v) == _ptr(base),
                         _base_of(v) is _root(base), v is base))
        vals = [_np(v).copy() for v in outs]
        # a write through the first writable output shows in the base, bumping both versions
        write = None
        w = next((v for v in outs if _writable(v) and v.numel()), None)
        if w is not None and str(w.dtype).split(".")[-1] in ("float32", "int32"):
            v0, b0 = w._version, base._version
            w.add_(1)
            write = (_np(base).copy(), w._version - v0, base._version - b0)
        got[lib] = (info, vals, write)
    a, b = got[dyngrad], got[torch]
    if isinstance(b[0], type):
        assert a == b
        return
    assert a[0] == b[0]
    for x, y in zip(a[1], b[1]):
        np.testing.assert_array_equal(x, y)
    if b[2] is None:
        assert a[2] is None
    else:
        np.testing.assert_array_equal(a[2][0], b[2][0])
        assert a[2][1:] == b[2][1:]


def test_enough_view_forms():
    assert len(VIEW_CASES) >= 45


def test_reshape_copy_is_not_a_view():
    for lib in LIBS:
        x = lib.tensor(np.arange(6.0).reshape(2, 3))
        y = x.t().reshape(6)
        assert _base_of(y) is None and _ptr(y) != _ptr(x)
        assert y.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_contiguous_returns_self_and_view_dtype_is_no_autograd_view():
    for lib in LIBS:
        x = lib.tensor(np.zeros((2, 4), np.float32))
        assert x.contiguous() is x and x.flatten(0, 0) is x
        v = x.view(lib.int32)
        assert _base_of(v) is None and _ptr(v) == _ptr(x)
        v.add_(1)
        assert x._version == 1 and v._version == 1


def test_view_dtype_geometry():
    cases = [
        lambda lib, x: x.view(lib.float64),
        lambda lib, x: x.view(lib.uint8),
        lambda lib, x: x[:, ::3].view(lib.float64),
        lambda lib, x: x.view(lib.float16)[1:].view(lib.float32),
    ]
    for fn in cases:
        res = []
        for lib in LIBS:
            x = lib.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
            v = fn(lib, x)
            res.append((tuple(v.shape), v.stride(), v.storage_offset(), _np(v).tobytes()))
        assert res[0] == res[1]


def test_resize_():
    res = []
    for lib in LIBS:
        x = lib.tensor(np.arange(6.0, dtype=np.float32))
        out = []
        x.resize_(2, 2)
        out.append((tuple(x.shape), x.stride(), x._version, x.tolist()))
        x.resize_(2, 2)   # same shape: nothing, no version bump
        out.append((tuple(x.shape), x.stride(), x._version))
        x.resize_((3, 2))
        out.append((tuple(x.shape), x.stride(), x._version, x.tolist()))
        x.resize_(3, 3)   # grows the storage
        out.append((tuple(x.shape), x.untyped_storage().nbytes(), x[:2].tolist()))
        y = lib.tensor(np.arange(6.0, dtype=np.float32))[2:]
        y.resize_(5)
        out.append((y.storage_offset(), y.untyped_storage().nbytes(), y[:4].tolist()))
        z = lib.tensor(np.zeros(3, np.float32))
        z.resize_(2, 3, 4, 5, memory_format=lib.channels_last)
        out.append(z.stride())
        res.append(out)
    assert res[0] == res[1]


def test_resize_requires_grad_error():
    _same_error(lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).resize_(1))


def test_clone_preserve_layouts():
    cases = [
        lambda lib, x: x.transpose(0, 2),
        lambda lib, x: x[:, :, ::2],
        lambda lib, x: x.permute(0, 2, 3, 1)[:, ::2],
        lambda lib, x: x.permute(0, 3, 1, 2)[..., ::2],
        lambda lib, x: x[:, :1].expand(2, 3, 4, 5),
        lambda lib, x: x.contiguous(memory_format=lib.channels_last)[:, :, :, ::2],
    ]
    for fn in cases:
        res = []
        for lib in LIBS:
            x = lib.tensor(np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5))
            c = fn(lib, x).clone()
            cc = fn(lib, x).contiguous()
            res.append((c.stride(), cc.stride(), _np(c).tolist()))
        assert res[0] == res[1]


# ---------------------------------------------------------------------------------------------
# errors: type and message as torch's
# ---------------------------------------------------------------------------------------------
def _same_error(fn):
    errs = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(lib)
        errs.append((info.type, str(info.value)))
    assert errs[0] == errs[1]


def _x(lib):
    return lib.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))


ERROR_CASES = [
    ("view_incompatible", lambda lib: _x(lib).transpose(0, 1).view(-1)),
    ("view_bad_numel", lambda lib: lib.tensor(np.zeros(6, np.float32)).view(2, 5)),
    ("view_two_infer", lambda lib: _x(lib).view(-1, -1)),
    ("view_negative", lambda lib: _x(lib).view(-2, 12)),
    ("view_zero_ambiguous", lambda lib: lib.tensor(np.zeros(0, np.float32)).view(-1, 0)),
    ("view_float_arg", lambda lib: _x(lib).view(2.0, 12)),
    ("view_dtype_stride", lambda lib: _x(lib).transpose(1, 2).view(lib.float16)),
    ("view_dtype_size", lambda lib: _x(lib)[..., :3].view(lib.float64)),
    ("view_dtype_offset", lambda lib: _x(lib)[..., 1:3].view(lib.float64)),
    ("view_dtype_0d", lambda lib: _x(lib)[0, 0, 0].view(lib.float64)),
    ("reshape_bad", lambda lib: _x(lib).reshape(5, -1)),
    ("transpose_dim", lambda lib: _x(lib).transpose(0, 3)),
    ("transpose_neg_dim", lambda lib: _x(lib).transpose(-4, 0)),
    ("t_3d", lambda lib: _x(lib).t()),
    ("permute_len", lambda lib: _x(lib).permute(0, 1)),
    ("permute_dup", lambda lib: _x(lib).permute(0, 1, 1)),
    ("permute_oob", lambda lib: _x(lib).permute(0, 1, 3)),
    ("expand_bad", lambda lib: _x(lib).expand(3, 3, 4)),
    ("expand_few", lambda lib: _x(lib).expand(4)),
    ("expand_lead_minus1", lambda lib: _x(lib).expand(-1, 2, 3, 4)),
    ("expand_neg", lambda lib: _x(lib).expand(-2, 3, 4)),
    ("squeeze_dim", lambda lib: _x(lib).squeeze(3)),
    ("squeeze_dup", lambda lib: _x(lib)[:1].squeeze((0, 0))),
    ("unsqueeze_dim", lambda lib: _x(lib).unsqueeze(4)),
    ("unsqueeze_neg", lambda lib: _x(lib).unsqueeze(-5)),
    ("flatten_order", lambda lib: _x(lib).flatten(2, 1)),
    ("flatten_dim", lambda lib: _x(lib).flatten(0, 3)),
    ("unflatten_bad", lambda lib: _x(lib).unflatten(1, (2, 2))),
    ("unflatten_empty", lambda lib: _x(lib).unflatten(1, ())),
    ("narrow_exceeds", lambda lib: _x(lib).narrow(2, 3, 2)),
    ("narrow_start", lambda lib: _x(lib).narrow(2, 5, 0)),
    ("narrow_length", lambda lib: _x(lib).narrow(2, 0, -1)),
    ("narrow_0d", lambda lib: _x(lib)[0, 0, 0].narrow(0, 0, 1)),
    ("select_oob", lambda lib: _x(lib).select(1, 3)),
    ("select_oob_negdim", lambda lib: _x(lib).select(-1, -5)),
    ("select_0d", lambda lib: _x(lib)[0, 0, 0].select(0, 0)),
    ("unbind_0d", lambda lib: _x(lib)[0, 0, 0].unbind()),
    ("split_zero", lambda lib: _x(lib).split(0)),
    ("split_neg", lambda lib: _x(lib).split(-1)),
    ("split_sizes_sum", lambda lib: _x(lib).split([1, 1], 1)),
    ("split_sizes_neg", lambda lib: _x(lib).split([4, -1], 1)),
    ("split_0d", lambda lib: _x(lib)[0, 0, 0].split(1)),
    ("chunk_zero", lambda lib: _x(lib).chunk(0)),
    ("tensor_split_zero", lambda lib: _x(lib).tensor_split(0)),
    ("diagonal_same_dims", lambda lib: _x(lib).diagonal(0, 1, -2)),
    ("diagonal_1d", lambda lib: _x(lib)[0, 0].diagonal()),
    ("unfold_size", lambda lib: _x(lib).unfold(2, 5, 1)),
    ("unfold_step", lambda lib: _x(lib).unfold(2, 2, 0)),
    ("as_strided_oob", lambda lib: _x(lib).as_strided((5, 5), (5, 1))),
    ("as_strided_neg", lambda lib: _x(lib).as_strided((2,), (-1,))),
    ("as_strided_len", lambda lib: _x(lib).as_strided((2, 2), (1,))),
    ("movedim_len", lambda lib: _x(lib).movedim((0, 1), (0,))),
    ("movedim_repeat", lambda lib: _x(lib).movedim((0, 0), (1, 2))),
    ("contiguous_preserve", lambda lib: _x(lib).transpose(0, 1).contiguous(
        memory_format=lib.preserve_format)),
    ("contiguous_cl_rank", lambda lib: _x(lib).contiguous(memory_format=lib.channels_last)),
    ("clone_cl3d_rank", lambda lib: _x(lib).clone(memory_format=lib.channels_last_3d)),
    ("getitem_neg_step", lambda lib: _x(lib)[::-1]),
    ("getitem_neg_step_tuple", lambda lib: _x(lib)[:, ::-2]),
    ("getitem_zero_step", lambda lib: _x(lib)[:, ::0]),
    ("getitem_oob", lambda lib: _x(lib)[5]),
    ("getitem_oob_neg", lambda lib: _x(lib)[:, -4]),
    ("getitem_oob_after_none", lambda lib: _x(lib)[None, None, 3]),
    ("getitem_too_many", lambda lib: _x(lib)[0, 0, 0, 0]),
    ("getitem_0d", lambda lib: _x(lib)[0, 0, 0][0]),
]


@pytest.mark.parametrize("name,fn", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_error_like_torch(name, fn):
    _same_error(fn)


# ---------------------------------------------------------------------------------------------
# hypothesis: random chains of view ops
# ---------------------------------------------------------------------------------------------
def _random_op(data, shape):
    """Draw one view op valid for `shape` (or deliberately invalid view/reshape shapes)."""
    nd = len(shape)
    kinds = ["unsqueeze", "view", "reshape", "slice", "expand", "flatten", "permute"]
    if nd >= 1:
        kinds += ["transpose", "narrow", "select", "squeeze", "squeeze_dim", "unfold", "movedim"]
    if nd >= 2:
        kinds += ["diagonal"]
    kind = data.draw(st.sampled_from(kinds))
    dim = (lambda: data.draw(st.integers(-nd, nd - 1)))
    if kind == "transpose":
        a, b = dim(), dim()
        return kind, (lambda x: x.transpose(a, b))
    if kind == "permute":
        perm = data.draw(st.permutations(range(nd)))
        return kind, (lambda x: x.permute(*perm))
    if kind == "movedim":
        a, b = dim(), dim()
        return kind, (lambda x: x.movedim(a, b))
    if kind == "unsqueeze":
        d = data.draw(st.integers(-nd - 1, nd))
        return kind, (lambda x: x.unsqueeze(d))
    if kind == "squeeze":
        return kind, (lambda x: x.squeeze())
    if kind == "squeeze_dim":
        d = dim()
        return kind, (lambda x: x.squeeze(d))
    if kind == "narrow":
        d = dim()
        n = shape[d]
        start = data.draw(st.integers(0, n))
        length = data.draw(st.integers(0, n - start))
        return kind, (lambda x: x.narrow(d, start, length))
    if kind == "select":
        d = dim()
        if shape[d] == 0:
            return kind, (lambda x: x.narrow(d, 0, 0))
        i = data.draw(st.integers(-shape[d], shape[d] - 1))
        return kind, (lambda x: x.select(d, i))
    if kind == "slice":
        if nd == 0:
            return kind, (lambda x: x[None])
        d = data.draw(st.integers(0, nd - 1))
        start = data.draw(st.none() | st.integers(-5, 5))
        stop = data.draw(st.none() | st.integers(-5, 5))
        step = data.draw(st.integers(1, 3))
        idx = (slice(None),) * d + (slice(start, stop, step),)
        return kind, (lambda x: x[idx])
    if kind == "expand":
        lead = data.draw(st.integers(0, 2))
        sizes = [data.draw(st.integers(0, 3)) for _ in range(lead)]
        sizes += [data.draw(st.sampled_from([-1, 3])) if n == 1 else -1 for n in shape]
        return kind, (lambda x: x.expand(*sizes))
    if kind == "flatten":
        if nd == 0:
            return kind, (lambda x: x.flatten())
        a = data.draw(st.integers(0, nd - 1))
        b = data.draw(st.integers(a, nd - 1))
        return kind, (lambda x: x.flatten(a, b))
    if kind == "unfold":
        d = dim()
        size = data.draw(st.integers(0, shape[d]))
        step = data.draw(st.integers(1, 3))
        return kind, (lambda x: x.unfold(d, size, step))
    if kind == "diagonal":
        a, b = dim(), dim()
        if (a - b) % nd == 0:
            b = (a + 1) % nd
        off = data.draw(st.integers(-3, 3))
        return kind, (lambda x: x.diagonal(off, a, b))
    # view / reshape: regroup the numel into a random shape (a -1 sometimes)
    numel = int(np.prod(shape))
    new = []
    rest = numel
    for _ in range(data.draw(st.integers(0, 3))):
        divs = [k for k in range(1, 5) if rest % k == 0] if rest else [0, 1, 2]
        k = data.draw(st.sampled_from(divs))
        new.append(k)
        rest = rest // k if k else rest
    if rest != 1 or not new:
        new.append(rest if rest or not new else 0)
    if data.draw(st.booleans()) and 0 not in new:
        new[data.draw(st.integers(0, len(new) - 1))] = -1
    meth = kind
    return kind, (lambda x: getattr(x, meth)(*new))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_random_view_chains(data):
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    n = int(np.prod(shape))
    layout = data.draw(st.sampled_from(["contiguous", "transposed", "sliced"]))
    xs = {}
    for lib in LIBS:
        # arange(k)[:n]: a 1-d base whose strides do not depend on how empty tensors are made
        flat = (lambda k: lib.arange(max(k, 1), dtype=lib.float32)[:k])
        x = flat(n).reshape(shape)
        if layout == "transposed" and len(shape) >= 2:
            swapped = (shape[-1],) + shape[1:-1] + (shape[0],)
            x = flat(n).reshape(swapped).transpose(0, -1)
        elif layout == "sliced" and len(shape) >= 1:
            x = flat(2 * n).reshape((2 * shape[0],) + shape[1:])[::2]
        xs[lib] = x
    for _ in range(data.draw(st.integers(1, 5))):
        cur = tuple(xs[torch].shape)
        kind, fn = _random_op(data, cur)
        out = {}
        for lib in LIBS:
            try:
                out[lib] = fn(xs[lib])
            except Exception as e:   # noqa: BLE001
                out[lib] = (type(e), str(e))
        if isinstance(out[torch], tuple):
            assert isinstance(out[dyngrad], tuple) and out[dyngrad] == out[torch], \
                (kind, out[dyngrad], out[torch])
            return
        a, b = out[dyngrad], out[torch]
        assert not isinstance(a, tuple), (kind, a)
        assert (tuple(a.shape), a.stride(), a.storage_offset(), a.is_contiguous()) == \
            (tuple(b.shape), b.stride(), b.storage_offset(), b.is_contiguous()), kind
        np.testing.assert_array_equal(_np(a), _np(b))
        xs = out


def test_keyword_arguments_like_torch():
    cases = [
        lambda lib, x: x.permute(dims=(2, 0, 1)),
        lambda lib, x: lib.permute(x, dims=(1, 0, 2)),
        lambda lib, x: x.transpose(dim0=0, dim1=2),
        lambda lib, x: lib.transpose(input=x, dim0=1, dim1=0),
        lambda lib, x: x.view(size=(6, 4)),
        lambda lib, x: x.reshape(shape=(4, 6)),
        lambda lib, x: lib.reshape(x, shape=(-1,)),
        lambda lib, x: x.expand(size=(2, 2, 3, 4)),
        lambda lib, x: x.flatten(start_dim=1),
        lambda lib, x: x.unflatten(dim=2, sizes=(2, 2)),
        lambda lib, x: x.squeeze(dim=0),
        lambda lib, x: x.unsqueeze(dim=-1),
        lambda lib, x: x.narrow(dim=1, start=1, length=2),
        lambda lib, x: x.select(dim=2, index=3),
        lambda lib, x: x.split(split_size=2, dim=2)[1],
        lambda lib, x: lib.split(x, split_size_or_sections=[1, 2], dim=1)[1],
        lambda lib, x: x.chunk(chunks=2, dim=-1)[0],
        lambda lib, x: x.diagonal(offset=1, dim1=1, dim2=2),
        lambda lib, x: x.movedim(source=0, destination=-1),
        lambda lib, x: x.unfold(dimension=2, size=2, step=1),
        lambda lib, x: x.as_strided(size=(2, 2), stride=(1, 2), storage_offset=3),
        lambda lib, x: x.contiguous(memory_format=lib.contiguous_format),
    ]
    for fn in cases:
        res = []
        for lib in LIBS:
            x = lib.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
            r = fn(lib, x)
            res.append((tuple(r.shape), r.stride(), r.storage_offset(), _np(r).tolist()))
        assert res[0] == res[1]


# Note [Views NumPy makes directly]: t / transpose / permute / view of a contiguous tensor ask
# NumPy for the array. The twin must give exactly what the geometry kernel gives, and the view
# must share the version counter of a fresh result whose Storage is only made on first use.
TWIN_CASES = [
    ("t", lambda lib, x: x[0, 0].t()),
    ("t_1d", lambda lib, x: x[0, 0, 0].t()),
    ("t_0d", lambda lib, x: x[0, 0, 0, 0].t()),
    ("transpose", lambda lib, x: x.transpose(0, -1)),
    ("transpose_same", lambda lib, x: x.transpose(2, 2)),
    ("permute", lambda lib, x: x.permute(3, -3, 0, 2)),
    ("view", lambda lib, x: x.contiguous().view(6, -1)),
    ("view_ones", lambda lib, x: x.contiguous().view(1, -1, 1)),
    ("reshape", lambda lib, x: x.reshape(2, -1)),
    ("unsqueeze", lambda lib, x: x.unsqueeze(2)),
    ("unsqueeze_end", lambda lib, x: x.contiguous().unsqueeze(-1)),
    ("squeeze_dim", lambda lib, x: x[:, :1].contiguous().squeeze(1)),
    ("squeeze_other", lambda lib, x: x[:1, :1].contiguous().squeeze(0)),
    ("expand", lambda lib, x: x[:, :1].contiguous().expand(-1, 3, -1, -1)),
    ("expand_keeps_size1", lambda lib, x: x[:, :1].contiguous().expand(2, -1, -1, -1)),
    ("expand_new_dims", lambda lib, x: x[0, :1, :1].contiguous().expand(4, 1, 2, 3, -1)),
    ("expand_same", lambda lib, x: x.expand(-1, -1, -1, -1)),
    ("select", lambda lib, x: x.select(2, 1)),
    ("select_negative", lambda lib, x: x.select(-1, -2)),
    ("select_twice", lambda lib, x: x[1][2]),
    ("select_to_0d", lambda lib, x: x[1, 2, 2, 1]),
    ("slice", lambda lib, x: x[:, 1:3]),
    ("slice_step", lambda lib, x: x[..., 1::2]),
    ("slice_negative_bounds", lambda lib, x: x[:, -2:-1]),
    ("slice_clamped", lambda lib, x: x[:, -10:10]),
    ("slice_empty", lambda lib, x: x[:, 2:1]),
    ("slice_one", lambda lib, x: x[:, :, 3::5]),
    ("basic_indexing", lambda lib, x: x[:, 0, ::2, 1:]),
    ("narrow", lambda lib, x: x.narrow(-1, 1, 2)),
    ("chunk_piece", lambda lib, x: x.chunk(2, 1)[1]),
    ("split_last_piece", lambda lib, x: x.split(2, -1)[-1]),
    ("split_one_piece", lambda lib, x: x.split(10, 0)[0]),
]


@pytest.mark.parametrize("base_name", list(BASES))
@pytest.mark.parametrize("name,fn", TWIN_CASES, ids=[c[0] for c in TWIN_CASES])
def test_numpy_view_twins_equal_the_geometry_kernel(base_name, name, fn):
    from dyngrad.ops import _registry

    def geometry(v):
        return (tuple(v.shape), v.stride(), v.storage_offset(), _np(v).tolist())

    want = geometry(fn(torch, BASES[base_name](torch)))
    assert geometry(fn(dyngrad, BASES[base_name](dyngrad))) == want
    twins = {s: s.array_view for s in _registry._SPECS.values() if s.array_view is not None}
    assert {s.name for s in twins} >= {"t", "transpose.int", "permute", "view", "unsqueeze",
                                       "squeeze.dim", "expand", "select.int", "slice.Tensor",
                                       "split.Tensor"}
    try:
        for s in twins:
            s.array_view = None    # the geometry kernel alone
        assert geometry(fn(dyngrad, BASES[base_name](dyngrad))) == want
    finally:
        for s, twin in twins.items():
            s.array_view = twin


@pytest.mark.parametrize("make_view", [lambda y: y.t(), lambda y: y.transpose(0, 1),
                                       lambda y: y.permute(1, 0), lambda y: y.view(-1)])
def test_view_of_a_fresh_result_shares_its_storage(make_view):
    got = []
    for lib in LIBS:
        x = lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = x * 2                   # a fresh result: dyngrad has made no Storage for it yet
        v = make_view(y)
        same_memory = _ptr(v) == _ptr(y)
        v.add_(1)
        got.append((same_memory, y._version, v._version, _np(y).tolist(), _base_of(v) is y))
    assert got[0] == got[1]
