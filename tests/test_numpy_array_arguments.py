"""A NumPy array where an op wants a Tensor: torch's TypeError names the type as CPython's
``tp_name`` does, ``numpy.ndarray`` (not ``ndarray``), whichever layer of dyngrad raises it
(the argument parser, a composite's own check, a list-of-tensors check, an attribute error)."""
import numpy as np
import pytest

from compare import same_outcome

A = np.ones((2, 2))

CALLS = {
    "ravel": lambda L: L.ravel(A),
    "cov": lambda L: L.cov(A),
    "corrcoef": lambda L: L.corrcoef(A),
    "view_as_real": lambda L: L.view_as_real(A),
    "cdist": lambda L: L.cdist(A, L.ones(2, 2)),
    "index_put_": lambda L: L.ones(2).index_put_((L.tensor([0]),), A),
    "zeta": lambda L: L.special.zeta(L.ones(2), A),
    "prelu": lambda L: L.nn.functional.prelu(L.ones(2), A),
    "diff": lambda L: L.diff(A),
    "unpack_dual": lambda L: L.autograd.forward_ad.unpack_dual(A),
    "isclose": lambda L: L.isclose(L.ones(2), A),
    "channel_shuffle": lambda L: L.channel_shuffle(A, 2),
    "pad": lambda L: L.nn.functional.pad(A, (1, 1)),
    "gather": lambda L: L.gather(L.ones(2), 0, A),
    "sinc": lambda L: L.sinc(A),
    "bessel_j0": lambda L: L.special.bessel_j0(A),
    "max_unpool1d indices": lambda L: L.nn.functional.max_unpool1d(L.ones(1, 1, 2), A, 2),
    "max_unpool1d input": lambda L: L.nn.functional.max_unpool1d(A, L.zeros(1, 1, 2).long(), 2),
    "grid_sample": lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 2, 2), A,
                                                         align_corners=False),
    "logit": lambda L: L.logit(A),
    "cartesian_prod": lambda L: L.cartesian_prod(A),
    "cat": lambda L: L.cat([L.ones(2), A]),
    "broadcast_tensors": lambda L: L.broadcast_tensors(L.ones(2), A),
    "block_diag": lambda L: L.block_diag(A),
    "histogramdd bins": lambda L: L.histogramdd(L.ones(3, 2), [A, A]),
    "polar": lambda L: L.polar(A, L.ones(2)),
    "heaviside": lambda L: L.heaviside(L.ones(2), A),
    "avg_pool3d": lambda L: L.nn.functional.avg_pool3d(A, 2),
    # torch's wrapper calls input.size(): NumPy's size is an int ('int' object is not callable)
    "adaptive_avg_pool3d": lambda L: L.nn.functional.adaptive_avg_pool3d(A, 1),
    "adaptive_max_pool3d list": lambda L: L.nn.functional.adaptive_max_pool3d([1.0], 1),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_numpy_array_named_as_torch_names_it(name):
    same_outcome(CALLS[name])
