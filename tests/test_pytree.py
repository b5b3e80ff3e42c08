"""utils._pytree against torch.utils._pytree: flattening order, specs (repr, equality, hash,
pprint), unflattening, key paths (keystr, key_get), tree_map over several trees,
registered custom nodes, namedtuple / OrderedDict / defaultdict / deque, and the errors."""
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest
from torch.utils import _pytree as tp

from dyngrad.utils import _pytree as dp

Point = namedtuple("Point", ["x", "y"])

TREES = [
    1, None, [], (), {}, [1, 2], (1,), {"b": 1, "a": [2, 3]},
    [1, (2, {"k": [3, None]}), Point(4, [5, 6])],
    OrderedDict([("z", 1), ("a", (2, 3))]),
    defaultdict(list, {"x": [1, 2], "y": 3}),
    deque([1, [2, 3]], maxlen=4), deque([(1, 2)]),
    {"p": Point(x={"q": 1}, y=()), 0: [[], [7]]},
    "a string is a leaf", b"bytes", {1, 2},
]


def plain(x):
    """Python values, with keys rendered so they compare across the two modules."""
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(plain(v) for v in x)
    if isinstance(x, (tp.SequenceKey, dp.SequenceKey, tp.MappingKey, dp.MappingKey,
                      tp.GetAttrKey, dp.GetAttrKey)):
        return type(x).__name__, str(x)
    return x


@pytest.mark.parametrize("tree", TREES, ids=lambda t: repr(t)[:30])
def test_flatten_unflatten(tree):
    (dl, ds), (tl, ts) = dp.tree_flatten(tree), tp.tree_flatten(tree)
    assert dl == tl
    assert repr(ds) == repr(ts)
    assert dp.treespec_pprint(ds) == tp.treespec_pprint(ts)
    assert (ds.num_nodes, ds.num_leaves, ds.num_children, ds.is_leaf()) == \
        (ts.num_nodes, ts.num_leaves, ts.num_children, ts.is_leaf())
    new = [f"leaf{i}" for i in range(len(dl))]
    d, t = dp.tree_unflatten(new, ds), tp.tree_unflatten(new, ts)
    assert d == t and type(d) is type(t)
    if isinstance(t, deque):
        assert d.maxlen == t.maxlen
    if isinstance(t, defaultdict):
        assert d.default_factory is t.default_factory
    assert list(dp.tree_iter(tree)) == list(tp.tree_iter(tree)) == dp.tree_leaves(tree)
    assert dp.tree_is_leaf(tree) == tp.tree_is_leaf(tree)


@pytest.mark.parametrize("tree", TREES, ids=lambda t: repr(t)[:30])
def test_paths(tree):
    dpaths, ds = dp.tree_flatten_with_path(tree)
    tpaths, ts = tp.tree_flatten_with_path(tree)
    assert plain(dpaths) == plain(tpaths)
    assert [dp.keystr(k) for k, _ in dpaths] == [tp.keystr(k) for k, _ in tpaths]
    assert [dp.key_get(tree, k) for k, _ in dpaths] == [v for _, v in tpaths]
    assert plain(dp.tree_leaves_with_path(tree)) == plain(tp.tree_leaves_with_path(tree))
    f = lambda kp, x: (len(kp), x)   # noqa: E731
    assert dp.tree_map_with_path(f, tree) == tp.tree_map_with_path(f, tree)


def test_spec_equality_and_hash():
    a, b = {"a": 1, "b": [2]}, {"a": 5, "b": [6]}
    assert dp.tree_structure(a) == dp.tree_structure(b)
    assert hash(dp.tree_structure(a)) == hash(dp.tree_structure(b))
    for x, y in [({"a": 1}, {"b": 1}), ([1], (1,)), ([1, 2], [1, [2]]),
                 (OrderedDict(a=1), {"a": 1}), (Point(1, 2), (1, 2)), (1, [1])]:
        assert (dp.tree_structure(x) == dp.tree_structure(y)) == \
            (tp.tree_structure(x) == tp.tree_structure(y)) is False
    assert dp.LeafSpec() == dp.tree_structure(3) == dp.treespec_leaf()
    assert tp.LeafSpec() == tp.tree_structure(3)
    assert repr(dp.treespec_tuple([dp.treespec_leaf()] * 2)) == \
        repr(tp.treespec_tuple([tp.treespec_leaf()] * 2))
    assert repr(dp.treespec_dict(a=dp.treespec_leaf())) == \
        repr(tp.treespec_dict(a=tp.treespec_leaf()))


def test_tree_map_several_trees_and_only():
    t1 = {"a": [1, 2], "b": (3, 4.0)}
    t2 = {"b": (10, 20), "a": [30, 40]}          # dict keys in another order
    prefix_rest = {"a": [1, 2], "b": (3, 4.0)}
    for lib in (dp, tp):
        assert lib.tree_map(lambda x, y, z: x + y + z, t1, t2, prefix_rest) == \
            {"a": [32, 44], "b": (16, 28.0)}
    assert dp.tree_map_only(float, lambda x: -x, t1) == tp.tree_map_only(float, lambda x: -x, t1)
    assert dp.tree_map_only((int, float), str, t1) == tp.tree_map_only((int, float), str, t1)
    seen_d, seen_t = [], []
    assert dp.tree_map_(seen_d.append, t1) is t1
    tp.tree_map_(seen_t.append, t1)
    assert seen_d == seen_t
    for fn in ("tree_all", "tree_any"):
        for pred in (lambda x: x > 2, lambda x: x > 0, lambda x: x > 9):
            assert getattr(dp, fn)(pred, t1) == getattr(tp, fn)(pred, t1)
    assert dp.tree_all_only(float, lambda x: x > 3, t1) == \
        tp.tree_all_only(float, lambda x: x > 3, t1)
    leaf_tuples = lambda x: isinstance(x, tuple)   # noqa: E731
    assert dp.tree_leaves(t1, is_leaf=leaf_tuples) == tp.tree_leaves(t1, is_leaf=leaf_tuples)
    assert repr(dp.tree_structure(t1, is_leaf=leaf_tuples)) == \
        repr(tp.tree_structure(t1, is_leaf=leaf_tuples))


@pytest.mark.parametrize("rest", [
    {"a": [1, 2], "c": (3, 4)}, {"a": [1, 2]}, {"a": [1], "b": (3, 4)}, {"a": (1, 2), "b": (3, 4)},
    [1, 2], {"a": [1, 2], "b": Point(3, 4)},
])
def test_flatten_up_to_errors(rest):
    tree = {"a": [1, 2], "b": (3, 4)}

    def err(lib):
        with pytest.raises(ValueError) as info:
            lib.tree_map(lambda x, y: x, tree, rest)
        return str(info.value)
    assert err(dp) == err(tp)


def test_unflatten_errors():
    def err(lib, *args):
        try:
            lib.tree_unflatten(*args)
        except Exception as e:   # noqa: BLE001
            return type(e).__name__, str(e)
    spec_d, spec_t = dp.tree_structure([1, (2, 3)]), tp.tree_structure([1, (2, 3)])
    assert err(dp, [1, 2], spec_d) == err(tp, [1, 2], spec_t)
    assert err(dp, [1], [2]) == err(tp, [1], [2])
    assert dp.tree_unflatten(spec_d, [1, 2, 3]) == tp.tree_unflatten(spec_t, [1, 2, 3])


def test_is_namedtuple():
    for obj in (Point, Point(1, 2), (1, 2), tuple, OrderedDict):
        assert (dp.is_namedtuple(obj), dp.is_namedtuple_class(obj),
                dp.is_namedtuple_instance(obj)) == \
            (tp.is_namedtuple(obj), tp.is_namedtuple_class(obj), tp.is_namedtuple_instance(obj))


def _register(lib, with_keys=True):
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __eq__(self, other):
            return type(other).__name__ == "Pair" and (self.a, self.b) == (other.a, other.b)

        def __repr__(self):
            return f"Pair({self.a!r}, {self.b!r})"

    lib.register_pytree_node(
        Pair, lambda p: ([p.a, p.b], "ctx"), lambda v, c: Pair(*v),
        flatten_with_keys_fn=(lambda p: ([(lib.GetAttrKey("a"), p.a),
                                          (lib.GetAttrKey("b"), p.b)], "ctx"))
        if with_keys else None)
    return Pair


@pytest.mark.parametrize("with_keys", [True, False])
def test_register_pytree_node(with_keys):
    out = []
    for lib in (dp, tp):
        Pair = _register(lib, with_keys)
        try:
            tree = [Pair(1, (2, 3)), {"k": Pair(4, 5)}]
            leaves, spec = lib.tree_flatten(tree)
            res = [leaves, repr(spec).replace(Pair.__qualname__, "Pair"),
                   lib.tree_unflatten([x * 2 for x in leaves], spec),
                   lib.treespec_pprint(spec)]
            try:
                res.append([lib.keystr(k) for k, _ in lib.tree_leaves_with_path(tree)])
            except ValueError as e:
                res.append(str(e).replace(repr(Pair), "Pair"))
            with pytest.raises(ValueError) as info:   # registered twice
                lib.register_pytree_node(Pair, lambda p: ([], None), lambda v, c: None)
            res.append(str(info.value).replace(repr(Pair), "Pair"))
            with pytest.raises(ValueError) as info:   # another type in the rest tree
                lib.tree_map(lambda x, y: x, tree, [(1, (2, 3)), {"k": Pair(4, 5)}])
            res.append(str(info.value).replace(repr(Pair), "Pair"))
            out.append(res)
        finally:
            lib._deregister_pytree_node(Pair) if lib is dp else _torch_deregister(Pair)
    assert out[0] == out[1]


def _torch_deregister(cls):
    tp._deregister_pytree_node(cls)


def test_leafspec_deprecated():
    import warnings
    for lib in (dp, tp):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.LeafSpec()
        assert [(x.category, x.filename) for x in w] == [(FutureWarning, __file__)]
        msgs = str(w[0].message)
        assert msgs.startswith("`isinstance(treespec, LeafSpec)` is deprecated")
    assert dp.PyTreeSpec is dp.TreeSpec and tp.PyTreeSpec is tp.TreeSpec
