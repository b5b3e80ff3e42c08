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
    # no overlap, or one torch does not check (reductions, views it cannot tell apart)
    "add, out elsewhere": lambda L: L.add(L.ones(3), 1, out=L.zeros(3)),
    "cumsum, out is self": lambda L: (lambda a: L.cumsum(a, 0, out=a))(L.arange(3.0)),
    "mm, out is self": lambda L: (lambda a: L.mm(a, a, out=a))(L.eye(2) * 2),
    "add, out a strided view of self": lambda L: (lambda a: (L.add(a[::2], 1, out=a[1::2]),
                                                             a)[1])(L.arange(6.0)),
}


@pytest.mark.parametrize("name", CASES)
def test_out_overlap_like_torch(name):
    assert _outcome(dyngrad, CASES[name]) == _outcome(torch, CASES[name])


def test_a_refused_out_is_left_as_it_was():
    a = dyngrad.arange(4.0)
    version = a._version
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        dyngrad.add(a[:-1], 1, out=a[1:])
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and a._version == version
