"""torch.nn.attention against torch: SDPBackend, sdpa_kernel (its checks, the flags it sets and
what SDPA does on CPU under them), the flash-impl registry, the causal biases of ``bias``, and
``flex_attention`` with its block masks (values, errors, warnings, reprs)."""
import importlib
import re
import warnings

import numpy as np
import pytest
import torch

import dyngrad

from tests.compare import like_torch, same

LIBS = (torch, dyngrad)


def attention(lib):
    return importlib.import_module(lib.__name__ + ".nn.attention")


def bias_mod(lib):
    return importlib.import_module(lib.__name__ + ".nn.attention.bias")


def flex(lib):
    return importlib.import_module(lib.__name__ + ".nn.attention.flex_attention")


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def recorded(fn):
    """(result or exception text, [(category, message)]) of fn(), every warning recorded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001  (compared between the libraries)
            result = f"{type(e).__name__}: {e}"
    return result, [(w.category.__name__, str(w.message)) for w in caught]


# ---------------------------------------------------------------- SDPBackend and sdpa_kernel

def test_sdp_backend_members():
    def describe(lib):
        B = attention(lib).SDPBackend
        return [(name, repr(m), str(m), int(m), m.name, m.value, m == int(m), hash(m) == hash(int(m)))
                for name, m in B.__members__.items()] + [B.__name__, B.__qualname__]
    assert describe(dyngrad) == describe(torch)
    assert dyngrad.nn.attention.SDPBackend.MATH == dyngrad.nn.attention.SDPBackend(0)
    assert dyngrad.nn.attention.SDPBackend.MATH != dyngrad.nn.attention.SDPBackend.FLASH_ATTENTION


def test_public_names():
    assert attention(dyngrad).__all__ == attention(torch).__all__
    assert flex(dyngrad).__all__ == flex(torch).__all__
    assert bias_mod(dyngrad).__all__ == bias_mod(torch).__all__


@pytest.mark.parametrize("bad", ["tuple", "str", "int", "none"])
def test_sdpa_kernel_argument_errors(bad):
    def fn(lib):
        B = attention(lib).SDPBackend
        arg = {"tuple": (B.MATH,), "str": "math", "int": 0, "none": None}[bad]
        with attention(lib).sdpa_kernel(arg):
            pass
    like_torch(fn)


def test_sdpa_kernel_sets_and_restores_flags():
    def flags(lib):
        A, cuda = attention(lib), lib.backends.cuda
        out = []
        B = A.SDPBackend
        with A.sdpa_kernel(B.MATH) as value:
            out.append((value, cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(),
                        cuda.mem_efficient_sdp_enabled(), cuda.cudnn_sdp_enabled(),
                        A._cur_sdpa_kernel_backends()))
        with A.sdpa_kernel([B.MATH, B.FLASH_ATTENTION, B.MATH], set_priority=True):
            out.append(A._cur_sdpa_kernel_backends(with_priority=True))
        with A.sdpa_kernel([]):
            out.append(A._cur_sdpa_kernel_backends())

        @A.sdpa_kernel(B.EFFICIENT_ATTENTION)
        def inside():
            return A._cur_sdpa_kernel_backends()
        out.append(inside())
        out.append(A._cur_sdpa_kernel_backends(with_priority=True))
        return repr(out)
    assert flags(dyngrad) == flags(torch)


@pytest.mark.parametrize("backend", ["ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION",
                                     "CUDNN_ATTENTION", "OVERRIDEABLE"])
@pytest.mark.parametrize("case", ["plain", "dropout", "3d", "mask"])
def test_sdpa_under_one_backend(backend, case):
    """Which backends run on CPU; the error (and warnings) when none of the allowed can."""
    def fn(lib):
        A = attention(lib)
        q = lib.tensor(arr(2, 2, 3, 4) if case != "3d" else arr(2, 3, 4))
        kw = {"dropout_p": 0.5} if case == "dropout" else {}
        if case == "mask":
            kw["attn_mask"] = lib.tensor(arr(3, 3, seed=1))
        with A.sdpa_kernel(getattr(A.SDPBackend, backend)):
            def call():
                out = lib.nn.functional.scaled_dot_product_attention(q, q, q, **kw)
                return out.shape if case == "dropout" else out.numpy()
            return recorded(call)
    (ours, ours_warnings), (theirs, theirs_warnings) = fn(dyngrad), fn(torch)
    assert ours_warnings == theirs_warnings
    if isinstance(theirs, np.ndarray):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    else:
        assert ours == theirs


def test_flash_attention_registry():
    def fn(lib):
        A = attention(lib)
        out = [A.list_flash_attention_impls(), A.current_flash_attention_impl()]
        for impl in ("FA3", "FA4", "nope"):
            out.append(recorded(lambda: A.activate_flash_attention_impl(impl)))
        out.append(A.current_flash_attention_impl())
        return out
    assert fn(dyngrad) == fn(torch)


# ---------------------------------------------------------------- bias

def _with_grads(lib, make_mask, L, S, **kw):
    q = lib.tensor(arr(2, 3, L, 8), requires_grad=True)
    k = lib.tensor(arr(2, 3, S, 8, seed=1), requires_grad=True)
    v = lib.tensor(arr(2, 3, S, 5, seed=2), requires_grad=True)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, make_mask(lib), **kw)
    (out * lib.tensor(arr(*out.shape, seed=3))).sum().backward()
    return out.detach(), q.grad, k.grad, v.grad


@pytest.mark.parametrize("variant", ["causal_upper_left", "causal_lower_right"])
@pytest.mark.parametrize("L,S", [(4, 4), (3, 6), (6, 6)])
def test_causal_bias_values_and_gradients(variant, L, S):
    like_torch(lambda lib: _with_grads(lib, lambda lib: getattr(bias_mod(lib), variant)(L, S),
                                       L, S), rtol=1e-5, atol=1e-6)


def test_causal_bias_with_scale_and_gqa():
    def fn(lib):
        q = lib.tensor(arr(1, 4, 3, 8))
        k = lib.tensor(arr(1, 2, 5, 8, seed=1))
        m = bias_mod(lib).causal_lower_right(3, 5)
        return lib.nn.functional.scaled_dot_product_attention(q, k, k, m, scale=0.3,
                                                              enable_gqa=True)
    like_torch(fn, rtol=1e-5, atol=1e-6)


def test_causal_bias_object():
    def describe(lib):
        bm = bias_mod(lib)
        b = bm.causal_lower_right(3, 5)
        u = bm.causal_upper_left(2, 2)
        return (repr(b), repr(u), type(b).__name__, tuple(b.shape), str(b.dtype), b.variant,
                b.seq_len_q, b.seq_len_kv, repr(bm.CausalVariant.LOWER_RIGHT),
                isinstance(b, lib.Tensor), repr(b._materialize()))
    assert describe(dyngrad) == describe(torch)


@pytest.mark.parametrize("case", ["one_dim", "bad_variant", "is_causal", "nan_warning"])
def test_causal_bias_errors_and_warning(case):
    def fn(lib):
        bm = bias_mod(lib)
        q = lib.tensor(arr(1, 1, 3, 4))
        calls = {
            "one_dim": lambda: bm.causal_upper_left(3),
            "bad_variant": lambda: bm.CausalBias(1, 2, 3),
            "is_causal": lambda: lib.nn.functional.scaled_dot_product_attention(
                q, q, q, bm.causal_upper_left(3, 3), is_causal=True),
            "nan_warning": lambda: bm.causal_lower_right(5, 3).seq_len_q,
        }
        return recorded(calls[case])
    assert fn(dyngrad) == fn(torch)


def test_warn_for_unfused_kernels():
    def fn(lib):
        A = attention(lib)
        q = lib.tensor(arr(1, 1, 3, 4))
        k = lib.tensor(arr(1, 1, 5, 4))
        A.WARN_FOR_UNFUSED_KERNELS = True
        try:
            return recorded(lambda: lib.nn.functional.scaled_dot_product_attention(
                q, k, k, bias_mod(lib).causal_lower_right(3, 5)).shape)
        finally:
            A.WARN_FOR_UNFUSED_KERNELS = False
    assert fn(dyngrad) == fn(torch)


# ---------------------------------------------------------------- flex_attention

def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def sliding_window(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) & (q_idx - kv_idx <= 3)


def prefix_lm(b, h, q_idx, kv_idx):
    return (kv_idx <= 2) | (q_idx >= kv_idx)


def document_mask(lib):
    docs = lib.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2, 3])

    def mask(b, h, q_idx, kv_idx):
        return (docs[q_idx] == docs[kv_idx]) & (q_idx >= kv_idx)
    return mask


def score_mods(lib, name):
    slopes = lib.tensor([0.5, 0.25, 0.125, 0.0625])
    table = lib.tensor(np.linspace(-1, 1, 4 * 10 * 10).reshape(4, 10, 10).astype(np.float32))
    return {
        "none": None,
        "relative": lambda s, b, h, q, kv: s + (q - kv),
        "alibi": lambda s, b, h, q, kv: s + slopes[h] * (kv - q),
        "softcap": lambda s, b, h, q, kv: 2.0 * lib.tanh(s / 2.0),
        "bias_table": lambda s, b, h, q, kv: s + table[h, q, kv],
        "mask_in_score": lambda s, b, h, q, kv: lib.where(q >= kv, s, -float("inf")),
    }[name]


def mask_mods(lib, name):
    return {"none": None, "causal": causal, "sliding": sliding_window, "prefix": prefix_lm,
            "document": document_mask(lib),
            "and": flex(lib).and_masks(causal, prefix_lm),
            "or": flex(lib).or_masks(sliding_window, prefix_lm),
            "noop": flex(lib).noop_mask}[name]


def run_flex(lib, score="none", mask="none", L=10, S=10, Hq=4, Hkv=4, dtype="float32",
             block=16, **kw):
    F = flex(lib)
    q = lib.tensor(arr(2, Hq, L, 8).astype(dtype))
    k = lib.tensor(arr(2, Hkv, S, 8, seed=1).astype(dtype))
    v = lib.tensor(arr(2, Hkv, S, 6, seed=2).astype(dtype))
    mm = mask_mods(lib, mask)
    bm = F.create_block_mask(mm, 2, Hq, L, S, device="cpu", BLOCK_SIZE=block) if mm else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return F.flex_attention(q, k, v, score_mod=score_mods(lib, score), block_mask=bm,
                                enable_gqa=Hq != Hkv, **kw)


@pytest.mark.parametrize("score", ["none", "relative", "alibi", "softcap", "bias_table",
                                   "mask_in_score"])
def test_flex_score_mods(score):
    like_torch(lambda lib: run_flex(lib, score=score), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mask", ["causal", "sliding", "prefix", "document", "and", "or",
                                  "noop"])
def test_flex_mask_mods(mask):
    like_torch(lambda lib: run_flex(lib, score="alibi", mask=mask), rtol=1e-5, atol=1e-6)


def test_flex_gqa_lse_and_lengths():
    def with_aux(lib):
        out, aux = run_flex(lib, mask="causal", Hq=4, Hkv=2, L=6, S=10,
                            return_aux=flex(lib).AuxRequest(lse=True))
        assert type(aux).__name__ == "AuxOutput" and aux.max_scores is None
        return out, aux.lse
    like_torch(with_aux, rtol=1e-5, atol=1e-6)
    like_torch(lambda lib: run_flex(lib, mask="sliding", return_lse=True, scale=0.2),
               rtol=1e-5, atol=1e-6)
    for lib in LIBS:
        out, aux = run_flex(lib, return_aux=flex(lib).AuxRequest())
        assert tuple(aux) == (None, None) and tuple(out.shape) == (2, 4, 10, 6)


def test_flex_fully_masked_rows_and_float64():
    empty_rows = lambda b, h, q, kv: q > 3    # noqa: E731  (rows 0..3 see nothing)

    def fn(lib):
        F = flex(lib)
        q = lib.tensor(arr(1, 2, 8, 4).astype("float64"))
        bm = F.create_block_mask(empty_rows, None, None, 8, 8, device="cpu")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return F.flex_attention(q, q, q, block_mask=bm, return_lse=True)
    like_torch(fn, rtol=1e-12, atol=1e-14)


def test_flex_block_mask_ignores_blocks_in_eager():
    """The tiles of a hand-made BlockMask do not change the eager result: only mask_mod."""
    def fn(lib):
        F = flex(lib)
        q = lib.tensor(arr(1, 1, 256, 4))
        bm = F.BlockMask.from_kv_blocks(lib.tensor([[[1, 1]]], dtype=lib.int32),
                                        lib.tensor([[[[0, 1], [1, 0]]]], dtype=lib.int32),
                                        mask_mod=causal)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return F.flex_attention(q, q, q, block_mask=bm), bm.to_dense()
    like_torch(fn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["grad", "heads", "gqa_ratio", "ndim", "embed", "batch",
                                  "small_mask", "large_mask", "sliced", "lse_and_aux",
                                  "max_scores", "backend", "batch_mask", "not_mask_mod"])
def test_flex_errors(case):
    def fn(lib):
        F = flex(lib)
        t = lambda *s, **kw: lib.tensor(arr(*s), **kw)   # noqa: E731
        q = t(1, 2, 8, 4)
        bm8 = F.create_block_mask(causal, 1, 2, 8, 8, device="cpu")
        calls = {
            "grad": lambda: F.flex_attention(t(1, 2, 8, 4, requires_grad=True), q, q),
            "heads": lambda: F.flex_attention(q, t(1, 1, 8, 4), t(1, 1, 8, 4)),
            "gqa_ratio": lambda: F.flex_attention(t(1, 3, 8, 4), q, q, enable_gqa=True),
            "ndim": lambda: F.flex_attention(t(2, 8, 4), t(2, 8, 4), t(2, 8, 4)),
            "embed": lambda: F.flex_attention(q, t(1, 2, 8, 3), t(1, 2, 8, 3)),
            "batch": lambda: F.flex_attention(t(2, 2, 8, 4), q, q),
            "small_mask": lambda: F.flex_attention(t(1, 2, 9, 4), q, q, block_mask=bm8),
            "large_mask": lambda: F.flex_attention(t(1, 2, 4, 4), t(1, 2, 4, 4), t(1, 2, 4, 4),
                                                   block_mask=bm8),
            "sliced": lambda: F.flex_attention(q, q, q, block_mask=bm8[0]),
            "lse_and_aux": lambda: F.flex_attention(q, q, q, return_lse=True,
                                                    return_aux=F.AuxRequest(lse=True)),
            "max_scores": lambda: F.flex_attention(q, q, q,
                                                   return_aux=F.AuxRequest(max_scores=True)),
            "backend": lambda: F.flex_attention(q, q, q, kernel_options={"BACKEND": "CUDA"}),
            "batch_mask": lambda: F.flex_attention(t(2, 2, 8, 4), q, q, block_mask=bm8),
            "not_mask_mod": lambda: F.create_block_mask(lambda s, b, h, qi, ki: s, 1, 1, 8, 8),
        }
        return re.sub(" at 0x[0-9a-f]+", "", recorded(calls[case])[0])
    assert fn(dyngrad) == fn(torch)


def test_flex_unfused_warning_once():
    def fn(lib):
        F = flex(lib)
        F._WARNINGS_SHOWN.clear()
        q = lib.tensor(arr(1, 1, 4, 4))
        first = recorded(lambda: F.flex_attention(q, q, q).shape)[1]
        second = recorded(lambda: F.flex_attention(q, q, q).shape)[1]
        lse = recorded(lambda: F.flex_attention(q, q, q, return_lse=True)[1].shape)[1]
        return first, second, lse
    ours, theirs = fn(dyngrad), fn(torch)
    assert ours == theirs
    assert len(theirs[0]) == 1 and theirs[1] == [] and theirs[2][0][0] == "FutureWarning"


def test_compiled_flex_attention_runs_the_eager_code():
    F = flex(dyngrad)
    q = dyngrad.tensor(arr(1, 2, 6, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = dyngrad.compile(F.flex_attention)(q, q, q, score_mod=score_mods(dyngrad,
                                                                                  "softcap"))
        eager = F.flex_attention(q, q, q, score_mod=score_mods(dyngrad, "softcap"))
    same(compiled, eager)


# ---------------------------------------------------------------- block masks

@pytest.mark.parametrize("mask,B,H,L,S,block", [
    ("causal", None, None, 6, 10, 128), ("causal", 2, 3, 300, 200, (64, 32)),
    ("sliding", 1, 2, 40, 40, 8), ("document", 2, 1, 10, 10, 4), ("noop", 1, 1, 17, 33, 16)])
def test_block_mask_observables(mask, B, H, L, S, block):
    def describe(lib):
        F = flex(lib)
        bm = F.create_block_mask(mask_mods(lib, mask), B, H, L, S, device="cpu",
                                 BLOCK_SIZE=block)
        tensors = {a: getattr(bm, a) for a in F.BlockMask._TENSOR_ATTRS}
        shapes = {a: (None if t is None else (tuple(t.shape), t.stride(), str(t.dtype),
                                              t.tolist())) for a, t in tensors.items()}
        return (repr(bm).replace(mask_mods(lib, mask).__name__, "M"), str(bm), bm.shape,
                bm.sparsity(), bm.numel(), bm.to_dense().tolist(), str(bm.to_dense().dtype),
                bm.BLOCK_SIZE, bm.seq_lengths, shapes, bm.to_string(grid_size=-1, limit=2),
                repr(bm[0]).replace(mask_mods(lib, mask).__name__, "M"),
                repr(bm[:, -1:]).replace(mask_mods(lib, mask).__name__, "M"))
    assert describe(dyngrad) == describe(torch)


def test_block_mask_adjust_and_without_full_blocks():
    def describe(lib):
        F = flex(lib)
        bm = F.create_block_mask(causal, 1, 1, 64, 64, device="cpu", BLOCK_SIZE=8,
                                 separate_full_blocks=False)
        adj = F.create_block_mask(causal, 1, 1, 64, 64, device="cpu", BLOCK_SIZE=8)._adjust(
            20, 36)
        return (repr(bm), bm.to_dense().tolist(), repr(adj), adj.kv_num_blocks.tolist(),
                adj.full_kv_num_blocks.tolist(), adj.to_dense().tolist(),
                [None if x is None or callable(x) else (x.tolist() if hasattr(x, "tolist")
                                                         else x) for x in bm.as_tuple()])
    assert describe(dyngrad) == describe(torch)


@pytest.mark.parametrize("mod", ["causal", "document", "score", "and"])
def test_create_mask(mod):
    def fn(lib):
        F = flex(lib)
        fns = {"causal": causal, "document": document_mask(lib), "and": mask_mods(lib, "and"),
               "score": lambda s, b, h, q, kv: lib.where(q >= kv, s, -float("inf"))}
        return F.create_mask(fns[mod], 2, 3, 5, 7, device="cpu")
    like_torch(fn)


def test_math_path_gradients_match_torchs_math_attention():
    """torch's CPU flex_attention has no backward, but its dense math function does; ours,
    composed of differentiable ops, has the same gradients."""
    from torch._higher_order_ops.flex_attention import math_attention
    ours_math = flex(dyngrad)._math_attention
    alibi = {lib: score_mods(lib, "alibi") for lib in LIBS}
    mask = {lib: mask_mods(lib, "sliding") for lib in LIBS}
    results = {}
    for lib in LIBS:
        q = lib.tensor(arr(1, 4, 6, 8).astype("float64"), requires_grad=True)
        k = lib.tensor(arr(1, 2, 9, 8, seed=1).astype("float64"), requires_grad=True)
        v = lib.tensor(arr(1, 2, 9, 5, seed=2).astype("float64"), requires_grad=True)
        if lib is torch:
            out = math_attention(q, k, v, alibi[lib], (mask[lib],), 0.3, {})[0]
        else:
            out = ours_math(q, k, v, alibi[lib], mask[lib], 0.3)[0]
        (out * lib.tensor(arr(*out.shape, seed=5).astype("float64"))).sum().backward()
        results[lib] = (out.detach(), q.grad, k.grad, v.grad)
    same(results[dyngrad], results[torch], rtol=1e-10, atol=1e-12)
    q = dyngrad.tensor(arr(1, 2, 4, 3).astype("float64"), requires_grad=True)
    assert dyngrad.autograd.gradcheck(
        lambda q: ours_math(q, q, q, score_mods(dyngrad, "softcap"), causal, 0.5)[0], (q,))
