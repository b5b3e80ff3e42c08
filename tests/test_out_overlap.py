"""out= tensors that share memory with themselves or with the inputs, against torch (Note [out=
and memory overlap] in dyngrad/ops/_dispatch.py): torch refuses them before its kernel runs."""
from __future__ import annotations

import pytest
import torch

import dyngrad


def _outcome(lib, make):
    try:
        result = make(lib)
    except Exception as e:   # noqa: BLE001  (the outcome is compared, whatever it is)
        return f"{type(e).__name__}: {e}"
    return result.tolist()


CASES = {
    # an expanded out=: several results for one element
    "add, expanded out": lambda L: L.add(L.ones(3), L.ones(3), out=L.zeros(1).expand(3)),
    "add, expanded out of another shape": lambda L: L.add(L.ones(3), L.ones(3),
                                                          out=L.zeros(1).expand(2)),
    "add, expanded out of one element": lambda L: L.add(L.ones(1), L.ones(1),
                                                        out=L.zeros(1).expand(1)),
    "exp, expanded out": lambda L: L.exp(L.zeros(2, 3), out=L.zeros(3).expand(2, 3)),
    "index_select, expanded out": lambda L: L.index_select(
        L.ones(3, 4), 0, L.tensor([0, 1]), out=L.zeros(4).expand(2, 4)),
    # an out= that is an input: the pointwise ops take it, index_select and its kind do not
    "add, out is self": lambda L: (lambda a: L.add(a, L.ones(3), out=a))(L.arange(3.0)),
    "mul, out is other": lambda L: (lambda a, b: L.mul(a, b, out=b))(L.arange(3.0), L.ones(3)),
    "bernoulli, out is self": lambda L: (lambda a: L.bernoulli(a, out=a))(L.ones(4)),
    "index_select, out is self": lambda L: (lambda a: L.index_select(a, 0, L.tensor([0, 1]),
                                                                     out=a))(L.arange(2.0)),
    "gather, out is self": lambda L: (lambda a: L.gather(a, 0, L.tensor([1, 0]), out=a))(
        L.arange(2.0)),
    "masked_select, out is the mask": lambda L: (lambda a: L.masked_select(a, a > 0, out=a))(
        L.ones(3)),
    "kthvalue, out is self": lambda L: (lambda a: L.kthvalue(
        a, 1, out=(a, L.empty((), dtype=L.long))).values)(L.tensor([3.0, 1.0, 2.0])),
    "cat, out is an input": lambda L: (lambda a: L.cat([a[:2], a[2:]], out=a))(L.ones(4)),
    # an out= that overlaps an input in part, or in another order
    "add, out shifted over self": lambda L: (lambda a: (L.add(a[:-1], 1, out=a[1:]), a)[1])(
        L.arange(4.0)),
    "exp, out shifted over self": lambda L: (lambda a: (L.exp(a[:-1], out=a[1:]), a)[1])(
        L.zeros(4)),
    "clamp, out shifted over self": lambda L: (lambda a: (L.clamp(a[:-1], 0, 1, out=a[1:]),
                                                          a)[1])(L.arange(4.0)),
    "lerp, out over end": lambda L: (lambda a: (L.lerp(a[:-1], a[1:], 0.5, out=a[1:]), a)[1])(
        L.arange(4.0)),
    "neg, out is self transposed": lambda L: (lambda a: (L.neg(a, out=a.t()), a)[1])(
        L.arange(4.0).reshape(2, 2)),
    "bernoulli, out shifted over self": lambda L: (lambda a: L.bernoulli(a[:-1], out=a[1:]))(
        L.ones(4)),
    "take, out over the index": lambda L: (lambda i: L.take(L.arange(4), i[:2], out=i[1:3]))(
        L.tensor([0, 1, 2, 3])),
    "addmm, out shifted over self": lambda L: (lambda a: L.addmm(
        a[:4].view(2, 2), L.ones(2, 2), L.ones(2, 2), out=a[1:].view(2, 2)))(L.zeros(5)),
    "cumsum, out shifted over self": lambda L: (lambda a: L.cumsum(a[:-1], 0, out=a[1:]))(
        L.ones(4)),
    "cross, out is self": lambda L: (lambda a: L.linalg.cross(a, L.ones(3), out=a))(
        L.tensor([1.0, 2.0, 3.0])),
    # no overlap, or one torch does not check (reductions, views it cannot tell apart)
    "add, out elsewhere": lambda L: L.add(L.ones(3), 1, out=L.zeros(3)),
    "cumsum, out is self": lambda L: (lambda a: L.cumsum(a, 0, out=a))(L.arange(3.0)),
    "mm, out is self": lambda L: (lambda a: L.mm(a, a, out=a))(L.eye(2) * 2),
    "add, out a strided view of self": lambda L: (lambda a: (L.add(a[::2], 1, out=a[1::2]),
                                                             a)[1])(L.arange(6.0)),
}


def _expanded(L, *shape, dtype=None):
    return L.zeros(1, dtype=dtype).expand(*shape)


# an expanded out= of ops other than the pointwise: most refuse it, some reductions and
# products do not (and write several results to one element, as here)
_X = lambda L: L.ones(2, 3)   # noqa: E731
EXPANDED = {
    "sum": lambda L: L.sum(_X(L), 0, out=_expanded(L, 3)),
    "mean": lambda L: L.mean(_X(L), 0, out=_expanded(L, 3)),
    "prod": lambda L: L.prod(_X(L), 0, out=_expanded(L, 3)),
    "amax": lambda L: L.amax(_X(L), 0, out=_expanded(L, 3)),
    "amin": lambda L: L.amin(_X(L), 0, out=_expanded(L, 3)),
    "nansum": lambda L: L.nansum(_X(L), 0, out=_expanded(L, 3)),
    "nanmean": lambda L: L.nanmean(_X(L), 0, out=_expanded(L, 3)),
    "logsumexp": lambda L: L.logsumexp(_X(L), 0, out=_expanded(L, 3)),
    "std": lambda L: L.std(_X(L), 0, out=_expanded(L, 3)),
    "var": lambda L: L.var(_X(L), 0, out=_expanded(L, 3)),
    "norm": lambda L: L.norm(_X(L), dim=0, out=_expanded(L, 3)),
    "linalg.vector_norm": lambda L: L.linalg.vector_norm(_X(L), dim=0, out=_expanded(L, 3)),
    "argmax": lambda L: L.argmax(_X(L), 0, out=_expanded(L, 3, dtype=L.long)),
    "any": lambda L: L.any(_X(L), 0, out=_expanded(L, 3, dtype=L.bool)),
    "max.dim": lambda L: L.max(_X(L), 0, out=(_expanded(L, 3), L.zeros(3, dtype=L.long))).values,
    "median.dim": lambda L: L.median(_X(L), 0, out=(_expanded(L, 3),
                                                    L.zeros(3, dtype=L.long))).values,
    "sort": lambda L: L.sort(L.ones(3), out=(_expanded(L, 3), L.zeros(3, dtype=L.long))).values,
    "topk": lambda L: L.topk(L.ones(3), 3, out=(_expanded(L, 3),
                                                L.zeros(3, dtype=L.long))).values,
    "bmm": lambda L: L.bmm(L.ones(1, 2, 2), L.ones(1, 2, 2), out=_expanded(L, 1, 2, 2)),
    "mm": lambda L: L.mm(L.ones(2, 2), L.ones(2, 2), out=_expanded(L, 2, 2)),
    "mv": lambda L: L.mv(L.ones(3, 2), L.ones(2), out=_expanded(L, 3)),
    "addmm": lambda L: L.addmm(L.ones(2), L.ones(2, 2), L.ones(2, 2), out=_expanded(L, 2, 2)),
    "tril": lambda L: L.tril(L.ones(3, 3), out=_expanded(L, 3, 3)),
    "histc": lambda L: L.histc(L.ones(3), bins=3, out=_expanded(L, 3)),
    "cat": lambda L: L.cat([L.ones(1), L.ones(2)], out=_expanded(L, 3)),
    "stack": lambda L: L.stack([L.ones(1)] * 3, 0, out=_expanded(L, 3, 1)),
    "arange": lambda L: L.arange(3.0, out=_expanded(L, 3)),
    "zeros": lambda L: L.zeros(3, out=_expanded(L, 3)),
    "where": lambda L: L.where(L.ones(3) > 0, L.ones(3), L.ones(3), out=_expanded(L, 3)),
    "matmul": lambda L: L.matmul(L.ones(3, 2), L.ones(2), out=_expanded(L, 3)),
    "softmax": lambda L: L.softmax(_X(L), 1, out=_expanded(L, 2, 3)),
    "log_softmax": lambda L: L.log_softmax(_X(L), 1, out=_expanded(L, 2, 3)),
    "cumsum": lambda L: L.cumsum(_X(L), 1, out=_expanded(L, 2, 3)),
    "kron": lambda L: L.kron(L.ones(2), L.ones(2), out=_expanded(L, 4)),
    "tensordot": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), 1, out=_expanded(L, 2, 2)),
    "linalg.inv": lambda L: L.linalg.inv(L.eye(2), out=_expanded(L, 2, 2)),
    "linalg.solve": lambda L: L.linalg.solve(L.eye(2), L.ones(2), out=_expanded(L, 2)),
    "msort": lambda L: L.msort(_X(L), out=_expanded(L, 2, 3)),
    "multinomial": lambda L: L.multinomial(L.ones(4), 2, out=_expanded(L, 2, dtype=L.long)),
}


def _refused(outcome):
    """The error, or "taken" (what an op that takes an expanded out= writes there depends on
    the order its kernel writes in: not compared)."""
    return outcome if isinstance(outcome, str) else "taken"


@pytest.mark.parametrize("name", EXPANDED)
def test_an_expanded_out_like_torch(name):
    assert _refused(_outcome(dyngrad, EXPANDED[name])) == \
        _refused(_outcome(torch, EXPANDED[name]))


@pytest.mark.parametrize("name", CASES)
def test_out_overlap_like_torch(name):
    assert _outcome(dyngrad, CASES[name]) == _outcome(torch, CASES[name])


def test_a_refused_out_is_left_as_it_was():
    a = dyngrad.arange(4.0)
    version = a._version
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        dyngrad.add(a[:-1], 1, out=a[1:])
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and a._version == version
