"""Edge inputs that a sweep of torch's OpInfo sample inputs found handled otherwise than by
torch: an empty batch through batch norm, a 0-dim template for ``resize_as_``, empty matrices
for ``matrix_rank`` and ``cond``, layer norm over every dim, a transposed convolution whose
output padding reaches a stride, integer average pooling with a negative divisor."""
from __future__ import annotations

import pytest

from tests.compare import like_torch, same_outcome


def _ramp(L, *shape, requires_grad=True):
    """Distinct float64 values of this shape (a smooth function of the position)."""
    n = 1
    for s in shape:
        n *= s
    t = L.arange(1.0, n + 1.0, dtype=L.float64).reshape(shape).sin()
    return t.requires_grad_() if requires_grad else t


# -- batch norm of an empty batch: a copy, the running statistics untouched ------------------
@pytest.mark.parametrize("case", ["plain", "affine", "weight only", "wrong stats", "eval no stats",
                                  "transposed", "1-d"])
def test_batch_norm_of_an_empty_batch(case):
    def run(L):
        shape = (0,) if case == "1-d" else (0, 3)
        x = L.zeros(shape, dtype=L.float64, requires_grad=True)
        if case == "transposed":
            x = L.zeros(0, 3, 2, dtype=L.float64, requires_grad=True).transpose(1, 2)
        c = 0 if case == "1-d" else 2 if case == "transposed" else 3
        stats = (None, None) if case == "eval no stats" else \
            (L.zeros(5, dtype=L.float64), L.ones(5, dtype=L.float64)) if case == "wrong stats" \
            else (L.zeros(c, dtype=L.float64), L.ones(c, dtype=L.float64))
        w = L.full((c,), 2.0, dtype=L.float64, requires_grad=True) \
            if case in ("affine", "weight only") else None
        b = L.full((c,), 5.0, dtype=L.float64, requires_grad=True) if case == "affine" else None
        y = L.nn.functional.batch_norm(x, *stats, w, b, training=case != "eval no stats")
        return y, stats
    same_outcome(run)


def test_batch_norm_module_keeps_its_statistics_over_an_empty_batch():
    def run(L):
        m = L.nn.BatchNorm1d(3)
        m(L.zeros(4, 3).add(L.arange(3.0)))
        out = m(L.zeros(0, 3))
        return out, m.running_mean, m.running_var, m.num_batches_tracked
    same_outcome(run)


# -- shapes that are empty tuples --------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "L.ones(3).resize_as_(L.tensor(2.0))", "L.tensor(1.0).resize_as_(L.tensor(2.0))",
    "L.ones(6).resize_as_(L.ones(2, 2))",
    "L.linalg.matrix_rank(L.zeros(0, 0))", "L.linalg.matrix_rank(L.zeros(0, 3))",
    "L.linalg.matrix_rank(L.zeros(2, 3, 0))", "L.linalg.matrix_rank(L.zeros(0, 0), hermitian=True)",
    "L.linalg.cond(L.zeros(0, 0))", "L.linalg.cond(L.zeros(2, 0, 0))",
    "L.linalg.tensorsolve(L.eye(6).reshape(2, 3, 6), L.ones(2, 3))",
])
def test_empty_shapes(expr):
    same_outcome(lambda L: eval(expr, {"L": L}))


# -- gradients ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,normalized", [((1, 2, 3), (1, 2, 3)), ((1,), (1,)), ((3,), (3,)),
                                              ((2, 3), (3,)), ((2, 1), (1,))])
def test_layer_norm_gradients_over_every_dim(shape, normalized):
    """With no leading dims, the weight's and bias's gradients are the summands themselves
    (summing over an empty dim list would sum everything)."""
    def run(L):
        x = _ramp(L, *shape)
        w = L.full(normalized, 1.5, dtype=L.float64, requires_grad=True)
        b = L.full(normalized, 0.5, dtype=L.float64, requires_grad=True)
        y = L.nn.functional.layer_norm(x, normalized, w, b, eps=0.5)
        return L.autograd.grad((y * y).sum(), [x, w, b]) + L.autograd.grad(y.sum(), [w, b])
    like_torch(run, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kw", [
    dict(stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2, dilation=(4, 4)),
    dict(stride=2, output_padding=1, dilation=3),
    dict(stride=(3, 2), padding=(1, 2), output_padding=(2, 1)),
])
def test_conv_transpose_gradients_with_a_large_output_padding(kw):
    """An output padding of a stride or more (a larger dilation allows it) adds output
    positions no input reaches: the input's gradient keeps the input's size."""
    def run(L):
        groups = kw.get("groups", 1)
        x = _ramp(L, 2, 2, 4, 4)
        w = _ramp(L, 2, 2 // groups, 3, 4)
        b = L.ones(2 // groups * groups, dtype=L.float64, requires_grad=True)
        y = L.nn.functional.conv_transpose2d(x, w, b, **kw)
        return (y,) + L.autograd.grad((y * y).sum(), [x, w, b])
    like_torch(run, rtol=1e-10, atol=1e-10)


# -- integer average pooling divides as C++ does -----------------------------------------------
@pytest.mark.parametrize("divisor", [None, 3, -2, -3])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_integer_avg_pool_truncates_toward_zero(divisor, nd):
    def run(L):
        x = L.tensor([[3, -7, 5, 2], [-9, 4, 1, 8], [6, -5, 7, -3], [2, 9, -1, 4]])
        F = L.nn.functional
        if nd == 1:
            return F.avg_pool1d(x[None], 2)
        if nd == 2:
            return F.avg_pool2d(x[None, None], 2, divisor_override=divisor)
        return F.avg_pool3d(x[None, None, None], (1, 2, 2), divisor_override=divisor)
    same_outcome(run)


# -- checks of torch's Python layer (ModuleInfo's error inputs) ---------------------------------
@pytest.mark.parametrize("expr", [
    "L.nn.BatchNorm1d(3, eps=-1)(x)", "L.nn.BatchNorm1d(3, eps=0)(x)",
    "L.nn.BatchNorm1d(3, eps=-1).eval()(x)", "F.batch_norm(x, None, None, training=True, eps=0)",
    "F.batch_norm(x, L.zeros(3), L.ones(3), training=False, eps=0.0).shape",
    "L.batch_norm(x, None, None, None, None, True, 0.1, -1.0, False).shape",
    "F.cross_entropy(x, x.softmax(1), ignore_index=1)",
    "F.cross_entropy(x, x.softmax(1), ignore_index=0)",
    "F.cross_entropy(x, x.softmax(1), ignore_index=-5).shape",
    "L.nn.CrossEntropyLoss(ignore_index=2)(x, x.softmax(1))",
    "F.cross_entropy(x, L.tensor([0, 1, 2, 1]), ignore_index=1).shape",
])
def test_python_layer_checks(expr):
    """Each raises torch's error, or (``.shape``) runs as in torch."""
    def run(L):
        x = L.arange(12.0).reshape(4, 3).sin()
        return eval(expr, {"L": L, "F": L.nn.functional, "x": x})
    same_outcome(run)


# -- error inputs of torch's OpInfos: the error and its words, as torch's ----------------------
_CONV = {3: "F.conv1d", 4: "F.conv2d", 5: "F.conv3d"}
CONV_ERRORS = [
    f"{_CONV[len(xs)]}(L.ones{xs}{cast_x}, L.ones{ws}{cast_w}{bias})"
    for xs, ws in [((1, 2, 4, 4), (3, 2, 3, 3)), ((8, 16, 12, 12), (32, 16, 3, 3)),
                   ((1, 2, 4), (3, 2, 3)), ((2, 4, 5, 5, 5), (4, 4, 3, 3, 3)),
                   ((1, 2, 9, 9), (3, 2, 5, 5)), ((1, 2, 4, 4), (3, 2, 1, 1))]
    for cast_x, cast_w, bias in [("", ".double()", ""), ("", "", f", L.ones({ws[0]}).double()"),
                                 (".double()", "", ""), (".bfloat16()", "", ""),
                                 (".long()", ".long()", f", L.ones({ws[0]})")]
] + [
    f"F.conv2d(L.ones({n}, 2, 6, 6), L.ones(3, 2, 3, 3), dilation={d})"
    for n in (1, 4) for d in (0, (0, 1), (2, 0), (1, -1))
] + [
    f"F.conv_transpose{k}d(L.ones(1, 2{', 6' * k}), L.ones(2, 3{', 3' * k}), dilation={d})"
    for k in (1, 2, 3) for d in (0, -1)
] + [
    "F.conv1d(L.ones(1, 2, 6), L.ones(3, 2, 3), dilation=0)",
    "F.conv3d(L.ones(1, 2, 6, 6, 6), L.ones(3, 2, 3, 3, 3), dilation=0)",
]


@pytest.mark.parametrize("expr", CONV_ERRORS + [
    "F.adaptive_avg_pool2d(L.ones(2, 2), (2, 2))", "F.adaptive_max_pool2d(L.ones(2, 2), (2, 2))",
    "F.adaptive_avg_pool2d(L.ones(2, 2), (None, 2))", "F.adaptive_avg_pool2d(L.ones(2, 2), 2)",
    "F.adaptive_max_pool1d(L.ones(1, 1, 1), -1)", "F.adaptive_max_pool1d(L.ones(1, 3), -2)",
    "F.adaptive_avg_pool3d(L.ones(2, 2, 2), (2, 2, 2))",
    "x.narrow(1, L.tensor([1]), 2)", "x.narrow(1, L.tensor(True), 2)",
    "x.narrow(1, L.tensor(1.0), 2)", "L.narrow(x, 1, L.tensor([1, 2]), 2)",
    "x.narrow(1, L.tensor(1, dtype=L.uint8), 2)", "x.narrow(1, L.tensor(1), 2)",
    "L.hsplit(x, 'abc')", "x.vsplit('a')", "L.dsplit(x.reshape(2, 2, 3), 1.5)",
    "L.hsplit(x, [1, 2])", "x.vsplit(2)",
])
def test_error_inputs(expr):
    def run(L):
        x = L.arange(12.0).reshape(4, 3)
        return eval(expr, {"L": L, "F": L.nn.functional, "x": x})
    same_outcome(lambda L: (lambda r: r.shape if hasattr(r, "shape") else
                            [t.shape for t in r])(run(L)))


@pytest.mark.parametrize("affine", [False, True])
def test_group_norm_of_an_empty_batch(affine):
    def run(L):
        x = L.ones(0, 4, 3, dtype=L.float64, requires_grad=True)
        w = L.ones(4, dtype=L.float64, requires_grad=True) if affine else None
        b = L.zeros(4, dtype=L.float64, requires_grad=True) if affine else None
        y = L.nn.functional.group_norm(x, 2, w, b)
        wanted = [x] + ([w, b] if affine else [])
        return (y,) + L.autograd.grad(y.sum(), wanted)
    same_outcome(run)


# -- torch.masked (beyond the OpInfo samples of tests/test_torch_opinfo.py) ---------------------
@pytest.mark.parametrize("expr", [
    "M.sum(x, 1, mask=m)", "M.mean(x, 1, mask=m)",
    "M.amax(x, 1, mask=m)", "M.softmax(x, 1, mask=m)", "M.var(x, 1, mask=m)",
    "M.std(x, mask=m)", "M.median(x, 1, mask=m)", "M.mean(L.tensor([1, 2]))",
    "M.sum(L.tensor([[1, 2], [3, 4]], dtype=L.int32), 0, mask=L.tensor([True, False]))",
    "M.sum(x, 0, mask=L.tensor([True, False, True]))",
    "M.sum(x, 0, mask=L.ones(1, 2, 3, dtype=L.bool))",
    "L.autograd.grad(M.normalize(x, 2.0, 1, mask=m).sum(), x)",
    "M.logaddexp(x, x * 2, input_mask=m, other_mask=~m)", "M.sum(x, (0, 0), mask=m)",
])
def test_masked(expr):
    """Values (NaN for a fully masked-out row of mean, var, median), grad_fn names, errors."""
    def run(L):
        x = L.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
        m = L.tensor([[True, False, True], [False, False, False]])
        return eval(expr, {"L": L, "M": L.masked, "x": x, "m": m})
    like_torch(run, rtol=1e-6)
