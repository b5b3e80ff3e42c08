"""``BinaryOpFuzzer``: tensors ``x`` and ``y`` of 1 to 3 dimensions; each of ``y``'s sizes is
``x``'s or (broadcasting) 1."""
import dyngrad
from ..utils.fuzzer import Fuzzer, FuzzedParameter, FuzzedTensor, ParameterAlias
from ._shapes import DIM_DISTRIBUTION, STEP_DISTRIBUTION, dim_sizes

_MIN_DIM_SIZE = 16
_MAX_DIM_SIZE = 16 * 1024 ** 2
_POW_TWO_SIZES = tuple(2 ** i for i in range(4, 25))  # 16 .. 16M


class BinaryOpFuzzer(Fuzzer):
    def __init__(self, seed, dtype=dyngrad.float32, cuda=False) -> None:
        y_sizes = [FuzzedParameter(f"y_k{i}", distribution={ParameterAlias(f"k{i}"): 0.8, 1: 0.2},
                                   strict=True) for i in range(3)]
        step_params = [FuzzedParameter(f"{name}_step_{i}", distribution=STEP_DISTRIBUTION)
                       for i in range(3) for name in ("x", "y")]
        common = dict(steps=("x_step_0", "x_step_1", "x_step_2"), probability_contiguous=0.75,
                      max_allocation_bytes=2 * 1024 ** 3, dim_parameter="dim", dtype=dtype,
                      cuda=cuda)
        super().__init__(
            parameters=[
                FuzzedParameter("dim", distribution=DIM_DISTRIBUTION, strict=True),
                *dim_sizes(_MIN_DIM_SIZE, _MAX_DIM_SIZE, _POW_TWO_SIZES, "pow2", 0.2),
                y_sizes,
                step_params,
                FuzzedParameter(name="random_value", minval=0, maxval=2 ** 32 - 1,
                                distribution="uniform"),
            ],
            tensors=[
                FuzzedTensor(name="x", size=("k0", "k1", "k2"), min_elements=4 * 1024,
                             max_elements=32 * 1024 ** 2, **common),
                FuzzedTensor(name="y", size=("y_k0", "y_k1", "y_k2"), **common),
            ],
            seed=seed,
        )
