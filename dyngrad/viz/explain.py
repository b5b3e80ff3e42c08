"""explain: an autograd graph as text, and a "why is this .grad None / zero?" checker.

``print(explain(loss))`` lists every node reachable from ``loss`` (breadth first, numbered), the
nodes it passes gradients to, and its saved tensors with the version each had when saved and
the version it has now. Then it diagnoses the tensors you ask about (``inputs``; by default the
leaves of the graph that require grad), going through the usual checklist:

============================  ==================================================================
cause                         what it means
============================  ==================================================================
``loss_no_grad``              the loss itself does not require grad: nothing it was computed from
                              requires grad, or it was all computed under ``no_grad``
``integer_dtype``             only floating point and complex tensors can require grad
``inference``                 made under ``inference_mode``: it can never join a graph
``detached``                  shares memory with a tensor of the graph but has no grad_fn: it
                              came from ``.detach()`` or ``.data``
``requires_grad_false``       a leaf that does not require grad: made without
                              ``requires_grad=True``, or computed under ``torch.no_grad()``
``non_leaf``                  has a grad_fn and no ``retain_grad()``: ``.grad`` is not kept
``unreachable``               requires grad but the loss was not computed from it
``inplace_modified``          a saved tensor was changed in place after it was saved: backward
                              will raise (and a rebased tensor's graph is not the one you think)
``zero_grad``                 the gradient reaches it but is exactly zero; names the node where
                              it became zero (a ReLU that is off everywhere, a mask, a ``* 0``)
``ok``                        nothing wrong found
============================  ==================================================================

The zero check runs ``autograd.grad`` on a retained graph with node hooks (no ``.grad`` is
touched); when the graph was already freed by a backward it reads the tensors' ``.grad``.
"""

from ..autograd.graph import AccumulateGrad, iter_graph
from .dot import size_str


class Cause:
    """One finding: which tensor, the cause code (table above) and an explanation."""

    __slots__ = ("name", "code", "message")

    def __init__(self, name, code, message):
        self.name, self.code, self.message = name, code, message

    def __repr__(self):
        return f"Cause({self.name!r}, {self.code!r})"


class Explanation(str):
    """The text explain() returns (print it); ``.causes`` holds the findings as Cause objects."""

    causes: list

    def codes(self, name=None) -> set:
        """The cause codes found, for every tensor or for the one called `name`."""
        return {c.code for c in self.causes if name is None or c.name == name}


def _node_name(fn) -> str:
    return type(fn).__name__


def _tensor_desc(t) -> str:
    dtype = str(t.dtype).replace("torch.", "")
    return f"{tuple(t.shape)} {dtype}"


def _saved_entries(fn):
    """(role, SavedTensor) for a node's saved tensors that carry a version."""
    from ..autograd.saved import SavedTensor, boxed
    saved = getattr(fn, "_held", None)
    if not saved:
        return []
    spec = getattr(type(fn), "spec", None)
    names = list(spec.saves) if spec is not None else []
    out = []
    for i, s in enumerate(saved):
        s = boxed(s)   # (an input kept as it is: Note [Saved inputs without a box])
        if isinstance(s, SavedTensor) and s.version is not None:
            role = names[i] if i < len(names) else f"saved[{i}]"
            if s.is_output:
                role += " (output)"
            out.append((role, s))
    return out


def _normalise_inputs(inputs, nodes):
    """``{name: tensor}`` from a tensor, a sequence, a dict, or None (the graph's leaves)."""
    from .._tensor import Tensor
    if inputs is None:
        leaves = [fn.variable for fn in nodes if isinstance(fn, AccumulateGrad)]
        return {f"leaf{i}": t for i, t in enumerate(leaves)}
    if isinstance(inputs, Tensor):
        return {"input": inputs}
    if isinstance(inputs, dict):
        return dict(inputs)
    return {f"inputs[{i}]": t for i, t in enumerate(inputs)}


def _graph_lines(loss, nodes, index, names):
    lines = [f"graph of {type(loss).__name__}{size_str(loss.shape)} "
             f"(grad_fn={None if loss.grad_fn is None else _node_name(loss.grad_fn)}): "
             f"{len(nodes)} nodes"]
    for fn in nodes:
        head = f"  [{index[fn]}] {_node_name(fn)}"
        if isinstance(fn, AccumulateGrad):
            v = fn.variable
            head += f"  leaf {names.get(id(v), '')} {_tensor_desc(v)}".rstrip()
        lines.append(head)
        ins = [f"[{index[u]}] {_node_name(u)}" if u is not None else "None"
               for u, _ in fn.next_functions]
        if ins:
            lines.append("      inputs: " + ", ".join(ins))
        for role, s in _saved_entries(fn):
            now = s.current_version()
            mark = "" if now == s.version else "  <-- MODIFIED IN PLACE"
            what = _tensor_desc(s.tensor) if s.tensor is not None else "output"
            lines.append(f"      saved {role}: {what}, version {s.version} (now {now}){mark}")
        if getattr(fn, "_held", 1) is None and not isinstance(fn, AccumulateGrad) \
                and getattr(type(fn), "spec", None) is not None and type(fn).spec.saves:
            lines.append("      saved: freed (backward already ran without retain_graph)")
    return lines


def _zero_sources(loss, wanted):
    """{id(tensor): zeroing node name or ''} for wanted tensors whose gradient is exactly zero.

    Runs autograd.grad with a hook on every node; a node that received a non-zero gradient
    and passed an all-zero one on is where the gradient died. Returns None if the graph was
    freed (or backward fails).
    """
    from ..autograd import grad as autograd_grad
    nodes = list(iter_graph(loss.grad_fn))
    killed = {}     # id(next node) -> name of the node that sent it zeros from non-zeros

    def is_zero(g):
        return g is not None and not bool((g != 0).any())

    def make_hook(fn):
        def hook(grad_inputs, grad_outputs):
            if all(g is None or is_zero(g) for g in grad_outputs):
                return None
            for (u, _), g in zip(fn.next_functions, grad_inputs):
                if u is not None and is_zero(g):
                    killed.setdefault(id(u), _node_name(fn))
            return None
        return hook

    handles = [fn.register_hook(make_hook(fn)) for fn in nodes]
    try:
        grads = autograd_grad(loss if loss.dim() == 0 else loss.sum(), list(wanted.values()),
                              retain_graph=True, allow_unused=True)
    except RuntimeError:
        return None
    finally:
        for h in handles:
            h.remove()
    out = {}
    for t, g in zip(wanted.values(), grads):
        if is_zero(g):
            from ..autograd.graph import gradient_edge
            first = gradient_edge(t)[0]
            out[id(t)] = killed.get(id(first), "")
    return out


def explain(loss, inputs=None) -> Explanation:
    """The graph below `loss` as text and a diagnosis of why `inputs` get no (or zero) gradient.

    `inputs`: a tensor, a list of tensors or ``{name: tensor}`` (names appear in the text);
    by default the graph's leaves. Returns an Explanation (a str; ``.causes`` lists Cause
    objects with a ``code`` from this module's table).
    """
    from .._tensor import Tensor
    causes = []
    nodes = list(iter_graph(loss.grad_fn)) if loss.grad_fn is not None else []
    index = {fn: i for i, fn in enumerate(nodes)}
    wanted = _normalise_inputs(inputs, nodes)
    names = {id(t): n for n, t in wanted.items()}
    lines = _graph_lines(loss, nodes, index, names) if nodes else \
        [f"graph of {type(loss).__name__}{size_str(loss.shape)}: no graph (grad_fn is None)"]

    # What the graph holds: leaves, saved tensors (for the .detach()/.data check) and modified saves
    leaf_ids = {id(fn.variable) for fn in nodes if isinstance(fn, AccumulateGrad)}
    graph_storages = {}      # storage -> where a tensor that requires grad uses it
    detached_copies = {}     # storage -> where a saved tensor without grad uses it
    modified_storages = set()  # storages of saved tensors changed in place since saved
    for fn in nodes:
        if isinstance(fn, AccumulateGrad):
            graph_storages.setdefault(id(fn.variable._storage_obj()), _node_name(fn))
        for role, s in _saved_entries(fn):
            t = s.tensor
            if t is not None and t.requires_grad:
                graph_storages.setdefault(id(t._storage_obj()), f"{_node_name(fn)}.{role}")
            elif t is not None and t.grad_fn is None:
                detached_copies.setdefault(id(t._storage_obj()), f"{_node_name(fn)} as '{role}'")
            if s.current_version() != s.version:
                if s.tensor is not None:
                    modified_storages.add(id(s.tensor._storage_obj()))
                causes.append(Cause(
                    f"[{index[fn]}] {_node_name(fn)}", "inplace_modified",
                    f"the tensor {_node_name(fn)} saved as '{role}' was modified in place after "
                    f"it was saved (version {s.version}, now {s.current_version()}): backward "
                    "will raise. Use the out-of-place op (x = x + 1, not x += 1 / x.add_(1)) or "
                    "clone() before modifying."))

    if not loss.requires_grad:
        causes.append(Cause("loss", "loss_no_grad",
                            "the loss does not require grad: none of the tensors it was computed "
                            "from requires grad, or it was computed under torch.no_grad() / "
                            "inference_mode, or from .detach()ed values; backward() will raise"))

    zero_check = []
    for name, t in wanted.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"explain: inputs must be tensors, got {type(t).__name__}")
        found = []
        if not (t.is_floating_point() or t.is_complex()):
            found.append(("integer_dtype",
                          f"its dtype is {t.dtype}: only floating point and complex tensors can "
                          "require grad; convert with .float() before the computation"))
        elif t.is_inference():
            found.append(("inference",
                          "it was created under torch.inference_mode(): inference tensors never "
                          "record a graph; make it outside inference_mode (or clone() it there)"))
        elif not t.requires_grad:
            origin = graph_storages.get(id(t._storage_obj()))
            if origin is not None:
                found.append(("detached",
                              f"it shares memory with a tensor of the graph ({origin}) but has no "
                              "grad_fn and requires_grad=False: it came from .detach() or .data, "
                              "which cut the graph here; use the tensor itself"))
            else:
                found.append(("requires_grad_false",
                              "it is a leaf with requires_grad=False: either it was made without "
                              "requires_grad=True (call .requires_grad_()), or it was computed "
                              "under torch.no_grad(), which records no graph"))
        elif t.grad_fn is None:
            copy = detached_copies.get(id(t._storage_obj()))
            if id(t) not in leaf_ids and copy is not None:
                found.append(("detached",
                              f"the loss uses a .detach()/.data copy of it (saved by {copy}), "
                              "which shares its memory but carries no gradient back to it; "
                              "use the tensor itself"))
            elif id(t) not in leaf_ids:
                found.append(("unreachable",
                              "it requires grad but the loss was not computed from it: this "
                              "branch does not reach the loss (a result not used, or a different "
                              "tensor object, e.g. rebound by x = x.to(...))"))
            else:
                zero_check.append((name, t))
        else:
            if t.grad_fn not in index and id(t._storage_obj()) in modified_storages:
                found.append(("inplace_modified",
                              f"it was modified in place after the loss used it: its grad_fn is "
                              f"now {_node_name(t.grad_fn)} (rebased by the in-place op), while "
                              "the loss's graph holds its old value; backward will raise"))
            elif t.grad_fn not in index:
                found.append(("unreachable",
                              f"its grad_fn {_node_name(t.grad_fn)} is not in the loss's graph: "
                              "this branch does not reach the loss"))
            else:
                zero_check.append((name, t))
            if not t.retains_grad:
                found.append(("non_leaf",
                              f"it is not a leaf (grad_fn={_node_name(t.grad_fn)}): backward "
                              "fills .grad only for leaves; call .retain_grad() before backward, "
                              "or use torch.autograd.grad(loss, t)"))
        causes.extend(Cause(name, code, msg) for code, msg in found)

    if zero_check and loss.requires_grad and nodes:
        modified = any(c.code == "inplace_modified" for c in causes)
        zeros = None if modified else _zero_sources(loss, dict(zero_check))
        for name, t in zero_check:
            if zeros is not None:
                where = zeros.get(id(t))
            else:   # graph freed: look at what the last backward left in .grad
                g = t.grad
                where = "" if g is not None and not bool((g != 0).any()) else None
            if where is not None:
                at = f" at {where}" if where else ""
                causes.append(Cause(name, "zero_grad",
                                    f"the gradient reaches it but is exactly zero: it became zero"
                                    f"{at} (a ReLU off for every element, a mask, a multiply by "
                                    "0, or a saturated op)"))

    lines.append("")
    lines.append("diagnosis:")
    named = {c.name for c in causes}
    modified = any(c.code == "inplace_modified" for c in causes)
    for name, t in wanted.items():
        if name not in named:
            causes.append(Cause(name, "ok", "reaches the loss (the gradient was not computed: "
                                "backward would raise, see above)" if modified else
                                "receives a non-zero gradient"))
    for c in causes:
        lines.append(f"  {c.name}: [{c.code}] {c.message}")
    text = Explanation("\n".join(lines))
    text.causes = causes
    return text
