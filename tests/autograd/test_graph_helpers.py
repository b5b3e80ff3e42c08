"""Graph helpers of autograd.graph against live torch: walking the graph from a root (deep
graphs included), gradient edges and version bumps."""
from collections import deque

import pytest
import torch

import dyngrad
from dyngrad.autograd.graph import iter_graph


def torch_bfs(root):
    seen, queue, out = {root}, deque([root]), []
    while queue:
        node = queue.popleft()
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
        out.append(node.name())
    return out


def program(lib):
    x = lib.ones(3, requires_grad=True)
    w = lib.ones(3, requires_grad=True)
    y = (x * w).exp() + x.sin()
    return y.sum()


def test_iter_graph_like_torch():
    assert [n.name() for n in iter_graph(program(dyngrad))] == torch_bfs(program(torch).grad_fn)


def test_iter_graph_deep_chain():
    x = dyngrad.ones(1, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1
    assert sum(1 for _ in iter_graph(y.grad_fn)) == 100_001   # 100 000 adds + AccumulateGrad


def test_gradient_edge_like_torch():
    def edges(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        e1, e2 = lib.autograd.graph.get_gradient_edge(x), lib.autograd.graph.get_gradient_edge(y)
        with pytest.raises(RuntimeError) as info:
            lib.autograd.graph.get_gradient_edge(lib.ones(2))
        return e1.node.name(), e1.output_nr, e2.node.name(), e2.output_nr, str(info.value)
    assert edges(dyngrad) == edges(torch)


def test_increment_version_like_torch():
    def versions(lib):
        a, b = lib.ones(2), lib.ones(2)
        lib.autograd.graph.increment_version(a)
        lib.autograd.graph.increment_version([a, b])
        return a._version, b._version
    assert versions(dyngrad) == versions(torch) == (2, 1)
