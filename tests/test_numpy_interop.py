"""NumPy values where torch takes tensors and ints, against live torch: operators with an
ndarray operand (left to NumPy, whose ufunc makes a tensor through ``__array_wrap__``; ``==``
takes it as a tensor), NumPy ufuncs on tensors, ndarrays as indices (one entry each, masks of
any rank), NumPy integers as dims; the reductions over an empty list of dims; and what
torch.Size takes as its items."""
import numpy as np
import pytest

from compare import same_outcome

OPERATORS = {
    "t + nd": lambda L: L.tensor([1, 2]) + np.array([1.5, 2.0]),
    "nd + t": lambda L: np.array([1.5, 2.0]) + L.tensor([1, 2]),
    "t * 0-d nd": lambda L: L.tensor([1, 2]) * np.array(2.5),
    "t ** nd": lambda L: L.tensor([1.0, 2.0]) ** np.array([2.0, 3.0]),
    "t @ nd": lambda L: L.ones(2, 2) @ np.ones((2, 2)),
    "nd @ t": lambda L: np.ones((2, 2)) @ L.ones(2, 2),
    "t == nd": lambda L: L.tensor([1, 2]) == np.array([1, 3]),
    "nd == t": lambda L: np.array([1, 3]) == L.tensor([1, 2]),
    "t != nd": lambda L: L.tensor([1, 2]) != np.array([1, 3]),
    "t < nd": lambda L: L.tensor([1, 2]) < np.array([1, 3]),
    "bool & nd": lambda L: L.tensor([True, False]) & np.array([True, True]),
    "t // nd": lambda L: L.tensor([1, 2]) // np.array([1, 3]),
    "requires grad + nd": lambda L: L.ones(2, requires_grad=True) + np.array([1.0, 3.0]),
    "requires grad == nd": lambda L: L.ones(2, requires_grad=True) == np.array([1.0, 3.0]),
    "np.exp(t)": lambda L: np.exp(L.tensor([1.0, 2.0])),
    "np.add(t, 1)": lambda L: np.add(L.tensor([1.0, 2.0]), 1),
    "np.greater(t, 1)": lambda L: np.greater(L.tensor([1.0, 2.0]), 1),
    "torch.add(t, nd)": lambda L: L.add(L.tensor([1, 2]), np.array([1, 1])),
    "t * np.float32": lambda L: L.tensor([1.0, 2.0]) * np.float32(2.5),
}


@pytest.mark.parametrize("case", OPERATORS)
def test_operators_and_ufuncs(case):
    same_outcome(OPERATORS[case], warns=False)   # (NumPy's __array_wrap__ deprecation: torch's)


INDICES = {"2-d ints": np.array([[1, 0], [0, 1]]),
           "2-d mask": np.array([[True, False, True], [False, True, False]]),
           "0-d True": np.array(True), "0-d False": np.array(False), "0-d int": np.array(1),
           "int32": np.array([1, 0], dtype=np.int32), "uint8 mask": np.array([1, 0], np.uint8),
           "float": np.array([1.0, 0.0]), "in a tuple": (np.array([1, 0]), np.array([2, 2])),
           "mask in a tuple": (np.array([True, False]), slice(None)),
           "list of arrays": [np.array([1, 0]), np.array([2, 2])],
           "empty": np.array([], dtype=np.int64), "out of range": np.array([5]),
           "mask of the wrong size": np.array([True, False, True])}


@pytest.mark.parametrize("case", INDICES)
@pytest.mark.parametrize("write", [False, True])
def test_ndarray_indices(case, write):
    def run(L):
        x = L.arange(6.0).reshape(2, 3)
        if write:
            x[INDICES[case]] = -1
            return x
        return x[INDICES[case]]
    same_outcome(run)


DIM_OPS = {
    "sum": lambda x, d: x.sum(d), "mean": lambda x, d: x.mean(d),
    "argmax": lambda x, d: x.argmax(d), "max": lambda x, d: x.max(d),
    "std": lambda x, d: x.std(d), "prod": lambda x, d: x.prod(d),
    "median": lambda x, d: x.median(d), "logsumexp": lambda x, d: x.logsumexp(d),
    "any": lambda x, d: x.any(d), "amax": lambda x, d: x.amax(d),
    "movedim": lambda x, d: x.movedim(d, 0), "cumsum": lambda x, d: x.cumsum(d),
    "softmax": lambda x, d: x.softmax(d), "unbind": lambda x, d: x.unbind(d),
}


@pytest.mark.parametrize("op", DIM_OPS)
@pytest.mark.parametrize("np_int", [np.int64, np.int32])
def test_numpy_integers_as_dims(op, np_int):
    same_outcome(lambda L: DIM_OPS[op](L.arange(24.0).reshape(2, 3, 4), np_int(1)))


@pytest.mark.parametrize("name", ["all", "any", "sum", "amax", "logsumexp", "std"])
@pytest.mark.parametrize("dim", [(), []])
@pytest.mark.parametrize("keepdim", [False, True])
def test_an_empty_list_of_dims(name, dim, keepdim):
    """all/any reduce none of the dims, the others all of them (logsumexp without keepdim is
    torch's error)."""
    def run(L):
        x = L.arange(6.0).reshape(2, 3)
        return getattr(L, name)(x > 2 if name in ("all", "any") else x, dim=dim,
                                keepdim=keepdim)
    same_outcome(run)


SIZES = {
    "0-d tensor": lambda L: L.Size([L.tensor(2)]), "ndarray": lambda L: L.Size(np.array([2, 3])),
    "bools": lambda L: L.Size([True, False]), "NumPy int": lambda L: L.Size([np.int64(2)]),
    "float": lambda L: L.Size([2.0]), "str": lambda L: L.Size("ab"),
    "None": lambda L: L.Size([None]), "float tensor": lambda L: L.Size([L.tensor(2.0)]),
    "times 2": lambda L: L.Size([2, 3]) * 2, "2 times": lambda L: 2 * L.Size([2, 3]),
    "+ list": lambda L: L.Size([2, 3]) + [4], "+ tuple": lambda L: L.Size([2, 3]) + (4,),
    "tuple +": lambda L: (4,) + L.Size([2, 3]), "list +": lambda L: [4] + L.Size([2, 3]),
    "slice": lambda L: L.Size([1, 2, 3])[1:], "numel past int64": lambda L: L.Size(
        [2 ** 40, 2 ** 40]).numel(),
    "pickled": lambda L: __import__("pickle").loads(__import__("pickle").dumps(L.Size([1, 2]))),
}


@pytest.mark.parametrize("case", SIZES)
def test_size(case):
    """torch.Size holds ints (what torch takes as one is converted, anything else refused),
    and its arithmetic keeps the type or refuses as torch's."""
    def run(L):
        r = SIZES[case](L)
        return (type(r).__name__, r) if isinstance(r, tuple) else r
    same_outcome(run)
