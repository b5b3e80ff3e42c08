"""F.interpolate's modes against live torch: 'nearest' (3-d, 4-d, 5-d), 'nearest-exact',
'linear', 'bilinear', 'trilinear', 'bicubic', 'area', and antialiasing ('bilinear', 'bicubic',
'lanczos'), over sizes and scale factors (integer, fractional, per dim, recomputed), up- and
downsampling, align_corners, float32/float64/uint8 and channels_last inputs.

Each case compares with torch: the output (dtype, shape, strides, values, grad_fn name), the
input gradient for a contiguous and a channels_last incoming gradient (strides included), the
double-backward node and values, the saved attributes, errors (type and text); gradcheck and
gradgradcheck run in float64 with dyngrad's own checker.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch, node_chain, same

LIBS = (torch, dyngrad)
TOL = {"float64": (1e-12, 1e-12), "float32": (2e-6, 2e-6)}

# (mode, antialias, spatial dims); "area" is adaptive average pooling in torch
MODES = [("nearest", False, 1), ("nearest", False, 2), ("nearest", False, 3),
         ("nearest-exact", False, 1), ("nearest-exact", False, 2), ("nearest-exact", False, 3),
         ("linear", False, 1), ("bilinear", False, 2), ("trilinear", False, 3),
         ("bicubic", False, 2), ("area", False, 1), ("area", False, 2), ("area", False, 3),
         ("bilinear", True, 2), ("bicubic", True, 2), ("lanczos", True, 2)]
INTERPOLATING = {"linear", "bilinear", "trilinear", "bicubic"}
SHAPES = {1: (2, 3, 7), 2: (2, 3, 7, 5), 3: (2, 3, 5, 4, 3)}

# how the output size is asked for: a size or a scale factor, per dim when a tuple
RESIZES = {
    "scale 2": dict(scale_factor=2),
    "scale 1.7": dict(scale_factor=1.7),
    "scale 0.45": dict(scale_factor=0.45),
    "scale 1.7 recompute": dict(scale_factor=1.7, recompute_scale_factor=True),
    "scale per dim": dict(scale_factor=(1.3, 0.6, 2.5)),
    "size up/down": dict(size=(11, 3, 4)),
    "size down": dict(size=(3, 2, 2)),
    "size 1": dict(size=1),
    "same size": dict(size=(7, 5, 3)),
    "scale 1.1 (same size)": dict(scale_factor=1.1),
    "scale per dim, one size kept": dict(scale_factor=(1.7, 1.1, 1.7)),
}


def _ids(cases):
    return [f"{m}{'-aa' if aa else ''}-{d}d" for m, aa, d in cases]


def _resize(name, dims):
    kw = dict(RESIZES[name])
    for key in ("scale_factor", "size"):
        if isinstance(kw.get(key), tuple):
            kw[key] = kw[key][:dims] if name != "same size" else SHAPES[dims][2:]
    return kw


def _array(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "uint8":
        return rng.integers(0, 256, shape).astype(np.uint8)
    return rng.standard_normal(shape).astype(dtype)


def _fmt(lib, ndim):
    return {4: lib.channels_last, 5: lib.channels_last_3d}.get(ndim)


def _tensor(lib, a, channels_last=False, requires_grad=False):
    x = lib.from_numpy(a.copy())
    if channels_last:
        x = x.contiguous(memory_format=_fmt(lib, a.ndim))
    return x.requires_grad_() if requires_grad else x


def _interp(lib, x, mode, aa, **kw):
    if mode in INTERPOLATING and "align_corners" not in kw:
        kw["align_corners"] = False
    return lib.nn.functional.interpolate(x, mode=mode, antialias=aa, **kw)


def _case_kwargs(mode, aa, dims, resize, align_corners):
    kw = _resize(resize, dims)
    if mode in INTERPOLATING or mode == "lanczos":
        kw["align_corners"] = align_corners
    return kw


def _cases():
    out = []
    for mode, aa, dims in MODES:
        for resize in RESIZES:
            if mode == "area" and "recompute" in resize:
                continue   # area always recomputes
            aligns = (False, True) if mode in INTERPOLATING else (None,)
            if mode == "lanczos":
                aligns = (False,)
            layouts = ("contiguous",) if dims == 1 else ("contiguous", "channels_last")
            for ac in aligns:
                for layout in layouts:
                    out.append(pytest.param(
                        mode, aa, dims, resize, ac, layout,
                        id=f"{_ids([(mode, aa, dims)])[0]}-{resize}-ac{ac}-{layout}"))
    return out


def _run_both(fn):
    return [fn(lib) for lib in LIBS]


# -- values, gradients, strides, graphs -----------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode,aa,dims,resize,align_corners,layout", _cases())
def test_forward_backward_like_torch(mode, aa, dims, resize, align_corners, layout, dtype):
    kw = _case_kwargs(mode, aa, dims, resize, align_corners)
    a = _array(SHAPES[dims], dtype)
    rtol, atol = TOL[dtype]
    outs = {}
    for lib in LIBS:
        x = _tensor(lib, a, layout == "channels_last", requires_grad=True)
        y = _interp(lib, x, mode, aa, **kw)
        g = _array(tuple(y.shape), dtype, seed=1)
        grads = []
        for g_layout in ("contiguous", "channels_last"):   # the gradient may keep its layout
            gt = _tensor(lib, g, g_layout == "channels_last" and y.ndim > 3)
            grads.append(lib.autograd.grad(y, x, gt, retain_graph=True)[0])
        outs[lib] = (y, grads)
    (ty, tgrads), (dy, dgrads) = outs[torch], outs[dyngrad]
    same(dy, ty, "output", rtol=rtol, atol=atol)
    for which, (dg, tg) in zip(("contiguous", "channels_last"), zip(dgrads, tgrads)):
        same(dg, tg, f"gradient ({which} grad_output)", rtol=rtol, atol=atol)


@pytest.mark.parametrize("mode,aa,dims", [pytest.param(*m, id=i)
                                          for m, i in zip(MODES, _ids(MODES))])
@pytest.mark.parametrize("resize", ["scale 1.7", "scale per dim", "size down"])
def test_double_backward_like_torch(mode, aa, dims, resize):
    kw = _case_kwargs(mode, aa, dims, resize, False)
    a = _array(SHAPES[dims], "float64")
    res = []
    for lib in LIBS:
        x = _tensor(lib, a, requires_grad=True)
        y = _interp(lib, x, mode, aa, **kw)
        g = _tensor(lib, _array(tuple(y.shape), "float64", 1), requires_grad=True)
        gx, = lib.autograd.grad(y, x, g, create_graph=True)
        v = _tensor(lib, _array(tuple(gx.shape), "float64", 2))
        gg = lib.autograd.grad(gx, g if gx.grad_fn is not None and mode != "area" else x, v,
                               allow_unused=True)[0]
        res.append((gx, gg, type(gx.grad_fn).__name__,
                    [type(f).__name__ for f, _ in gx.grad_fn.next_functions if f is not None]))
    (tgx, tgg, tname, tnext), (dgx, dgg, dname, dnext) = res
    assert (dname, dnext) == (tname, tnext)
    same(dgx, tgx, "gradient", rtol=1e-12, atol=1e-12)
    if tgg is None:
        assert dgg is None
    else:
        same(dgg, tgg, "second derivative", rtol=1e-12, atol=1e-12)


SAVED = {"output_size", "scales", "scales_d", "scales_h", "scales_w", "align_corners",
         "self_sym_sizes"}


@pytest.mark.parametrize("mode,aa,dims", [pytest.param(*m, id=i)
                                          for m, i in zip(MODES, _ids(MODES))])
def test_graph_and_saved_attributes(mode, aa, dims):
    kw = _case_kwargs(mode, aa, dims, "scale per dim", mode != "lanczos")
    a = _array(SHAPES[dims], "float32")
    ys = [_interp(lib, _tensor(lib, a, requires_grad=True), mode, aa, **kw) for lib in LIBS]
    assert node_chain(ys[1]) == node_chain(ys[0])
    tnode, dnode = ys[0].grad_fn, ys[1].grad_fn
    names = [n for n in dir(tnode) if n.startswith("_saved_") and n[7:] in SAVED]
    assert names or mode == "area"
    for name in names:
        expected = getattr(tnode, name)
        expected = tuple(expected) if isinstance(expected, (list, tuple)) else expected
        got = getattr(dnode, name)
        got = tuple(got) if isinstance(got, (list, tuple)) else got
        assert got == expected, name


# -- gradcheck / gradgradcheck (float64, dyngrad's checker) -------------------------------------
GRADCHECK_SHAPES = {1: (1, 2, 5), 2: (1, 2, 4, 5), 3: (1, 1, 3, 4, 3)}


@pytest.mark.parametrize("mode,aa,dims", [pytest.param(*m, id=i)
                                          for m, i in zip(MODES, _ids(MODES))])
@pytest.mark.parametrize("kw", [dict(scale_factor=1.7), dict(scale_factor=0.6),
                                dict(size=(3, 7, 2)), dict(size=(6, 2, 5), align_corners=True)],
                         ids=["up", "down", "size", "size-aligned"])
def test_gradcheck_and_gradgradcheck(mode, aa, dims, kw):
    kw = dict(kw)
    if "size" in kw:
        kw["size"] = kw["size"][:dims]
    if kw.get("align_corners") and mode not in INTERPOLATING:
        kw.pop("align_corners")
    shape = GRADCHECK_SHAPES[dims]
    x = dyngrad.from_numpy(_array(shape, "float64")).requires_grad_()

    def fn(t):
        return _interp(dyngrad, t, mode, aa, **kw)

    assert dyngrad.autograd.gradcheck(fn, (x,), eps=1e-6, atol=1e-7)
    assert dyngrad.autograd.gradgradcheck(fn, (x,), eps=1e-6, atol=1e-7)


def test_gradcheck_detects_a_wrong_gradient():
    """The checker above can fail: a gradient scaled by 2 is caught."""
    class Twice(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    x = dyngrad.from_numpy(_array((1, 2, 4, 5), "float64")).requires_grad_()
    assert not dyngrad.autograd.gradcheck(
        lambda t: _interp(dyngrad, Twice.apply(t), "bicubic", False, scale_factor=1.7), (x,),
        raise_exception=False)


# -- uint8 ----------------------------------------------------------------------------------------
UINT8_MODES = [(m, aa, ac) for m, aa in (("nearest", False), ("nearest-exact", False),
                                         ("bilinear", False), ("bicubic", False),
                                         ("bilinear", True), ("bicubic", True),
                                         ("lanczos", True))
               for ac in ((False, True) if m in INTERPOLATING else (False,))]


@pytest.mark.parametrize("mode,aa,align_corners", UINT8_MODES)
@pytest.mark.parametrize("channels", [3, 5])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("resize", ["scale 1.7", "scale 0.45", "size up/down", "scale per dim",
                                    "scale 2", "scale 1.1 (same size)"])
def test_uint8_exact(mode, aa, align_corners, channels, layout, resize):
    """ATen's uint8 kernels (fixed point for the separable ones) reproduced bit for bit."""
    kw = _resize(resize, 2)
    if mode in INTERPOLATING:
        kw["align_corners"] = align_corners
    a = _array((2, channels, 9, 8), "uint8")
    like_torch(lambda lib: _interp(lib, _tensor(lib, a, layout == "channels_last"), mode, aa,
                                   **kw))


# -- torch's width-1 quirk of the separable kernels ----------------------------------------------
@pytest.mark.parametrize("mode,aa", [("bilinear", True), ("bicubic", True), ("lanczos", True),
                                     ("bilinear", False), ("bicubic", False)])
@pytest.mark.parametrize("dtype,channels", [("float64", 3), ("float32", 1), ("uint8", 3),
                                            ("uint8", 5)])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("in_width", [1, 6])
def test_one_pixel_wide_output(mode, aa, dtype, channels, layout, in_width):
    """torch's separable kernels (antialiasing, uint8) give every row of a 1-pixel-wide
    contiguous output the taps of row 0: dyngrad reproduces the values."""
    a = _array((2, channels, 5, in_width), dtype)
    like_torch(lambda lib: _interp(lib, _tensor(lib, a, layout == "channels_last"), mode, aa,
                                   size=(8, 1)), rtol=1e-6, atol=1e-6)


# -- special values, scales, layouts --------------------------------------------------------------
@pytest.mark.parametrize("mode,aa,dims", [pytest.param(*m, id=i)
                                          for m, i in zip(MODES, _ids(MODES))])
def test_nan_and_inf_propagate_like_torch(mode, aa, dims):
    a = _array(SHAPES[dims], "float64")
    a.reshape(-1)[[3, 17]] = [np.nan, np.inf]
    like_torch(lambda lib: _interp(lib, _tensor(lib, a), mode, aa, scale_factor=1.5),
               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("scale", [0.3, 0.5, 1.1, 1.5, 2.0, 2.05, 2.5, 3.1, 4.0])
@pytest.mark.parametrize("mode,dims", [("nearest", 1), ("nearest", 2), ("nearest", 3),
                                       ("nearest-exact", 1), ("nearest-exact", 2),
                                       ("nearest-exact", 3)])
def test_nearest_indices_for_many_scales(scale, mode, dims):
    """Which input each output reads, and where the gradient goes: torch's 1-d and 3-d
    'nearest' forward ignores nearest_idx's same-size/double-size shortcuts, its gradient
    does not (scale 1.1 and 2.05 tell them apart)."""
    shape = {1: (1, 1, 23), 2: (1, 1, 13, 17), 3: (1, 1, 7, 9, 11)}[dims]
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    for kw in (dict(scale_factor=scale), dict(scale_factor=scale, recompute_scale_factor=True)):
        like_torch(lambda lib: _interp(lib, _tensor(lib, a), mode, False, **kw))

        def grad(lib):
            x = _tensor(lib, a, requires_grad=True)
            y = _interp(lib, x, mode, False, **kw)
            g = lib.from_numpy(np.arange(y.numel(), dtype=np.float32).reshape(tuple(y.shape)))
            return lib.autograd.grad(y, x, g)[0]
        like_torch(grad)


@pytest.mark.parametrize("mode,aa,dims", [pytest.param(*m, id=i)
                                          for m, i in zip(MODES, _ids(MODES)) if m[2] > 1])
def test_noncontiguous_input(mode, aa, dims):
    a = _array(SHAPES[dims][:1] + (4,) + SHAPES[dims][2:], "float64")
    like_torch(lambda lib: _interp(lib, _tensor(lib, a)[:, ::2].transpose(-1, -2), mode, aa,
                                   scale_factor=1.5), rtol=1e-12, atol=1e-12)


def test_forward_mode_ad_like_torch():
    a, t = _array((1, 2, 4, 5), "float64"), _array((1, 2, 4, 5), "float64", 1)
    outs = []
    for lib in LIBS:
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(lib.from_numpy(a.copy()), lib.from_numpy(t.copy()))
            res = []
            for mode, aa in (("bicubic", False), ("bilinear", True), ("nearest-exact", False),
                             ("lanczos", True)):
                y = _interp(lib, x, mode, aa, scale_factor=1.6)
                res.append(fwAD.unpack_dual(y).tangent)
            x5 = fwAD.make_dual(lib.from_numpy(_array((1, 1, 3, 4, 2), "float64")),
                                lib.from_numpy(_array((1, 1, 3, 4, 2), "float64", 1)))
            for mode in ("trilinear", "nearest", "nearest-exact"):
                res.append(fwAD.unpack_dual(_interp(lib, x5, mode, False, size=5)).tangent)
        outs.append(res)
    for d, t_ in zip(outs[1], outs[0]):
        same(d, t_, "tangent", rtol=1e-12, atol=1e-12)


# -- errors ---------------------------------------------------------------------------------------
def _x(lib, shape=(1, 2, 4, 4), dtype=None):
    x = lib.from_numpy(_array(shape, "float32"))
    return x if dtype is None else x.to(getattr(lib, dtype))


ERRORS = [
    # align_corners only for the interpolating modes
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=3, align_corners=True),
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="nearest-exact", align_corners=False),
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="area", align_corners=True),
    # modes and ranks
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="trilinear"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=3, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4)), size=3, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4)), size=3, mode="trilinear"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=3, mode="linear"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=3, mode="bilinear"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4, 4)), size=3, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="cubic"),
    # sizes and scale factors
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=0),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=(3, 0, 3), mode="trilinear"),
    lambda lib, F: F.interpolate(_x(lib), scale_factor=0.1, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib), scale_factor=-2.0, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4)), scale_factor=0.2, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), scale_factor=(1, 2), mode="trilinear"),
    lambda lib, F: F.interpolate(_x(lib), size=(2, 3, 4), mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib), size=(2.5, 3), mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib), size=2.5, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4)), size=2.5, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=2.5, mode="trilinear"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=2.5),
    lambda lib, F: F.interpolate(_x(lib), size=2.5, mode="bilinear", antialias=True),
    lambda lib, F: F.interpolate(_x(lib), size=2.5, mode="area"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=2.5, mode="area"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4)), size=2.5, mode="area"),
    lambda lib, F: F.interpolate(_x(lib), scale_factor=-1.0, mode="area"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), scale_factor=-1.0, mode="area"),
    lambda lib, F: F.interpolate(_x(lib), size=3, scale_factor=2.0, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib), mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="bicubic", recompute_scale_factor=True),
    # empty inputs
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4, 4)), size=3, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4, 4, 4)), size=3),
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4)), size=3, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4, 4)), size=3),
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4, 4)), size=3, mode="bilinear", antialias=True),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 0, 4)), size=3, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4, 4, 4)), size=3, mode="area"),
    # antialias and lanczos
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="nearest", antialias=True),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4)), size=3, mode="trilinear",
                                 antialias=True),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4)), size=3, mode="linear", antialias=True),
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="lanczos"),
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="lanczos", align_corners=True),
    lambda lib, F: F.interpolate(_x(lib), size=3, mode="lanczos", align_corners=True,
                                 antialias=True),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4)), size=3, mode="lanczos", antialias=True),
    # dtypes
    lambda lib, F: F.interpolate(_x(lib, dtype="int64"), size=3, mode="bicubic"),
    lambda lib, F: F.interpolate(_x(lib, dtype="int64"), size=3, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4), "int32"), size=3, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4), "int64"), size=3),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4), "uint8"), size=3, mode="trilinear"),
    lambda lib, F: F.interpolate(_x(lib, (1, 2, 4, 4, 4), "int64"), size=3,
                                 mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, dtype="float16"), size=3, mode="bilinear",
                                 antialias=True),
    lambda lib, F: F.interpolate(_x(lib, dtype="int64"), size=3, mode="lanczos", antialias=True),
    lambda lib, F: F.interpolate(_x(lib, dtype="bool"), size=3, mode="bicubic", antialias=True),
    lambda lib, F: F.interpolate(_x(lib, dtype="uint8"), size=3, mode="area"),
    lambda lib, F: F.interpolate(_x(lib, dtype="complex64"), size=3, mode="bicubic"),
]


EMPTY_OK = [
    lambda lib, F: F.interpolate(_x(lib, (0, 2, 4, 4, 4)), size=3, mode="trilinear"),
    lambda lib, F: F.interpolate(_x(lib, (0, 2, 4, 4)), size=3, mode="lanczos", antialias=True),
    lambda lib, F: F.interpolate(_x(lib, (0, 2, 4)), size=3, mode="nearest-exact"),
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4, 4)), size=3, mode="area"),
    lambda lib, F: F.interpolate(_x(lib, (1, 0, 4)), size=3, mode="area"),
]


@pytest.mark.parametrize("call", EMPTY_OK)
def test_empty_batch_like_torch(call):
    like_torch(lambda lib: call(lib, lib.nn.functional))


@pytest.mark.parametrize("call", ERRORS)
def test_errors_like_torch(call):
    like_torch(lambda lib: call(lib, lib.nn.functional))


def test_error_cases_raise_in_torch():
    """Every entry of ERRORS is an error case in torch (the list cannot silently rot)."""
    for call in ERRORS:
        with pytest.raises((RuntimeError, ValueError, TypeError, NotImplementedError)):
            call(torch, torch.nn.functional)


@pytest.mark.parametrize("dtype", ["float16"])
@pytest.mark.parametrize("mode,dims", [("nearest", 3), ("nearest-exact", 2), ("trilinear", 3),
                                       ("bicubic", 2)])
def test_reduced_precision_like_torch(dtype, mode, dims):
    a = _array(SHAPES[dims], "float32")
    like_torch(lambda lib: _interp(lib, _tensor(lib, a).to(getattr(lib, dtype)), mode, False,
                                   scale_factor=1.7), rtol=1e-2, atol=1e-2)


def test_deprecated_upsample_takes_the_new_modes():
    a = _array((1, 2, 3, 4), "float64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        like_torch(lambda lib: lib.nn.functional.upsample(_tensor(lib, a), scale_factor=2,
                                                          mode="bicubic"), rtol=1e-12, atol=1e-12)
        like_torch(lambda lib: lib.nn.functional.upsample(
            _tensor(lib, _array((1, 2, 3, 4, 2), "float64")), size=4, mode="trilinear",
            align_corners=True), rtol=1e-12, atol=1e-12)


def test_nn_upsample_module_modes():
    a = _array((1, 2, 3, 4, 2), "float32")
    for kw in (dict(scale_factor=2, mode="nearest"), dict(size=5, mode="trilinear")):
        like_torch(lambda lib: lib.nn.Upsample(**kw)(_tensor(lib, a)), rtol=2e-6, atol=2e-6)
