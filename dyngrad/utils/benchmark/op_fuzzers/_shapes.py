"""Parameter building blocks shared by the op fuzzers: per-dimension sizes drawn either from
all integers (loguniform) or from a favoured set of sizes, and per-dimension slicing steps.

(Every one of these uses a dict distribution, which torch 2.13's FuzzedParameter refuses: see
``dyngrad.utils.benchmark.utils.fuzzer``. The op fuzzers therefore fail to construct, in torch
and in dyngrad alike.)
"""
from ..utils.fuzzer import FuzzedParameter, ParameterAlias

STEP_DISTRIBUTION = {1: 0.8, 2: 0.06, 4: 0.06, 8: 0.04, 16: 0.04}
DIM_DISTRIBUTION = {1: 0.3, 2: 0.4, 3: 0.3}


def dim_sizes(minval, maxval, favoured, favoured_name, p_favoured, favoured_first=False):
    """Parameters ``k0..k2``: each the alias of ``k_any_i`` (loguniform in [minval, maxval])
    or of ``k_{favoured_name}_i`` (uniform over ``favoured``), the latter with probability
    ``p_favoured``."""
    any_ = [FuzzedParameter(f"k_any_{i}", minval=minval, maxval=maxval,
                            distribution="loguniform") for i in range(3)]
    uniform = {size: 1. / len(favoured) for size in favoured}
    special = [FuzzedParameter(f"k_{favoured_name}_{i}", distribution=uniform) for i in range(3)]

    def choice(i):
        pairs = [(ParameterAlias(f"k_any_{i}"), 1 - p_favoured),
                 (ParameterAlias(f"k_{favoured_name}_{i}"), p_favoured)]
        return dict(pairs[::-1] if favoured_first else pairs)

    chosen = [FuzzedParameter(f"k{i}", distribution=choice(i), strict=True) for i in range(3)]
    return any_, special, chosen


def steps(prefix):
    """Parameters ``{prefix}0..2``: slicing steps, mostly 1."""
    return [FuzzedParameter(f"{prefix}{i}", distribution=STEP_DISTRIBUTION) for i in range(3)]
