"""A custom Function applied under vmap: which Functions vmap accepts, and their ``vmap`` rules.

Note [A custom Function's vmap rule]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch.func's vmap runs a custom Function only if it says how to batch it: either a ``vmap``
staticmethod, ``vmap(info, in_dims, *args) -> (output, out_dims)``, or
``generate_vmap_rule = True`` (batch ``forward``, ``backward`` and ``jvp`` as ordinary code).
Neither, or both, and torch refuses the Function while any vmap is running, even if the vmap is
outside a ``grad`` or ``vjp`` that applies it (``func/_levels.py`` keeps the stack of running
transforms: ``mapping()``).

dyngrad's vmap is a loop (Note [vmap as a loop]), so a generated rule is what already
happens: ``forward`` runs on one sample at a time, and the node records ``backward``. A ``vmap``
staticmethod is called where torch calls it, and its result is used as torch uses it:

- The innermost transform running is a vmap: the rule replaces the Function. Its ops are
  recorded as ordinary ops, so what differentiates around the vmap (``grad(vmap(f))``, a
  ``backward()`` after it, a ``jvp`` outside it) differentiates the rule, not ``backward``.
- A ``grad``, ``vjp`` or ``jvp`` runs inside the innermost vmap (``vmap(grad(f))``, ``jacfwd``):
  the Function is applied and records its node with ``backward`` and ``jvp``, as torch's inner
  level does, but its output is the rule's (torch's forward runs at the vmap's level below).
  Transforms outside the vmap then see that node too, where torch's see the rule's ops.
- No argument is a tensor: nothing is batched, and torch skips the rule (``forward`` runs).

A custom op's ``register_vmap`` rule (library/) is used the same way.

The rule is called once per sample, with each tensor argument given as a batch of one at dim 0
(``unsqueeze(0)``: ``in_dims`` says 0 for every tensor, None for anything else) and
``info.batch_size`` 1; each output is taken back at its out_dim (``select(out_dim, 0)``), an
output with out_dim None as it is, and an argument returned as it is is the caller's own
object. torch calls the rule once, with the whole batch and each argument's own batch dim (None
for one that is not batched, such as a tensor the function closes over). A rule that batches
correctly gives torch's values either way; its side effects happen once per sample.
"""
from __future__ import annotations

from typing import NamedTuple

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


class VmapInfo(NamedTuple):
    """What a ``vmap`` staticmethod learns of the vmap calling it (torch's ``VmapInfo``)."""
    batch_size: int
    randomness: str


def only_mapping() -> bool:
    """Whether every transform running is a vmap (no grad, vjp or jvp among them)."""
    from ..func import _levels
    return _levels.only_mapping()


def vmap_randomness(cls):
    """``None`` when `cls` runs as it is (no vmap running, or its rule is generated); else
    ``(randomness, innermost)`` of the innermost vmap (``_levels.mapping``), for its ``vmap``
    staticmethod. A Function vmap cannot run gets torch's error."""
    from ..func import _levels
    mapped = _levels.mapping()
    if mapped is None:
        return None
    from .function import Function
    overridden = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule:
        if overridden:
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True "
                "and an overridden vmap staticmethod. Please set generate_vmap_rule=False or "
                f"delete the overridden vmap staticmethod to avoid ambiguity. {_DOCS}")
        return None
    if not overridden:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. "
            f"{_DOCS}")
    return mapped


def has_tensor(args) -> bool:
    from ..utils._pytree import tree_flatten
    from .._tensor import Tensor
    return any(isinstance(a, Tensor) for a in tree_flatten(args)[0])


def call_rule(rule, args, randomness: str, as_forward: bool = False, kwargs=None):
    """A vmap rule (a Function's ``vmap`` staticmethod, a custom op's ``register_vmap``) on one
    sample's `args` (and the keyword-only `kwargs`), as a batch of one (see the Note);
    its outputs taken back at their out_dims, after torch's checks of what it returned. As
    ``forward``'s stand-in (`as_forward`, under no_grad) an output taken back is not left a
    view of the rule's batch, which the Function's output must not be (it would refuse in-place
    writes)."""
    from .._tensor import Tensor
    from ..ops._arg_parser import type_repr
    from ..utils._pytree import broadcast_prefix, tree_flatten, tree_map, tree_unflatten

    batched = tree_map(lambda a: a.unsqueeze(0) if isinstance(a, Tensor) else a, args)
    in_dims = tuple(tree_map(lambda a: 0 if isinstance(a, Tensor) else None, a) for a in args)
    result = rule(VmapInfo(1, randomness), in_dims, *batched, **(kwargs or {}))
    expected = ("Expected the vmap staticmethod to have two returns, an output and out_dims "
                "with pytree structure compatible with the output. ")
    if not isinstance(result, tuple):
        raise RuntimeError(expected + f"Got a {type_repr(result)} instead")
    if len(result) != 2:
        raise RuntimeError(expected + f"Got {len(result)} returns instead")
    output, out_dims = result
    flat_out, spec = tree_flatten(output)
    try:
        flat_dims = broadcast_prefix(out_dims, output, "out_dims")
    except ValueError:
        raise RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the "
            "structure of `output`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]} but output has structure {spec}. {_DOCS}") from None
    callers = {id(b): a for b, a in zip(tree_flatten(batched)[0], tree_flatten(args)[0])
               if isinstance(a, Tensor)}
    outs = []
    for o, d in zip(flat_out, flat_dims):
        if id(o) in callers:
            outs.append(callers[id(o)])
        elif isinstance(o, Tensor) and d is not None:
            o = o.select(d, 0)
            outs.append(o.detach() if as_forward else o)
        else:
            outs.append(o)
    return tree_unflatten(outs, spec)
