"""backward_trace: run one backward and draw the graph coloured by the gradient on each edge.

The picture is make_dot's graph. Before the backward we put a hook on every node of it
(``Node.register_hook``: it sees the gradients a node received and the ones it passed on), so
each edge learns the gradient that really flowed along it. The edge is then coloured:

* red: the gradient has NaN or Inf in it;
* grey: it is exactly zero everywhere (a dead ReLU, a mask, a zero weight);
* dashed light grey: no gradient flowed at all (the engine never ran that node);
* otherwise a colour from blue (small norm) to orange (large norm), on a log scale of the norms
  in this graph, with the norm written on the edge.

The result keeps the numbers (``.edges``) and draws them as SVG (``.svg``) and as a standalone
HTML page (``.html``) with the SVG inlined and a little plain JavaScript to pan and zoom.
"""

import math

from ..autograd.graph import AccumulateGrad, gradient_edge
from .dot import GraphWalk, to_digraph
from .html import html_page


class EdgeStat:
    """The gradient that flowed along one edge of the picture."""

    __slots__ = ("tail", "head", "shape", "norm", "has_nan", "has_inf", "is_zero")

    def __init__(self, tail, head, grad):
        self.tail, self.head = tail, head
        self.shape = None if grad is None else tuple(grad.shape)
        if grad is None:
            self.norm, self.has_nan, self.has_inf, self.is_zero = None, False, False, False
            return
        a = grad.detach().double().numpy()
        self.has_nan = bool((a != a).any())
        self.has_inf = bool((abs(a) == math.inf).any())
        finite = a[(a == a) & (abs(a) != math.inf)]
        self.norm = float((finite * finite).sum() ** 0.5) if not (self.has_nan or self.has_inf) \
            else math.nan
        self.is_zero = not self.has_nan and bool((a == 0).all())

    @property
    def status(self) -> str:
        """'nan', 'inf', 'zero', 'none' (no gradient) or 'ok'."""
        if self.has_nan:
            return "nan"
        if self.has_inf:
            return "inf"
        if self.norm is None:
            return "none"
        return "zero" if self.is_zero else "ok"

    def __repr__(self):
        return (f"EdgeStat({self.tail} -> {self.head}, status={self.status!r}, "
                f"norm={self.norm!r}, shape={self.shape})")


# Colours (also drawn in the legend)
RED, GREY, NONE_GREY = "red", "grey55", "grey80"
LOW, HIGH = (0x1f, 0x77, 0xb4), (0xff, 0x7f, 0x0e)    # blue -> orange


def _ramp(t: float) -> str:
    rgb = [round(lo + (hi - lo) * t) for lo, hi in zip(LOW, HIGH)]
    return "#%02x%02x%02x" % tuple(rgb)


def edge_style(stat: EdgeStat, lo: float, hi: float) -> dict:
    """Graphviz attributes for one edge, given the log10 range of the finite non-zero norms."""
    s = stat.status
    if s in ("nan", "inf"):
        return dict(color=RED, fontcolor=RED, penwidth="2.5", label=s.upper(),
                    fontname="monospace", fontsize="9")
    if s == "none":
        return dict(color=NONE_GREY, style="dashed")
    if s == "zero":
        return dict(color=GREY, fontcolor=GREY, label="0", fontname="monospace", fontsize="9")
    t = 0.5 if hi <= lo else (math.log10(stat.norm) - lo) / (hi - lo)
    return dict(color=_ramp(t), fontcolor=_ramp(t), penwidth=f"{1 + 2 * t:.2f}",
                label=f"{stat.norm:.3g}", fontname="monospace", fontsize="9")


def add_legend(dot, lo, hi):
    """A boxed legend of the edge colours, drawn beside the graph."""
    with dot.subgraph(name="cluster_legend") as leg:
        leg.attr(label="gradient norm", fontsize="10", fontname="monospace", color="grey70")
        rows = [("legend_small", _ramp(0.0), f"small ({10 ** lo:.2g})" if hi >= lo else "small"),
                ("legend_large", _ramp(1.0), f"large ({10 ** hi:.2g})" if hi >= lo else "large"),
                ("legend_nan", RED, "NaN / Inf"),
                ("legend_zero", GREY, "exactly zero"),
                ("legend_none", NONE_GREY, "no gradient")]
        for key, color, text in rows:
            leg.node(key + "_a", "", shape="point", width="0.05", style="invis")
            leg.node(key + "_b", text, shape="plaintext", fillcolor="white", style="")
            leg.edge(key + "_a", key + "_b", color=color, penwidth="2",
                     style="dashed" if key == "legend_none" else "solid")


class BackwardTrace:
    """What backward_trace returns: the per-edge statistics and the coloured drawing."""

    def __init__(self, walk, stats, digraph):
        self.walk = walk
        self.edges = stats            # one EdgeStat per edge of the picture that carries a grad
        self.digraph = digraph
        self._svg = None

    @property
    def node_count(self) -> int:
        """Nodes of the autograd picture (the legend's are not counted)."""
        return len(self.walk.nodes)

    @property
    def svg(self) -> str:
        if self._svg is None:
            self._svg = self.digraph.pipe(format="svg").decode("utf-8")
        return self._svg

    @property
    def html(self) -> str:
        return html_page(self.svg, title="dyngrad backward trace", node_count=self.node_count)

    def save(self, path) -> str:
        """Write ``.html`` (default), ``.svg`` or ``.dot`` according to the file's suffix."""
        path = str(path)
        if path.endswith(".svg"):
            text = self.svg
        elif path.endswith((".dot", ".gv")):
            text = self.digraph.source
        else:
            text = self.html
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def __repr__(self):
        bad = sum(s.status in ("nan", "inf") for s in self.edges)
        zero = sum(s.status == "zero" for s in self.edges)
        return (f"BackwardTrace({self.node_count} nodes, {len(self.edges)} edges, "
                f"{bad} non-finite, {zero} zero)")


def _short(label: str) -> str:
    """A node label on one line: 'MulBackward0', 'w (3, 2)', '(3,)'."""
    parts = [p.strip() for p in label.split("\n")]
    if "Backward" in parts[0] or parts[0] == "AccumulateGrad":
        return parts[0]
    return " ".join(p for p in parts[:2] if p)


def backward_trace(loss, params=None, path=None, retain_graph=None):
    """Run ``loss.backward()`` once and draw its graph coloured by the gradient on each edge.

    Returns a BackwardTrace: ``.edges`` (EdgeStat per edge: norm, NaN/Inf, zero), ``.svg``,
    ``.html`` (a standalone page: open it in a browser, wheel to zoom, drag to pan) and
    ``.save(path)``. `params` names leaves as in make_dot; with `path` the picture is also
    saved there (``.html``, ``.svg`` or ``.dot`` by suffix). `retain_graph` is passed to
    backward, so the graph stays usable exactly when the caller asks for it. Gradients
    accumulate into ``.grad`` as any backward does.
    """
    walk = GraphWalk(params).walk(loss)
    got = {}          # id(fn) -> (grad_inputs, grad_outputs)

    def leaf_recorder(fn):
        def hook(grad):
            got[id(fn)] = ((), (grad,))
        return hook

    def recorder(fn):
        def hook(grad_inputs, grad_outputs):
            got[id(fn)] = (tuple(grad_inputs), tuple(grad_outputs))
        return hook

    handles = [fn.register_hook(recorder(fn)) for fn in walk.fns.values()
               if not isinstance(fn, AccumulateGrad)]
    # a leaf's gradient is seen by a hook on the tensor itself
    for fn in walk.fns.values():
        if isinstance(fn, AccumulateGrad):
            handles.append(fn.variable.register_hook(leaf_recorder(fn)))
    try:
        loss.backward(retain_graph=retain_graph)
    finally:
        for h in handles:
            h.remove()

    # Note [Which gradient an edge carries]
    # An edge u -> fn means "fn sends a gradient to u": it is fn's grad_inputs[i] for the i-th
    # of fn.next_functions (one node can feed the same u twice, x * x, and each edge gets its
    # own). The edge leaf -> AccumulateGrad carries what reached the leaf (seen by a tensor
    # hook on it), and grad_fn -> output carries what the output's node received there: for
    # the loss, the seed gradient 1.
    stats, styles = [], []
    for (tail, head, _), src in zip(walk.edges, walk.edge_src):
        grad = None
        if src is None:              # saved-tensor and view edges carry no gradient
            stats.append(None)
            continue
        if src[0] == "input":        # fn sent grad_inputs[i] to its i-th next function
            _, fn, i = src
            rec = got.get(id(fn))
            grad = rec[0][i] if rec and i < len(rec[0]) else None
        elif src[0] == "leaf":       # what reached the leaf's AccumulateGrad
            rec = got.get(id(src[1]))
            grad = rec[1][0] if rec and rec[1] else None
        else:                        # the gradient seeded at (or reaching) an output
            var = src[1]
            fn, nr = gradient_edge(var)
            rec = got.get(id(fn))
            grad = rec[1][nr] if rec and nr < len(rec[1]) else None
        stats.append(EdgeStat(_short(walk.nodes[tail][0]), _short(walk.nodes[head][0]), grad))

    logs = [math.log10(s.norm) for s in stats
            if s is not None and s.status == "ok" and s.norm > 0]
    lo, hi = (min(logs), max(logs)) if logs else (0.0, -1.0)
    for i, s in enumerate(stats):
        styles.append(None if s is None else edge_style(s, lo, hi))
        if styles[-1] is not None:
            styles[-1]["id"] = f"gedge{i}"
    node_ids = {key: {"id": f"gnode{i}"} for i, key in enumerate(walk.nodes)}
    dot = to_digraph(walk, edge_attrs=styles, node_attrs=node_ids)
    add_legend(dot, lo, hi)
    trace = BackwardTrace(walk, [s for s in stats if s is not None], dot)
    if path is not None:
        trace.save(path)
    return trace
