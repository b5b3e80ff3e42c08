"""Pytrees: nested tuples, lists, dicts and namedtuples of leaves (``torch.utils._pytree``).

The function transforms (``dyngrad.func``) take and return such structures: ``grad`` of a
function of a dict of tensors returns a dict of gradients, ``vmap``'s ``in_dims`` mirror the
inputs' nesting. Flattening gives the leaves in a fixed order (dict keys in insertion order, as
torch) and a spec that rebuilds the same structure around new leaves.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple


class TreeSpec(NamedTuple):
    """How to rebuild a structure: its container type (None for a leaf), the context that
    type needs (dict keys, the namedtuple class) and one spec per child."""
    type: Any
    context: Any
    children: tuple

    @property
    def num_leaves(self) -> int:
        return 1 if self.type is None else sum(c.num_leaves for c in self.children)

    def is_leaf(self) -> bool:
        return self.type is None

    def __repr__(self, indent: int = 0) -> str:   # torch's TreeSpec repr (its error messages)
        if self.type is None:
            return "*"
        context = list(self.context) if self.type is dict else self.context
        kind = self.type.__name__
        indent += 2
        inner = ",".join([c.__repr__(indent) if i == 0 else "\n" + " " * indent + c.__repr__(indent)
                          for i, c in enumerate(self.children)])
        return f"TreeSpec({kind}, {context}, [{inner}])"

    def pprint(self) -> str:
        """The structure with ``*`` for leaves: ``(*, [*, *])`` (torch's treespec_pprint)."""
        if self.type is None:
            return "*"
        parts = [c.pprint() for c in self.children]
        if self.type is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.context, parts)) + "}"
        if self.type is list:
            return "[" + ", ".join(parts) + "]"
        if self.context is not None:
            return f"{self.type.__name__}(" + ", ".join(parts) + ")"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


LEAF_SPEC = TreeSpec(None, None, ())


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(x):
    """(container type, context, children) for a container; None for a leaf."""
    if _is_namedtuple(x):
        return type(x), type(x), tuple(x)
    if type(x) in (tuple, list):
        return type(x), None, tuple(x)
    if isinstance(x, dict):
        keys = tuple(x)
        return dict, keys, tuple(x[k] for k in keys)
    return None


def tree_flatten(tree) -> tuple[list, TreeSpec]:
    """The leaves of `tree`, left to right, and the spec that rebuilds it."""
    leaves: list = []

    def walk(x):
        parts = _children(x)
        if parts is None:
            leaves.append(x)
            return LEAF_SPEC
        kind, context, children = parts
        return TreeSpec(kind, context, tuple(walk(c) for c in children))

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, spec: TreeSpec):
    """The structure described by `spec` with `leaves` in its leaf positions."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                         f"the spec refers to a pytree that holds {spec.num_leaves} items")
    it = iter(leaves)

    def build(s):
        if s.type is None:
            return next(it)
        children = [build(c) for c in s.children]
        if s.type is dict:
            return dict(zip(s.context, children))
        if s.context is not None:   # a namedtuple
            return s.context(*children)
        return s.type(children)

    return build(spec)


def tree_map(fn: Callable, tree):
    """`tree` with every leaf replaced by ``fn(leaf)``."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def tree_leaves(tree) -> list:
    return tree_flatten(tree)[0]


def broadcast_prefix(prefix, tree, name: str = "prefix") -> list:
    """One value of `prefix` per leaf of `tree`: `prefix` mirrors the top of `tree`'s
    structure and each of its leaves applies to the whole subtree below it (vmap's in_dims).
    Raises ValueError when the structures disagree."""
    out: list = []

    def walk(p, t):
        parts = _children(p)
        if parts is None:
            out.extend([p] * tree_flatten(t)[1].num_leaves)
            return
        t_parts = _children(t)
        if t_parts is None or parts[0] is not t_parts[0] or parts[1] != t_parts[1] \
                or len(parts[2]) != len(t_parts[2]):
            raise ValueError(f"{name} does not match the structure of the inputs")
        for pc, tc in zip(parts[2], t_parts[2]):
            walk(pc, tc)

    walk(prefix, tree)
    return out
