"""``SpectralOpFuzzer``: one tensor ``x`` of 1 to 3 dimensions for FFTs, sizes favouring
"regular" numbers (2^i 3^j 5^k) with probability ``probability_regular``."""
import math

import dyngrad
from ..utils.fuzzer import Fuzzer, FuzzedParameter, FuzzedTensor
from ._shapes import DIM_DISTRIBUTION, dim_sizes, steps

__all__ = ["SpectralOpFuzzer"]

MIN_DIM_SIZE = 16
MAX_DIM_SIZE = 16 * 1024


def power_range(upper_bound, base):
    """base**0, base**1, ... up to ``upper_bound``."""
    return (base ** i for i in range(int(math.log(upper_bound, base)) + 1))


REGULAR_SIZES = sorted(
    i * j * k
    for i in power_range(MAX_DIM_SIZE, 2)
    for j in power_range(MAX_DIM_SIZE // i, 3)
    for k in power_range(MAX_DIM_SIZE // (i * j), 5)
    if i * j * k > MIN_DIM_SIZE)


class SpectralOpFuzzer(Fuzzer):
    def __init__(self, *, seed: int, dtype=dyngrad.float64, cuda: bool = False,
                 probability_regular: float = 1.0) -> None:
        super().__init__(
            parameters=[
                FuzzedParameter("ndim", distribution=DIM_DISTRIBUTION, strict=True),
                *dim_sizes(MIN_DIM_SIZE, MAX_DIM_SIZE, REGULAR_SIZES, "regular",
                           probability_regular, favoured_first=True),
                steps("step_"),
            ],
            tensors=[
                FuzzedTensor(name="x", size=("k0", "k1", "k2"),
                             steps=("step_0", "step_1", "step_2"),
                             probability_contiguous=0.75, min_elements=4 * 1024,
                             max_elements=32 * 1024 ** 2, max_allocation_bytes=2 * 1024 ** 3,
                             dim_parameter="ndim", dtype=dtype, cuda=cuda),
            ],
            seed=seed,
        )
