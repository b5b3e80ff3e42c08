"""Random number generators and seeding; this module is also ``dyngrad.random`` (as
``torch.random``). The sampling functions themselves are in distributions.py.

``manual_seed``/``seed``/``initial_seed``/``get_rng_state``/``set_rng_state`` act on
``default_generator``; every sampling function takes ``generator=`` as torch's do.

Differences from torch: the numbers come from dyngrad's own deterministic stream, NumPy's PCG64
bit generator. The same seed gives the same numbers on every run and platform, but not the
numbers torch draws (torch's Mersenne Twister and its transforms are not reproduced), and the
state from ``get_rng_state()`` is dyngrad's (48 bytes), not torch's 5056-byte one.
"""
from __future__ import annotations

import contextlib
import os

from .. import _dtypes as D
from .._device import device as _device
from ..backends import numpy_backend as _npb
from .creation import _tensor_cls, _type_name
from ._registry import FUNCTIONS

xp = _npb.xp
_STATE_SIZE = 48
_DEFAULT_SEED = 67280421310721       # torch's default_rng_seed_val: a fresh Generator's seed
_U64 = 2 ** 64 - 1


# ---------------------------------------------------------------------------------------------
# Generators
# ---------------------------------------------------------------------------------------------
def _seed_value(seed) -> int:
    """torch's seed parsing: ``int(seed)``, negative values wrap to uint64."""
    seed = int(seed)
    if not -2 ** 63 <= seed <= _U64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _U64


class Generator:
    """A random number generator (``torch.Generator``) backed by NumPy's PCG64.

    Args:
        device: only ``'cpu'`` (CUDA generators need CUDA).

    Example::

        >>> g = dyngrad.Generator().manual_seed(0)
        >>> dyngrad.rand(2, generator=g)   # the same two numbers on every run

    Differences from torch: a different (deterministic) stream; see the module docstring.
    """

    def __init__(self, device="cpu"):
        d = device if isinstance(device, _device) else _device(device)
        if d.type != "cpu":
            raise RuntimeError(
                "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its "
                "backend into two shared libraries: a CPU library and a CUDA library; this "
                "error has occurred because you are trying to use some CUDA functionality, but "
                "the CUDA library has not been loaded by the dynamic linker for some reason. ")
        self._device = d
        self._reseed(_DEFAULT_SEED)

    def _reseed(self, seed: int) -> None:
        self._initial_seed = seed
        self._bitgen = xp.random.PCG64(seed)
        self._np = xp.random.Generator(self._bitgen)

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed) -> "Generator":
        """Seed the generator; returns the generator."""
        self._reseed(_seed_value(seed))
        return self

    def seed(self) -> int:
        """Seed from a non-deterministic source and return the seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._reseed(s)
        return s

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self):
        """The generator state as a uint8 tensor (dyngrad's own 48-byte layout)."""
        st = self._bitgen.state
        raw = (self._initial_seed.to_bytes(8, "little")
               + st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little")
               + st["has_uint32"].to_bytes(4, "little")
               + st["uinteger"].to_bytes(4, "little"))
        from .._tensor import _wrap
        return _wrap(xp.frombuffer(raw, dtype=xp.uint8).copy())

    def set_state(self, new_state) -> "Generator":
        """Restore a state from ``get_state()``; returns the generator."""
        _check_state(new_state)
        raw = new_state._data.tobytes()
        self._reseed(int.from_bytes(raw[:8], "little"))
        self._bitgen.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[8:24], "little"),
                      "inc": int.from_bytes(raw[24:40], "little")},
            "has_uint32": int.from_bytes(raw[40:44], "little"),
            "uinteger": int.from_bytes(raw[44:48], "little")}
        return self

    def __getstate__(self):
        return {"device": str(self._device), "state": self.get_state()._data.tobytes()}

    def __setstate__(self, d):
        self.__init__(d["device"])
        from .._tensor import _wrap
        self.set_state(_wrap(xp.frombuffer(d["state"], dtype=xp.uint8).copy()))


def _check_state(new_state) -> None:
    if not isinstance(new_state, _tensor_cls()):
        raise TypeError(f"expected a torch.ByteTensor, but got {_type_name(new_state)}")
    if new_state.dtype is not D.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    if new_state.numel() != _STATE_SIZE:
        raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                           f"the input RNG state size to be {new_state.numel()}")


default_generator = Generator()
default_generator.seed()       # torch seeds its default generator non-deterministically


def manual_seed(seed) -> Generator:
    """Seed the default generator (and CUDA's, a no-op without CUDA); returns it."""
    seed = _seed_value(seed)
    from .. import cuda
    cuda.manual_seed_all(seed)
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Restore the default generator's state on exit (``torch.random.fork_rng``)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def numpy_generator(generator):
    """The NumPy generator behind `generator` (the default one for None)."""
    if generator is None:
        return default_generator._np
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {_type_name(generator)}")
    return generator._np


for _fn in (manual_seed, seed, initial_seed, get_rng_state, set_rng_state):
    FUNCTIONS[_fn.__name__] = _fn
FUNCTIONS["Generator"] = Generator
FUNCTIONS["default_generator"] = default_generator
