"""make_dot: a Graphviz picture of an autograd graph, drawn as torchviz draws torch's.

Grey boxes are backward nodes (named as torch names them), light blue boxes are leaves that will
receive ``.grad`` (labelled with their name from ``params`` and their shape), orange boxes are
saved tensors, green boxes are the outputs (dark green: the base of an output that is a view).
Edges run from a node to the node that consumes its gradient's source, as in torchviz: an edge
``u -> fn`` for every ``(u, _)`` in ``fn.next_functions``.

The ``graphviz`` package (PyPI) is imported only when a picture is made; rendering to SVG or PNG
needs Graphviz's ``dot`` program (Debian package ``graphviz``).
"""

from ..autograd.graph import AccumulateGrad, OpNode

SAVED_PREFIX = "_saved_"

NODE_ATTR = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                 height="0.2", fontname="monospace")


def _is_tensor(x) -> bool:
    from .._tensor import Tensor
    return isinstance(x, Tensor)


def saved_attrs(fn) -> dict:
    """The ``_saved_<name>`` values of a node, in name order (what torch lists with ``dir``).

    Our op nodes answer ``_saved_<name>`` through properties of their class (Note [Node
    attributes are class attributes] in autograd/graph.py), which ``dir`` of the node lists
    among its class's other attributes; the names are the op's saved values and its
    non-tensor arguments.
    """
    spec = getattr(type(fn), "spec", None)
    if not isinstance(fn, OpNode) or spec is None:
        return {}
    names = set(spec.saves) | set(spec.arg_positions) | set(spec.arg_defaults)
    out = {}
    for name in sorted(names):
        try:
            out[name] = getattr(fn, SAVED_PREFIX + name)
        except (AttributeError, RuntimeError):   # not stored for this call, or freed
            continue
    return out


def node_label(fn, show_attrs: bool = False, max_attr_chars: int = 50) -> str:
    """The node's type name, with a table of its saved attributes under it when asked."""
    name = type(fn).__name__
    if not show_attrs:
        return name
    attrs = {}
    for key, val in saved_attrs(fn).items():
        if _is_tensor(val):
            attrs[key] = "[saved tensor]"
        elif isinstance(val, tuple) and any(_is_tensor(t) for t in val):
            attrs[key] = "[saved tensors]"
        else:
            attrs[key] = str(val)
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    width1 = max(len(k) for k in attrs)
    width2 = min(max(len(v) for v in attrs.values()), max_attr_chars)
    rule = "-" * max(width1 + width2 + 2, len(name))

    def cut(s):
        return s[:width2 - 3] + "..." if len(s) > width2 else s

    rows = "\n".join(f"{k:<{width1}}: {cut(v):>{width2}}" for k, v in attrs.items())
    return name + "\n" + rule + "\n" + rows


def size_str(shape) -> str:
    return "(" + ", ".join(str(int(v)) for v in shape) + ")"


class GraphWalk:
    """One walk over the graph below some output tensors, collecting nodes and edges.

    Every node is ``(key, label, colour)`` and every edge ``(tail, head, attrs)``; keys are
    ``str(id(obj))`` as torchviz uses. make_dot draws them plainly, backward_trace colours the
    edges by gradient. The walk keeps an explicit stack (deep graphs do not hit the recursion
    limit) and visits in torchviz's order.
    """

    def __init__(self, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
        if params is not None:
            if not all(_is_tensor(p) for p in params.values()):
                raise TypeError("make_dot: params must map names to tensors")
            self.param_map = {id(v): k for k, v in params.items()}
        else:
            self.param_map = {}
        self.show_attrs = show_attrs
        self.show_saved = show_saved
        self.max_attr_chars = max_attr_chars
        self.nodes = {}          # key -> (label, fillcolor or None), the last one drawn
        self.order = []          # statements in drawing order: ("node", key, label, colour)
                                 # or ("edge", index into self.edges)
        self.edges = []          # (tail, head, attrs)
        self.fns = {}            # key -> backward Node, for the nodes that are Nodes
        self.edge_src = []       # per edge: (fn, input index) whose grad flows along it, or a tag
        self._seen = set()
        self._keep = []          # objects whose id() is a key: keep them alive during the walk

    def var_label(self, var, name=None) -> str:
        if not name:
            name = self.param_map.get(id(var), "")
        return f"{name}\n {size_str(var.shape)}"

    def _node(self, obj, label, color=None):
        key = str(id(obj))
        self._keep.append(obj)
        self.nodes[key] = (label, color)
        # a tensor drawn twice (saved as `self` and as `other`) gets two statements, as in
        # torchviz; Graphviz keeps the last label
        self.order.append(("node", key, label, color))
        return key

    def _edge(self, tail, head, src=None, **attrs):
        self.order.append(("edge", len(self.edges)))
        self.edges.append((str(id(tail)), str(id(head)), attrs))
        self.edge_src.append(src)

    def add_fn(self, root):
        stack = [root]
        while stack:
            fn = stack.pop()
            if fn in self._seen:
                continue
            self._seen.add(fn)
            self._add_saved(fn)
            if isinstance(fn, AccumulateGrad):       # the leaf whose .grad it fills
                var = fn.variable
                self._seen.add(id(var))
                self._node(var, self.var_label(var), "lightblue")
                self._edge(var, fn, src=("leaf", fn))
            key = self._node(fn, node_label(fn, self.show_attrs, self.max_attr_chars))
            self.fns[key] = fn
            todo = []
            for i, (u, _) in enumerate(fn.next_functions):
                if u is not None:
                    self._edge(u, fn, src=("input", fn, i))
                    todo.append(u)
            custom = self._custom_saved(fn)
            # torchviz recurses into each input before drawing the custom saved tensors of fn:
            # an explicit stack reaches the same nodes and edges (order does not change them)
            for t in custom:
                self._seen.add(id(t))
                self._edge(t, fn, dir="none")
                self._node(t, self.var_label(t), "orange")
            stack.extend(reversed(todo))

    def _add_saved(self, fn):
        if not self.show_saved:
            return
        for name, val in saved_attrs(fn).items():
            if _is_tensor(val):
                self._edge(fn, val, dir="none")
                self._node(val, self.var_label(val, name), "orange")
            elif isinstance(val, tuple):
                for i, t in enumerate(val):
                    if _is_tensor(t):
                        self._edge(fn, t, dir="none")
                        self._node(t, self.var_label(t, f"{name}[{i}]"), "orange")

    @staticmethod
    def _custom_saved(fn):
        """The saved tensors of a custom ``autograd.Function`` node (torchviz always shows them)."""
        from ..autograd.function import BackwardCFunction
        if not isinstance(fn, BackwardCFunction):
            return ()
        try:
            return [t for t in fn.saved_tensors if t is not None]
        except RuntimeError:    # freed after backward
            return ()

    def add_output(self, var, color="darkolivegreen1"):
        while var is not None and id(var) not in self._seen:
            self._seen.add(id(var))
            self._node(var, self.var_label(var), color)
            if var.grad_fn is not None:
                self.add_fn(var.grad_fn)
                self._edge(var.grad_fn, var, src=("output", var))
            base = var._base
            if base is None:
                break
            # an output that is a view: draw its base too, joined by a dotted edge
            self._edge(base, var, style="dotted")
            var, color = base, "darkolivegreen3"

    def walk(self, var):
        if isinstance(var, tuple):
            for v in var:
                self.add_output(v)
        else:
            self.add_output(var)
        return self


def to_digraph(walk: GraphWalk, edge_attrs=None, node_attrs=None):
    """A ``graphviz.Digraph`` drawing the walk; per-edge/per-node extra attributes if given."""
    try:
        from graphviz import Digraph
    except ImportError as e:   # optional: pip install dyngrad[viz]
        raise ImportError("dyngrad.viz needs the graphviz package: "
                          "pip install 'dyngrad[viz]' (and Debian's graphviz for dot)") from e
    dot = Digraph(node_attr=dict(NODE_ATTR), graph_attr=dict(size="12,12"))
    for stmt in walk.order:
        if stmt[0] == "node":
            _, key, label, color = stmt
            attrs = {} if color is None else {"fillcolor": color}
            if node_attrs and key in node_attrs:
                attrs.update(node_attrs[key])
            dot.node(key, label, **attrs)
        else:
            i = stmt[1]
            tail, head, attrs = walk.edges[i]
            if edge_attrs and edge_attrs[i]:
                attrs = {**attrs, **edge_attrs[i]}
            dot.edge(tail, head, **attrs)
    resize_graph(dot)
    return dot


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """A Graphviz ``Digraph`` of the autograd graph that produced `var` (torchviz's make_dot).

    Args:
        var: an output tensor, or a tuple of them.
        params: ``{name: tensor}``; leaves found among them are labelled with their name
            (``dict(model.named_parameters())`` names a model's weights).
        show_attrs: list each node's saved non-tensor attributes under its name.
        show_saved: draw each node's saved tensors as orange boxes (a custom Function's saved
            tensors are always drawn).
        max_attr_chars: with show_attrs, the widest attribute value shown.

    ``make_dot(y).render("graph", format="svg")`` writes graph.svg (needs Graphviz's ``dot``).
    """
    walk = GraphWalk(params, show_attrs, show_saved, max_attr_chars).walk(var)
    return to_digraph(walk)


def resize_graph(dot, size_per_element=0.15, min_size=12):
    """Grow the drawing's size attribute with the number of statements (as torchviz does)."""
    size = max(min_size, len(dot.body) * size_per_element)
    dot.graph_attr.update(size=f"{size},{size}")
