"""Randomized benchmark inputs: ``Fuzzer`` draws parameters (``FuzzedParameter``) and builds
tensors from them (``FuzzedTensor``), reproducibly from a seed.

Draws come from ``numpy.random.RandomState(seed)`` in the same order as torch's fuzzer, and the
generator's first draw seeds dyngrad's RNG (which matches torch's), so a seed yields the same
parameters, layouts and tensor values as in torch.

Note: in torch 2.13 a dict ``distribution`` is refused when it *is* normalized (the check is
inverted: "Distribution is not normalized"), and an unnormalized one then fails in
``numpy.random.choice``; dyngrad keeps that behaviour, as it keeps torch's others.
"""
import functools
import itertools
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

import dyngrad

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")


class FuzzedParameter:
    """A named value drawn for every fuzzer step.

    ``distribution``: ``"loguniform"`` (an int uniform in log2 space between ``minval`` and
    ``maxval``), ``"uniform"`` (an int in [minval, maxval] if both bounds are ints, else a
    float), or a dict ``{value: probability}`` (then without bounds). A ``strict`` parameter
    keeps its first draw while the fuzzer resamples the others to meet constraints.
    """

    def __init__(self, name: str, minval: Optional[Union[int, float]] = None,
                 maxval: Optional[Union[int, float]] = None,
                 distribution: Optional[Union[str, Dict[Any, float]]] = None,
                 strict: bool = False) -> None:
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self) -> str:
        return self._name

    def _check_distribution(self, distribution):
        if not isinstance(distribution, dict):
            if distribution not in _DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise AssertionError("Probabilities cannot be negative")
        if abs(sum(distribution.values()) - 1) <= 1e-5:  # torch 2.13's (inverted) check
            raise AssertionError("Distribution is not normalized")
        if self._minval is not None:
            raise AssertionError("When passing a custom distribution, 'minval' must be None")
        if self._maxval is not None:
            raise AssertionError("When passing a custom distribution, 'maxval' must be None")
        return distribution

    def sample(self, state: np.random.RandomState):
        """One draw from ``state``."""
        dist = self._distribution
        if dist == "loguniform":
            return self._loguniform(state)
        if dist == "uniform":
            if isinstance(self._minval, int) and isinstance(self._maxval, int):
                return int(state.randint(low=self._minval, high=self._maxval + 1))
            return state.uniform(low=self._minval, high=self._maxval)
        if isinstance(dist, dict):
            # Draw an index rather than a key, so keys are not turned into numpy scalars.
            index = state.choice(np.arange(len(dist)), p=tuple(dist.values()))
            return list(dist.keys())[index]
        return None

    def _loguniform(self, state: np.random.RandomState) -> int:
        lo, hi = self._minval, self._maxval
        value = int(2 ** state.uniform(low=np.log2(lo) if lo is not None else None,
                                       high=np.log2(hi) if hi is not None else None))
        if lo is not None and value < lo:
            return lo
        if hi is not None and value > hi:
            return hi
        return value


class ParameterAlias:
    """A parameter value meaning "the value of parameter ``alias_to``" (used as a key of a
    custom distribution). Chains are followed; cycles are an error."""

    def __init__(self, alias_to) -> None:
        self.alias_to = alias_to

    def __repr__(self) -> str:
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def dtype_size(dtype) -> int:
    """Bytes per element as torch's fuzzer counts them (``finfo(dtype).bits`` for complex)."""
    if dtype == dyngrad.bool:
        return 1
    info = dyngrad.finfo if (dtype.is_floating_point or dtype.is_complex) else dyngrad.iinfo
    return int(info(dtype).bits / 8)


def prod(values, base=1) -> int:
    """Product in Python ints (numpy's could overflow into a negative size)."""
    return functools.reduce(lambda x, y: int(x) * int(y), values, base)


class FuzzedTensor:
    """A tensor built each step from the drawn parameters.

    ``size`` and ``steps`` hold ints or parameter names; with ``steps`` a larger tensor is
    allocated and sliced with those strides. With probability ``1 - probability_contiguous`` the
    memory is laid out in a random dimension order. ``dim_parameter`` names a parameter
    truncating (or padding with 1) the dimensions. ``min_elements``, ``max_elements`` and
    ``max_allocation_bytes`` reject parameter sets. ``tensor_constructor(size=, dtype=,
    **params)`` replaces the default (``rand`` for floating/complex dtypes, ``randint(1, 127)``
    otherwise).
    """

    def __init__(self, name: str, size: Tuple[Union[str, int], ...],
                 steps: Optional[Tuple[Union[str, int], ...]] = None,
                 probability_contiguous: float = 0.5, min_elements: Optional[int] = None,
                 max_elements: Optional[int] = None, max_allocation_bytes: Optional[int] = None,
                 dim_parameter: Optional[str] = None, roll_parameter: Optional[str] = None,
                 dtype=dyngrad.float32, cuda=False,
                 tensor_constructor: Optional[Callable] = None) -> None:
        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = dtype
        self._cuda = cuda
        self._tensor_constructor = tensor_constructor

    @property
    def name(self) -> str:
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        if dtype.is_floating_point or dtype.is_complex:
            return dyngrad.rand(size=size, dtype=dtype, device="cpu")
        return dyngrad.randint(1, 127, size=size, dtype=dtype, device="cpu")

    def _make_tensor(self, params, state):
        """(tensor, properties) for one step: allocate, maybe re-lay-out, slice by steps."""
        size, steps, allocation_size = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw = constructor(size=allocation_size, dtype=self._dtype, **params)
        if self._cuda:
            raw = raw.cuda()

        dim = len(size)
        order = np.arange(dim)
        if state.rand() > self._probability_contiguous:
            # A non-identity permutation (when there is more than one dimension), made
            # contiguous in that order, then viewed back in the original order.
            while dim > 1 and np.all(order == np.arange(dim)):
                order = state.permutation(raw.dim())
            raw = raw.permute(tuple(order)).contiguous().permute(tuple(np.argsort(order)))

        tensor = raw[tuple(slice(0, n * step, step) for n, step in zip(size, steps))]
        properties = {
            "numel": int(tensor.numel()),
            "order": order,
            "steps": steps,
            "is_contiguous": tensor.is_contiguous(),
            "dtype": str(self._dtype),
        }
        return tensor, properties

    def _get_size_and_steps(self, params):
        """(size, steps, allocation size) with names resolved and ``dim_parameter`` applied."""
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values):
            values = tuple(params.get(v, v) for v in values)[:dim]
            return values + (1,) * (dim - len(values))

        size = resolve(self._size)
        steps = resolve(self._steps or ())
        return size, steps, tuple(n * s for n, s in zip(size, steps))

    def satisfies_constraints(self, params) -> bool:
        """Whether the element count and allocation size are within the given bounds."""
        size, _, allocation_size = self._get_size_and_steps(params)
        elements = prod(size)
        if elements < 0:
            raise AssertionError("Computed number of elements is negative")
        allocation_bytes = prod(allocation_size, base=dtype_size(self._dtype))

        def above(value, bound):
            return value is not None and bound is not None and value > bound
        return not (above(elements, self._max_elements)
                    or above(self._min_elements, elements)
                    or above(allocation_bytes, self._max_allocation_bytes))


class Fuzzer:
    """Seeded generator of benchmark inputs.

    Args:
        parameters: FuzzedParameters (lists of them are flattened one level).
        tensors: FuzzedTensors (likewise).
        constraints: callables taking the parameters as keyword arguments; a False result
            rejects the draw.
        seed: seeds both the numpy RandomState and (through its first draw) dyngrad's RNG;
            random when None.

    ``take(n)`` yields ``(tensors, tensor_properties, params)`` n times.
    """

    def __init__(self, parameters: List[Union[FuzzedParameter, List[FuzzedParameter]]],
                 tensors: List[Union[FuzzedTensor, List[FuzzedTensor]]],
                 constraints: Optional[List[Callable]] = None,
                 seed: Optional[int] = None) -> None:
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters = Fuzzer._unpack(parameters, FuzzedParameter)
        self._tensors = Fuzzer._unpack(tensors, FuzzedTensor)
        self._constraints = constraints or ()

        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _unpack(values, cls) -> tuple:
        return tuple(itertools.chain.from_iterable([v] if isinstance(v, cls) else v
                                                   for v in values))

    def take(self, n):
        state = np.random.RandomState(self._seed)
        dyngrad.manual_seed(state.randint(low=0, high=2 ** 63, dtype=np.int64))
        for _ in range(n):
            params = self._generate(state)
            tensors, properties = {}, {}
            for t in self._tensors:
                tensors[t.name], properties[t.name] = t._make_tensor(params, state)
            yield tensors, properties, params

    @property
    def rejection_rate(self) -> float:
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state):
        """A parameter set meeting every constraint (up to 1000 tries); strict parameters keep
        their first draw across the tries."""
        strict: Dict[str, Any] = {}
        for _ in range(1000):
            candidate: Dict[str, Any] = {}
            for p in self._parameters:
                if p.strict and p.name in strict:
                    candidate[p.name] = strict[p.name]
                else:
                    candidate[p.name] = p.sample(state)
                    if p.strict:
                        strict[p.name] = candidate[p.name]
            candidate = self._resolve_aliases(candidate)
            self._total_generated += 1
            if not all(f(candidate) for f in self._constraints) or not all(
                    t.satisfies_constraints(candidate) for t in self._tensors):
                self._rejections += 1
                continue
            return candidate
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params):
        """Replace ParameterAlias values by the values they name, following chains."""
        params = dict(params)
        pending = sum(isinstance(v, ParameterAlias) for v in params.values())
        while pending:
            for k in list(params):
                if isinstance(params[k], ParameterAlias):
                    params[k] = params[params[k].alias_to]
            still = sum(isinstance(v, ParameterAlias) for v in params.values())
            if still == pending:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            pending = still
        return params
