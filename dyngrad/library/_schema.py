"""Operator schemas: ``infer_schema`` (from type hints), parsing, printing and argument binding.

A schema string is torch's: ``"foo(Tensor x, Tensor(a1!)? y, *, float k=2.) -> (Tensor, SymInt)"``.
``FunctionSchema`` prints as torch's ``FunctionSchema`` does (floats with 17 significant digits,
``2.`` for 2.0) and binds a call's arguments, raising the dispatcher's messages when they do not
fit (``expected at most N argument(s)``, ``is missing value for argument``...).
"""
from __future__ import annotations

import collections.abc
import inspect
import re
import typing
from types import GenericAlias

__all__ = ["infer_schema", "FunctionSchema", "Argument"]


def _supported_param_types() -> dict:
    from .. import Tensor, device, dtype, types

    def derived(base, cpp, list_base, optional_base_list, optional_list_base):
        def seqs(t):
            return (typing.Sequence[t], typing.List[t],   # noqa: UP006
                    GenericAlias(collections.abc.Sequence, (t,)), GenericAlias(list, (t,)))
        out = [(base, cpp), (typing.Optional[base], f"{cpp}?")]
        if list_base:
            out += [(s, f"{cpp}[]") for s in seqs(base)]
        if optional_base_list:
            out += [(s, f"{cpp}?[]") for s in seqs(typing.Optional[base])]
        if optional_list_base:
            out += [(typing.Optional[s], f"{cpp}[]?") for s in seqs(base)]
        return out
    rows = [(Tensor, "Tensor", True, True, False), (int, "SymInt", True, False, True),
            (float, "float", True, False, True), (bool, "bool", True, False, True),
            (str, "str", False, False, False), (types.Number, "Scalar", True, False, False),
            (dtype, "ScalarType", False, False, False), (device, "Device", False, False, False)]
    return dict(item for row in rows for item in derived(*row))


def _supported_return_types() -> dict:
    from .. import Tensor, types
    return {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]", list[Tensor]: "Tensor[]",  # noqa
            int: "SymInt", float: "float", bool: "bool", types.Number: "Scalar"}


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()) -> str:
    """The schema of `prototype_function` from its type hints (torch.library.infer_schema)."""
    sig = inspect.signature(prototype_function)
    params_types, return_types = _supported_param_types(), _supported_return_types()
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error_fn(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(ann):
        if isinstance(ann, str):
            try:
                return eval(ann, prototype_function.__globals__)   # noqa: S307  (as torch)
            except NameError as e:   # (a type only a local function sees: torch's hint)
                error_fn(f"Unsupported type annotation {ann}. It is not a type. ({e}). If you "
                         "are using 'from __future__ import annotations', note that annotations "
                         "are evaluated lazily as strings; make sure all types referenced in "
                         "annotations are importable at module scope, not only inside a local "
                         "function.")
            except Exception as e:   # noqa: BLE001
                error_fn(f"Unsupported type annotation {ann}. It is not a type. "
                         f"({type(e).__name__}: {e})")
        return ann

    params, seen, kw_only = [], set(), False
    for idx, (name, p) in enumerate(sig.parameters.items()):
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if p.kind == p.KEYWORD_ONLY and not kw_only:
            params.append("*")
            kw_only = True
        if p.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        ann = resolve(p.annotation)
        if ann not in params_types:
            valid = f"The valid types are: {params_types.keys()}."
            if getattr(ann, "__origin__", None) is tuple:
                args = typing.get_args(ann)
                as_list = GenericAlias(list, (args[0],)) if args else None
                example = f"For example, {as_list}.\n\n" if as_list in params_types else "\n\n"
                error_fn(f"Parameter {name} has unsupported type {p.annotation}. We do not "
                         "support Tuple inputs in schema. As a workaround, please try to use "
                         f"List instead. {example}{valid}")
            error_fn(f"Parameter {name} has unsupported type {p.annotation}. {valid}")
        stype = params_types[ann]
        if type(mutates_args) is str:
            if mutates_args != "unknown":
                raise ValueError("mutates_args must either be a sequence of the names of the "
                                 "arguments that are mutated or the string 'unknown'. ")
            if stype.startswith("Tensor"):
                stype = f"Tensor(a{idx}!){stype[len('Tensor'):]}"
        elif name in mutates_args:
            if not stype.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or collections "
                         "of Tensors can be mutated")
            stype = f"Tensor(a{idx}!){stype[len('Tensor'):]}"
        seen.add(name)
        if p.default is inspect.Parameter.empty:
            params.append(f"{stype} {name}")
            continue
        from .. import device, dtype
        d = p.default
        if d is None or isinstance(d, (int, float, bool)):
            rep = str(d)
        elif isinstance(d, (str, device)):
            rep = f'"{d}"'
        elif isinstance(d, dtype):
            rep = str(d)[len("torch."):]
        else:
            error_fn(f"Parameter {name} has an unsupported default value type {type(d)}. "
                     "Please file an issue on GitHub so we can prioritize this.")
        params.append(f"{stype} {name}={rep}")
    if mutates_args != "unknown":
        missing = set(mutates_args) - seen
        if missing:
            error_fn(f"{missing} in mutates_args were not found in the custom op's signature. "
                     "mutates_args should contain the names of all args that the custom op "
                     "mutates, or just the string 'unknown' if you don't know.")
    ret = _parse_return(resolve(sig.return_annotation), return_types, error_fn)
    body = f"({', '.join(params)}) -> {ret}"
    return body if op_name is None else op_name + body


def _parse_return(ann, types_, error_fn) -> str:
    if ann is None:
        return "()"
    if ann is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    if typing.get_origin(ann) is not tuple:
        if ann not in types_:
            error_fn(f"Return has unsupported type {ann}. The valid types are: {types_}.")
        return types_[ann]
    args = typing.get_args(ann)
    for a in args:
        if a not in types_:
            error_fn(f"Return has unsupported type {ann}. The valid types are: {types_}.")
    out = ", ".join(types_[a] for a in args)
    return "((" + out + "))" if len(args) == 1 else "(" + out + ")"


# ---------------------------------------------------------------------------------------------
# Parsing and printing
# ---------------------------------------------------------------------------------------------
def _split_top(text: str) -> list:
    """`text` split at commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


_ALIAS = re.compile(r"^Tensor\(([a-z0-9]+)(!?)\)")


class Argument:
    """One argument (or return) of a schema."""

    def __init__(self, text: str, kwarg_only: bool):
        self.kwarg_only = kwarg_only
        default = None
        if "=" in text:
            text, default = (s.strip() for s in text.split("=", 1))
        typ, _, name = text.rpartition(" ") if " " in text.strip() else (text, "", "")
        self.type, self.name, self.default_text = typ.strip(), name.strip(), default
        m = _ALIAS.match(self.type)
        self.is_write = bool(m and m.group(2))
        self.alias = m.group(1) if m else None
        self.base_type = _ALIAS.sub("Tensor", self.type)   # "Tensor?" for "Tensor(a1!)?"

    @property
    def has_default(self) -> bool:
        return self.default_text is not None

    def default(self):
        """The default as a Python value."""
        text = self.default_text
        if text in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}[text]
        if text.startswith(("'", '"')):
            return text[1:-1]
        if text.startswith("["):
            return [float(v) if "." in v else int(v) for v in _split_top(text[1:-1])]
        try:
            return float(text) if self.base_type.startswith("float") or "." in text \
                or "e" in text else int(text)
        except ValueError:   # a dtype or device name
            from .. import _dtypes
            return getattr(_dtypes, text, text)

    def __str__(self) -> str:
        out = f"{self.type} {self.name}" if self.name else self.type
        if self.default_text is None:
            return out
        text = self.default_text
        if self.base_type.startswith("float") and text not in ("None",):
            text = "%.17g" % float(text)
            text += "" if any(c in text for c in ".eninf") else "."
        elif text.startswith("["):
            text = "[" + ", ".join(_split_top(text[1:-1])) + "]"
        return f"{out}={text}"


class FunctionSchema:
    """A parsed schema: ``name``, ``overload_name``, ``arguments``, ``returns``."""

    def __init__(self, text: str):
        head, _, ret = text.partition("->")
        head, ret = head.strip(), ret.strip()
        name, _, args = head.partition("(")
        self.name, _, self.overload_name = name.strip().partition(".")
        self.arguments, kw = [], False
        for part in _split_top(args[:-1]):
            if part == "*":
                kw = True
                continue
            self.arguments.append(Argument(part, kw))
        if ret.startswith("(") and ret.endswith(")"):
            ret = ret[1:-1]
        self.returns = [Argument(r, False) for r in _split_top(ret)]

    @property
    def is_mutable(self) -> bool:
        return any(a.is_write for a in self.arguments)

    def _is_view_op(self) -> bool:
        return any(r.alias and not r.is_write for r in self.returns)

    def __str__(self) -> str:
        args, kw = [], False
        for a in self.arguments:
            if a.kwarg_only and not kw:
                args.append("*")
                kw = True
            args.append(str(a))
        rets = ", ".join(str(r) for r in self.returns)
        if len(self.returns) != 1 or self.returns[0].name:
            rets = f"({rets})"
        name = self.name + (f".{self.overload_name}" if self.overload_name else "")
        return f"{name}({', '.join(args)}) -> {rets}"

    __repr__ = __str__

    def bind(self, args, kwargs):
        """(positional arguments, keyword-only arguments), defaults filled, as the dispatcher
        passes them on; the dispatcher's errors when they do not fit."""
        from .. import Tensor
        decl = f"Declaration: {self}"
        positional = [a for a in self.arguments if not a.kwarg_only]
        given = len(args) + len(kwargs)
        if given > len(self.arguments):
            raise RuntimeError(f"{self.name}() expected at most {len(self.arguments)} "
                               f"argument(s) but received {given} argument(s). {decl}")
        if len(args) > len(positional):
            raise RuntimeError(f"{self.name}() takes {len(positional)} positional argument(s) "
                               f"but {len(args)} was/were given.  {decl}")
        kwargs = dict(kwargs)
        values = []
        for i, a in enumerate(self.arguments):
            if i < len(args):
                v = args[i]
            elif a.name in kwargs:
                v = kwargs.pop(a.name)
            elif a.has_default:
                v = a.default()
            else:
                raise RuntimeError(f"{self.name}() is missing value for argument '{a.name}'. "
                                   f"{decl}")
            if a.base_type == "Tensor" and not isinstance(v, Tensor):
                raise RuntimeError(
                    f"{self.name}() Expected a value of type 'Tensor' for argument '{a.name}' "
                    f"but instead found type '{type(v).__name__}'.\nPosition: {i}\n"
                    f"Value: {v!r}\n{decl}\nCast error details: Unable to cast {v} to Tensor")
            values.append(v)
        if kwargs:
            name = next(iter(kwargs))
            raise RuntimeError(f"Unknown keyword argument '{name}' for operator "
                               f"'{self.name}'. Schema: {self}")
        n = len(positional)
        return values[:n], {a.name: v for a, v in zip(self.arguments[n:], values[n:])}
