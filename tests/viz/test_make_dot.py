"""make_dot against torchviz 0.0.3 on torch: the same nodes and edges for the same program.

Graphs are compared structurally: the multiset of node statements (label, fill colour) and
the multiset of edges written with the labels of their ends (ids differ between the runs).
"""
import collections
import re
import shutil

import numpy as np
import pytest
import torch

import dyngrad

graphviz = pytest.importorskip("graphviz")
torchviz = pytest.importorskip("torchviz")
from dyngrad.viz import make_dot  # noqa: E402

# torchviz 0.0.3 compares versions with distutils' LooseVersion
pytestmark = pytest.mark.filterwarnings("ignore:distutils Version classes:DeprecationWarning")

NODE = re.compile(r'^\t(\S+) \[label=("(?:[^"\\]|\\.)*"|\S+?)(?: (.*))?\]$', re.S)
EDGE = re.compile(r'^\t(\S+) -> (\S+)(?: \[(.*)\])?$', re.S)


def structure(dot):
    """(Counter of node (label, attrs), Counter of edge (tail label, head label, attrs))."""
    labels, nodes, edges = {}, collections.Counter(), []
    for stmt in dot.body:
        stmt = stmt.rstrip("\n")
        m = EDGE.match(stmt)
        if m:
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
            continue
        m = NODE.match(stmt)
        assert m, f"unparsed statement {stmt!r}"
        label = m.group(2).strip('"')
        labels[m.group(1)] = label
        nodes[(label, m.group(3) or "")] += 1
    edge_count = collections.Counter((labels[a], labels[b], attrs) for a, b, attrs in edges)
    return nodes, edge_count


def both(fn, *arrays, requires_grad=None):
    """Run fn(lib, *tensors) in torch and dyngrad on the same values."""
    requires_grad = requires_grad or [True] * len(arrays)
    out = []
    for lib in (torch, dyngrad):
        ts = [lib.tensor(a, requires_grad=r) for a, r in zip(arrays, requires_grad)]
        out.append((fn(lib, *ts), ts))
    return out


def assert_same(fn, arrays, requires_grad=None, names=None, **kw):
    (t_out, t_in), (d_out, d_in) = both(fn, *arrays, requires_grad=requires_grad)
    t_params = d_params = None
    if names:
        t_params = dict(zip(names, t_in))
        d_params = dict(zip(names, d_in))
    expected = torchviz.make_dot(t_out, params=t_params, **kw)
    got = make_dot(d_out, params=d_params, **kw)
    assert isinstance(got, graphviz.Digraph)
    assert structure(got) == structure(expected)
    assert got.graph_attr == expected.graph_attr
    assert got.node_attr == expected.node_attr
    return got


rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3)).astype(np.float32)
W = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal(2).astype(np.float32)


def mlp(lib, x, w, b):
    F = lib.nn.functional
    return F.mse_loss(F.linear(x, w, b).relu(), lib.zeros(4, 2))


def test_mlp_with_named_params():
    got = assert_same(mlp, [X, W, B], requires_grad=[False, True, True], names=["x", "weight",
                                                                                    "bias"])
    assert "weight\n (2, 3)" in got.source


def test_shared_input_with_saved_tensors():
    def f(lib, x):
        return (x * x + x.exp()).sum()
    assert_same(f, [X], show_saved=True)


def test_tuple_of_outputs():
    def f(lib, x, w):
        h = x @ w.t()
        return h.tanh().sum(), (h * 2).mean()
    assert_same(f, [X, W], names=["x", "w"])


def test_output_that_is_a_view():
    def f(lib, x):
        return (x * 2)[1:3].transpose(0, 1)
    got = assert_same(f, [X])
    assert "style=dotted" in got.source


def test_custom_function_saved_tensors_are_drawn():
    def f(lib, x, w):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 3 * a * a * g
        return (Cube.apply(x @ w.t()) + 1).sum()
    got = assert_same(f, [X, W])
    assert "fillcolor=orange" in got.source


def test_conv_net_with_show_attrs_names():
    def f(lib, img, k):
        F = lib.nn.functional
        h = F.max_pool2d(F.conv2d(img, k, padding=1).relu(), 2)
        return F.cross_entropy(h.flatten(1), lib.tensor([1, 0]))
    img = rng.standard_normal((2, 1, 4, 4)).astype(np.float32)
    k = rng.standard_normal((3, 1, 3, 3)).astype(np.float32)
    assert_same(f, [img, k], requires_grad=[False, True], names=["img", "kernel"])


def test_show_attrs_and_show_saved_together():
    def f(lib, x, w):
        F = lib.nn.functional
        return F.mse_loss((x * w).relu().exp(), lib.zeros(4, 3))
    got = assert_same(f, [X, X], show_attrs=True, show_saved=True)
    assert re.search(r"reduction: +1\n", got.source) and "result: [saved tensor]" in got.source


def test_show_attrs_lists_saved_values():
    x = dyngrad.tensor(X, requires_grad=True)
    label = [s for s in make_dot(x * x, show_attrs=True).body if "MulBackward0" in s][0]
    assert "self : [saved tensor]" in label.replace("  ", " ") or "self: [saved tensor]" in label
    assert "other: [saved tensor]" in label


def test_rendered_svg_and_png_name_the_nodes():
    assert shutil.which("dot"), "Graphviz's dot is missing: apt-get install graphviz (make test)"
    x, w, b = (dyngrad.tensor(a, requires_grad=r) for a, r in ((X, False), (W, True), (B, True)))
    dot = make_dot(mlp(dyngrad, x, w, b), params={"weight": w, "bias": b})
    svg = dot.pipe(format="svg").decode()
    for name in ("MseLossBackward0", "ReluBackward0", "AddmmBackward0", "TBackward0",
                 "AccumulateGrad", "weight", "bias", " (2, 3)", " (2)"):
        assert f">{name}</text>" in svg, name
    ids = {s.split()[0] for s in dot.body if "->" not in s and s.startswith("\t")}
    assert svg.count('class="node"') == len(ids) == 9
    png = dot.pipe(format="png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_deep_graph_needs_no_recursion():
    x = dyngrad.tensor(X, requires_grad=True)
    y = x
    for _ in range(3000):           # deeper than Python's recursion limit
        y = y * 1.0
    body = make_dot(y.sum()).body
    assert sum("MulBackward0" in s for s in body) == 3000
