"""OpInfo entries for dyngrad/ops/sparse.py: the sparse ops, each inside a dense function (a
dense input made sparse, the op, the result made dense again) so that the database's forward,
backward, gradcheck, gradgradcheck and graph-parity tests compare them with torch's, the
sparse nodes included (ToSparseBackward1, ToDenseBackward0, SparseMaskBackward0,
CoalesceBackward0, ValuesBackward0, SparseCooTensorWithDimsAndTensorsBackward0,
SparseSumBackward0, SparseAddmmBackward0). tests/test_sparse.py checks the sparse results
themselves.
"""
from __future__ import annotations

from .core import ALL_DTYPES, OP_DB, OpInfo, SampleInput, Strided, make_array

FLOATING = ALL_DTYPES


class SparseOpInfo(OpInfo):
    """An entry whose op is ``pipeline(lib)``, a dense function built from the sparse ops."""

    def __init__(self, name, pipeline, samples, dtypes, **kwargs):
        super().__init__(name, samples, dtypes, method=False, inplace=False,
                         supports_out=False, **kwargs)
        self.pipeline = pipeline

    def op(self, lib):
        return self.pipeline(lib)


def _round_trip(lib):
    def fn(x, *sparse_dim):
        return x.to_sparse(*sparse_dim).to_dense()
    return fn


def _dense(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    tr = Strided(make_array((12,), dtype, rng), (3, 4), (1, 3), kind="transposed ")
    return [SampleInput(x((5,))), SampleInput(x((3, 4))), SampleInput(x((2, 3, 4))),
            SampleInput(x(())), SampleInput(x((3, 4)), 0),
            SampleInput(x((2, 3, 4)), 1), SampleInput(x((2, 3, 4)), 2), SampleInput(tr),
            SampleInput(x((0, 3))), SampleInput(x((3, 4)), 3)]


def _coalesced_values(lib):
    indices = lib.tensor([[1, 0, 1, 2, 0], [0, 2, 0, 1, 2]])

    def fn(values):
        s = lib.sparse_coo_tensor(indices, values, (3, 3) + tuple(values.shape[1:]))
        return s.coalesce().values()
    return fn


def _values(dtype, rng):
    return [SampleInput(make_array((5,), dtype, rng)), SampleInput(make_array((5, 2), dtype,
                                                                              rng))]


def _sparse_sum(lib):
    def fn(x, *dim):
        out = lib.sparse.sum(x.to_sparse(), *dim)
        return out.to_dense() if out.is_sparse else out
    return fn


def _sums(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(x((3, 4)), 0), SampleInput(x((3, 4)), 1),
            SampleInput(x((2, 3, 4)), (0, 2)), SampleInput(x((3, 4)), (0, 1))]


def _sparse_mm(lib):
    def fn(a, b):
        return lib.sparse.mm(a.to_sparse(), b)
    return fn


def _sparse_mask(lib):
    def fn(x, mask):
        return x.sparse_mask(mask.to_sparse()).to_dense()
    return fn


def _masks(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((3, 4)), x((3, 4))), SampleInput(x((2, 3, 2)), x((2, 3, 2))),
            SampleInput(x((3, 4)), x((4, 3)))]


def _products(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((3, 4)), x((4, 2))), SampleInput(x((1, 5)), x((5, 3))),
            SampleInput(x((3, 4)), x((3, 2)))]


def _sparse_addmm(lib):
    def fn(c, a, b, beta, alpha):
        return lib.sparse.addmm(c, a.to_sparse(), b, beta=beta, alpha=alpha)
    return fn


def _addmms(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((3, 2)), x((3, 4)), x((4, 2)), 1.0, 1.0),
            SampleInput(x((3, 2)), x((3, 4)), x((4, 2)), 2.0, 0.5),
            SampleInput(x((3, 2)), x((3, 4)), x((4, 2)), 0.0, -1.0)]


# (torch refuses complex gradients through to_sparse: "_to_sparse does not support automatic
# differentiation for outputs with complex dtype.")
REAL_GRADS = dict(supports_complex_autograd=False)

OP_DB += [
    SparseOpInfo("to_sparse", _round_trip, _dense, ALL_DTYPES, variant="round_trip",
                 **REAL_GRADS),
    SparseOpInfo("Tensor.sparse_mask", _sparse_mask, _masks, ALL_DTYPES, variant="of_to_sparse",
                 **REAL_GRADS),
    SparseOpInfo("sparse_coo_tensor", _coalesced_values, _values, FLOATING,
                 variant="coalesce_values"),
    SparseOpInfo("sparse.sum", _sparse_sum, _sums, FLOATING, variant="of_to_sparse",
                 **REAL_GRADS),
    SparseOpInfo("sparse.mm", _sparse_mm, _products, ALL_DTYPES[1:], variant="of_to_sparse",
                 **REAL_GRADS),
    SparseOpInfo("sparse.addmm", _sparse_addmm, _addmms, ALL_DTYPES[1:], variant="of_to_sparse",
                 **REAL_GRADS),
]
