"""scaled_dot_product_attention's graph against live torch: which path torch's CPU dispatcher
takes (its one flash node, or the math composite, or the empty-input graph), and with it the
values, strides, gradients, saved attributes, double backward and warnings (Note [SDPA on CPU:
flash or math] in dyngrad/ops/attention.py)."""
import contextlib
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch, node_chain, same

FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-13),
       "float16": dict(rtol=2e-3, atol=2e-3)}


def _array(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _make(lib, shape, dtype="float32", seed=0, requires_grad=True, layout=None):
    """A tensor of `shape`; ``layout="transposed"`` stores (B, L, H, E) and transposes dims 1
    and 2 (the MultiheadAttention layout), ``"sliced"`` takes every other element of a twice
    longer last dim (last stride 2), ``"padded"`` the first half of it (last stride 1)."""
    if layout == "transposed":
        s = (shape[0], shape[2], shape[1]) + tuple(shape[3:])
        t = lib.tensor(_array(s, dtype, seed)).transpose(1, 2)
    elif layout in ("sliced", "padded"):
        s = tuple(shape[:-1]) + (2 * shape[-1],)
        t = lib.tensor(_array(s, dtype, seed))
        t = t[..., ::2] if layout == "sliced" else t[..., :shape[-1]]
    else:
        t = lib.tensor(_array(shape, dtype, seed))
    return t.detach().requires_grad_(requires_grad)


def _mask(lib, kind, L, S, dtype="float32", seed=5):
    rng = np.random.default_rng(seed)
    if kind == "bool":
        m = rng.random((L, S)) < 0.7
        m[:, 0] = True
        return lib.tensor(m)
    if kind == "float":
        return lib.tensor(rng.standard_normal((L, S)).astype(dtype))
    return None


@contextlib.contextmanager
def _kernel(lib, backend):
    if backend is None:
        yield
        return
    with lib.nn.attention.sdpa_kernel(getattr(lib.nn.attention.SDPBackend, backend)):
        yield


def graph(t):
    """The whole graph below t: (node name, (its next functions' graphs...)); None for an
    edge to nowhere."""
    def walk(fn):
        if fn is None:
            return None
        return (type(fn).__name__, tuple(walk(f) for f, _ in fn.next_functions))
    return walk(t.grad_fn)


def _names(g, out=None):
    out = set() if out is None else out
    if g is not None:
        out.add(g[0])
        for c in g[1]:
            _names(c, out)
    return out


def _attention(lib, q, k, v, backend=None, **kw):
    with _kernel(lib, backend):
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)


def check(run, dtype="float32", expect=None):
    """run(lib) -> (output, inputs): output and the inputs' gradients like torch's (values,
    dtypes, strides, grad_fn names), the same whole graph, and, given, the node `expect` at
    the top of torch's graph."""
    def outputs(lib):
        y, inputs = run(lib)
        wrt = [t for t in inputs if t.requires_grad]
        if not wrt or y.grad_fn is None:
            return (y,)
        go = lib.tensor(_array(tuple(y.shape), str(y.dtype).split(".")[-1], 99))
        return (y,) + tuple(lib.autograd.grad(y, wrt, go))
    like_torch(outputs, **TOL[dtype])
    try:
        ty, _ = run(torch)
    except RuntimeError:   # (like_torch compared the errors)
        assert expect is None
        return
    dy, _ = run(dyngrad)
    assert graph(dy) == graph(ty)
    assert node_chain(dy) == node_chain(ty)
    if expect is not None:
        assert (node_chain(ty) or [None])[0] == expect


# -- the survey: shapes x dtypes x masks x backends x which inputs require grad ----------------
SHAPES = {"4d": ((2, 3, 4, 8), (2, 3, 5, 8)), "3d": ((3, 4, 8), (3, 5, 8)),
          "4d_square": ((1, 2, 5, 4), (1, 2, 5, 4))}
GRADS = {"qkv": (True, True, True), "q": (True, False, False), "kv": (False, True, True),
         "none": (False, False, False)}


@pytest.mark.parametrize("grads", list(GRADS))
@pytest.mark.parametrize("backend", [None, "MATH"])
@pytest.mark.parametrize("mask", [None, "bool", "float", "causal"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_survey(shape, dtype, mask, backend, grads):
    qs, ks = SHAPES[shape]
    rq, rk, rv = GRADS[grads]

    def run(lib):
        q = _make(lib, qs, dtype, 1, rq)
        k = _make(lib, ks, dtype, 2, rk)
        v = _make(lib, ks, dtype, 3, rv)
        kw = {"is_causal": True} if mask == "causal" else \
            {"attn_mask": _mask(lib, mask, qs[-2], ks[-2])}
        return _attention(lib, q, k, v, backend, **kw), (q, k, v)

    flash = len(qs) == 4 and backend is None and grads != "none"
    check(run, dtype, FLASH if flash else None)
    if len(qs) == 3 or backend == "MATH":
        assert FLASH not in _names(graph(run(torch)[0]))
        if grads != "none":
            assert "SafeSoftmaxBackward0" in _names(graph(run(torch)[0]))


@pytest.mark.parametrize("scale", [0.3, -0.4, 2.0])
@pytest.mark.parametrize("backend", [None, "MATH"])
def test_scale(scale, backend):
    def run(lib):
        q, k, v = (_make(lib, s, "float64", i) for i, s in
                   enumerate([(2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8)]))
        return _attention(lib, q, k, v, backend, scale=scale), (q, k, v)
    check(run, "float64", FLASH if backend is None else "UnsafeViewBackward0")


@pytest.mark.parametrize("heads", [(6, 3, 3), (6, 2, 2), (4, 4, 4), (6, 3, 2), (4, 3, 3)])
@pytest.mark.parametrize("backend", [None, "MATH"])
@pytest.mark.parametrize("dims", [4, 3])
def test_enable_gqa(heads, backend, dims):
    hq, hk, hv = heads

    def run(lib):
        lead = (2,) if dims == 4 else ()
        q = _make(lib, lead + (hq, 4, 8), "float64", 1)
        k = _make(lib, lead + (hk, 5, 8), "float64", 2)
        v = _make(lib, lead + (hv, 5, 8), "float64", 3)
        return _attention(lib, q, k, v, backend, enable_gqa=True), (q, k, v)
    check(run, "float64")
    # torch takes flash for 4-d GQA whose k/v heads agree and divide q's
    if dims == 4 and backend is None and hk == hv and hq % hk == 0:
        assert node_chain(run(torch)[0])[0] == FLASH


def test_heads_differ_without_gqa():
    def run(lib):
        q = _make(lib, (2, 6, 4, 8), "float64", 1)
        k, v = (_make(lib, (2, 3, 5, 8), "float64", s) for s in (2, 3))
        return _attention(lib, q, k, v), (q, k, v)
    check(run, "float64")


# which inputs make torch's dispatcher leave flash for math (4-d inputs, grad on)
MATH_CASES = {
    "dropout": {},   # (dropout: see test_dropout)
    "5d": dict(q=(2, 2, 3, 4, 8), k=(2, 2, 3, 5, 8)),
    "batch_broadcast": dict(k=(1, 3, 5, 8)),
    "heads_broadcast": dict(k=(2, 1, 5, 8)),
    "value_dim": dict(v=(2, 3, 5, 6)),
    "last_stride": dict(layout="sliced"),
    "mask_3d": dict(mask=(3, 4, 5)),
    "mask_requires_grad": dict(mask=(4, 5), mask_grad=True),
}
FLASH_CASES = {
    "transposed": dict(layout="transposed"),
    "padded": dict(layout="padded"),
    "mask_row": dict(mask=(1, 5)),
    "mask_col": dict(mask=(4, 1)),
    "mask_4d": dict(mask=(2, 1, 4, 5)),
    "mask_4d_heads": dict(mask=(1, 3, 4, 5)),
    "causal_with_mask": dict(mask=(4, 5), is_causal=True),
    "causal_long_q": dict(q=(2, 3, 7, 8), is_causal=True),
}


def _case_run(case, dtype="float32", backend=None):
    def run(lib):
        q = _make(lib, case.get("q", (2, 3, 4, 8)), dtype, 1, layout=case.get("layout"))
        kshape = case.get("k", (2, 3, 5, 8) if "q" not in case or len(case["q"]) == 4
                          else tuple(case["q"][:-2]) + (5, 8))
        k = _make(lib, kshape, dtype, 2, layout=case.get("layout"))
        v = _make(lib, case.get("v", kshape), dtype, 3, layout=case.get("layout"))
        kw = {"is_causal": case.get("is_causal", False)}
        if "mask" in case:
            kw["attn_mask"] = lib.tensor(_array(case["mask"], dtype, 4)).requires_grad_(
                case.get("mask_grad", False))
        inputs = (q, k, v) + ((kw["attn_mask"],) if case.get("mask_grad") else ())
        return _attention(lib, q, k, v, backend, **kw), inputs
    return run


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", [n for n in MATH_CASES if n != "dropout"])
def test_math_fallback(name, dtype):
    run = _case_run(MATH_CASES[name], dtype)
    check(run, dtype, "UnsafeViewBackward0")
    assert "SafeSoftmaxBackward0" in _names(graph(run(torch)[0]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(FLASH_CASES))
def test_flash_inputs(name, dtype):
    check(_case_run(FLASH_CASES[name], dtype), dtype, FLASH)


def test_causal_with_mask_under_math_raises():
    like_torch(lambda lib: _case_run(FLASH_CASES["causal_with_mask"], "float64", "MATH")(lib)[0])
    like_torch(lambda lib: _case_run(dict(q=(3, 4, 8), k=(3, 5, 8), mask=(4, 5),
                                          is_causal=True), "float64")(lib)[0])


@pytest.mark.parametrize("layout", ["transposed", "padded", "sliced", None])
def test_output_and_gradient_layouts(layout):
    """flash: the output takes the query's strides when the query is dense (else contiguous);
    logsumexp and the gradients are laid out (B, L, H, ...) transposed. (A last dim of stride
    2 takes the math path.)"""
    def run(lib):
        q, k, v = (_make(lib, s, "float64", i, layout=layout)
                   for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
        return _attention(lib, q, k, v), (q, k, v)
    check(run, "float64", "UnsafeViewBackward0" if layout == "sliced" else FLASH)
    if layout == "sliced":
        return

    def lse(lib):
        return run(lib)[0].grad_fn._saved_logsumexp
    like_torch(lse, **TOL["float64"])


def test_no_grad_and_no_inputs_requiring_grad():
    for grad_mode in (True, False):
        def run(lib):
            q, k, v = (_make(lib, s, "float32", i, requires_grad=not grad_mode)
                       for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
            ctx = contextlib.nullcontext() if grad_mode else lib.no_grad()
            with ctx:
                return _attention(lib, q.transpose(1, 2).contiguous().transpose(1, 2), k, v)
        like_torch(run, **TOL["float32"])


# -- the flash node: saved attributes, double backward, forward AD ---------------------------
@pytest.mark.parametrize("kw", [{}, {"scale": 0.25}, {"is_causal": True}, {"mask": "bool"},
                                {"mask": "float"}, {"gqa": True}])
def test_flash_saved_attributes(kw):
    kw = dict(kw)

    def node(lib):
        q = _make(lib, (2, 6 if kw.get("gqa") else 3, 4, 8), "float64", 1)
        k, v = (_make(lib, (2, 3, 5, 8), "float64", s) for s in (2, 3))
        args = {"attn_mask": _mask(lib, kw["mask"], 4, 5, "float64")} if "mask" in kw else {}
        args.update({n: kw[n] for n in ("scale", "is_causal") if n in kw})
        y = _attention(lib, q, k, v, enable_gqa=kw.get("gqa", False), **args)
        return y, y.grad_fn, (q, k, v)
    ty, tnode, tin = node(torch)
    dy, dnode, din = node(dyngrad)
    assert type(dnode).__name__ == type(tnode).__name__ == FLASH
    tnames = sorted(n for n in dir(tnode) if n.startswith("_saved_"))
    for name in tnames:
        tv, dv = getattr(tnode, name), getattr(dnode, name)
        if isinstance(tv, torch.Tensor):
            same(dv, tv, name, **TOL["float64"])
        else:
            assert dv == tv, name
    assert dnode._saved_query is din[0] and tnode._saved_query is tin[0]
    assert len(dnode.next_functions) == len(tnode.next_functions) == 3


@pytest.mark.parametrize("grad_out_requires_grad", [False, True])
def test_flash_double_backward_raises(grad_out_requires_grad):
    def run(lib):
        q, k, v = (_make(lib, s, "float64", i)
                   for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
        y = _attention(lib, q, k, v)
        go = lib.ones(y.shape, dtype=y.dtype, requires_grad=grad_out_requires_grad)
        grads = lib.autograd.grad(y, (q, k, v), go, create_graph=True)
        assert [type(g.grad_fn).__name__ for g in grads] == ["NotImplemented"] * 3
        names = [type(f).__name__ for f, _ in grads[0].grad_fn.next_functions]
        assert names == ["AccumulateGrad"] * (3 + grad_out_requires_grad) + [FLASH]
        return lib.autograd.grad(grads[1].sum(), q)
    like_torch(run)


def test_math_double_backward():
    def run(lib):
        q, k, v = (_make(lib, s, "float64", i)
                   for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
        y = _attention(lib, q, k, v, "MATH", attn_mask=_mask(lib, "bool", 4, 5))
        gq, gk = lib.autograd.grad(y.sum(), (q, k), create_graph=True)
        return lib.autograd.grad((gq * gq).sum() + gk.sum(), (q, k, v))
    like_torch(run, **TOL["float64"])


def test_flash_forward_ad_refused():
    def run(lib):
        q, k, v = (_make(lib, s, "float64", i, requires_grad=False)
                   for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
        with lib.autograd.forward_ad.dual_level():
            d = lib.autograd.forward_ad.make_dual(q, lib.ones_like(q))
            return lib.autograd.forward_ad.unpack_dual(_attention(lib, d, k, v)).tangent
    like_torch(run)


def test_math_forward_ad():
    def run(lib):
        q, k, v = (_make(lib, s, "float64", i, requires_grad=False)
                   for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
        with lib.autograd.forward_ad.dual_level():
            d = lib.autograd.forward_ad.make_dual(q, lib.ones_like(q))
            y = _attention(lib, d, k, v, "MATH", attn_mask=_mask(lib, "bool", 4, 5))
            return lib.autograd.forward_ad.unpack_dual(y).tangent
    like_torch(run, **TOL["float64"])


# -- masked rows, empty inputs, dropout, half ------------------------------------------------
@pytest.mark.parametrize("backend", [None, "MATH"])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_fully_masked_rows(kind, backend):
    def run(lib):
        q, k, v = (_make(lib, s, "float64", i)
                   for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
        m = np.ones((4, 5), bool)
        m[1] = False
        mask = lib.tensor(m) if kind == "bool" else \
            lib.zeros(4, 5, dtype=lib.float64).masked_fill(lib.tensor(~m), float("-inf"))
        return _attention(lib, q, k, v, backend, attn_mask=mask), (q, k, v)
    check(run, "float64")
    if backend is None:
        like_torch(lambda lib: run(lib)[0].grad_fn._saved_logsumexp, **TOL["float64"])


@pytest.mark.parametrize("backend", [None, "MATH", "FLASH_ATTENTION"])
@pytest.mark.parametrize("shapes", [((2, 3, 0, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
                                    ((2, 3, 4, 8), (2, 3, 0, 8), (2, 3, 0, 6)),
                                    ((2, 3, 4, 0), (2, 3, 5, 0), (2, 3, 5, 0)),
                                    ((3, 0, 8), (3, 5, 8), (3, 5, 8))])
def test_empty_inputs(shapes, backend):
    def run(lib):
        q, k, v = (_make(lib, s, "float32", i) for i, s in enumerate(shapes))
        return _attention(lib, q, k, v, backend, dropout_p=0.5), (q, k, v)
    check(run, "float32", "AddBackward0")


@pytest.mark.parametrize("dims", [4, 3])
@pytest.mark.parametrize("backend", [None, "MATH"])
def test_dropout(dims, backend):
    """CPU flash refuses dropout, so dropout always takes the math path; its mask is drawn as
    torch's dropout draws it (bernoulli_ on the generator), so seeded outputs and gradients
    agree, not only the graph."""
    def run(lib):
        lead = (2,) if dims == 4 else ()
        q = _make(lib, lead + (3, 4, 8), "float32", 1)
        k, v = (_make(lib, lead + (3, 5, 8), "float32", s) for s in (2, 3))
        lib.manual_seed(7)
        return _attention(lib, q, k, v, backend, dropout_p=0.4), (q, k, v)
    check(run, "float32", "UnsafeViewBackward0")
    assert "MulBackward0" in node_chain(run(torch)[0])


def test_half_inputs():
    for backend in (None, "MATH"):
        def run(lib):
            q, k, v = (_make(lib, s, "float16", i) for i, s in
                       enumerate([(1, 2, 4, 8), (1, 2, 5, 8), (1, 2, 5, 8)]))
            return _attention(lib, q, k, v, backend), (q, k, v)
        check(run, "float16")


# -- errors and warnings ----------------------------------------------------------------------
@pytest.mark.parametrize("case", ["qk_dtype", "mask_dtype", "mask_long", "dims", "gqa_divide",
                                  "dropout_range", "mask_1d"])
def test_validation_errors(case):
    def run(lib):
        q, k, v = (_make(lib, s, "float32", i)
                   for i, s in enumerate([(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)]))
        kw = {}
        if case == "qk_dtype":
            q = q.double()
        elif case == "mask_dtype":
            kw["attn_mask"] = lib.zeros(4, 5, dtype=lib.float64)
        elif case == "mask_long":
            kw["attn_mask"] = lib.zeros(4, 5, dtype=lib.int64)
        elif case == "dims":
            q, k, v = q[0, 0, 0], k[0, 0, 0], v[0, 0, 0]
        elif case == "mask_1d":
            kw["attn_mask"] = lib.zeros(5)
        elif case == "gqa_divide":
            q, kw["enable_gqa"] = _make(lib, (2, 4, 4, 8)), True
        else:
            kw["dropout_p"] = 1.5
        return _attention(lib, q, k, v, **kw)
    like_torch(run)


def _warned(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(lib)
            exc = None
        except RuntimeError as e:
            exc = str(e)
    return exc, [(w.category.__name__, str(w.message)) for w in caught]


FLASH_ONLY = {
    "dropout": dict(dropout_p=0.3),
    "3d": dict(q=(3, 4, 8), k=(3, 5, 8)),
    "batch": dict(k=(1, 3, 5, 8)),
    "heads": dict(q=(2, 6, 4, 8)),
    "gqa_kv_heads": dict(q=(2, 6, 4, 8), v=(2, 2, 5, 8), gqa=True),
    "gqa_divide": dict(q=(2, 4, 4, 8), gqa=True),
    "mask_shape": dict(mask=(3, 4, 5)),
    "mask_requires_grad": dict(mask=(4, 5), mask_grad=True),
    "head_dim": dict(v=(2, 3, 5, 6)),
    "last_stride": dict(layout="sliced"),
    "int": dict(dtype="int64"),
    "usable": dict(mask=(4, 5), is_causal=True),
}


@pytest.mark.parametrize("name", list(FLASH_ONLY))
def test_flash_only_warnings(name):
    """With only FLASH_ATTENTION allowed, torch warns why flash refuses the inputs (its first
    failing check) and raises "No available kernel"; usable inputs run."""
    case = FLASH_ONLY[name]

    def run(lib):
        dtype = case.get("dtype", "float32")
        rg = dtype != "int64"
        q = _make(lib, case.get("q", (2, 3, 4, 8)), "float32", 1, rg, case.get("layout"))
        k = _make(lib, case.get("k", (2, 3, 5, 8)), "float32", 2, rg, case.get("layout"))
        v = _make(lib, case.get("v", case.get("k", (2, 3, 5, 8))), "float32", 3, rg,
                  case.get("layout"))
        if dtype == "int64":
            q, k, v = q.long(), k.long(), v.long()
        kw = {"dropout_p": case.get("dropout_p", 0.0), "is_causal": case.get("is_causal",
                                                                            False),
              "enable_gqa": case.get("gqa", False)}
        if "mask" in case:
            kw["attn_mask"] = lib.tensor(_array(case["mask"], "float32", 4)).requires_grad_(
                case.get("mask_grad", False))
        return _attention(lib, q, k, v, "FLASH_ATTENTION", **kw)
    expected = _warned(torch, run)
    assert _warned(dyngrad, run) == expected
    assert (expected[0] is None) == (name == "usable")


def test_no_viable_backend():
    def run(lib):
        q = _make(lib, (2, 3, 4, 8))
        return _attention(lib, q, q, q, "EFFICIENT_ATTENTION")
    like_torch(run)


# -- modules that call scaled_dot_product_attention ------------------------------------------
def _mha(lib, batch_first, mask, causal, dropout):
    lib.manual_seed(0)
    m = lib.nn.MultiheadAttention(8, 2, dropout=dropout, batch_first=batch_first)
    x = lib.tensor(_array((4, 3, 8), "float32", 1), requires_grad=True)
    L = 3 if batch_first else 4
    am = None
    if mask == "bool":
        am = lib.tensor(np.random.default_rng(2).random((L, L)) < 0.7)
    elif mask == "float":
        am = lib.tensor(_array((L, L), "float32", 2))
    if causal:
        am = lib.nn.Transformer.generate_square_subsequent_mask(L)
    lib.manual_seed(3)
    y, w = m(x, x, x, need_weights=False, attn_mask=am, is_causal=causal)
    assert w is None
    return y, (x,) + tuple(m.parameters())


@pytest.mark.parametrize("dropout", [0.0, 0.5])
@pytest.mark.parametrize("mask,causal", [(None, False), ("bool", False), ("float", False),
                                         (None, True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention(batch_first, mask, causal, dropout):
    check(lambda lib: _mha(lib, batch_first, mask, causal, dropout))
    names = _names(graph(_mha(torch, batch_first, mask, causal, dropout)[0]))
    assert (FLASH in names) == (dropout == 0.0)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_layer(batch_first, norm_first):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first,
                                           norm_first=norm_first)
        x = lib.tensor(_array((3, 4, 8), "float32", 1), requires_grad=True)
        return m(x, is_causal=False), (x,) + tuple(m.parameters())
    check(run)
    assert FLASH in _names(graph(run(torch)[0]))
