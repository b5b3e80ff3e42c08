"""torch's Python-parser signatures, read from torchgen (which the torch wheel ships with the
native_functions.yaml it generated the bindings from), in dyngrad's table format
(dyngrad/ops/_signatures.py): the oracle for the table's entries, and what
``python tests/torchgen_signatures.py NAME...`` prints for a new one."""
from __future__ import annotations

import functools
import os
import re
import sys

# torchgen's C++ type names -> the table's
_TYPES = {"c10::List<::std::optional<Tensor>>": "Tensor[]",   # (None is refused too)
          "ScalarType": "dtype", "SymIntArrayRef": "SymInt[]", "IntArrayRef": "int[]",
          "c10::string_view": "str", "TensorList": "Tensor[]", "ArrayRef<double>": "float[]",
          "int64_t": "int", "double": "float", "ScalarList": "Scalar[]"}


@functools.lru_cache(None)
def _bindings():
    """{"function"/"method": {name: [signature string, in the parser's order]}}."""
    import torchgen
    from torchgen.gen import parse_native_yaml
    from torchgen.packaged.autograd import gen_python_functions as G
    root = os.path.join(os.path.dirname(torchgen.__file__), "packaged")
    native = parse_native_yaml(os.path.join(root, "ATen/native/native_functions.yaml"),
                               os.path.join(root, "ATen/native/tags.yaml")).native_functions
    native = [f for f in native if G.should_generate_py_binding(f)]
    deprecated = os.path.join(root, "autograd/deprecated.yaml")
    out = {}
    for kind, method, pred in (("method", True, G.is_py_variable_method),
                               ("function", False, G.is_py_torch_function)):
        pairs = G.load_signatures(native, deprecated, method=method)
        out[kind] = {
            str(name): [g.signature.signature_str(symint=True)   # ("...|deprecated")
                        for g in G.group_overloads(overloads, symint=True)]
            for name, overloads in G.group_filter_overloads(pairs, pred).items()}
    return out


def _param(text):
    if text == "*":
        return text
    kind, _, rest = text.partition(" ")
    optional = kind.endswith("?")
    kind = kind.rstrip("?")
    size = re.fullmatch(r"(.*[^>])\[(\d+)\]", kind)   # IntArrayRef[1], TensorList[2]
    kind = _TYPES.get(size.group(1) if size else kind, size.group(1) if size else kind)
    if size:
        kind = kind[:-2] + f"[{size.group(2)}]" if kind.endswith("[]") else kind
    return f"{kind}{'?' if optional else ''} {rest}"


def _converted(text):
    """One torchgen signature in the table's words; None for a named-tensor overload."""
    text, _, flag = text.partition("|")
    if "Dimname" in text:
        return None
    name, _, body = text[:-1].partition("(")
    params = ", ".join(_param(p) for p in body.split(", ")) if body else ""
    return f"{name}({params})" + ("|hidden" if flag == "deprecated" else "")


def _as_method(text):
    """A function's overload as the method's: without ``Tensor input`` and the outs."""
    text, _, flag = text.partition("|")
    name, _, body = text[:-1].partition("(")
    params = body.split(", ") if body else []
    if not params or params[0] not in ("Tensor input", "Tensor self"):
        return None
    rest = [p for p in params[1:] if not re.match(r"Tensor(\[\d*\])? out=", p)]
    if rest and rest[-1] == "*":
        rest.pop()
    return f"{name}({', '.join(rest)})" + (f"|{flag}" if flag else "")


def entry(name):
    """The table's entry for `name`: the function's overloads, each marked ``fn`` where the
    method (if torch has one of that name) has no such overload, then the method's own,
    marked ``method``; None if torch generates no binding of that name."""
    tables = _bindings()
    functions = [s for s in map(_converted, tables["function"].get(name, ())) if s]
    methods = [s for s in map(_converted, tables["method"].get(name, ())) if s]
    if not functions and not methods:
        return None
    out, shared = [], set()
    for text in functions:
        m = _as_method(text)
        if methods and m in methods:
            out.append(text)
            shared.add(m)
        elif not methods:   # (no method of that name: nothing to mark)
            out.append(text)
        else:
            text, _, flag = text.partition("|")
            out.append(f"{text}|{','.join(['fn'] + [flag] * bool(flag))}")
    for m in methods:
        if m not in shared:
            text, _, flag = m.partition("|")
            out.append(f"{text}|{','.join(['method'] + [flag] * bool(flag))}")
    return tuple(out)


def _literal(text):
    return f"'{text}'" if '"' in text else f'"{text}"'


def source(name, overloads, width=97):
    """The entry as the table's source lines: string literals split at parameters."""
    head = f'    "{name}": ('
    pad = " " * len(head)
    lines = []
    for k, text in enumerate(overloads):
        parts = text.split(", ")
        chunks, cur = [], ""
        for i, p in enumerate(parts):
            piece = p + (", " if i < len(parts) - 1 else "")
            lead = head if not lines and not chunks else pad
            if cur and len(lead) + len(cur) + len(piece) + 3 > width:
                chunks.append(cur)
                cur = piece
            else:
                cur += piece
        chunks.append(cur)
        for i, c in enumerate(chunks):
            lines.append((head if not lines else pad) + _literal(c))
        if k < len(overloads) - 1 or len(overloads) == 1:
            lines[-1] += ","
    lines[-1] += "),"
    return "\n".join(lines)


if __name__ == "__main__":
    for n in sys.argv[1:]:
        e = entry(n)
        print(source(n, e) if e else f"# {n}: no generated binding")
