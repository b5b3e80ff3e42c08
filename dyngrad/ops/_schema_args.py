"""torch's Python argument parser for functions declared by hand (not through ``defop``): one
call binds positional and keyword arguments to a schema and raises the parser's TypeErrors
word for word (missing, surplus, unknown and mistyped arguments).

A schema is a sequence of ``(name, kind)`` or ``(name, kind, default)``; kinds are ``"Tensor"``,
``"float"``, ``"int"``, ``"bool"``, ``"Number"``, ``"dtype"`` and ``"int[]"`` (a tuple/list of
ints or one int), each with a trailing ``?`` when None is accepted.
"""
from __future__ import annotations

import operator

from ..backends.numpy_backend import xp

_NO_DEFAULT = object()
_SHOWN = {"Tensor": "Tensor", "float": "float", "int": "int", "bool": "bool",
          "Number": "Number", "int[]": "tuple of ints", "dtype": "torch.dtype"}


def _type_name(v) -> str:
    from .creation import _type_name as name
    return name(v)


def _accepts(kind: str, value) -> bool:
    from .._tensor import Tensor
    if kind.endswith("?"):
        if value is None:
            return True
        kind = kind[:-1]
    if kind == "Tensor":
        return isinstance(value, Tensor)
    if kind == "bool":
        return type(value) is bool
    if kind == "int":
        return type(value) is not bool and isinstance(value, (int, xp.integer))
    if kind == "float":
        return type(value) is not bool and isinstance(value, (int, float, xp.integer,
                                                              xp.floating))
    if kind == "Number":
        return isinstance(value, (int, float, complex, xp.number)) or \
            (isinstance(value, Tensor) and value.dim() == 0)
    if kind == "dtype":
        from .. import _dtypes as D
        return isinstance(value, D.dtype)
    if kind == "int[]":
        if type(value) is not bool and isinstance(value, (int, xp.integer)):
            return True
        return isinstance(value, (tuple, list)) and all(
            type(v) is not bool and isinstance(v, (int, xp.integer)) for v in value)
    raise AssertionError(kind)


def parse(fname: str, schema, args, kwargs) -> list:
    """The arguments of a call of `fname`, one per schema entry (defaults filled in)."""
    names = [p[0] for p in schema]
    if len(args) > len(schema):
        n = len(schema)
        raise TypeError(f"{fname}() takes {n} positional argument{'' if n == 1 else 's'} but "
                        f"{len(args)} {'was' if len(args) == 1 else 'were'} given")
    values, missing = [], []
    for i, param in enumerate(schema):
        name, kind = param[0], param[1]
        default = param[2] if len(param) > 2 else _NO_DEFAULT
        if i < len(args):
            value, where = args[i], f" (position {i + 1})"
            if name in kwargs:
                raise TypeError(f"{fname}() got multiple values for argument '{name}'")
        elif name in kwargs:
            value, where = kwargs[name], ""
        elif default is not _NO_DEFAULT:
            values.append(default)
            continue
        else:
            missing.append(name)
            continue
        if not missing and not _accepts(kind, value):
            raise TypeError(f"{fname}(): argument '{name}'{where} must be "
                            f"{_SHOWN[kind.rstrip('?')]}, not {_type_name(value)}")
        if kind.startswith("int[]") and value is not None:
            value = (operator.index(value),) if not isinstance(value, (tuple, list)) \
                else tuple(operator.index(v) for v in value)
        values.append(value)
    if missing:
        # torch's parser names every required argument from the first missing one on (given
        # as keywords or not), and writes "argument" for several, "arguments" for one
        first = names.index(missing[0])
        missing = [p[0] for p in schema[first:] if len(p) < 3]
        raise TypeError(f"{fname}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) == 1 else ''}: "
                        + ", ".join(f'"{n}"' for n in missing))
    for k in kwargs:   # (torch reports these last)
        if k not in names:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
    return values
