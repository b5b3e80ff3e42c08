"""``vmap``: a function of one sample mapped over a batch dimension (torch.func.vmap).

Note [vmap as a loop]
~~~~~~~~~~~~~~~~~~~~~
torch runs the function once on *batched tensors* whose ops apply batching rules. dyngrad runs
it once per sample: each mapped input is sliced along its ``in_dim`` (``select``, a view, so
gradients flow back to the batched input), the function sees one sample's tensors, and each
output is ``stack``-ed along its ``out_dim``. The values, shapes and gradients are torch's;
the argument checks and messages are too. What differs follows from the loop:

- the function runs B times, so Python side effects happen B times, and data-dependent control
  flow (``if x.sum() > 0``, ``.item()``) works where torch refuses it;
- ``randomness='different'`` draws each sample's numbers in turn, where torch draws one batch
  for each random call; with a single random call per sample the numbers are the same;
  ``'same'`` replays the generators' state for every sample (torch draws once);
- ``chunk_size`` changes nothing (the loop is its own chunking);
- a custom Function's ``vmap`` staticmethod is called once per sample, on a batch of one
  (Note [A custom Function's vmap rule] in autograd/_function_vmap.py).
"""
from __future__ import annotations

import functools

from .. import _tensor
from . import _levels
from ..ops import random as _random
from ..utils._pytree import broadcast_prefix, tree_flatten, tree_unflatten

_RANDOMNESS = ("error", "different", "same")


def _name(func) -> str:
    return getattr(func, "__name__", repr(func))


def _check_in_dims(func, in_dims, args):
    """One in_dim (int or None) per leaf of `args`, after torch's checks."""
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to "
                         "add inputs, or you are trying to vmap over a function with no "
                         "inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    if isinstance(in_dims, int):
        dims = [in_dims] * len(flat_args)
    else:
        try:
            dims = broadcast_prefix(in_dims, args, "in_dims")
        except ValueError:
            raise ValueError(
                f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims "
                f"has structure {tree_flatten(in_dims)[1]!r} but inputs has structure "
                f"{args_spec!r}.") from None
    for d, x in zip(dims, flat_args):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{where}: in_dim for each input must be an int or None, got "
                             f"{type(d)}")
        if not isinstance(x, _tensor.Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if not -x.dim() <= d < x.dim():
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {x.dim()} so expected in_dim to "
                             f"satisfy -{x.dim()} <= in_dim < {x.dim()}.")
    return flat_args, args_spec, dims


def _batch_size(func, flat_args, dims) -> int:
    sizes = [x.shape[d] for x, d in zip(flat_args, dims) if d is not None]
    if not sizes:
        raise ValueError(f"vmap({_name(func)}, in_dims={dims if len(dims) > 1 else dims[0]}, "
                         "...)(<inputs>): at least one input must be batched (in_dim is not "
                         "None for every input). Got in_dims that are all None.")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


class _RandomGuard:
    """Watches every draw from a generator while the mapped function runs (``randomness``)."""

    def __init__(self, mode: str):
        self.mode = mode
        self.saved = {}    # generator -> its state before the first sample drew from it

    def __call__(self, generator) -> None:
        if self.mode == "error":
            raise RuntimeError(
                "vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")
        if self.mode == "same" and generator not in self.saved:
            self.saved[generator] = generator.get_state()

    def next_sample(self) -> None:
        """'same': every sample starts from the state the first one started from."""
        if self.mode == "same":
            for g, state in self.saved.items():
                g.set_state(state)


def _sample_of(flat_args, dims, i):
    return [x if d is None else x.select(d, i) for x, d in zip(flat_args, dims)]


def _outputs_spec(func, out_dims, outputs):
    flat, spec = tree_flatten(outputs)
    if isinstance(out_dims, int) or out_dims is None:
        odims = [out_dims] * len(flat)
    else:
        try:
            odims = broadcast_prefix(out_dims, outputs, "out_dims")
        except ValueError:
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                "compatible with the structure of `outputs`. out_dims has structure "
                f"{tree_flatten(out_dims)[1]!r} but outputs has structure {spec!r}.") from None
    for o, d in zip(flat, odims):
        if d is not None and not isinstance(o, _tensor.Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                             f"Tensors, got type {type(o)}. Did you mean to set out_dims= to "
                             "None for output?")
    return flat, spec, odims


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` mapped over dimension `in_dims` of its inputs; outputs stacked at `out_dims`.
    See Note [vmap as a loop].

    Example::

        >>> dyngrad.func.vmap(dyngrad.dot)(a, b)   # row-wise dot products of (B, n) inputs
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        flat_args, args_spec, dims = _check_in_dims(func, in_dims, args)
        size = _batch_size(func, flat_args, dims)
        guard = _RandomGuard(randomness)
        results = []
        with _random.draw_guard(guard):
            for i in range(max(size, 1)):
                if i:
                    guard.next_sample()
                sample = _sample_of(flat_args, dims, i) if size else [
                    x if d is None else x.select(d, 0) if x.shape[d] else _empty_sample(x, d)
                    for x, d in zip(flat_args, dims)]
                results.append(_levels.call_mapped(
                    randomness, func, *tree_unflatten(sample, args_spec), **kwargs))
        return _stack_outputs(func, out_dims, results, size)

    return wrapped


def _empty_sample(x, d):
    """A sample of a batch of none: zeros of one sample's shape (the function is run once to
    learn its outputs' shapes; nothing of its values is kept)."""
    from ..ops.creation import zeros
    return zeros(tuple(x.shape[:d]) + tuple(x.shape[d + 1:]), dtype=x.dtype)


def _stack_outputs(func, out_dims, results, size: int):
    from ..ops.join import stack
    flat0, spec, odims = _outputs_spec(func, out_dims, results[0])
    per_sample = [tree_flatten(r)[0] for r in results]
    stacked = []
    for k, (o, d) in enumerate(zip(flat0, odims)):
        if d is None:
            stacked.append(o)
            continue
        if not -(o.dim() + 1) <= d <= o.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-(o.dim() + 1)}, {o.dim()}], but got {d})")
        if size:
            stacked.append(stack([s[k] for s in per_sample], dim=d))
        else:
            stacked.append(stack([o], dim=d).narrow(d if d >= 0 else d + o.dim() + 1, 0, 0))
    return tree_unflatten(stacked, spec)
