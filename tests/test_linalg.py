"""Linear algebra beyond the op database, against live torch.

The OpInfo entries (tests/opinfo/linalg*.py) cover values, layouts, dtypes and gradients on
well-conditioned inputs. Here: torch's errors for bad shapes, dtypes and singular inputs
(``linalg.LinAlgError``), results that are unique only up to signs (eigenvectors, singular
vectors: compared through invariant quantities, and gradients of sign-invariant losses), the
singular-matrix conventions of det/slogdet backward, lstsq's drivers, named-tuple reprs and the
graphs torch composes for einsum, tensordot, multi_dot and matrix_power.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import warn_always
from ops.test_graph_parity import compare_graphs


def call(fn, lib):
    try:
        return fn(lib), None
    except Exception as e:   # noqa: BLE001  (compared with torch's below)
        return None, e


def raises_like_torch(fn):
    """``fn(lib)`` raises the same exception type with the same text on both libraries."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, texc = call(fn, torch)
        assert texc is not None, "torch did not raise: the case is wrong"
        _, exc = call(fn, dyngrad)
    assert exc is not None, f"dyngrad did not raise; torch: {texc}"
    assert type(exc).__name__ == type(texc).__name__ and str(exc) == str(texc), \
        f"dyngrad {type(exc).__name__}({exc}), torch {type(texc).__name__}({texc})"


def tensor(lib, values, dtype="float64", requires_grad=False):
    t = lib.tensor(np.asarray(values).tolist(), dtype=getattr(lib, dtype))
    return t.requires_grad_() if requires_grad else t


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().copy()
    return np.array(t.detach()._data, copy=True)


def close(ours, theirs, rtol=1e-7, atol=1e-7):
    np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=rtol, atol=atol)


SINGULAR = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
SINGULAR2 = [[1.0, 2.0], [2.0, 4.0]]
# Singular in every LAPACK's arithmetic: a zero row stays zero through any elimination, so the
# determinant is exactly 0 whatever the order of the operations. (SINGULAR's is not: on an
# Intel Xeon, torch's MKL finds det -6.7e-16 for it, where NumPy's OpenBLAS finds 0, as torch
# did on the AMD EPYC of earlier runs; the gradients on either side of det == 0 differ by design.)
ZERO_ROW = [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [4.0, 5.0, 7.0]]


def eye_and_singular(lib):
    return lib.stack([lib.eye(2), tensor(lib, SINGULAR2, "float32")])


# -- errors ---------------------------------------------------------------------------------------
ERRORS = {
    # singular and non positive-definite inputs: torch.linalg.LinAlgError
    "inv singular": lambda lib: lib.linalg.inv(tensor(lib, SINGULAR)),
    "inv singular 2x2": lambda lib: lib.linalg.inv(tensor(lib, SINGULAR2, "float32")),
    "inv zeros": lambda lib: lib.linalg.inv(lib.zeros(3, 3)),
    "inv batch": lambda lib: lib.linalg.inv(eye_and_singular(lib)),
    "inv batch of one": lambda lib: lib.linalg.inv(tensor(lib, [SINGULAR2])),
    "inverse singular": lambda lib: lib.inverse(tensor(lib, SINGULAR)),
    "inv_ex check_errors": lambda lib: lib.linalg.inv_ex(tensor(lib, SINGULAR2),
                                                         check_errors=True),
    "matrix_power -1 singular": lambda lib: lib.linalg.matrix_power(tensor(lib, SINGULAR), -1),
    "solve singular": lambda lib: lib.linalg.solve(tensor(lib, SINGULAR), lib.ones(3,
                                                   dtype=lib.float64)),
    "solve batch singular": lambda lib: lib.linalg.solve(eye_and_singular(lib),
                                                         lib.ones(2, 2, 1)),
    "solve_ex check_errors": lambda lib: lib.linalg.solve_ex(tensor(lib, SINGULAR2),
                                                             lib.ones(2, dtype=lib.float64),
                                                             check_errors=True),
    "cholesky not pd": lambda lib: lib.linalg.cholesky(tensor(lib, [[1.0, 2.0], [2.0, 1.0]])),
    "cholesky upper not pd": lambda lib: lib.linalg.cholesky(
        tensor(lib, [[1.0, 2.0], [2.0, 1.0]]), upper=True),
    "cholesky -I": lambda lib: lib.linalg.cholesky(-lib.eye(3)),
    "cholesky batch": lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(2), -lib.eye(2)])),
    "cholesky_ex check_errors": lambda lib: lib.linalg.cholesky_ex(-lib.eye(2),
                                                                   check_errors=True),
    "svd of nan": lambda lib: lib.linalg.svd(lib.full((2, 2), float("nan"))),
    # shapes
    "inv not square": lambda lib: lib.linalg.inv(lib.ones(2, 3)),
    "inv 1-D": lambda lib: lib.linalg.inv(lib.ones(3)),
    "det not square": lambda lib: lib.linalg.det(lib.ones(2, 3)),
    "det 1-D": lambda lib: lib.det(lib.ones(3)),
    "slogdet not square": lambda lib: lib.linalg.slogdet(lib.ones(2, 3)),
    "logdet not square": lambda lib: lib.logdet(lib.ones(2, 3)),
    "solve shapes": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(4)),
    "solve shapes 2-D": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(4, 2)),
    "solve left=False vector": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3),
                                                            left=False),
    "solve 0-d B": lambda lib: lib.linalg.solve(lib.eye(3), lib.tensor(1.0)),
    "solve batch mismatch": lambda lib: lib.linalg.solve(lib.ones(2, 3, 3), lib.ones(4, 3, 1)),
    "cholesky not square": lambda lib: lib.linalg.cholesky(lib.ones(2, 3)),
    "eigh 1-D": lambda lib: lib.linalg.eigh(lib.ones(3)),
    "eigh UPLO": lambda lib: lib.linalg.eigh(lib.eye(2), UPLO="X"),
    "eigvalsh not square": lambda lib: lib.linalg.eigvalsh(lib.ones(2, 3)),
    "qr mode": lambda lib: lib.linalg.qr(lib.eye(2), mode="x"),
    "qr 1-D": lambda lib: lib.linalg.qr(lib.ones(2)),
    "svd 1-D": lambda lib: lib.linalg.svd(lib.ones(2)),
    "torch.svd 1-D": lambda lib: lib.svd(lib.ones(3)),
    "svdvals 1-D": lambda lib: lib.linalg.svdvals(lib.ones(3)),
    "svd driver": lambda lib: lib.linalg.svd(lib.eye(3), driver="gesvd"),
    "pinv 1-D": lambda lib: lib.linalg.pinv(lib.ones(2)),
    "lstsq shapes": lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(4, 2)),
    "lstsq 1-D A": lambda lib: lib.linalg.lstsq(lib.ones(3), lib.ones(3)),
    "lstsq 0-d B": lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.tensor(1.0)),
    "lstsq driver": lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 2), driver="x"),
    "lstsq batch": lambda lib: lib.linalg.lstsq(lib.ones(2, 4, 3), lib.ones(4, 2)),
    "matrix_rank 1-D": lambda lib: lib.linalg.matrix_rank(lib.ones(3)),
    "matrix_power not square": lambda lib: lib.linalg.matrix_power(lib.ones(2, 3), 2),
    "matrix_power 1-D": lambda lib: lib.linalg.matrix_power(lib.ones(2), 2),
    "solve_triangular 1-D": lambda lib: lib.linalg.solve_triangular(lib.ones(3),
                                                                    lib.ones(3, 1), upper=True),
    "solve_triangular shapes": lambda lib: lib.linalg.solve_triangular(lib.eye(3),
                                                                       lib.ones(2, 1),
                                                                       upper=True),
    "solve_triangular B 1-D": lambda lib: lib.linalg.solve_triangular(lib.eye(3), lib.ones(3),
                                                                      upper=True),
    "triangular_solve shapes": lambda lib: lib.triangular_solve(lib.ones(2, 1), lib.eye(3)),
    "triangular_solve 1-D": lambda lib: lib.triangular_solve(lib.ones(3), lib.eye(3)),
    "cholesky_solve shapes": lambda lib: lib.cholesky_solve(lib.ones(2, 1), lib.eye(3)),
    "cholesky_solve 1-D": lambda lib: lib.cholesky_solve(lib.ones(3), lib.eye(3)),
    "cross not 3": lambda lib: lib.linalg.cross(lib.ones(2), lib.ones(2)),
    "cross ranks": lambda lib: lib.linalg.cross(lib.ones(2, 1, 3), lib.ones(4, 3)),
    "cross broadcast": lambda lib: lib.linalg.cross(lib.ones(3, 3), lib.ones(2, 3)),
    "cross dim": lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(3), dim=2),
    "torch.cross no size 3": lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4)),
    "torch.cross sizes": lambda lib: lib.cross(lib.ones(3, 4), lib.ones(4, 3)),
    "trace 1-D": lambda lib: lib.trace(lib.ones(3)),
    "trace 3-D": lambda lib: lib.trace(lib.ones(2, 2, 2)),
    "tril 1-D": lambda lib: lib.tril(lib.ones(2)),
    "triu_ 1-D": lambda lib: lib.ones(2).triu_(),
    "diag 3-D": lambda lib: lib.diag(lib.ones(2, 2, 2)),
    "diag 0-d": lambda lib: lib.diag(lib.tensor(1.0)),
    "diag_embed 0-d": lambda lib: lib.diag_embed(lib.tensor(1.0)),
    "diag_embed dims": lambda lib: lib.diag_embed(lib.ones(2), dim1=0, dim2=0),
    # products
    "vdot sizes": lambda lib: lib.vdot(lib.ones(2), lib.ones(3)),
    "vdot 2-D": lambda lib: lib.vdot(lib.ones(2, 2), lib.ones(2)),
    "vdot dtypes": lambda lib: lib.vdot(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "outer 2-D": lambda lib: lib.outer(lib.ones(2, 2), lib.ones(2)),
    "outer vec2 2-D": lambda lib: lib.outer(lib.ones(2), lib.ones(2, 2)),
    "addmm mat1 1-D": lambda lib: lib.addmm(lib.ones(2, 2), lib.ones(2), lib.ones(2, 2)),
    "addmm shapes": lambda lib: lib.addmm(lib.ones(2, 2), lib.ones(2, 3), lib.ones(2, 2)),
    "addmm self": lambda lib: lib.addmm(lib.ones(3, 2), lib.ones(2, 2), lib.ones(2, 2)),
    "addmm self 3-D": lambda lib: lib.addmm(lib.ones(1, 2, 2), lib.ones(2, 2), lib.ones(2, 2)),
    "addmm dtypes": lambda lib: lib.addmm(lib.ones(2, 2), lib.ones(2, 2),
                                          lib.ones(2, 2, dtype=lib.float64)),
    "addmm mat1 dtype": lambda lib: lib.addmm(lib.ones(2, 2), lib.ones(2, 2, dtype=lib.float64),
                                              lib.ones(2, 2)),
    "addmm_ broadcast": lambda lib: lib.ones(2).addmm_(lib.ones(2, 2), lib.ones(2, 2)),
    "addmv shapes": lambda lib: lib.addmv(lib.ones(3), lib.ones(2, 2), lib.ones(2)),
    "addmv ranks": lambda lib: lib.addmv(lib.ones(2, 2), lib.ones(2, 2), lib.ones(2)),
    "addmv dtypes": lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 2),
                                          lib.ones(2, dtype=lib.float64)),
    "addmv_ broadcast": lambda lib: lib.ones(1).addmv_(lib.ones(2, 2), lib.ones(2)),
    "addr 2-D vec": lambda lib: lib.addr(lib.ones(2, 2), lib.ones(2, 2), lib.ones(2)),
    "addr self": lambda lib: lib.addr(lib.ones(3, 3), lib.ones(2), lib.ones(2)),
    "addr float alpha on ints": lambda lib: lib.addr(lib.ones(2, 2, dtype=lib.int64),
                                                     lib.ones(2, dtype=lib.int64),
                                                     lib.ones(2, dtype=lib.int64), alpha=1.5),
    "addr bool beta on floats": lambda lib: lib.addr(lib.ones(2, 2), lib.ones(2), lib.ones(2),
                                                     beta=True),
    "addr_ 1-D self": lambda lib: lib.ones(2).addr_(lib.ones(2), lib.ones(2)),
    "baddbmm 2-D": lambda lib: lib.baddbmm(lib.ones(2, 2, 2), lib.ones(2, 2), lib.ones(2, 2, 2)),
    "baddbmm batches": lambda lib: lib.baddbmm(lib.ones(2, 2, 2), lib.ones(2, 2, 2),
                                               lib.ones(3, 2, 2)),
    "baddbmm dtypes": lambda lib: lib.baddbmm(lib.ones(2, 2, 2), lib.ones(2, 2, 2),
                                              lib.ones(2, 2, 2, dtype=lib.float64)),
    "baddbmm self dtype": lambda lib: lib.baddbmm(lib.ones(2, 2, 2, dtype=lib.float64),
                                                  lib.ones(2, 2, 2), lib.ones(2, 2, 2)),
    "addbmm batches": lambda lib: lib.addbmm(lib.ones(2, 2), lib.ones(2, 2, 2),
                                             lib.ones(3, 2, 2)),
    "addbmm inner": lambda lib: lib.addbmm(lib.ones(2, 2), lib.ones(2, 2, 3), lib.ones(2, 2, 2)),
    "einsum no operand": lambda lib: lib.einsum("i"),
    "einsum sizes": lambda lib: lib.einsum("ij,jk", lib.ones(2, 3), lib.ones(4, 4)),
    "einsum rank": lambda lib: lib.einsum("ij", lib.ones(2, 3, 4)),
    "einsum rank with ellipsis": lambda lib: lib.einsum("...ijk", lib.ones(2, 3)),
    "einsum fewer operands": lambda lib: lib.einsum("ij,jk", lib.ones(2, 3)),
    "einsum more operands": lambda lib: lib.einsum("i", lib.ones(2), lib.ones(2)),
    "einsum output twice": lambda lib: lib.einsum("ij->ii", lib.ones(2, 2)),
    "einsum unknown output": lambda lib: lib.einsum("ij->k", lib.ones(2, 3)),
    "einsum diagonal sizes": lambda lib: lib.einsum("ii", lib.ones(2, 3)),
    "einsum bad character": lambda lib: lib.einsum("i1", lib.ones(2, 2)),
    "einsum bad output character": lambda lib: lib.einsum("ij->i1", lib.ones(2, 2)),
    "einsum lone dot": lambda lib: lib.einsum("i.j", lib.ones(2, 2)),
    "einsum two ellipses": lambda lib: lib.einsum("......", lib.ones(2, 2)),
    "einsum output dots": lambda lib: lib.einsum("i->.", lib.ones(2)),
    "einsum ellipsis sizes": lambda lib: lib.einsum("...ij,...jk", lib.ones(5, 2, 3),
                                                    lib.ones(4, 3, 4)),
    "einsum dtypes": lambda lib: lib.einsum("ij,jk", lib.ones(2, 3),
                                            lib.ones(3, 4, dtype=lib.float64)),
    "einsum sublist range": lambda lib: lib.einsum(lib.ones(2), [60]),
    "tensordot dims < 0": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), dims=-1),
    "tensordot dims too large": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), dims=3),
    "tensordot dtypes": lambda lib: lib.tensordot(lib.ones(2, 3),
                                                  lib.ones(3, 4, dtype=lib.float64), dims=1),
    "tensordot lengths": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 4),
                                                   dims=([1], [0, 1])),
    "tensordot sizes": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(4, 3), dims=1),
    "tensordot dims type": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), dims="a"),
    "kron non-contiguous": lambda lib: lib.kron(lib.ones(3, 2).t(), lib.ones(2, 2)),
    "multi_dot one": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3)]),
    "multi_dot shapes": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 3)]),
    "multi_dot first 3-D": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3, 3), lib.ones(3, 3)]),
    "multi_dot last 3-D": lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, 2)]),
    "multi_dot middle 1-D": lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2),
                                                              lib.ones(2, 2)]),
    "multi_dot dtypes": lambda lib: lib.linalg.multi_dot([lib.ones(2, 2),
                                                          lib.ones(2, 2, dtype=lib.float64)]),
    "vecdot integers": lambda lib: lib.linalg.vecdot(lib.ones(3, dtype=lib.int64),
                                                     lib.ones(3, dtype=lib.int64)),
    "vecdot dtypes": lambda lib: lib.linalg.vecdot(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "vecdot sizes": lambda lib: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(4)),
    # out= with inputs that require grad
    "inv out=": lambda lib: lib.linalg.inv(lib.eye(3, requires_grad=True), out=lib.empty(0)),
    "solve out=": lambda lib: lib.linalg.solve(lib.eye(3, requires_grad=True), lib.ones(3),
                                               out=lib.empty(0)),
    "det out=": lambda lib: lib.linalg.det(lib.eye(3, requires_grad=True), out=lib.empty(0)),
    "svdvals out=": lambda lib: lib.linalg.svdvals(lib.eye(3, requires_grad=True),
                                                   out=lib.empty(0)),
    "kron out=": lambda lib: lib.kron(lib.eye(2, requires_grad=True), lib.eye(2),
                                      out=lib.empty(0)),
    "matrix_power out=": lambda lib: lib.linalg.matrix_power(lib.eye(2, requires_grad=True), 3,
                                                             out=lib.empty(0)),
    "multi_dot out=": lambda lib: lib.linalg.multi_dot([lib.eye(2, requires_grad=True),
                                                        lib.eye(2)], out=lib.empty(0)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_error_like_torch(case):
    raises_like_torch(ERRORS[case])


def test_linalg_error_is_a_runtime_error():
    with pytest.raises(dyngrad.linalg.LinAlgError) as info:
        dyngrad.linalg.inv(dyngrad.zeros(2, 2))
    assert isinstance(info.value, RuntimeError)
    assert type(info.value).__name__ == type(torch.linalg.LinAlgError("")).__name__


@pytest.mark.parametrize("call", [
    lambda lib: lib.ger(lib.ones(2), lib.ones(3)),
    lambda lib: lib.ones(2).ger(lib.ones(3)),
    lambda lib: lib.ger(lib.ones(2), lib.ones(3), out=lib.empty(2, 3)),
], ids=["function", "method", "out"])
def test_ger_warns_like_torch(call):
    """torch's ger warns of its deprecation only with out=, and every time."""
    texts = []
    for lib in (torch, dyngrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(lib)
            call(lib)
        texts.append([(str(w.message), w.filename) for w in caught])
    assert texts[1] == texts[0]


def test_deprecation_warnings():
    with warn_always(dyngrad), pytest.warns(UserWarning, match="Using torch.cross without "
                                            "specifying the dim"):   # (once per process)
        dyngrad.cross(dyngrad.ones(3, 4), dyngrad.ones(3, 4))


# -- the *_ex variants: info and what LAPACK leaves for singular inputs --------------------------
def test_ex_variants_report_info_like_torch():
    for fn in (lambda lib: lib.linalg.inv_ex(tensor(lib, SINGULAR2)).info,
               lambda lib: lib.linalg.inv_ex(lib.stack([lib.eye(2), tensor(lib, SINGULAR2,
                                                                          "float32")])).info,
               lambda lib: lib.linalg.solve_ex(tensor(lib, SINGULAR2),
                                               lib.ones(2, dtype=lib.float64)),
               lambda lib: lib.linalg.cholesky_ex(tensor(lib, [[1.0, 2.0], [2.0, 1.0]])),
               lambda lib: lib.linalg.cholesky_ex(tensor(lib, [[4.0, 2.0], [2.0, 1.0]]),
                                                  upper=True),
               lambda lib: lib.linalg.solve_triangular(tensor(lib, [[2.0, 5.0], [0.0, 0.0]]),
                                                       lib.ones(2, 1, dtype=lib.float64),
                                                       upper=True)):
        ours, theirs = fn(dyngrad), fn(torch)
        for o, t in zip(ours if isinstance(ours, tuple) else (ours,),
                        theirs if isinstance(theirs, tuple) else (theirs,)):
            assert str(o.dtype) == str(t.dtype) and tuple(o.shape) == tuple(t.shape)
            np.testing.assert_array_equal(to_np(o), to_np(t))


# -- eigenvectors and singular vectors: invariants and sign-invariant losses ----------------------
def _symmetric(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (a + np.swapaxes(a, -1, -2)) / 2


def _aligned(v):
    """Columns with the sign that makes their largest entry positive."""
    v = to_np(v)
    idx = np.abs(v).argmax(-2)[..., None, :]
    return v * np.sign(np.take_along_axis(v, idx, -2))


@pytest.mark.parametrize("shape", [(3, 3), (4, 4), (6, 6), (2, 5, 5)])
def test_eigh_up_to_signs(shape):
    a = _symmetric(shape, sum(shape))
    for uplo in ("L", "U"):
        (w, v), (tw, tv) = (lib.linalg.eigh(tensor(lib, a), uplo) for lib in (dyngrad, torch))
        close(w, tw, 1e-10, 1e-10)
        np.testing.assert_allclose(_aligned(v), _aligned(tv), atol=1e-10)
        assert v.stride() == tv.stride()


@pytest.mark.parametrize("shape", [(4, 3), (2, 4, 3), (3, 5), (6, 6)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_up_to_signs(shape, full_matrices):
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    (u, s, vh), (tu, ts, tvh) = (lib.linalg.svd(tensor(lib, a), full_matrices)
                                 for lib in (dyngrad, torch))
    close(s, ts, 1e-10, 1e-10)
    k = s.shape[-1]
    np.testing.assert_allclose(_aligned(u)[..., :k], _aligned(tu)[..., :k], atol=1e-10)
    rebuilt = (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :]
    close(rebuilt, tensor(torch, a), 1e-10, 1e-10)
    for o, t in ((u, tu), (s, ts), (vh, tvh)):
        assert tuple(o.shape) == tuple(t.shape) and o.stride() == t.stride()


def _grads(lib, a, loss, create_graph=False):
    x = tensor(lib, a, requires_grad=True)
    g, = lib.autograd.grad(loss(lib, x), x, create_graph=create_graph)
    if not create_graph:
        return g
    return lib.autograd.grad((g * g).sum(), x)[0]


def _eigh_loss(lib, x):
    """Depends on the eigenvectors only through the projectors v v^T (sign-invariant)."""
    w, v = lib.linalg.eigh(x)
    n = x.shape[-1]
    weights = lib.arange(1, n + 1, dtype=lib.float64)
    b = lib.arange(n * n, dtype=lib.float64).reshape(n, n) / n ** 2
    return (w * weights).sum() + ((v * (b @ v)).sum(-2) * weights).sum()


def _svd_loss(lib, x):
    u, s, vh = lib.linalg.svd(x, full_matrices=False)
    k = s.shape[-1]
    c = lib.arange(1, k + 1, dtype=lib.float64)
    m, n = x.shape[-2:]
    wu = lib.arange(m * k, dtype=lib.float64).reshape(m, k) / (m * k)
    wv = lib.arange(k * n, dtype=lib.float64).reshape(k, n) / (k * n)
    return (s * c).sum() + (u * u * wu).sum() + (vh * vh * wv).sum() \
        + ((u * c) @ vh).sin().sum()


@pytest.mark.parametrize("shape", [(3, 3), (5, 5), (2, 4, 4)])
def test_eigh_gradient_of_sign_invariant_loss(shape):
    a = _symmetric(shape, 7 + sum(shape))
    close(_grads(dyngrad, a, _eigh_loss), _grads(torch, a, _eigh_loss), 1e-8, 1e-9)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 3), (4, 4)])
def test_svd_gradient_of_sign_invariant_loss(shape):
    a = np.random.default_rng(3 + sum(shape)).standard_normal(shape)
    close(_grads(dyngrad, a, _svd_loss), _grads(torch, a, _svd_loss), 1e-8, 1e-9)


def test_second_derivatives_of_sign_invariant_losses():
    a = _symmetric((3, 3), 11)
    close(_grads(dyngrad, a, _eigh_loss, True), _grads(torch, a, _eigh_loss, True), 1e-7, 1e-8)
    b = np.random.default_rng(12).standard_normal((4, 3))
    close(_grads(dyngrad, b, _svd_loss, True), _grads(torch, b, _svd_loss, True), 1e-7, 1e-8)


def test_torch_svd_returns_v_and_zeros_without_uv():
    a = np.random.default_rng(5).standard_normal((5, 3))
    for kwargs in ({}, {"some": False}, {"compute_uv": False}):
        (u, s, v), (tu, ts, tv) = (lib.svd(tensor(lib, a), **kwargs) for lib in (dyngrad, torch))
        close(s, ts, 1e-10, 1e-10)
        for o, t in ((u, tu), (v, tv)):
            assert tuple(o.shape) == tuple(t.shape) and o.stride() == t.stride()
        if kwargs.get("compute_uv", True):
            k = s.shape[-1]
            close((u[:, :k] * s) @ v.mT, tensor(torch, a), 1e-10, 1e-10)
        else:
            assert not to_np(u).any() and not to_np(v).any()


# -- det, slogdet and logdet at singular matrices ------------------------------------------------
@pytest.mark.parametrize("matrix", [ZERO_ROW, SINGULAR2, [[0.0, 0.0], [0.0, 0.0]]])
def test_det_gradients_at_singular_matrices(matrix):
    """Without create_graph: grad * det * A^{-H}, zero at det = 0; with it: the adjugate."""
    def first(lib):
        x = tensor(lib, matrix, requires_grad=True)
        return lib.autograd.grad(lib.linalg.det(x), x)[0]

    def with_graph(lib):
        x = tensor(lib, matrix, requires_grad=True)
        g, = lib.autograd.grad(lib.linalg.det(x), x, create_graph=True)
        return g, lib.autograd.grad((g * lib.arange(1.0, g.numel() + 1, dtype=lib.float64)
                                     .reshape(g.shape)).sum(), x)[0]
    close(first(dyngrad), first(torch))
    (g, gg), (tg, tgg) = with_graph(dyngrad), with_graph(torch)
    close(g, tg, 1e-9, 1e-9)
    close(gg, tgg, 1e-9, 1e-9)


def test_slogdet_gradient_at_a_singular_matrix_is_torchs_infinities():
    for matrix in (ZERO_ROW, SINGULAR2):   # (NaN for the first, infinities for the second)
        def grad(lib):
            x = tensor(lib, matrix, requires_grad=True)
            return lib.autograd.grad(lib.linalg.slogdet(x).logabsdet, x)[0]
        np.testing.assert_allclose(to_np(grad(dyngrad)), to_np(grad(torch)), rtol=1e-12)


def test_determinants_of_large_and_tiny_scales():
    for scale in (1e3, -1e3, 1e-3):
        for n in (3, 60):
            def run(lib):
                a = lib.eye(n, dtype=lib.float64) * scale
                return lib.linalg.det(a), lib.linalg.slogdet(a), lib.logdet(a)
            (d, (s, l), ld), (td, (ts, tl), tld) = run(dyngrad), run(torch)
            close(d, td, 1e-12, 0)
            close(s, ts)
            close(l, tl, 1e-12, 0)
            close(ld, tld, 1e-12, 0)


# -- lstsq drivers -------------------------------------------------------------------------------
@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((5, 3), (5,)), ((2, 5, 3), (2, 5, 2)),
                                    ((3, 5), (3, 2))])
def test_lstsq_outputs_per_driver(driver, shapes):
    rng = np.random.default_rng(len(shapes[1]))
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    ours = dyngrad.linalg.lstsq(tensor(dyngrad, a), tensor(dyngrad, b), driver=driver)
    theirs = torch.linalg.lstsq(tensor(torch, a), tensor(torch, b), driver=driver)
    for name in ("solution", "residuals", "rank", "singular_values"):
        o, t = getattr(ours, name), getattr(theirs, name)
        assert str(o.dtype) == str(t.dtype) and tuple(o.shape) == tuple(t.shape), name
        assert o.stride() == t.stride(), name
        if name != "solution" or shapes[0][-2] >= shapes[0][-1] or driver != "gels":
            close(o, t, 1e-9, 1e-9)


def test_lstsq_of_a_rank_deficient_matrix_is_the_minimum_norm_solution():
    a = np.ones((4, 3))
    b = np.arange(8.0).reshape(4, 2)
    for driver in ("gelsy", "gelsd"):
        ours = dyngrad.linalg.lstsq(tensor(dyngrad, a), tensor(dyngrad, b), driver=driver)
        theirs = torch.linalg.lstsq(tensor(torch, a), tensor(torch, b), driver=driver)
        close(ours.solution, theirs.solution, 1e-9, 1e-9)
        assert ours.rank.item() == theirs.rank.item() == 1


# -- reprs of the named tuples -------------------------------------------------------------------
REPRS = {
    "linalg.slogdet": lambda lib, a: lib.linalg.slogdet(a),
    "slogdet": lambda lib, a: lib.slogdet(a),
    "linalg.qr": lambda lib, a: lib.linalg.qr(a),
    "qr": lambda lib, a: lib.qr(a),
    "linalg.svd": lambda lib, a: lib.linalg.svd(a),
    "svd": lambda lib, a: lib.svd(a),
    "linalg.eigh": lambda lib, a: lib.linalg.eigh(a + a.mT),
    "linalg.inv_ex": lambda lib, a: lib.linalg.inv_ex(a),
    "linalg.cholesky_ex": lambda lib, a: lib.linalg.cholesky_ex(a @ a.mT + lib.eye(2)),
    "linalg.solve_ex": lambda lib, a: lib.linalg.solve_ex(a, a[0]),
    "linalg.lstsq": lambda lib, a: lib.linalg.lstsq(a.triu() * a.triu().mT, a, driver="gelsd"),
    "triangular_solve": lambda lib, a: lib.triangular_solve(a, a.triu()),
}


@pytest.mark.parametrize("name", list(REPRS))
def test_named_tuple_reprs(name):
    a = [[2.0, -1.0], [0.5, 3.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = REPRS[name](dyngrad, tensor(dyngrad, a, "float32"))
        theirs = REPRS[name](torch, tensor(torch, a, "float32"))
    assert repr(ours) == repr(theirs)
    assert type(ours).__name__ == type(theirs).__name__


# -- graphs torch composes -------------------------------------------------------------------------
def _graph_case(fn, *shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]

    def run(lib):
        leaves = [tensor(lib, a, requires_grad=True) for a in arrays]
        return leaves, fn(lib, *leaves)
    (leaves, out), (tleaves, tout) = run(dyngrad), run(torch)
    close(out, tout, 1e-10, 1e-10)
    assert out.stride() == tout.stride()
    compare_graphs([out.grad_fn], [tout.grad_fn], leaves, tleaves, "graph")
    g = dyngrad.autograd.grad(out.sum(), leaves)
    tg = torch.autograd.grad(tout.sum(), tleaves)
    for o, t in zip(g, tg):
        close(o, t, 1e-10, 1e-10)


EINSUM_GRAPHS = [("ij,jk->ki", (2, 3), (3, 4)), ("ij,jk->ik", (2, 3), (3, 4)),
                 ("bij,bkj->bik", (2, 3, 4), (2, 5, 4)), ("ij,kj->", (2, 3), (4, 3)),
                 ("i,i->", (3,), (3,)), ("ijk,jil->kl", (2, 3, 4), (3, 2, 5)),
                 ("ab,bc,cd,de->ae", (2, 3), (3, 4), (4, 5), (5, 2)), ("iij->ji", (3, 3, 2)),
                 ("ij,j->i", (2, 3), (3,)), ("...i,...i->...", (2, 1, 3), (1, 4, 3)),
                 ("bhqd,bhkd->bhqk", (2, 2, 3, 4), (2, 2, 5, 4)), ("ii,i->i", (3, 3), (3,)),
                 ("ik,kj,ji->", (2, 3), (3, 4), (4, 2)), ("ji", (2, 3))]


@pytest.mark.parametrize("case", EINSUM_GRAPHS, ids=lambda c: c[0] if isinstance(c, tuple) else c)
def test_einsum_graph_like_torch(case):
    eq, *shapes = case
    _graph_case(lambda lib, *ts: lib.einsum(eq, *ts), *shapes)


@pytest.mark.parametrize("dims,shapes", [(2, ((2, 3, 4), (3, 4, 5))), (0, ((2,), (3,))),
                                         (([0, 2], [2, 0]), ((4, 3, 2), (2, 5, 4)))])
def test_tensordot_graph_like_torch(dims, shapes):
    _graph_case(lambda lib, a, b: lib.tensordot(a, b, dims=dims), *shapes)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3, 4), (4, 2), (2,)),
                                    ((5, 2), (2, 6), (6, 3), (3, 4), (4, 1))])
def test_multi_dot_graph_like_torch(shapes):
    _graph_case(lambda lib, *ts: lib.linalg.multi_dot(ts), *shapes)


@pytest.mark.parametrize("n", [-3, -2, -1, 0, 1, 2, 3, 5, 6, 7, 8])
def test_matrix_power_graph_like_torch(n):
    def fn(lib, a):
        return lib.linalg.matrix_power(a / 3 + lib.eye(3, dtype=lib.float64), n)
    _graph_case(fn, (3, 3))


def test_kron_outer_vecdot_graphs_like_torch():
    _graph_case(lambda lib, a, b: lib.kron(a, b), (2, 3), (3, 2))
    _graph_case(lambda lib, a, b: lib.outer(a, b), (2,), (3,))
    _graph_case(lambda lib, a, b: lib.linalg.vecdot(a, b), (2, 3), (3,))
    _graph_case(lambda lib, a: lib.diagflat(a.t()), (2, 3))
    _graph_case(lambda lib, a: lib.logdet(a @ a.mT + lib.eye(3, dtype=lib.float64)), (3, 3))


def _permuted(lib, arr, perm):
    """`arr` laid out in memory in the order `perm` gives, then permuted back to its shape."""
    return lib.tensor(np.ascontiguousarray(arr.transpose(np.argsort(perm)))).permute(*perm)


@pytest.mark.parametrize("shapes", [((3, 1, 2), (2, 2, 1)), ((3, 1, 3), (1, 7, 3)),
                                    ((2, 1, 1, 3), (1, 3)), ((1, 3), (2, 1))])
def test_kron_of_permuted_inputs_like_torch(shapes):
    """kron views its inputs with _unsafe_view: strides as torch's computeStride gives size-1
    dims (NumPy's reshape gives its own), so the product's layout, and whether torch's view
    error is raised, follow torch in every memory order of both inputs."""
    import itertools
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    for pa in itertools.permutations(range(a.ndim)):
        for pb in itertools.permutations(range(b.ndim)):
            try:
                want = torch.kron(_permuted(torch, a, pa), _permuted(torch, b, pb))
            except RuntimeError as e:
                with pytest.raises(RuntimeError, match=re.escape(str(e))):
                    dyngrad.kron(_permuted(dyngrad, a, pa), _permuted(dyngrad, b, pb))
                continue
            got = dyngrad.kron(_permuted(dyngrad, a, pa), _permuted(dyngrad, b, pb))
            assert got.stride() == want.stride(), (pa, pb)
            np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows", [1, 8, 64, 65])
def test_a_few_rows_times_a_transposed_matrix(rows, dtype):
    """x @ W.t() with few rows takes the transposed BLAS product (ops/linalg.py _product):
    torch's values, strides and gradients on both sides of the 64-row switch."""
    rng = np.random.default_rng(rows)
    x0 = rng.standard_normal((rows, 300)).astype(dtype)
    w0 = rng.standard_normal((40, 300)).astype(dtype)
    b0 = rng.standard_normal(40).astype(dtype)
    rtol, atol = (1e-4, 1e-3) if dtype == "float32" else (1e-12, 1e-11)   # (sums of 300)
    out = {}
    for lib in (dyngrad, torch):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in (x0, w0, b0))
        y = lib.nn.functional.linear(x, w, b)
        z = x.mm(w.t())
        (y.sum() + (z * z).sum()).backward()
        out[lib] = (y, z, x.grad, w.grad, b.grad)
    for ours, theirs in zip(out[dyngrad], out[torch]):
        assert ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                                   atol=atol)


@pytest.mark.parametrize("shapes", [((2, 3, 5), (2, 5, 4)), ((2, 10, 5), (2, 5, 7)),
                                    ((2, 10, 5), (2, 5, 8)), ((1, 20, 20), (1, 20, 1))])
def test_bmm_mixed_dtypes_message_like_torch(shapes):
    """torch's naive bmm kernel (< 400 multiply-adds a batch) and its BLAS path name the two
    dtypes in opposite orders."""
    sa, sb = shapes
    with pytest.raises(RuntimeError) as want:
        torch.bmm(torch.ones(*sa), torch.ones(*sb, dtype=torch.float64))
    with pytest.raises(RuntimeError, match=re.escape(str(want.value))):
        dyngrad.bmm(dyngrad.ones(*sa), dyngrad.ones(*sb, dtype=dyngrad.float64))
