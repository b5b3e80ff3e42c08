"""torch.autocast on the CPU against live torch: the state functions, the context manager's
checks and warnings, the casting policy over the op database, the graphs casts make, the
weight-cast cache, and custom_fwd/custom_bwd. See Note [Autocast] in dyngrad/amp/_policy.py."""
import threading
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.amp import _policy
from compare import call, like_torch, node_chain, same
from opinfo import OP_DB

# float16 always; bfloat16 once dyngrad has it (torch's CPU default)
LOW = ["float16"] + (["bfloat16"] if hasattr(dyngrad, "bfloat16") else [])


def warned(fn, lib):
    """(result or exception text, [(category, message)]) of fn(lib)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(lib)
            r = str(r).replace("dyngrad", "torch")
        except Exception as e:   # noqa: BLE001
            r = f"{type(e).__name__}: {e}".replace("dyngrad.device", "torch.device")
    return r, [(x.category.__name__, str(x.message)) for x in w]


def same_warned(fn):
    assert warned(fn, dyngrad) == warned(fn, torch)


@pytest.fixture(autouse=True)
def _clean_state():
    """Every test starts and ends with autocast off, default dtypes, cache on, nesting 0."""
    yield
    for lib in (torch, dyngrad):
        for dev in ("cpu", "cuda"):
            lib.set_autocast_enabled(dev, False)
        lib.set_autocast_dtype("cpu", lib.bfloat16 if hasattr(lib, "bfloat16") else lib.float16)
        lib.set_autocast_dtype("cuda", lib.float16)
        lib.set_autocast_cache_enabled(True)
        while lib.autocast_decrement_nesting() > 0:
            pass
        lib.autocast_increment_nesting()   # (back to 0)
        lib.clear_autocast_cache()
    assert dyngrad.ops._dispatch._autocast_hook is None


# -- the policy table ------------------------------------------------------------------------------
def test_policy_table_is_torchs_autocast_cpu_list():
    names = torch._C._dispatch_get_all_op_names()
    registered = {n[len("aten::"):].split(".")[0] for n in names
                  if torch._C._dispatch_has_kernel_for_dispatch_key(n, "AutocastCPU")}
    assert set(_policy.POLICY) == registered


# -- state functions -------------------------------------------------------------------------------
STATE_CALLS = {
    "is_enabled": lambda t: t.is_autocast_enabled(),
    "is_enabled_cpu": lambda t: t.is_autocast_enabled("cpu"),
    "is_enabled_kw": lambda t: t.is_autocast_enabled(device_type="cpu"),
    "is_enabled_cuda0": lambda t: t.is_autocast_enabled("cuda:0"),
    "is_enabled_bad": lambda t: t.is_autocast_enabled("foo"),
    "is_enabled_int": lambda t: t.is_autocast_enabled(1),
    "is_enabled_meta": lambda t: t.is_autocast_enabled("meta"),
    "dtype_cpu": lambda t: t.get_autocast_dtype("cpu"),
    "dtype_cuda": lambda t: t.get_autocast_dtype("cuda"),
    "dtype_xla": lambda t: t.get_autocast_dtype("xla"),
    "dtype_hip": lambda t: t.get_autocast_dtype("hip"),
    "dtype_meta": lambda t: t.get_autocast_dtype("meta"),
    "set_dtype_f64": lambda t: (t.set_autocast_dtype("cpu", t.float64),
                                t.get_autocast_dtype("cpu")),
    "set_enabled_old": lambda t: (t.set_autocast_enabled(True), t.is_autocast_enabled("cuda"),
                                  t.is_autocast_enabled("cpu")),
    "set_enabled_int": lambda t: t.set_autocast_enabled("cpu", 1),
    "set_enabled_str": lambda t: t.set_autocast_enabled("cpu"),
    "set_enabled_meta": lambda t: t.set_autocast_enabled("meta", True),
    "cpu_enabled_old": lambda t: t.is_autocast_cpu_enabled(),
    "set_cpu_enabled_old": lambda t: (t.set_autocast_cpu_enabled(True),
                                      t.is_autocast_enabled("cpu")),
    "cpu_dtype_old": lambda t: t.get_autocast_cpu_dtype(),
    "gpu_dtype_old": lambda t: t.get_autocast_gpu_dtype(),
    "set_cpu_dtype_old": lambda t: (t.set_autocast_cpu_dtype(t.float16),
                                    t.get_autocast_dtype("cpu")),
    "set_gpu_dtype_old": lambda t: t.set_autocast_gpu_dtype(t.float16),
    "cache": lambda t: (t.is_autocast_cache_enabled(), t.set_autocast_cache_enabled(False),
                        t.is_autocast_cache_enabled()),
    "cache_int": lambda t: t.set_autocast_cache_enabled(1),
    "nesting": lambda t: [t.autocast_increment_nesting(), t.autocast_increment_nesting(),
                          t.autocast_decrement_nesting(), t.autocast_decrement_nesting(),
                          t.autocast_decrement_nesting(), t.autocast_increment_nesting()],
    "available": lambda t: [t.amp.is_autocast_available(d)
                            for d in ("cpu", "cuda", "mps", "xla", "meta", "hip", "lazy")],
    "available_bad": lambda t: t.amp.is_autocast_available("foo"),
}


@pytest.mark.parametrize("name", sorted(STATE_CALLS))
def test_state_functions(name):
    same_warned(STATE_CALLS[name])


def test_state_is_thread_local():
    def probe(lib):
        seen = []
        with lib.autocast("cpu", dtype=lib.float16):
            th = threading.Thread(target=lambda: seen.append(
                (lib.is_autocast_enabled("cpu"), lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype)))
            th.start()
            th.join()
            mine = lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype
        return str(seen + [mine]).replace("dyngrad", "torch")
    assert probe(dyngrad) == probe(torch)


# -- the context manager ---------------------------------------------------------------------------
MANAGER_CALLS = {
    "cuda": lambda t: t.autocast("cuda")._enabled,
    "cuda_off": lambda t: t.autocast("cuda", enabled=False)._enabled,
    "f32": lambda t: t.autocast("cpu", dtype=t.float32)._enabled,
    "f64": lambda t: t.autocast("cpu", dtype=t.float64)._enabled,
    "int": lambda t: t.autocast("cpu", dtype=t.int64)._enabled,
    "f16": lambda t: (t.autocast("cpu", dtype=t.float16)._enabled,
                      t.autocast("cpu", dtype=t.float16).fast_dtype),
    "default": lambda t: (t.autocast("cpu").fast_dtype, t.autocast("cpu")._cache_enabled),
    "cache_arg": lambda t: t.autocast("cpu", cache_enabled=False)._cache_enabled,
    "device_obj": lambda t: t.autocast(t.device("cpu")),
    "none": lambda t: t.autocast(None),
    "bad_device": lambda t: t.autocast("foo"),
    "meta": lambda t: t.autocast("meta"),
    "hip": lambda t: t.autocast("hip"),
    "missing": lambda t: t.autocast(),
    "not_callable": lambda t: t.autocast("cpu")(3),
    "xla": lambda t: (t.autocast("xla")._enabled, t.autocast("xla").fast_dtype),
    "cpu_amp": lambda t: (t.cpu.amp.autocast()._enabled, t.cpu.amp.autocast().device),
    "cpu_amp_f16": lambda t: t.cpu.amp.autocast(dtype=t.float16).fast_dtype,
    # torch.cuda.amp without CUDA: deprecated, then disabled with torch's warning
    "cuda_amp": lambda t: (t.cuda.amp.autocast()._enabled, t.cuda.amp.autocast().device,
                           t.cuda.amp.autocast().fast_dtype),
    "cuda_amp_region": lambda t: (lambda ac: (ac.__enter__(), t.mm(t.ones(2, 2), t.ones(2, 2))
                                              .dtype, ac.__exit__(None, None, None))[1])(
        t.cuda.amp.autocast(dtype=t.float16)),
    "cuda_amp_scaler": lambda t: (t.cuda.amp.GradScaler().is_enabled(),
                                  t.cuda.amp.GradScaler(init_scale=4.0).get_scale()),
    "cuda_amp_custom_fwd": lambda t: t.cuda.amp.custom_fwd(lambda ctx, x: x)(None, 3),
    "cuda_amp_custom_fwd_cast": lambda t: t.cuda.amp.custom_fwd(
        cast_inputs=t.float16)(lambda ctx, x: x.dtype)(None, t.ones(1)),
    "cuda_amp_custom_bwd": lambda t: t.cuda.amp.custom_bwd(lambda ctx, g: g)(
        type("Ctx", (), {})(), 5),
    "set_dtype_then_default": lambda t: (t.set_autocast_dtype("cpu", t.float64),
                                         t.autocast("cpu")._enabled),
    "is_amp": lambda t: (t.autocast is t.amp.autocast, t.autocast.__name__),
}


@pytest.mark.parametrize("name", sorted(MANAGER_CALLS))
def test_autocast_arguments(name):
    same_warned(MANAGER_CALLS[name])


def _states(t):
    return (t.is_autocast_enabled("cpu"), str(t.get_autocast_dtype("cpu")),
            t.is_autocast_cache_enabled())


def test_enter_exit_restores_state_and_nests():
    def run(t):
        seen = [_states(t)]
        with t.autocast("cpu", dtype=t.float16, cache_enabled=False):
            seen.append(_states(t))
            with t.autocast("cpu", enabled=False):
                seen.append(_states(t))
                seen.append(t.mm(t.ones(2, 2), t.ones(2, 2)).dtype)
                with t.autocast("cpu", dtype=t.float16):
                    seen.append(t.mm(t.ones(2, 2), t.ones(2, 2)).dtype)
            seen.append(_states(t))
            seen.append(t.mm(t.ones(2, 2), t.ones(2, 2)).dtype)
        seen.append(_states(t))
        seen.append(t.mm(t.ones(2, 2), t.ones(2, 2)).dtype)
        return str(seen).replace("dyngrad", "torch")
    assert run(dyngrad) == run(torch)


def test_exit_after_exception_restores_state():
    def run(t):
        try:
            with t.autocast("cpu", dtype=t.float16):
                raise KeyError("x")
        except KeyError:
            pass
        return (_states(t), t.autocast_increment_nesting())
    assert str(run(dyngrad)).replace("dyngrad", "torch") == str(run(torch))


def test_decorator():
    def run(t):
        @t.autocast("cpu", dtype=t.float16)
        def f(a):
            """doc"""
            return t.mm(a, a), t.is_autocast_enabled("cpu")
        out, on = f(t.ones(2, 2))
        return str((out.dtype, on, f.__name__, f.__doc__, t.is_autocast_enabled("cpu")))
    assert run(dyngrad).replace("dyngrad", "torch") == run(torch)


def test_unmanaged_enter_exit():
    def run(t):
        mode = t.amp._enter_autocast("cpu", t.float16, True, True)
        inside = t.mm(t.ones(2, 2), t.ones(2, 2)).dtype
        t.amp._exit_autocast(mode)
        return str((inside, type(mode).__name__, _states(t)))
    assert run(dyngrad).replace("dyngrad", "torch") == run(torch)


def test_set_autocast_enabled_directly_casts():
    def run(t):
        t.set_autocast_enabled("cpu", True)
        t.set_autocast_dtype("cpu", t.float16)
        try:
            return t.mm(t.ones(2, 2), t.ones(2, 2))
        finally:
            t.set_autocast_enabled("cpu", False)
    like_torch(run)


def test_cuda_autocast_changes_nothing_on_cpu():
    def run(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with t.autocast("cuda"):
                return t.mm(t.ones(2, 2), t.ones(2, 2))
    like_torch(run)


# -- the policy over the op database ---------------------------------------------------------------
# (dyngrad has no complex32: these fail without autocast as well)
_NO_COMPLEX32 = {"complex", "view_as_complex_copy"}
# torch's kernel calls ops that autocast casts (bmm, matmul) inside an op with a derivative of
# its own (LinalgPinvBackward0, AffineGridGeneratorBackward0): its result comes out in the lower
# precision; dyngrad's kernel computes in its input dtype. local_response_norm refuses float16
# before its avg_pool3d (which autocast would cast) runs.
_DIFFERS = {("linalg.pinv", "f32"), ("nn.functional.affine_grid", "f32"),
            ("nn.functional.local_response_norm.4d", "f16")}


def _half(v, lib, low):
    if isinstance(v, lib.Tensor) and v.dtype == lib.float32:
        return v.to(getattr(lib, low))
    if isinstance(v, (list, tuple)):
        return type(v)(_half(x, lib, low) for x in v)
    if isinstance(v, dict):
        return {k: _half(x, lib, low) for k, x in v.items()}
    return v


def _describe(out, lib):
    if isinstance(out, lib.Tensor):
        return (str(out.dtype).replace("dyngrad", "torch"), tuple(out.shape),
                type(out.grad_fn).__name__ if out.grad_fn is not None else None)
    if isinstance(out, (tuple, list)):
        return [_describe(o, lib) for o in out]
    return repr(type(out))


def _run_sample(op, sample, lib, inputs, low):
    fn = op.op(lib)
    args, kwargs = sample.to(lib)
    if inputs == "f16":
        args, kwargs = _half(args, lib, low), _half(kwargs, lib, low)
    if isinstance(args[0], lib.Tensor) and args[0].dtype.is_floating_point:
        args[0].requires_grad_(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autocast("cpu", dtype=getattr(lib, low)):
                return _describe(fn(*args, **kwargs), lib)
    except Exception as e:   # noqa: BLE001
        return "raises " + type(e).__name__


_DB = [op for op in OP_DB if "float32" in op.dtypes and not op.inplace_only
       and op.name not in _NO_COMPLEX32]


@pytest.mark.parametrize("inputs", ["f32", "f16"])
@pytest.mark.parametrize("op", _DB, ids=[op.id for op in _DB])
def test_op_database_under_autocast(op, inputs):
    """Result dtypes, shapes and grad_fn names (or the exception type) under
    ``autocast("cpu", dtype=float16)``, for float32 samples and for them in float16."""
    if (op.id, inputs) in _DIFFERS:
        pytest.xfail("see _DIFFERS")
    samples = op.samples("float32", np.random.default_rng(0))[:3]
    for i, s in enumerate(samples):
        assert _run_sample(op, s, dyngrad, inputs, "float16") == \
            _run_sample(op, s, torch, inputs, "float16"), f"sample {i}: {s!r}"


_MATMULS = [op for op in _DB if op.name in ("mm", "matmul", "nn.functional.linear", "cat",
                                             "nn.functional.mse_loss", "prod")]


@pytest.mark.parametrize("low", LOW)
@pytest.mark.parametrize("op", _MATMULS, ids=[op.id for op in _MATMULS])
def test_a_few_ops_in_each_lower_dtype(op, low):
    for inputs in ("f32", "f16"):
        for s in op.samples("float32", np.random.default_rng(0))[:2]:
            assert _run_sample(op, s, dyngrad, inputs, low) == \
                _run_sample(op, s, torch, inputs, low)


# -- values, graphs and gradients ------------------------------------------------------------------
def _leaves(t, *shapes, dtype="float32"):
    rng = np.random.default_rng(7)
    return [t.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in shapes]


GRAPHS = {
    "mm": lambda t: (lambda a, b: t.mm(a, b))(*_leaves(t, (3, 4), (4, 2))),
    "linear2d": lambda t: (lambda x, w, b: t.nn.functional.linear(x, w, b))(
        *_leaves(t, (3, 4), (2, 4), (2,))),
    "linear3d": lambda t: (lambda x, w, b: t.nn.functional.linear(x, w, b))(
        *_leaves(t, (2, 3, 4), (5, 4), (5,))),
    "matmul_1d": lambda t: (lambda a, b: a @ b)(*_leaves(t, (4,), (4,))),
    "conv2d": lambda t: (lambda x, w: t.nn.functional.conv2d(x, w))(
        *_leaves(t, (1, 2, 5, 5), (3, 2, 3, 3))),
    "addmm": lambda t: (lambda c, a, b: t.addmm(c, a, b))(*_leaves(t, (3, 2), (3, 4), (4, 2))),
    "bmm_f16_input": lambda t: (lambda a, b: t.bmm(a.half(), b))(*_leaves(t, (2, 3, 4), (2, 4, 2))),
    "mse_f16": lambda t: (lambda a, b: t.nn.functional.mse_loss(a.half(), b.half()))(
        *_leaves(t, (3, 4), (3, 4))),
    "cat_promote": lambda t: (lambda a, b: t.cat([a.half(), b]))(*_leaves(t, (2,), (3,))),
    "cat_f16_f64": lambda t: (lambda a, b: t.cat([a.half(), b.double()]))(*_leaves(t, (2,), (3,))),
    "stack_low": lambda t: (lambda a, b: t.stack([a.half(), b.half()]))(*_leaves(t, (2,), (2,))),
    "mm_f64": lambda t: (lambda a, b: t.mm(a, b))(*_leaves(t, (3, 4), (4, 2), dtype="float64")),
    "mm_mixed_f64": lambda t: (lambda a, b: t.mm(a, b.double()))(*_leaves(t, (3, 4), (4, 2))),
    "softmax_untouched": lambda t: (lambda a: t.softmax(a.half(), 1))(*_leaves(t, (3, 4))),
    "cross_entropy": lambda t: t.nn.functional.cross_entropy(
        _leaves(t, (3, 4))[0].half(), t.tensor([0, 1, 3])),
    "out_not_cast": lambda t: (lambda a, b: t.mm(a.detach(), b.detach(), out=t.empty(3, 2)))(
        *_leaves(t, (3, 4), (4, 2))),
    "inplace_not_cast": lambda t: (lambda a: a.detach().half().index_copy_(
        0, t.tensor([0]), t.ones(1, 2).half()))(*_leaves(t, (3, 2))),
    "cdist_f16": lambda t: (lambda a, b: t.cdist(a.half(), b.half()))(*_leaves(t, (3, 2), (4, 2))),
    "prod_f16": lambda t: (lambda a: a.half().prod())(*_leaves(t, (3,))),
    "lu_f16": lambda t: t.lu(_leaves(t, (3, 3))[0].half())[0],
    "fft_f16": lambda t: t.fft.fft(_leaves(t, (8,))[0].half()),
    "fft_out_not_cast": lambda t: t.fft.fft(_leaves(t, (8,))[0].detach().half(),
                                           out=t.empty(8, dtype=t.complex64)),
    "matmul_out_not_cast": lambda t: t.matmul(t.ones(2, 2), t.ones(2, 2), out=t.empty(2, 2)),
    "multi_dot": lambda t: t.linalg.multi_dot(_leaves(t, (2, 3), (3, 4), (4, 2))),
    "einsum": lambda t: (lambda a, b: t.einsum("ij,jk->ik", a, b))(*_leaves(t, (2, 3), (3, 4))),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_values_and_graph(name):
    def run(t):
        with t.autocast("cpu", dtype=t.float16):
            out = GRAPHS[name](t)
        return out, node_chain(out) if out.grad_fn is not None else []
    result, texc = call(run, torch)
    if texc is not None:
        like_torch(run)   # the same exception
        return
    expected, chain = result
    got, got_chain = run(dyngrad)
    same(got, expected, name, rtol=2e-3, atol=2e-3)
    assert got_chain == chain


def _edges(fn):
    return [type(f).__name__ if f is not None else None for f, _ in fn.next_functions]


@pytest.mark.parametrize("name", ["mm", "linear2d", "linear3d", "conv2d", "addmm", "cat_promote"])
def test_gradients_come_back_in_leaf_dtypes(name):
    def run(t):
        rng = np.random.default_rng(3)
        made = []
        real = t.tensor

        def tracked(*a, **k):
            x = real(*a, **k)
            made.append(x)
            return x
        t.tensor = tracked
        try:
            with t.autocast("cpu", dtype=t.float16):
                out = GRAPHS[name](t)
        finally:
            t.tensor = real
        edges = _edges(out.grad_fn)
        out.backward(real(rng.standard_normal(tuple(out.shape)).astype("float16")))
        return [x.grad for x in made], edges
    got, got_edges = run(dyngrad)
    expected, edges = run(torch)
    assert got_edges == edges
    same(got, expected, name, rtol=5e-3, atol=5e-3)


def test_backward_inside_autocast():
    def run(t):
        a, b = _leaves(t, (3, 4), (4, 2))
        with t.autocast("cpu", dtype=t.float16):
            t.mm(a, b).sum().backward()
        return a.grad, b.grad
    like_torch(run, rtol=5e-3, atol=5e-3)


# -- the weight cache ------------------------------------------------------------------------------
def test_weight_cast_cache_shares_one_node():
    def run(t):
        x, w = _leaves(t, (3, 4), (2, 4))
        with t.autocast("cpu", dtype=t.float16):
            y1 = t.nn.functional.linear(x.detach(), w)
            y2 = t.mm(x.detach(), w.t())   # w.t() is a view: never cached
            y3 = t.nn.functional.linear(x.detach(), w)
            wv = w.t()
            w16 = w.half()                 # already low precision: nothing cast
            y4 = t.mm(x.detach().half(), w16.t())
        cast1 = y1.grad_fn.next_functions[1][0].next_functions[0][0]
        cast3 = y3.grad_fn.next_functions[1][0].next_functions[0][0]
        (y1.sum() + y2.sum() + y3.sum() + y4.float().sum()).backward()
        return [cast1 is cast3, type(cast1).__name__, _edges(y2.grad_fn), wv.shape == (4, 2),
                w.grad.tolist()]
    d, t_ = run(dyngrad), run(torch)
    assert d[:4] == t_[:4]
    np.testing.assert_allclose(d[4], t_[4], rtol=3e-3)


@pytest.mark.parametrize("case", ["cache_off", "two_regions", "nested", "no_grad_first",
                                  "x_leaf", "f16_leaf", "non_leaf"])
def test_weight_cache_cases(case):
    def run(t):
        x, w = _leaves(t, (3, 4), (2, 4))
        f = t.nn.functional.linear
        if case == "cache_off":
            with t.autocast("cpu", dtype=t.float16, cache_enabled=False):
                a, b = f(x, w), f(x, w)
        elif case == "two_regions":
            with t.autocast("cpu", dtype=t.float16):
                a = f(x, w)
            with t.autocast("cpu", dtype=t.float16):
                b = f(x, w)
        elif case == "nested":
            with t.autocast("cpu", dtype=t.float16):
                a = f(x, w)
                with t.autocast("cpu", dtype=t.float16):
                    b = f(x, w)
        elif case == "no_grad_first":   # torch's cache keeps the copy made under no_grad
            with t.autocast("cpu", dtype=t.float16):
                with t.no_grad():
                    a = f(x, w)
                b = f(x, w)
            return [a.grad_fn is None, b.requires_grad, b.grad_fn is None]
        elif case == "x_leaf":
            with t.autocast("cpu", dtype=t.float16):
                a, b = t.mm(x, w.detach().t()), t.mm(x, w.detach().t())
            return [a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]]
        elif case == "f16_leaf":
            w = t.tensor(np.ones((2, 4), "float16"), requires_grad=True)
            with t.autocast("cpu", dtype=t.float16):
                a, b = f(x, w), f(x, w)
        else:
            w2 = w * 1
            with t.autocast("cpu", dtype=t.float16):
                a, b = f(x, w2), f(x, w2)
        na = a.grad_fn.next_functions[1][0].next_functions[0][0]
        nb = b.grad_fn.next_functions[1][0].next_functions[0][0]
        return [na is nb, type(na).__name__]
    assert run(dyngrad) == run(torch)


# -- grad modes --------------------------------------------------------------------------------------
def test_under_no_grad_and_inference_mode():
    def run(t):
        a, b = _leaves(t, (3, 4), (4, 2))
        with t.autocast("cpu", dtype=t.float16):
            with t.no_grad():
                r1 = t.mm(a, b)
            with t.inference_mode():
                r2 = t.mm(a, b)
                r3 = t.nn.functional.linear(a, b.t())
            r4 = t.mm(a, b)
        return [str(r.dtype).replace("dyngrad", "torch") for r in (r1, r2, r3, r4)] + \
            [r1.requires_grad, r2.is_inference(), r3.is_inference(), r4.requires_grad,
             node_chain(r4)]
    assert run(dyngrad) == run(torch)


# -- custom_fwd / custom_bwd ------------------------------------------------------------------------
def _custom_function(t, cast_inputs):
    class MyMM(t.autograd.Function):
        @staticmethod
        @t.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.seen = (str(a.dtype), t.is_autocast_enabled("cpu"))
            return a.mm(b)

        @staticmethod
        @t.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            ctx.seen_bwd = (t.is_autocast_enabled("cpu"), str(t.get_autocast_dtype("cpu")))
            return grad.mm(b.t()), a.t().mm(grad)
    return MyMM


@pytest.mark.parametrize("cast_inputs", [None, "float32", "float16"])
@pytest.mark.parametrize("inside", [True, False])
def test_custom_fwd_bwd(cast_inputs, inside):
    def run(t):
        fn = _custom_function(t, None if cast_inputs is None else getattr(t, cast_inputs))
        a, b = _leaves(t, (3, 4), (4, 2))
        if inside:
            with t.autocast("cpu", dtype=t.float16):
                out = fn.apply(a, b)
        else:
            out = fn.apply(a, b)
        out.float().sum().backward()
        ctx = out.grad_fn
        seen = [ctx.seen, ctx.seen_bwd, str(out.dtype), str(a.grad.dtype), str(b.grad.dtype)]
        return str(seen).replace("dyngrad", "torch"), a.grad
    got, ga = run(dyngrad)
    expected, ta = run(torch)
    assert got == expected
    np.testing.assert_allclose(ga.numpy(), ta.numpy(), rtol=5e-3, atol=5e-3)


def test_custom_fwd_argument_checks():
    same_warned(lambda t: t.amp.custom_fwd(device_type=None))
    same_warned(lambda t: t.amp.custom_bwd(device_type=3))
    same_warned(lambda t: t.amp.custom_fwd(lambda ctx: 0))


# -- the hook comes off ------------------------------------------------------------------------------
def test_hook_only_while_enabled():
    d = dyngrad.ops._dispatch
    assert d._autocast_hook is None and not d._intercept
    with dyngrad.autocast("cpu", dtype=dyngrad.float16):
        assert d._autocast_hook is not None and d._intercept and d._fast_off
        with dyngrad.autocast("cpu", enabled=False):
            assert d._autocast_hook is None
    assert d._autocast_hook is None and not d._intercept and not d._fast_off
