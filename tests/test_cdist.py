"""cdist, pdist and dist against live torch, beyond the op database (tests/opinfo/cdist.py): the
switch to the matrix-product route past 25 rows and its graph, compute_mode strings, the double
backward errors of CdistBackward0 / PdistBackward0 (and the twice-differentiable product route),
gradients at zero distance, half precision, and pdist of an empty input.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from ops._grad_support import assert_grads_close
from ops.test_forward import assert_same_error, assert_same_tensor, call
from ops.test_graph_parity import compare_graphs

MM = "use_mm_for_euclid_dist"
NO_MM = "donot_use_mm_for_euclid_dist"
IF_NEEDED = "use_mm_for_euclid_dist_if_necessary"


def leaf(lib, arr, requires_grad=True):
    t = lib.from_numpy(np.array(arr, copy=True))
    return t.requires_grad_() if requires_grad else t


def raises_like_torch(fn):
    _, texc = call(fn, (torch,), {})
    assert texc is not None, "torch did not raise: the case is wrong"
    _, exc = call(fn, (dyngrad,), {})
    assert_same_error(exc, texc, "dyngrad vs torch")


def run_both(fn, arrays, where, tol=(1e-10, 1e-10)):
    """Call ``fn(lib, *leaves)`` on both libraries: same output, same graph, same gradients."""
    results = []
    for lib in (torch, dyngrad):
        leaves = [leaf(lib, a) for a in arrays]
        results.append((leaves, fn(lib, *leaves)))
    (tleaves, ty), (leaves, y) = results
    assert_same_tensor(y, ty, where)
    compare_graphs([y.grad_fn], [ty.grad_fn], leaves, tleaves, where)
    cot = np.random.default_rng(0).standard_normal(tuple(ty.shape))
    tg = torch.autograd.grad(ty, tleaves, leaf(torch, cot, False))
    g = dyngrad.autograd.grad(y, leaves, leaf(dyngrad, cot, False))
    assert_grads_close(g, tg, where, tol)
    return y, ty


# -- the 25-row switch -----------------------------------------------------------------------------
SWITCH = {
    "25 x 25": ((25, 3), (25, 3), {}),
    "26 x 3": ((26, 3), (3, 3), {}),
    "3 x 26": ((3, 3), (26, 3), {}),
    "25 x 26": ((25, 3), (26, 3), {}),
    "3 x 4 use_mm": ((3, 3), (4, 3), {"compute_mode": MM}),
    "30 x 4 donot_use_mm": ((30, 3), (4, 3), {"compute_mode": NO_MM}),
    "30 x 4 p=2 (int)": ((30, 3), (4, 3), {"p": 2}),
    "30 x 4 p=3": ((30, 3), (4, 3), {"p": 3.0}),
    "30 x 4 p=1": ((30, 3), (4, 3), {"p": 1.0}),
    "batched": ((2, 30, 3), (2, 3, 3), {}),
    "broadcast batch": ((2, 1, 30, 3), (5, 3, 3), {}),
    "one-element batch": ((1, 30, 3), (3, 3), {}),
    "one-element batches": ((1, 30, 3), (1, 3, 3), {}),
    "batched use_mm": ((2, 3, 3), (4, 3), {"compute_mode": MM}),
    "explicit default": ((26, 3), (4, 3), {"compute_mode": IF_NEEDED}),
}


@pytest.mark.parametrize("case", list(SWITCH))
def test_cdist_route_and_graph(case):
    """CdistBackward0, or ViewBackward0 over EuclideanDistBackward0 (with torch's expand /
    clone / view of batched inputs), as torch picks; same values and gradients."""
    s1, s2, kw = SWITCH[case]
    rng = np.random.default_rng(1)
    run_both(lambda lib, a, b: lib.cdist(a, b, **kw), [rng.standard_normal(s1),
                                                       rng.standard_normal(s2)], case)


def test_cdist_non_contiguous_batch_is_cloned():
    """A strided x2 in a batched product route: torch's ViewBackward0 over CloneBackward0 over
    ExpandBackward0 over SliceBackward0."""
    rng = np.random.default_rng(2)
    run_both(lambda lib, a, b: lib.cdist(a, b[:, :3]), [rng.standard_normal((2, 30, 5)),
                                                        rng.standard_normal((2, 30, 5))], "slice")


def test_cdist_product_route_float32():
    """The product route in float32 (rounding of the expansion) stays within float tolerance."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((40, 6)).astype("float32"), rng.standard_normal((7, 6))
    ty = torch.cdist(leaf(torch, a, False), leaf(torch, b.astype("float32"), False))
    y = dyngrad.cdist(leaf(dyngrad, a, False), leaf(dyngrad, b.astype("float32"), False))
    assert_same_tensor(y, ty, "float32 product route")


# -- compute_mode and argument errors ------------------------------------------------------------
@pytest.mark.parametrize("mode", ["foo", None, 1, "USE_MM_FOR_EUCLID_DIST", ""])
def test_cdist_compute_mode_errors(mode):
    raises_like_torch(lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(4, 2), compute_mode=mode))


ERRORS = {
    "x1 list": lambda lib: lib.cdist([[1.0, 2.0]], lib.ones(3, 2)),
    "x2 list": lambda lib: lib.cdist(lib.ones(3, 2), [[1.0, 2.0]]),
    "p None": lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(4, 2), None),
    "p complex": lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(4, 2), 2 + 0j),
    "p nan": lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(4, 2), float("nan")),
    "five arguments": lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(4, 2), 2.0, MM, 1),
    "half, kernel": lambda lib: lib.cdist(lib.ones(3, 2, dtype=lib.float16),
                                          lib.ones(4, 2, dtype=lib.float16)),
    "half and float, product": lambda lib: lib.cdist(lib.ones(30, 2, dtype=lib.float16),
                                                     lib.ones(4, 2)),
    "float and half, kernel": lambda lib: lib.cdist(lib.ones(3, 2), lib.ones(4, 2,
                                                                            dtype=lib.float16)),
    "bool": lambda lib: lib.cdist(lib.ones(3, 2, dtype=lib.bool), lib.ones(4, 2)),
    "pdist 1-d int": lambda lib: lib.pdist(lib.ones(3, dtype=lib.int64)),
    "pdist int, p < 0": lambda lib: lib.pdist(lib.ones(3, 3, dtype=lib.int64), -1),
    "pdist list": lambda lib: lib.pdist([[1.0, 2.0]]),
    "pdist p tensor": lambda lib: lib.pdist(lib.ones(3, 3), lib.ones(2)),
    "dist input str": lambda lib: lib.dist("a", lib.ones(3)),
    "dist p None": lambda lib: lib.dist(lib.ones(3), lib.ones(3), None),
    "dist p= None": lambda lib: lib.dist(lib.ones(3), lib.ones(3), p=None),
    "dist p= str": lambda lib: lib.dist(lib.ones(3), lib.ones(3), p="a"),
    "dist other= float": lambda lib: lib.dist(lib.ones(3), other=2.0),
    "dist input= float": lambda lib: lib.dist(input=2.0, other=lib.ones(3)),
    "dist other twice": lambda lib: lib.dist(lib.ones(3), lib.ones(3), other=lib.ones(3)),
    "dist missing other": lambda lib: lib.dist(lib.ones(3)),
    "dist four arguments": lambda lib: lib.dist(lib.ones(3), lib.ones(3), 2, 3),
    "dist unknown keyword": lambda lib: lib.dist(lib.ones(3), lib.ones(3), q=2),
    "Tensor.dist missing other": lambda lib: lib.ones(3).dist(),
    "Tensor.dist three arguments": lambda lib: lib.ones(3).dist(lib.ones(3), 2, 3),
    "Tensor.dist p= str": lambda lib: lib.ones(3).dist(lib.ones(3), p="a"),
    "pdist p= str": lambda lib: lib.pdist(lib.ones(3, 3), p="a"),
    "pdist input= list": lambda lib: lib.pdist(input=[1.0]),
    "pdist three arguments": lambda lib: lib.pdist(lib.ones(3, 3), 2, 3),
    "pdist missing input": lambda lib: lib.pdist(),
    "pdist unknown keyword": lambda lib: lib.pdist(lib.ones(3, 3), q=2),
    "dist p 1-d tensor": lambda lib: lib.dist(lib.ones(3), lib.ones(3), lib.ones(1)),
    "dist out=": lambda lib: lib.dist(lib.ones(3), lib.ones(3), out=lib.ones(())),
    "Tensor.dist number": lambda lib: lib.ones(3).dist(2.0),
    "Tensor.dist p str": lambda lib: lib.ones(3).dist(lib.ones(3), "a"),
    "Tensor.dist p None": lambda lib: lib.ones(3).dist(lib.ones(3), None),
    "dist ints, complex p": lambda lib: lib.dist(lib.ones(3, dtype=lib.int64),
                                                 lib.ones(3, dtype=lib.int64), 1j),
    "dist bool and bool": lambda lib: lib.dist(lib.ones(3, dtype=lib.bool),
                                               lib.ones(3, dtype=lib.bool)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    raises_like_torch(ERRORS[case])


MIXED = [((30, 3), (4, 3)), ((1, 30, 3), (4, 3)), ((30, 3), (1, 4, 3)), ((2, 30, 3), (4, 3)),
         ((2, 3, 3), (2, 5, 3)), ((2, 3, 3), (2, 30, 3)), ((2, 1, 3, 3), (3, 30, 3)),
         ((3, 3), (1, 5, 3)), ((3, 3), (5, 3))]


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"),
                                    ("float16", "float32")], ids=str)
@pytest.mark.parametrize("shapes", MIXED, ids=str)
def test_product_route_mixed_dtypes(shapes, dtypes):
    """The product's own messages: mm's, or bmm's (whose operand order flips at 400
    multiply-adds a batch)."""
    (s1, s2), (d1, d2) = shapes, dtypes
    raises_like_torch(lambda lib: lib.cdist(lib.ones(s1, dtype=getattr(lib, d1)),
                                            lib.ones(s2, dtype=getattr(lib, d2)),
                                            compute_mode=MM))


def test_number_arguments():
    """p as a bool or a 0-dim tensor, as torch's parser takes them."""
    for fn in (lambda lib, a, b: lib.dist(a, b, True),
               lambda lib, a, b: lib.dist(a, b, lib.tensor(3.0)),
               lambda lib, a, b: lib.cdist(a, b, lib.tensor(3.0)),
               lambda lib, a, b: lib.pdist(a, True)):
        rng = np.random.default_rng(4)
        args = [rng.standard_normal((3, 2)), rng.standard_normal((3, 2))]
        ty = fn(torch, *[leaf(torch, a, False) for a in args])
        y = fn(dyngrad, *[leaf(dyngrad, a, False) for a in args])
        assert_same_tensor(y, ty, "number argument")


# -- double backward ------------------------------------------------------------------------------
def _first_grads(lib, fn, arrays, cot):
    leaves = [leaf(lib, a) for a in arrays]
    y = fn(lib, *leaves)
    c = leaf(lib, cot)            # a cotangent that requires grad: its edges show in the graph
    return leaves, c, lib.autograd.grad(y, leaves, c, create_graph=True)


DOUBLE = {
    "cdist p=2": (lambda lib, a, b: lib.cdist(a, b), ((3, 2), (4, 2))),
    "cdist p=3": (lambda lib, a, b: lib.cdist(a, b, 3.0), ((3, 2), (4, 2))),
    "cdist p=1 batched": (lambda lib, a, b: lib.cdist(a, b, 1.0), ((2, 3, 2), (2, 4, 2))),
    "cdist p=0": (lambda lib, a, b: lib.cdist(a, b, 0.0), ((3, 2), (4, 2))),
    "pdist": (lambda lib, a: lib.pdist(a), ((4, 3),)),
    "pdist p=inf": (lambda lib, a: lib.pdist(a, float("inf")), ((4, 3),)),
}


@pytest.mark.parametrize("case", list(DOUBLE))
def test_double_backward_not_implemented(case):
    """The first gradients hang off CdistBackwardBackward0 / PdistBackwardBackward0 nodes (with
    torch's edges), and differentiating them raises torch's NotImplementedError."""
    fn, shapes = DOUBLE[case]
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in shapes]
    out_shape = tuple(fn(torch, *[leaf(torch, a, False) for a in arrays]).shape)
    cot = rng.standard_normal(out_shape)
    tleaves, tc, tg = _first_grads(torch, fn, arrays, cot)
    leaves, c, g = _first_grads(dyngrad, fn, arrays, cot)
    compare_graphs([x.grad_fn for x in g], [x.grad_fn for x in tg], leaves + [c],
                   tleaves + [tc], case)
    assert_grads_close(g, tg, case, (1e-10, 1e-10))
    for i in range(len(g)):
        _, texc = call(lambda lib, gs, ls: lib.autograd.grad(gs[i].sum(), ls),
                       (torch, tg, tleaves), {})
        _, exc = call(lambda lib, gs, ls: lib.autograd.grad(gs[i].sum(), ls),
                      (dyngrad, g, leaves), {})
        assert_same_error(exc, texc, f"{case}: second derivative of gradient {i}")


@pytest.mark.parametrize("kw", [{"compute_mode": MM}, {}], ids=["use_mm", "30 rows"])
def test_product_route_twice_differentiable(kw):
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal((30, 3)), rng.standard_normal((4, 3))]
    cot = rng.standard_normal((30, 4))
    second = rng.standard_normal((30, 3)), rng.standard_normal((4, 3))
    out = []
    for lib in (torch, dyngrad):
        leaves, c, g = _first_grads(lib, lambda lib, a, b: lib.cdist(a, b, **kw), arrays, cot)
        assert type(g[0].grad_fn).__name__ == "SubBackward0"
        out.append(lib.autograd.grad(g, leaves + [c], [leaf(lib, s, False) for s in second]))
    assert_grads_close(out[1], out[0], "second derivatives", (1e-9, 1e-9))


# -- gradients at zero distance -------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("op", ["cdist", "pdist", "dist"])
def test_zero_distance_gradients(op, p):
    """Equal rows and equal coordinates: torch's subgradients (0 where p = 2 and the general p
    divide by a zero distance; no NaN)."""
    x = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 0.0, 3.0], [4.0, 2.0, 0.0]])
    fns = {"cdist": lambda lib, a, b: lib.cdist(a, b, p),
           "pdist": lambda lib, a, b: lib.pdist(a, p),
           "dist": lambda lib, a, b: lib.dist(a[:1], b[1:2], p)}
    fn = fns[op]
    if op == "dist" and p == 0:
        raises_like_torch(lambda lib: lib.autograd.grad(
            fn(lib, leaf(lib, x), leaf(lib, x)), [leaf(lib, x)]))
        return
    tol = (1e-12, 1e-15)
    y, _ = run_both(fn, [x, x.copy()], f"{op} p={p}", tol) if op != "pdist" else run_both(
        lambda lib, a: lib.pdist(a, p), [x], f"pdist p={p}", tol)
    assert not np.isnan(y.detach().numpy()).any()


@pytest.mark.parametrize("mode", [MM, IF_NEEDED])
def test_zero_distance_product_route(mode):
    """Integer-valued inputs make the product route exact: distance 0, gradient 0 there."""
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (30, 3)).astype("float64")
    b = a[:5].copy()
    y, ty = run_both(lambda lib, x1, x2: lib.cdist(x1, x2, compute_mode=mode), [a, b],
                     "product route zeros", (1e-12, 1e-15))
    assert (ty.detach().numpy() == 0).sum() >= 5


# -- other forms ----------------------------------------------------------------------------------
def test_pdist_empty_rows():
    """pdist of a (0, m) input: an empty result (torch's backward of it crashes, so no grad)."""
    for shape in ((0, 3), (0, 0), (1, 0)):
        ty = torch.pdist(torch.ones(shape))
        y = dyngrad.pdist(dyngrad.ones(shape))
        assert_same_tensor(y, ty, f"pdist {shape}")


def test_cdist_half_product_route():
    """float16 runs only the product route in torch (its kernel has no half version)."""
    rng = np.random.default_rng(8)
    a = rng.uniform(-2, 2, (30, 3)).astype("float16")
    b = rng.uniform(-2, 2, (4, 3)).astype("float16")
    ty = torch.cdist(leaf(torch, a, False), leaf(torch, b, False))
    y = dyngrad.cdist(leaf(dyngrad, a, False), leaf(dyngrad, b, False))
    assert str(y.dtype) == str(ty.dtype) and tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.numpy().astype("float32"), ty.numpy().astype("float32"),
                               rtol=1e-2, atol=1e-2)


def test_functional_pdist_is_pdist():
    assert dyngrad.nn.functional.pdist is dyngrad.pdist
    assert not hasattr(dyngrad.Tensor, "cdist") and not hasattr(dyngrad.Tensor, "pdist")
    assert hasattr(dyngrad.Tensor, "dist")
