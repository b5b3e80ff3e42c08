"""Pytrees: nested containers of leaves (``torch.utils._pytree``).

The function transforms (``dyngrad.func``) take and return such structures: ``grad`` of a
function of a dict of tensors returns a dict of gradients, ``vmap``'s ``in_dims`` mirror the
inputs' nesting. Flattening gives the leaves in a fixed order (dict keys in insertion order, as
torch) and a :class:`TreeSpec` that rebuilds the same structure around new leaves.

Container types live in a registry (``SUPPORTED_NODES``): tuple, list, dict, namedtuple,
OrderedDict, defaultdict and deque are registered here, others with
:func:`register_pytree_node`. Each has a flatten function (children, context), an unflatten
function, and optionally a flatten-with-keys function giving each child's key
(:class:`SequenceKey`, :class:`MappingKey`, :class:`GetAttrKey`) for the ``*_with_path``
functions.

Not here (torch has them): treespec_dumps/loads (JSON serialization), register_dataclass,
register_constant, the C++ (optree) pytree, structseq registration.
"""
from __future__ import annotations

import dataclasses
import functools
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, NamedTuple

__all__ = ["PyTree", "Context", "FlattenFn", "UnflattenFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get", "register_pytree_node",
           "tree_is_leaf", "tree_flatten", "tree_flatten_with_path", "tree_unflatten",
           "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure", "tree_map",
           "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_", "tree_all",
           "tree_any", "tree_all_only", "tree_any_only", "treespec_pprint", "is_namedtuple",
           "is_namedtuple_class", "is_namedtuple_instance"]


PyTree = Any
Context = Any
FlattenFn = Callable[[PyTree], "tuple[list[Any], Context]"]
UnflattenFn = Callable[[Any, Context], PyTree]


# -- the registry --------------------------------------------------------------------------------

class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Callable | None


SUPPORTED_NODES: dict = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None) -> None:
    """Register the container type `cls`: ``flatten_fn(x) -> (children, context)``,
    ``unflatten_fn(children, context) -> x`` and optionally
    ``flatten_with_keys_fn(x) -> ([(key, child), ...], context)``. The serialization
    arguments are accepted (and checked) for torch's signature; serialization is not
    implemented."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(cls, flatten_fn, unflatten_fn,
                                  to_dumpable_context=to_dumpable_context,
                                  from_dumpable_context=from_dumpable_context,
                                  flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None) -> None:
    if cls in SUPPORTED_NODES:
        warnings.warn(f"{cls} is already registered as pytree node. Overwriting the previous "
                      "registration.", stacklevel=2)
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    if (to_dumpable_context is None) ^ (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                         "be None or registered.")


def _deregister_pytree_node(cls) -> None:
    del SUPPORTED_NODES[cls]


# -- keys ----------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """The index of a child of a sequence: ``str`` gives ``[0]``."""
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """The key of a child of a mapping: ``str`` gives ``['a']``."""
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The attribute holding a child (a namedtuple's field): ``str`` gives ``.name``."""
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as a string: ``[0]['a'].x``."""
    return "".join([str(k) for k in kp])


def key_get(obj, kp):
    """The node of `obj` at the key path `kp`."""
    for k in kp:
        obj = k.get(obj)
    return obj


# -- the built-in node types ---------------------------------------------------------------------

def is_namedtuple_class(cls) -> bool:
    """Whether `cls` is a namedtuple class."""
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(field) is str for field in cls._fields)
            and callable(getattr(cls, "_make", None))
            and callable(getattr(cls, "_asdict", None)))


def is_namedtuple(obj) -> bool:
    """Whether `obj` is a namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def _seq_keys(values):
    return [(SequenceKey(i), v) for i, v in enumerate(values)]


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_with_keys(d):
    values, keys = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(keys, values)], keys


def _defaultdict_flatten(d):
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_with_keys(d):
    values, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], values)], context


def _namedtuple_with_keys(d):
    return [(GetAttrKey(f), v) for f, v in zip(type(d)._fields, d)], type(d)


_private_register_pytree_node(tuple, lambda d: (list(d), None), lambda v, c: tuple(v),
                              flatten_with_keys_fn=lambda d: (_seq_keys(d), None))
_private_register_pytree_node(list, lambda d: (d, None), lambda v, c: list(v),
                              flatten_with_keys_fn=lambda d: (_seq_keys(d), None))
_private_register_pytree_node(dict, _dict_flatten, lambda v, c: dict(zip(c, v)),
                              flatten_with_keys_fn=_dict_with_keys)
_private_register_pytree_node(namedtuple, lambda d: (list(d), type(d)), lambda v, c: c(*v),
                              flatten_with_keys_fn=_namedtuple_with_keys)
_private_register_pytree_node(OrderedDict, _dict_flatten, lambda v, c: OrderedDict(zip(c, v)),
                              flatten_with_keys_fn=_dict_with_keys)
_private_register_pytree_node(defaultdict, _defaultdict_flatten,
                              lambda v, c: defaultdict(c[0], dict(zip(c[1], v))),
                              flatten_with_keys_fn=_defaultdict_with_keys)
_private_register_pytree_node(deque, lambda d: (list(d), d.maxlen),
                              lambda v, c: deque(v, maxlen=c),
                              flatten_with_keys_fn=lambda d: (_seq_keys(d), d.maxlen))

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


def _get_node_type(tree):
    """The registry key of `tree`: its type, or ``namedtuple`` for every namedtuple class."""
    node_type = type(tree)
    return namedtuple if is_namedtuple_class(node_type) else node_type


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether `tree` is a leaf: `is_leaf` says so, or its type is not registered."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# -- TreeSpec ------------------------------------------------------------------------------------

class TreeSpec:
    """A structure without its leaves: the node type (None for a leaf), the context its
    unflatten function needs (dict keys, the namedtuple class...) and one spec per child."""

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs) -> None:
        self.type, self._context, self._children = type, context, children_specs
        if type is None:
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if len(children_specs) != 0:
                raise AssertionError("leaf node should not have children")
            self.num_nodes, self.num_leaves, self.num_children = 1, 1, 0
        else:
            self.num_nodes = 1 + sum(c.num_nodes for c in children_specs)
            self.num_leaves = sum(c.num_leaves for c in children_specs)
            self.num_children = len(children_specs)

    def __repr__(self, indent: int = 0) -> str:
        children = ""
        if self.num_children > 0:
            indent += 2
            children = self._children[0].__repr__(indent)
            children += "," if self.num_children > 1 else ""
            children += ",".join(["\n" + " " * indent + c.__repr__(indent)
                                  for c in self._children[1:]])
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if isinstance(other, TreeSpec):   # torch: same class (LeafSpec == TreeSpec(None...))
            return (str(self.type) == str(other.type) and self._context == other._context
                    and self._children == other._children)
        return NotImplemented

    def __hash__(self) -> int:
        if self.type is defaultdict:
            context = (self._context[0], tuple(self._context[1]))
        elif self.type in (dict, OrderedDict):
            context = tuple(self._context)
        elif self.type is None or self.type in BUILTIN_TYPES:
            context = self._context
        else:
            context = None
        return hash((self.type, context, tuple(self._children)))

    @property
    def context(self):
        return self._context

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list:
        return self._children.copy()

    def child(self, index: int):
        return self._children[index]

    def flatten_up_to(self, tree) -> list:
        """The subtrees of `tree` at this spec's leaves (`tree` has this spec as a prefix);
        ValueError when the structures differ."""
        subtrees: list = []

        def helper(spec, node):
            if spec.is_leaf():
                subtrees.append(node)
                return
            node_type = _get_node_type(node)
            if spec.type not in BUILTIN_TYPES:
                if node_type != spec.type:
                    raise ValueError(f"Type mismatch; expected {spec.type!r}, but got "
                                     f"{node_type!r}.")
                children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
                if len(children) != spec.num_children:
                    raise ValueError(f"Node arity mismatch; expected {spec.num_children}, "
                                     f"but got {len(children)}.")
                if context != spec._context:
                    raise ValueError(f"Node context mismatch for custom node type "
                                     f"{spec.type!r}.")
            else:
                both_dicts = spec.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
                if not both_dicts and node_type != spec.type:
                    raise ValueError(f"Node type mismatch; expected {spec.type!r}, but got "
                                     f"{node_type!r}.")
                if len(node) != spec.num_children:
                    raise ValueError(f"Node arity mismatch; expected {spec.num_children}, "
                                     f"but got {len(node)}.")
                if both_dicts:
                    keys = spec._context if spec.type is not defaultdict else spec._context[1]
                    missing, extra = set(keys) - set(node), set(node) - set(keys)
                    if missing or extra:
                        message = f"; missing key(s): {missing}" if missing else ""
                        message += f"; extra key(s): {extra}" if extra else ""
                        raise ValueError(f"Node keys mismatch{message}.")
                    children = [node[key] for key in keys]
                else:
                    children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
                    if node_type is not deque and context != spec._context:
                        raise ValueError(
                            f"Node context mismatch for node type {spec.type!r}; expected "
                            f"{spec._context!r}, but got {context!r}.")
            for subtree, subspec in zip(children, spec._children):
                helper(subspec, subtree)

        helper(self, tree)
        return subtrees

    def unflatten(self, leaves):
        """The structure with `leaves` in its leaf positions."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        if self.is_leaf():
            return leaves[0]
        start, children = 0, []
        for child in self._children:
            children.append(child.unflatten(leaves[start:start + child.num_leaves]))
            start += child.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)

    def pprint(self) -> str:
        """dyngrad's shorthand for :func:`treespec_pprint`."""
        return treespec_pprint(self)


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    """The spec of a leaf (torch deprecates the class: use ``spec.is_leaf()``)."""

    __slots__ = ()

    def __init__(self) -> None:
        if _LEAF_SPEC_MADE:
            warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                          "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                          FutureWarning, stacklevel=2)
        super().__init__(None, None, [])

    def __repr__(self, indent: int = 0) -> str:
        return "*"


_LEAF_SPEC_MADE = False
_LEAF_SPEC = LEAF_SPEC = LeafSpec()
_LEAF_SPEC_MADE = True


def treespec_leaf() -> LeafSpec:
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /) -> TreeSpec:
    children = list(iterable)
    if any(not isinstance(child, TreeSpec) for child in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs) -> TreeSpec:
    dct = dict(mapping, **kwargs)
    if any(not isinstance(child, TreeSpec) for child in dct.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {dct!r}.")
    return TreeSpec(dict, list(dct.keys()), list(dct.values()))


class _Asterisk(str):
    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


_asterisk = _Asterisk("*")


def treespec_pprint(treespec: TreeSpec) -> str:
    """The structure's repr with ``*`` for leaves: ``(*, [*, *])``."""
    return repr(tree_unflatten([_asterisk] * treespec.num_leaves, treespec))


# -- flattening and mapping ----------------------------------------------------------------------

def tree_flatten(tree, is_leaf=None) -> tuple[list, TreeSpec]:
    """The leaves of `tree`, left to right, and the spec that rebuilds it."""
    leaves: list = []

    def helper(node):
        if tree_is_leaf(node, is_leaf=is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _get_node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [helper(c) for c in children])

    spec = helper(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec: TreeSpec):
    """The structure described by `treespec` with `leaves` in its leaf positions (the
    arguments may come swapped, as torch allows)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item "
                            f"of type {type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves of `tree`, lazily."""
    if tree_is_leaf(tree, is_leaf=is_leaf):
        yield tree
    else:
        children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
        for child in children:
            yield from tree_iter(child, is_leaf=is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return list(tree_iter(tree, is_leaf=is_leaf))


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    return tree_flatten(tree, is_leaf=is_leaf)[1]


def tree_map(func: Callable, tree, *rests, is_leaf=None):
    """`tree` with every leaf ``x`` replaced by ``func(x, *xs)``, ``xs`` the subtrees of
    `rests` at the same positions."""
    leaves, treespec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(map(func, *flat_args))


def tree_map_(func: Callable, tree, *rests, is_leaf=None):
    """Call ``func`` on each leaf (for its side effect); returns `tree`."""
    leaves, treespec = tree_flatten(tree, is_leaf=is_leaf)
    flat_args = [leaves] + [treespec.flatten_up_to(r) for r in rests]
    deque(map(func, *flat_args), maxlen=0)
    return tree


def map_only(type_or_types_or_pred, /):
    """Decorator: apply the function only to leaves of the given type(s) (or passing the
    predicate); other leaves are returned unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf=is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf=is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf=is_leaf) if isinstance(x, type_or_types))


def arg_tree_leaves(*args, **kwargs) -> list:
    """The leaves of all the arguments, positional then keyword."""
    leaves: list = []
    for a in args:
        leaves.extend(tree_iter(a))
    for a in kwargs.values():
        leaves.extend(tree_iter(a))
    return leaves


# -- key paths -----------------------------------------------------------------------------------

def _generate_key_paths(key_path, tree, is_leaf=None):
    if is_leaf and is_leaf(tree):
        yield key_path, tree
        return
    node_type = _get_node_type(tree)
    handler = SUPPORTED_NODES.get(node_type)
    if not handler:
        yield key_path, tree
        return
    if handler.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. "
                         "Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    key_children, _ = handler.flatten_with_keys_fn(tree)
    for k, c in key_children:
        yield from _generate_key_paths((*key_path, k), c, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], spec)``; a key path is a tuple of keys."""
    _, treespec = tree_flatten(tree, is_leaf)
    return list(_generate_key_paths((), tree, is_leaf)), treespec


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return list(_generate_key_paths((), tree, is_leaf))


def tree_map_with_path(func: Callable, tree, *rests, is_leaf=None):
    """Like :func:`tree_map`, with each leaf's key path as ``func``'s first argument."""
    keypath_leaves, treespec = tree_flatten_with_path(tree, is_leaf)
    keypath_leaves = list(zip(*keypath_leaves))
    all_keypath_leaves = keypath_leaves + [treespec.flatten_up_to(r) for r in rests]
    return treespec.unflatten(func(*xs) for xs in zip(*all_keypath_leaves))


# -- dyngrad's helper for vmap's in_dims ---------------------------------------------------------

def _children(x):
    """(node type, context, children) for a container; None for a leaf."""
    if tree_is_leaf(x):
        return None
    node_type = _get_node_type(x)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(x)
    return node_type, context, list(children)


def broadcast_prefix(prefix, tree, name: str = "prefix") -> list:
    """One value of `prefix` per leaf of `tree`: `prefix` mirrors the top of `tree`'s
    structure and each of its leaves applies to the whole subtree below it (vmap's in_dims).
    Raises ValueError when the structures disagree."""
    out: list = []

    def walk(p, t):
        parts = _children(p)
        if parts is None:
            out.extend([p] * tree_structure(t).num_leaves)
            return
        t_parts = _children(t)
        if t_parts is None or parts[0] is not t_parts[0] or parts[1] != t_parts[1] \
                or len(parts[2]) != len(t_parts[2]):
            raise ValueError(f"{name} does not match the structure of the inputs")
        for pc, tc in zip(parts[2], t_parts[2]):
            walk(pc, tc)

    walk(prefix, tree)
    return out
