"""torch's ``_saved_`` names for the backward nodes dyngrad's ops make, read from live torch
(each node class in ``torch._C._functions`` lists them with ``dir``): the oracle for
dyngrad/autograd/_torch_saved_names.py, and what ``python tests/torch_saved_names.py`` prints
to remake it."""
from __future__ import annotations

import sys


HEADER = '''"""The ``_saved_<name>`` attributes torch's backward nodes have, for the nodes dyngrad's ops make
(Note [Saved arguments as torch shows them] in graph.py): a node's class answers ``_saved_``
for an argument or an input's shape only where torch's does, so ``dir(node)`` lists what
torch's lists. Made from live torch by ``python tests/torch_saved_names.py`` (each class in
``torch._C._functions``); tests/autograd/test_saved_names_table.py checks it against torch.
"""

'''


def torch_saved_names(node: str):
    """The names after ``_saved_`` on torch's node class `node`, sorted; None where torch has
    no such class."""
    import torch
    cls = getattr(torch._C._functions, node, None)
    if cls is None:
        return None
    return tuple(sorted(n[len("_saved_"):] for n in dir(cls) if n.startswith("_saved_")))


def dyngrad_nodes():
    """The node names of dyngrad's ops (one per OpSpec that records a node), sorted."""
    import dyngrad  # noqa: F401  (registers every op)
    from dyngrad.ops._registry import _SPECS
    return sorted({s.node for s in _SPECS.values() if s.node_cls is not None})


def table() -> dict:
    out = {}
    for node in dyngrad_nodes():
        names = torch_saved_names(node)
        if names is not None:
            out[node] = names
    return out


def _q(names) -> str:
    """A tuple of strings as the project writes them (double quotes)."""
    inner = ", ".join(f'"{n}"' for n in names)
    return f"({inner},)" if len(names) == 1 else f"({inner})"


def main() -> None:
    print(HEADER, end="")
    print("SAVED_NAMES = {")
    for node, names in table().items():
        line = f'    "{node}": {_q(names)},'
        if len(line) <= 100:
            print(line)
            continue
        print(f'    "{node}": (')
        row = "       "
        for n in names:
            item = f' "{n}",'
            if len(row) + len(item) > 100:
                print(row)
                row = "       "
            row += item
        print(row)
        print("    ),")
    print("}")


if __name__ == "__main__":
    sys.exit(main())
