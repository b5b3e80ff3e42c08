"""Random number generators and seeding; this module is also ``dyngrad.random`` (as
``torch.random``). The sampling functions themselves are in distributions.py, the transforms
from random words to samples in random_streams.py.

``manual_seed``/``seed``/``initial_seed``/``get_rng_state``/``set_rng_state`` act on
``default_generator``; every sampling function takes ``generator=`` as torch's do.

The generator is torch's CPU one: a 32-bit Mersenne Twister (mt19937) seeded with the low 32
bits of the seed (``initial_seed()`` keeps all 64), run here by NumPy's MT19937 bit generator,
plus torch's cached second normal sample. So the same seed gives torch's words, and the
samplers that turn them into numbers the way torch's CPU kernels do (random_streams.py) give
torch's numbers. ``get_rng_state()`` is torch's 5056-byte layout (CPUGeneratorImplState): a
state saved by either library restores in the other.

Differences from torch: none in the stream; see random_streams.py for the samplers that
differ in the last bits or not at all.
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
_N = 624                              # mt19937's state words
_STATE_SIZE = 5056                    # sizeof(CPUGeneratorImplState)
_DEFAULT_SEED = 67280421310721        # torch's default_rng_seed_val: a fresh Generator's seed
_U64 = 2 ** 64 - 1
_U32 = 2 ** 32 - 1


def _seed_value(seed) -> int:
    """torch's seed parsing: ``int(seed)``, negative values wrap to uint64."""
    seed = int(seed)
    if not -2 ** 63 <= seed <= _U64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _U64


def _init_genrand(seed: int):
    """mt19937's seeding (init_genrand) from the low 32 bits of `seed`: the 624 state words."""
    key = [seed & _U32]
    for i in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & _U32)
    return xp.array(key, dtype=xp.uint32)


_draw_guards = []   # callables told of each draw, innermost last (see draw_guard)


@contextlib.contextmanager
def draw_guard(guard):
    """Call ``guard(generator)`` before every draw from any generator inside the block (vmap's
    ``randomness``: 'error' raises there, 'same' notes the state to replay)."""
    _draw_guards.append(guard)
    try:
        yield
    finally:
        _draw_guards.remove(guard)


# Note [Generator state as torch keeps it]
# torch's mt19937 counts with `left` (words before the next regeneration, plus one) and `next`
# (the index of the next word); a freshly seeded engine has left=1, next=0 and regenerates on
# its first draw. NumPy's MT19937 keeps only `pos` (624: regenerate first). After k draws from
# a block torch has next=k, left=625-k, which is pos=k=625-left; a fresh seed is pos=624 too,
# told apart by `_fresh` so that get_state() gives torch's bytes.
class Generator:
    """A random number generator (``torch.Generator``): torch's CPU Mersenne Twister.

    Args:
        device: only ``'cpu'`` (CUDA generators need CUDA).

    Example::

        >>> g = dyngrad.Generator().manual_seed(0)
        >>> dyngrad.rand(2, generator=g)   # torch's two numbers for seed 0
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
        self._bitgen = xp.random.MT19937(0)
        self._reseed(_DEFAULT_SEED)

    def _reseed(self, seed: int) -> None:
        self._initial_seed = seed
        self._set_engine(_init_genrand(seed), _N)
        self._fresh = True
        self.next_double_normal = None     # torch's cached second Box-Muller sample
        self.next_float_normal = None

    def _set_engine(self, key, pos: int) -> None:
        self._bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}

    # -- drawing (every sampler goes through these) ---------------------------------------------
    def words(self, n: int):
        """The next `n` 32-bit outputs (torch's ``random()``), as uint64."""
        if _draw_guards:   # a vmap watching its function's random calls (func/vmap.py)
            _draw_guards[-1](self)
        self._fresh = False
        return self._bitgen.random_raw(int(n))

    def words64(self, n: int):
        """The next `n` 64-bit outputs (torch's ``random64()``: first word high)."""
        w = self.words(2 * n)
        return (w[0::2] << xp.uint64(32)) | w[1::2]

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
        """The generator state as a uint8 tensor in torch's 5056-byte layout."""
        st = self._bitgen.state["state"]
        pos = int(st["pos"])
        left, nxt = (1, 0) if self._fresh else (625 - pos, pos)   # Note [Generator state ...]
        raw = bytearray(_STATE_SIZE)
        raw[0:8] = self._initial_seed.to_bytes(8, "little")
        raw[8:12] = left.to_bytes(4, "little")
        raw[12:16] = (1).to_bytes(4, "little")
        raw[16:24] = nxt.to_bytes(8, "little")
        raw[24:5016] = st["key"].astype(xp.uint64).tobytes()
        if self.next_double_normal is not None:
            raw[5024:5032] = xp.array(self.next_double_normal, xp.float64).tobytes()
            raw[5040] = 1
        if self.next_float_normal is not None:
            raw[5048:5052] = xp.array(self.next_float_normal, xp.float32).tobytes()
            raw[5052] = 1
        from .._tensor import _wrap
        return _wrap(xp.frombuffer(bytes(raw), dtype=xp.uint8).copy())

    def set_state(self, new_state) -> "Generator":
        """Restore a state from ``get_state()`` (torch's or dyngrad's); returns the
        generator."""
        _check_state(new_state)
        raw = new_state._data.tobytes()

        def num(a, b, signed=False):
            return int.from_bytes(raw[a:b], "little", signed=signed)
        left, seeded, nxt = num(8, 12, True), num(12, 16, True), num(16, 24) & _U32
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = (xp.frombuffer(raw[24:5016], dtype=xp.uint64) & xp.uint64(_U32)).astype(xp.uint32)
        self._initial_seed = num(0, 8)
        self._set_engine(key, 625 - left)       # left == 1: regenerate first (pos 624)
        self._fresh = left == 1 and nxt == 0
        self.next_double_normal = (float(xp.frombuffer(raw[5024:5032], xp.float64)[0])
                                   if num(5040, 5044) else None)
        self.next_float_normal = (float(xp.frombuffer(raw[5048:5052], xp.float32)[0])
                                  if raw[5052] else None)
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
    """The Generator to draw from: `generator`, or the default one for None (the name is
    kept for callers written when this was a NumPy generator)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {_type_name(generator)}")
    return generator


for _fn in (manual_seed, seed, initial_seed, get_rng_state, set_rng_state):
    FUNCTIONS[_fn.__name__] = _fn
FUNCTIONS["Generator"] = Generator
FUNCTIONS["default_generator"] = default_generator
