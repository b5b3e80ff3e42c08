"""Reordering, repetition, broadcasting and padding ops against live torch, beyond the OpInfo
entries (tests/opinfo/reorder.py, padding.py): the method spellings (``x.flip(0, 1)``,
``x.repeat(2, 3)``), identities torch keeps (``broadcast_tensors`` returns its inputs), the
meshgrid warning, torch's error texts (the C++ printing of a tensor in meshgrid's), saved
tensors' version checks, F.pad's fill values, and fold as the adjoint of unfold.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import warn_always
from compare import call as _call, like_torch, to_numpy as _np, torch_part
from dyngrad.ops import reorder

LIBS = (torch, dyngrad)


def _arr(lib, values, dtype="float64"):
    return lib.from_numpy(np.array(values, dtype=dtype))


def x34(lib, requires_grad=False):
    return _arr(lib, np.arange(12.0).reshape(3, 4) - 5).requires_grad_(requires_grad)


# -- method spellings ------------------------------------------------------------------------
METHOD_FORMS = {
    "flip(0, 1)": lambda lib: x34(lib).flip(0, 1),
    "flip((1,))": lambda lib: x34(lib).flip((1,)),
    "flip(dims=[0])": lambda lib: x34(lib).flip(dims=[0]),
    "flip([])": lambda lib: x34(lib).flip([]),
    "flip()": lambda lib: x34(lib).flip(),
    "flip(1.5)": lambda lib: x34(lib).flip(1.5),
    "torch.flip(x, 0)": lambda lib: lib.flip(x34(lib), 0),
    "torch.flip(x, [0, 1.5])": lambda lib: lib.flip(x34(lib), [0, 1.5]),
    "roll(shifts=1, dims=0)": lambda lib: x34(lib).roll(shifts=1, dims=0),
    "roll(1.5)": lambda lib: x34(lib).roll(1.5),
    "torch.roll(x, 1.5)": lambda lib: lib.roll(x34(lib), 1.5),
    "rot90(k=1, dims=[1, 0])": lambda lib: x34(lib).rot90(k=1, dims=[1, 0]),
    "rot90(1.5)": lambda lib: x34(lib).rot90(1.5),
    "repeat(2, 3)": lambda lib: x34(lib).repeat(2, 3),
    "repeat([2, 1, 1])": lambda lib: x34(lib).repeat([2, 1, 1]),
    "repeat()": lambda lib: x34(lib).repeat(),
    "repeat(1.5, 2)": lambda lib: x34(lib).repeat(1.5, 2),
    "tile(2, 2)": lambda lib: x34(lib).tile(2, 2),
    "tile(dims=(2,))": lambda lib: x34(lib).tile(dims=(2,)),
    "torch.tile(x, 2)": lambda lib: lib.tile(x34(lib), 2),
    "broadcast_to(2, 3, 4)": lambda lib: x34(lib).broadcast_to(2, 3, 4),
    "broadcast_to((2, -1, 4))": lambda lib: x34(lib).broadcast_to((2, -1, 4)),
    "torch.broadcast_to(x, 4)": lambda lib: lib.broadcast_to(x34(lib), 4),
    "torch.broadcast_to(x, size=...)": lambda lib: lib.broadcast_to(x34(lib), size=(2, 3, 4)),
    "repeat_interleave(True)": lambda lib: x34(lib).repeat_interleave(True),
    "repeat_interleave()": lambda lib: lib.tensor([1, 2]).repeat_interleave(),
    "repeat_interleave(repeats=2, dim=1)": lambda lib: lib.repeat_interleave(
        x34(lib), repeats=2, dim=1),
    "torch.repeat_interleave(x, 2.0)": lambda lib: lib.repeat_interleave(x34(lib), 2.0),
    "torch.repeat_interleave(1, 2)": lambda lib: lib.repeat_interleave(1, 2),
    "fliplr on a tensor needing grad": lambda lib: x34(lib, True).fliplr(),
    "flipud of a vector": lambda lib: _arr(lib, [1.0, 2.0, 3.0]).flipud(),
    "flip(x, dims) non-tensor": lambda lib: lib.flip(1, (0,)),
}


@pytest.mark.parametrize("case", list(METHOD_FORMS))
def test_spellings_like_torch(case):
    like_torch(METHOD_FORMS[case])


# -- identities torch keeps ----------------------------------------------------------------------
def test_broadcast_tensors_returns_inputs_already_of_the_shape():
    for lib in LIBS:
        a, b = x34(lib), _arr(lib, [1.0, 2.0, 3.0, 4.0])
        out = lib.broadcast_tensors(a, b)
        assert type(out) is tuple and out[0] is a and out[1] is not b
        assert out[1].stride() == (0, 1)
        assert out[1]._base is b


def test_cartesian_prod_of_one_tensor_is_that_tensor():
    for lib in LIBS:
        v = _arr(lib, [1.0, 2.0])
        assert lib.cartesian_prod(v) is v


def test_broadcast_to_is_a_view():
    for lib in LIBS:
        a = x34(lib)
        b = lib.broadcast_to(a, (2, 3, 4))
        assert b._base is a and b.stride() == (0, 4, 1)


def test_broadcast_shapes_like_torch():
    like_torch(lambda lib: lib.broadcast_shapes((2, 1), [3], 1))
    for case in [((2,), (3,)), ((2,), (3, 1), 4), ((2, -1),), (2.0,)]:
        like_torch(lambda lib: lib.broadcast_shapes(*case))
    assert repr(dyngrad.broadcast_shapes((2, 1), (3,))) == "torch.Size([2, 3])"
    assert dyngrad.broadcast_shapes() == torch.broadcast_shapes() == ()


# -- meshgrid ------------------------------------------------------------------------------------
def test_meshgrid_without_indexing_warns_once_and_uses_ij(monkeypatch):
    from dyngrad.ops import pointwise
    monkeypatch.setattr(pointwise, "_WARNED", set())   # (as in a fresh process)
    a, b = dyngrad.arange(3), dyngrad.arange(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grids = dyngrad.meshgrid(a, b)
        dyngrad.meshgrid(a, b)
    assert [str(w.message) for w in caught] == [reorder.MESHGRID_WARNING]
    assert caught[0].category is UserWarning and caught[0].filename == __file__
    assert tuple(grids[0].shape) == (3, 2)


@pytest.mark.parametrize("call", [
    lambda lib: lib.meshgrid(lib.ones(2), lib.ones(2)),
    lambda lib: lib.cross(lib.eye(3), lib.ones(3, 3)),
], ids=["meshgrid", "cross"])
def test_once_per_process_warning_texts_are_torchs(call):
    """torch warns once per process (every time after set_warn_always(True)), ending with
    where in C++ it was raised ("(Triggered internally at ...)")."""
    texts = []
    for lib in (torch, dyngrad):
        with warn_always(lib), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(lib)
        texts.append([str(w.message) for w in caught])
    assert texts[1] == texts[0] and len(texts[0]) == 1


def test_meshgrid_with_indexing_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dyngrad.meshgrid(dyngrad.ones(2), dyngrad.ones(3), indexing="xy")


CPP_PRINTED = {
    "integers": np.arange(12.0).reshape(3, 4),
    "fractions": np.arange(12.0).reshape(3, 4) / 7,
    "scaled": -np.arange(12.0).reshape(3, 4) / 1000,
    "large": np.arange(12.0).reshape(3, 4) * 1e7,
    "scientific": np.array([[1e-5, 1e5], [3.0, 4.0]]),
    "nan and inf": np.array([[np.nan, 1.5], [np.inf, -np.inf]]),
    "wide": np.arange(40.0).reshape(2, 20),
    "3-d": np.arange(12).reshape(2, 3, 2),
    "4-d": np.arange(16.0).reshape(2, 2, 2, 2) / 3,
    "bool": np.arange(6).reshape(2, 3) > 2,
    "int8": np.arange(-4, 4, dtype=np.int8).reshape(2, 4),
}


@pytest.mark.parametrize("case", list(CPP_PRINTED))
def test_meshgrid_error_prints_the_tensor_as_torch(case):
    values = CPP_PRINTED[case]
    like_torch(lambda lib: lib.meshgrid(lib.from_numpy(values.copy()), indexing="ij"))


# -- errors --------------------------------------------------------------------------------------
ERRORS = {
    "flip repeated dim": lambda lib: x34(lib).flip(0, -2),
    "roll shifts/dims mismatch": lambda lib: x34(lib).roll((1, 2), (0,)),
    "roll 0-dim over dim 0": lambda lib: lib.tensor(1.0).roll(1, 0),
    "rot90 same dims": lambda lib: x34(lib).rot90(1, (0, -2)),
    "rot90 dim out of range": lambda lib: x34(lib).rot90(1, (0, 2)),
    "repeat too few": lambda lib: x34(lib).repeat(2),
    "repeat negative": lambda lib: x34(lib).repeat(-1, 2),
    "repeat_interleave negative": lambda lib: x34(lib).repeat_interleave(-1),
    "repeat_interleave output_size": lambda lib: x34(lib).repeat_interleave(2, 0, output_size=5),
    "repeat_interleave sizes": lambda lib: x34(lib).repeat_interleave(lib.tensor([1, 2]), -1),
    "repeat_interleave float repeats": lambda lib: lib.repeat_interleave(lib.tensor([1.0, 2.0])),
    "repeat_interleave int16 repeats": lambda lib: lib.repeat_interleave(
        lib.tensor([1, 2], dtype=lib.int16)),
    "repeat_interleave 0-dim index": lambda lib: lib.repeat_interleave(lib.tensor(2)),
    "repeat_interleave allocated size": lambda lib: lib.repeat_interleave(
        lib.tensor([1, 2]), output_size=4),
    "broadcast_tensors shapes": lambda lib: lib.broadcast_tensors(x34(lib), lib.ones(2, 4)),
    "broadcast_tensors non-tensor": lambda lib: lib.broadcast_tensors(x34(lib), 1),
    "broadcast_to fewer dims": lambda lib: lib.broadcast_to(x34(lib), (4,)),
    "meshgrid empty": lambda lib: lib.meshgrid([], indexing="ij"),
    "meshgrid dtypes": lambda lib: lib.meshgrid(lib.ones(2), lib.ones(2, dtype=lib.int64),
                                                indexing="ij"),
    "meshgrid indexing": lambda lib: lib.meshgrid(lib.ones(2), indexing="ab"),
    "cartesian_prod 2-d": lambda lib: lib.cartesian_prod(x34(lib), lib.ones(2)),
    "cartesian_prod empty": lambda lib: lib.cartesian_prod(),
    "combinations negative r": lambda lib: lib.combinations(lib.ones(3), -1),
    "combinations 0-dim": lambda lib: lib.combinations(lib.tensor(1.0)),
    "block_diag 3-d": lambda lib: lib.block_diag(x34(lib), lib.ones(1, 2, 2)),
    "block_diag non-tensor": lambda lib: lib.block_diag(x34(lib), 1),
    "block_diag list": lambda lib: lib.block_diag([x34(lib)]),
    "pad odd": lambda lib: lib.nn.functional.pad(x34(lib), (1,)),
    "pad too long": lambda lib: lib.nn.functional.pad(x34(lib), (1,) * 6),
    "pad mode": lambda lib: lib.nn.functional.pad(x34(lib), (1,), mode="bogus"),
    "pad value with reflect": lambda lib: lib.nn.functional.pad(x34(lib), (1, 1), "reflect", 1),
    "pad value complex": lambda lib: lib.nn.functional.pad(x34(lib), (1, 1), value=1j),
    "pad crop too much": lambda lib: lib.nn.functional.pad(x34(lib), (-5, 2)),
    "pad reflect too much": lambda lib: lib.nn.functional.pad(x34(lib), (4, 1), "reflect"),
    "pad reflect 2d too much": lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4), (1, 1, 1, 3),
                                                                 "reflect"),
    "pad reflect too small": lambda lib: lib.nn.functional.pad(lib.ones(2, 3), (-1, -2),
                                                               "reflect"),
    "pad reflect 2d too small": lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4),
                                                                  (-4, 0, -3, 0), "reflect"),
    "pad replicate 2d too small": lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4),
                                                                    (-4, 0, -3, 0), "replicate"),
    "pad replicate 3d too small": lambda lib: lib.nn.functional.pad(
        lib.ones(2, 2, 3, 4), (-4, 0, -3, 0, -2, 0), "replicate"),
    "pad replicate empty dim": lambda lib: lib.nn.functional.pad(lib.ones(2, 0), (1, 1),
                                                                 "replicate"),
    "pad replicate bool": lambda lib: lib.nn.functional.pad(lib.ones(2, 3, dtype=lib.bool),
                                                            (1, 1), "replicate"),
    "pad circular wraps twice": lambda lib: lib.nn.functional.pad(x34(lib), (5, 1), "circular"),
    "pad circular negative": lambda lib: lib.nn.functional.pad(x34(lib), (-5, 0), "circular"),
    "pad 1-d reflect": lambda lib: lib.nn.functional.pad(lib.ones(4), (1, 1), "reflect"),
    "pad fill overflows": lambda lib: lib.nn.functional.pad(lib.ones(2, dtype=lib.uint8), (1, 1),
                                                            value=-1),
    "pad nan into ints": lambda lib: lib.nn.functional.pad(lib.ones(2, dtype=lib.int64), (1, 1),
                                                           value=float("nan")),
    "constant_pad_nd odd": lambda lib: lib.constant_pad_nd(x34(lib), (1,)),
    "constant_pad_nd too long": lambda lib: lib.constant_pad_nd(x34(lib), (1,) * 6),
    "one_hot dtype": lambda lib: lib.nn.functional.one_hot(lib.tensor([1, 2], dtype=lib.int32)),
    "one_hot negative": lambda lib: lib.nn.functional.one_hot(lib.tensor([0, -2])),
    "one_hot too few classes": lambda lib: lib.nn.functional.one_hot(lib.tensor([0, 2]), 2),
    "one_hot empty": lambda lib: lib.nn.functional.one_hot(lib.tensor([], dtype=lib.int64)),
    "one_hot float classes": lambda lib: lib.nn.functional.one_hot(lib.tensor([0]), 3.0),
    "unfold 2-d": lambda lib: lib.nn.functional.unfold(lib.ones(5, 6), 2),
    "unfold 0-d": lambda lib: lib.nn.functional.unfold(lib.ones(()), 2),
    "unfold kernel too big": lambda lib: lib.nn.functional.unfold(lib.ones(1, 2, 5, 6), 7),
    "unfold kernel size 3": lambda lib: lib.nn.functional.unfold(lib.ones(1, 2, 5, 6), (2, 3, 4)),
    "unfold ints": lambda lib: lib.nn.functional.unfold(lib.ones(2, 3, 4, dtype=lib.int64), 2),
    "unfold non-tensor": lambda lib: lib.nn.functional.unfold(1, 2),
    "fold blocks": lambda lib: lib.nn.functional.fold(lib.ones(1, 8, 11), (4, 5), 2),
    "fold planes": lambda lib: lib.nn.functional.fold(lib.ones(1, 7, 12), (4, 5), 2),
    "fold no blocks": lambda lib: lib.nn.functional.fold(lib.ones(4, 6), (0, 4), 2),
    "fold stride": lambda lib: lib.nn.functional.fold(lib.ones(1, 8, 12), (4, 5), 2, stride=0),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    _, texc = _call(ERRORS[case], torch)
    assert texc is not None, "torch did not raise: the case is wrong"
    like_torch(ERRORS[case])


# -- values and graphs ---------------------------------------------------------------------------
PAD_VALUES = {
    "int fill truncates": lambda lib: lib.nn.functional.pad(lib.arange(4) - 2, (1, 1), value=2.7),
    "negative int fill": lambda lib: lib.nn.functional.pad(lib.arange(4), (1, 1), value=-2.7),
    "bool fill": lambda lib: lib.nn.functional.pad(lib.ones(2, dtype=lib.bool) & False, (1, 1),
                                                   value=0.3),
    "nan fill": lambda lib: lib.nn.functional.pad(lib.ones(2), (1, 1), value=float("nan")),
    "0-dim tensor fill": lambda lib: lib.nn.functional.pad(lib.ones(2), (1, 1),
                                                           value=lib.tensor(2.0)),
    "True fill": lambda lib: lib.nn.functional.pad(lib.ones(2), (1, 1), value=True),
    "complex input": lambda lib: lib.nn.functional.pad(lib.ones(2, dtype=lib.complex64), (1, 1),
                                                       value=-3.0),
    "crop only keeps the layout": lambda lib: lib.nn.functional.pad(x34(lib).t(), (-1, 0)),
    "channels_last stays": lambda lib: lib.nn.functional.pad(
        lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last), (1, 1, 1, 1),
        "reflect"),
    "channels_last with 3 padded dims": lambda lib: lib.nn.functional.pad(
        lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last), (1, 1, 1, 1, 1, 1),
        "replicate"),
    "circular is contiguous": lambda lib: lib.nn.functional.pad(
        lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last), (1, 1, 1, 1),
        "circular"),
    "circular graph": lambda lib: lib.nn.functional.pad(lib.ones(2, 3, 4, requires_grad=True),
                                                        (1, 2, 2, 1), "circular"),
    "combinations with replacement": lambda lib: lib.combinations(
        _arr(lib, [1.0, 2.0, 3.0], "float32"), 3, with_replacement=True),
    "block_diag promotes 0-dim lower": lambda lib: lib.block_diag(
        lib.ones(2, 2), lib.tensor(1.0, dtype=lib.float64)),
    "block_diag of nothing": lambda lib: lib.block_diag(),
    "repeat_interleave index int32": lambda lib: lib.repeat_interleave(
        lib.tensor([2, 0, 1], dtype=lib.int32)),
}


@pytest.mark.parametrize("case", list(PAD_VALUES))
def test_values_like_torch(case):
    like_torch(PAD_VALUES[case])


def test_block_diag_gradient_after_an_empty_vector_is_torchs():
    """torch's block_diag_backward does not step past the row an empty vector takes in the
    forward, so later blocks read their gradient one row up; dyngrad gives torch's answer."""
    grads = []
    for lib in LIBS:
        e = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        x = _arr(lib, np.arange(6.0).reshape(3, 2)).requires_grad_()
        y = lib.block_diag(e, x)
        grads.append([_np(g) for g in lib.autograd.grad(y, [e, x], lib.ones_like(y) *
                                                        _arr(lib, np.arange(8.0).reshape(4, 2)))])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])
    np.testing.assert_array_equal(grads[1][1], np.arange(6.0).reshape(3, 2))   # rows 0..2


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_saved_input_of_reflect_and_replicate_is_version_checked(mode):
    messages = []
    for lib in LIBS:
        x = lib.ones(2, 3, 4, requires_grad=True)
        h = x * 1
        y = lib.nn.functional.pad(h, (1, 1), mode)
        h.add_(1)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        messages.append(str(info.value))
    assert torch_part(messages[0]) == torch_part(messages[1])   # (ours adds lines after torch's)


def test_im2col_node_shows_the_input_size_as_torch():
    nodes = []
    for lib in LIBS:
        x = lib.ones(1, 2, 5, 6, requires_grad=True)
        nodes.append(lib.nn.functional.unfold(x, (2, 3), padding=1).grad_fn)
    for name in ("_saved_self_sym_argsize_minus_1", "_saved_self_sym_argsize_minus_2",
                 "_saved_kernel_size", "_saved_dilation", "_saved_padding", "_saved_stride"):
        assert tuple(np.atleast_1d(getattr(nodes[0], name))) == \
            tuple(np.atleast_1d(getattr(nodes[1], name))), name


@pytest.mark.parametrize("seed", range(4))
def test_fold_is_the_adjoint_of_unfold(seed):
    """<unfold(x), c> == <x, fold(c)> for random windows (col2im is im2col's transpose)."""
    rng = np.random.default_rng(seed)
    k, d, p, s = (tuple(int(v) for v in rng.integers(lo, hi, 2))
                  for lo, hi in ((1, 4), (1, 3), (0, 2), (1, 3)))
    x = dyngrad.from_numpy(rng.standard_normal((2, 3, 7, 8)))
    cols = dyngrad.nn.functional.unfold(x, k, d, p, s)
    c = dyngrad.from_numpy(rng.standard_normal(tuple(cols.shape)))
    back = dyngrad.nn.functional.fold(c, (7, 8), k, d, p, s)
    np.testing.assert_allclose(float((cols * c).sum()), float((x * back).sum()), rtol=1e-10)


def test_double_backward_of_pad_modes_matches_torch():
    """Hessian-vector products through every mode (the scatter-add backward of reflect and
    replicate, CopySlices of circular) against torch."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal((2, 3, 4))
    weight = rng.standard_normal((2, 5, 7))
    results = []
    for lib in LIBS:
        per_mode = []
        for mode in ("constant", "reflect", "replicate", "circular"):
            x = lib.from_numpy(base.copy()).requires_grad_()
            y = lib.nn.functional.pad(x, (1, 2, 1, 1), mode)
            loss = (y * y * lib.from_numpy(weight.copy())).sum()
            g, = lib.autograd.grad(loss, x, create_graph=True)
            h, = lib.autograd.grad((g * g).sum(), x)
            per_mode.append(_np(h))
        results.append(per_mode)
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


@pytest.mark.parametrize("name", ["roll", "repeat", "tile"])
def test_copies_with_a_size_1_dim_have_torchs_strides(name):
    """A copy made by NumPy keeps the input's order, and a size-1 dim keeps whatever stride
    that gives (NumPy calls the array C-contiguous all the same): torch's are contiguous."""
    fns = {"roll": lambda t: t.roll(1, 0), "repeat": lambda t: t.repeat(1, 1, 1),
           "tile": lambda t: t.tile((1, 1, 1))}
    x = np.random.default_rng(0).standard_normal((6, 7, 3))
    for perm in [(1, 0, 2), (2, 0, 1), (0, 2, 1)]:
        ours = fns[name](dyngrad.tensor(x).permute(*perm).narrow(0, 0, 1))
        theirs = fns[name](torch.tensor(x).permute(*perm).narrow(0, 0, 1))
        assert ours.stride() == theirs.stride(), perm
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
