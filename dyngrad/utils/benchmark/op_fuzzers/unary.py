"""``UnaryOpFuzzer``: one tensor ``x`` of 1 to 3 dimensions, sizes favouring powers of two."""
import dyngrad
from ..utils.fuzzer import Fuzzer, FuzzedParameter, FuzzedTensor
from ._shapes import DIM_DISTRIBUTION, dim_sizes, steps

_MIN_DIM_SIZE = 16
_MAX_DIM_SIZE = 16 * 1024 ** 2
_POW_TWO_SIZES = tuple(2 ** i for i in range(4, 25))  # 16 .. 16M


class UnaryOpFuzzer(Fuzzer):
    def __init__(self, seed, dtype=dyngrad.float32, cuda=False) -> None:
        super().__init__(
            parameters=[
                FuzzedParameter("dim", distribution=DIM_DISTRIBUTION, strict=True),
                *dim_sizes(_MIN_DIM_SIZE, _MAX_DIM_SIZE, _POW_TWO_SIZES, "pow2", 0.2),
                steps("x_step_"),
                FuzzedParameter(name="random_value", minval=0, maxval=2 ** 32 - 1,
                                distribution="uniform"),
            ],
            tensors=[
                FuzzedTensor(name="x", size=("k0", "k1", "k2"),
                             steps=("x_step_0", "x_step_1", "x_step_2"),
                             probability_contiguous=0.75, min_elements=4 * 1024,
                             max_elements=32 * 1024 ** 2, max_allocation_bytes=2 * 1024 ** 3,
                             dim_parameter="dim", dtype=dtype, cuda=cuda),
            ],
            seed=seed,
        )
