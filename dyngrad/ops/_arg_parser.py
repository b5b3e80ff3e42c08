"""torch's Python argument parser, consulted only after a call has failed.

Note [Parser errors]
~~~~~~~~~~~~~~~~~~~~
torch checks every call of a C++-bound function or Tensor method against the overloads of
the function (``_signatures.SIGNATURES``) before running anything, and a wrongly typed
argument gets one of the parser's TypeErrors: ``cumsum(): argument 'dim' (position 1) must be
int, not str`` where the function has one overload (or one that the number of arguments makes
plausible), else ``sum() received an invalid combination of arguments - got (str), but
expected one of: ...``. dyngrad's kernels do not check their arguments' types on the way in:
a string dim fails deep inside (``'<=' not supported between instances of 'int' and 'str'``),
and checking every call up front would slow the hot path (Note [Hot path] in _dispatch.py).

So dyngrad explains on failure: the entry points where a user's call arrives (``call`` in
_dispatch.py for ``dyngrad.op(...)``, the Tensor methods ``_as_method`` makes in _tensor.py)
catch whatever the op raised and ask ``explain`` whether torch's parser would have refused the
arguments; if so they raise its TypeError (``from None``), else they re-raise the original
exception untouched. A try block costs nothing in Python 3.11 when nothing is raised, so a
call that works pays nothing. Only a call made from outside dyngrad is explained (a composite
calling an op with arguments of its own making keeps the op's own error), and the errors that
count arguments ("takes 2 positional arguments") are left to the code that already words them
(unless torch would find another fault first), but for a missing argument, which torch words
its own way: ``flip() missing 1 required positional arguments: "dims"``, and for a method's,
which the parser counts without ``self`` where Python and the dispatcher count it.

The signatures are torch's own strings (``"sum(Tensor input, int[1]? dim, bool keepdim=False,
*, dtype? dtype=None, Tensor out=None)"``), parsed once, on the first failure that needs them.
The matching follows torch/csrc/utils/python_arg_parser.cpp (which values each parameter type
takes: ``_accepts``) and the message follows invalid_arguments.cpp, quirks included: the "got
(...)" of an option is matched against the *printed* option by a textual split, so the
"didn't match because ..." line appears only under options whose printed parameters (counting
``*`` and ``()``'s empty one) are as many as the arguments given, and a parameter printed with a
default never "matches" (``!int!``).

Where torch's function is Python code that calls a binding after checks of its own (a loss
reads its reduction, then calls ``cross_entropy_loss``), or where dyngrad's would let a
non-tensor through (dropout in eval mode returns its input), ``check_tensors`` makes the
binding's tensor check up front, at the point where torch's code calls it. ``published``
wraps the functions of ``torch.linalg`` under their bindings' names (``linalg_cond``) and
those of ``torch.nn.functional`` that are bindings (``conv2d``). A test
(tests/test_nontensor_arguments.py) gives every op of torch's OpInfo database a list, None
and a number for a tensor argument.

What this does not cover: calls that dyngrad silently accepts although torch refuses them (a
float dim where the kernel tolerates one, ``keepdim='a'``) raise nothing to explain; keyword
arguments are listed in the order given (torch lists several in its hash map's order).
"""
from __future__ import annotations

import functools
import re
import sys
import types

from ..backends.numpy_backend import xp
from . import _registry
from .. import overrides as _overrides

# how torch prints each type of parameter (FunctionParameter::type_name)
_PRINTED = {"Tensor": "Tensor", "Scalar": "Number", "int": "int", "SymInt": "int",
            "float": "float", "bool": "bool", "dtype": "torch.dtype", "int[]": "tuple of ints",
            "SymInt[]": "tuple of ints", "Tensor[]": "tuple of Tensors", "str": "str",
            "Device": "torch.device", "Layout": "torch.layout",
            "MemoryFormat": "torch.memory_format", "Generator": "torch.Generator",
            "object": "object", "float[]": "tuple of floats", "Scalar[]": "tuple of Scalars",
            "Storage": "torch.Storage"}
# functions whose Tensor parameters take Python numbers (should_allow_numbers_as_tensors)
_NUMBERS_AS_TENSORS = frozenset(
    f"{n}{s}" for n in ("add", "div", "divide", "mul", "multiply", "sub", "subtract",
                        "true_divide", "floor_divide") for s in ("", "_")) | {"to", "copy_"}
# NumPy's names torch also takes as keywords
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
                "other": ("x2",)}
# the dyngrad classes whose torch counterparts are C types, named with their module
_TORCH_TYPES = {"dtype": "torch.dtype", "Size": "torch.Size", "device": "torch.device",
                "layout": "torch.layout", "memory_format": "torch.memory_format",
                "Generator": "torch._C.Generator", "finfo": "torch.finfo",
                "iinfo": "torch.iinfo", "UntypedStorage": "torch.storage.UntypedStorage",
                "TypedStorage": "torch.storage.TypedStorage"}


def type_name(value) -> str:
    """``Py_TYPE(value)->tp_name`` as torch would see it: ``int``, ``numpy.int64``, ``Tensor``
    (a subclass by its own name: ``Parameter``), ``torch.dtype``."""
    t = type(value)
    mod = t.__module__
    if mod == "builtins":
        return t.__name__
    if mod.startswith("dyngrad"):
        from .._tensor import Tensor
        if t is Tensor:
            return "Tensor"
        return _TORCH_TYPES.get(t.__name__, t.__name__)
    if t.__flags__ & (1 << 9):   # a class defined in Python: tp_name is its bare name
        return t.__name__
    return f"{mod}.{t.__name__}"


def type_repr(value) -> str:
    """``repr(type(value))`` as torch prints it: a dyngrad Tensor is ``torch.Tensor``."""
    from .._tensor import Tensor
    return "<class 'torch.Tensor'>" if isinstance(value, Tensor) else repr(type(value))


class _Param:
    __slots__ = ("kind", "name", "printed", "optional", "allow_none", "keyword_only", "size",
                 "numbers_as_tensors", "names", "index")

    def __init__(self, text, keyword_only, numbers_as_tensors):
        kind, _, rest = text.partition(" ")
        self.allow_none = kind.endswith("?")
        kind = kind.rstrip("?")
        self.size = 0
        if kind.endswith("]") and not kind.endswith("[]"):   # int[1]: one int does too
            kind, size = kind[:-1].split("[")
            self.size = int(size)
            kind += "[]"
        self.kind = kind
        name, eq, default = rest.partition("=")
        self.name = name
        self.optional = bool(eq)
        if default == "None":
            self.allow_none = True
        self.keyword_only = keyword_only
        self.numbers_as_tensors = numbers_as_tensors
        self.names = (name,) + _NUMPY_NAMES.get(name, ())
        self.printed = f"{_PRINTED[kind]} {name}" + (f" = {default}" if eq else "")


class Signature:
    """One overload, parsed from torch's signature string."""

    def __init__(self, text: str):
        text, _, flag = text.partition("|")
        self.hidden = flag == "hidden"
        self.name, _, body = text[:-1].partition("(")
        numbers = self.name in _NUMBERS_AS_TENSORS
        self.params = []
        keyword_only = False
        for part in body.split(", ") if body else ():
            if part == "*":
                keyword_only = True
            else:
                self.params.append(_Param(part, keyword_only, numbers))
        self.max_args = len(self.params)
        self.min_args = sum(not p.optional for p in self.params)
        self.max_pos_args = sum(not p.keyword_only for p in self.params)

    def printed(self) -> str:
        """FunctionSignature::toString."""
        parts, star = [], False
        for p in self.params:
            if p.keyword_only and not star:
                parts.append("*")
                star = True
            parts.append(p.printed)
        return f"({', '.join(parts)})"

    def without_self(self, method_name) -> "Signature":
        """The method's overload: this one without its leading ``Tensor input`` and its
        ``out=``."""
        s = object.__new__(Signature)
        s.hidden, s.name = self.hidden, method_name
        s.params = [p for p in self.params[1:] if p.name != "out"]
        s.max_args = len(s.params)
        s.min_args = sum(not p.optional for p in s.params)
        s.max_pos_args = sum(not p.keyword_only for p in s.params)
        return s


# -- which values a parameter takes (FunctionParameter::check) -------------------------------
def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _is_long(v) -> bool:         # THPUtils_checkLong
    return (type(v) is not bool and isinstance(v, int)) or isinstance(v, xp.integer)


def _is_index(v, bool_tensors=False) -> bool:   # THPUtils_checkIndex: ints, what has __index__
    if type(v) is bool or isinstance(v, xp.bool_):
        return False
    if _is_long(v):
        return True
    if isinstance(v, _tensor_cls()):   # (a bool tensor's __index__ works; SymInt refuses it)
        return v.numel() == 1 and not v.is_floating_point() and not v.is_complex() \
            and (bool_tensors or str(v.dtype) != "torch.bool")
    return False


def _is_double(v) -> bool:       # THPUtils_checkDouble
    return isinstance(v, (int, float, xp.integer, xp.floating))


def _int_list_ok(v, size) -> bool:   # is_int_list: the first element alone is looked at
    if isinstance(v, (tuple, list)):
        return not v or _is_index(v[0], bool_tensors=True)
    # int[1] also takes one int, or one tensor with __index__ (THPUtils_checkIndex)
    return size > 0 and (_is_long(v) or isinstance(v, _tensor_cls()) and _is_index(v, True))


def _accepts(p: _Param, v) -> bool:
    kind, T = p.kind, _tensor_cls()
    if kind == "Tensor":
        return isinstance(v, T) or (p.numbers_as_tensors and isinstance(
            v, (int, float, complex, xp.number)))
    if kind in ("Scalar", "float"):
        if isinstance(v, T):
            return v.dim() == 0 and not v.requires_grad
        if kind == "Scalar" and isinstance(v, (complex, xp.number)):
            return True
        return _is_double(v)
    if kind == "int":
        if isinstance(v, T):
            return v.dim() == 0 and not v.requires_grad and not v.is_floating_point() \
                and not v.is_complex() and str(v.dtype) != "torch.bool"
        return _is_long(v)
    if kind == "SymInt":
        return _is_index(v)
    if kind in ("int[]", "SymInt[]"):
        return _int_list_ok(v, p.size)
    if kind == "bool":
        return type(v) is bool
    if kind == "str":
        return isinstance(v, str)
    if kind == "Tensor[]":
        if not isinstance(v, (tuple, list)):
            return False
        for i, e in enumerate(v):
            if not isinstance(e, T):
                raise _Refused(f"expected Tensor as element {i} in argument {p.index}, but "
                               f"got {type_name(e)}")
        return True
    if kind == "dtype":
        from .. import _dtypes as D
        return isinstance(v, D.dtype) or v in (int, float, bool, complex)
    if kind == "Device":
        from .._device import device
        return _is_long(v) or isinstance(v, (str, device))
    if kind == "object":
        return True
    if kind == "Storage":
        from .._storage import Storage, TypedStorage
        return isinstance(v, (Storage, TypedStorage))
    if kind == "Generator":   # (named torch._C.Generator in messages, torch.Generator here)
        from .random import Generator
        return isinstance(v, Generator)
    if kind == "Scalar[]":   # (is_scalar_list: every element a number)
        return isinstance(v, (tuple, list)) and all(_accepts(_SCALAR, e) for e in v)
    if kind == "float[]":   # (is_float_or_complex_list: the first element decides)
        return isinstance(v, (tuple, list)) and (not v or _accepts(_FLOAT, v[0]))
    return type_name(v) == _PRINTED[kind]   # layout, memory_format


_FLOAT = _Param("float x", False, False)
_SCALAR = _Param("Scalar x", False, False)


class _Refused(Exception):
    """A refusal worded by the check itself (a list with a non-Tensor element)."""


def _bad_element(p: _Param, v):
    """(1-based position, type name) of an int list's first element that is not an int, past
    the first one that the parse looked at; None if there is none."""
    if p.kind not in ("int[]", "SymInt[]") or not isinstance(v, (tuple, list)):
        return None
    for i, e in enumerate(v):
        if not _is_index(e):
            return i + 1, type_name(e)
    return None


# -- FunctionSignature::parse ----------------------------------------------------------------
def _parse(sig: Signature, args, kwargs, raise_=False):
    """None when `sig` takes the arguments (a str: the error, when ``raise_`` asks for it;
    False otherwise). The error of an int list whose later element is not an int is returned
    even for a parse that succeeds: torch finds it on unpacking the chosen overload."""
    params = sig.params
    varargs = sig.max_pos_args == 1 and params[0].kind in ("int[]", "SymInt[]")
    if len(args) > sig.max_pos_args and not varargs:
        return _extra_args(sig, len(args)) if raise_ else False
    remaining = len(kwargs)
    pos = 0
    unpack = None
    for i, p in enumerate(params):
        p.index = i
        is_kwd = False
        if pos < len(args):
            if p.keyword_only:
                return _extra_args(sig, len(args)) if raise_ else False
            obj, present = args[pos], True
        else:
            is_kwd = True
            present = False
            for n in p.names:
                if n in kwargs:
                    obj, present = kwargs[n], True
                    break
        if (not present and p.optional) or (present and obj is None and p.allow_none):
            pass
        elif not present:
            return _missing(sig, i) if raise_ else False
        elif _accepts(p, obj):
            unpack = unpack or _bad_element(p, obj)
            if unpack:
                unpack = (p.name,) + unpack
        elif varargs and pos == 0 and not is_kwd and _int_list_ok(tuple(args), p.size):
            bad = _bad_element(p, tuple(args))
            unpack = unpack or (bad and (p.name,) + bad)
            pos = len(args)
            continue
        elif raise_ and varargs and not is_kwd and len(args) > sig.max_pos_args:
            return _extra_args(sig, len(args))   # (permute(1.5, 0): not an int list either)
        elif raise_:
            want = _PRINTED[p.kind]
            if not is_kwd and p.kind in ("int[]", "SymInt[]") and isinstance(obj, (tuple, list)):
                return (f"{sig.name}(): argument '{p.name}' (position {pos + 1}) must be {want}, "
                        f"but found element of type {type_name(obj[0])} at pos 0")
            if is_kwd:
                return f"{sig.name}(): argument '{p.name}' must be {want}, not {type_name(obj)}"
            return (f"{sig.name}(): argument '{p.name}' (position {pos + 1}) must be {want}, "
                    f"not {type_name(obj)}")
        else:
            return False
        if not is_kwd:
            pos += 1
        elif present:
            remaining -= 1
    if pos < len(args):   # (an int list spelled out must start with an int: permute([1], 0))
        return _extra_args(sig, len(args)) if raise_ else False
    if remaining > 0:
        return _extra_kwargs(sig, kwargs, len(args)) if raise_ else False
    if unpack:
        name, at, tp = unpack
        return (f"{sig.name}(): argument '{name}' failed to unpack the object at pos {at} with "
                f'error "type must be tuple of ints,but got {tp}"')
    return None


def _extra_args(sig, given) -> str:
    most, least = sig.max_pos_args, sig.min_args
    if least != most:
        return (f"{sig.name}() takes from {least} to {most} positional arguments but {given} "
                "were given")
    return (f"{sig.name}() takes {most} positional argument{'' if most == 1 else 's'} but "
            f"{given} {'was' if given == 1 else 'were'} given")


def _missing(sig, index) -> str:
    names = [f'"{p.name}"' for p in sig.params[index:] if not p.optional]
    # (torch's "argument%s" takes its "s" when one is missing)
    return (f"{sig.name}() missing {len(names)} required positional argument"
            f"{'s' if len(names) == 1 else ''}: {', '.join(names)}")


def _extra_kwargs(sig, kwargs, n_pos) -> str:
    for key in kwargs:
        idx = next((i for i, p in enumerate(sig.params) if key in p.names[:1]), -1)
        if idx < 0:
            return f"{sig.name}() got an unexpected keyword argument '{key}'"
        if idx < n_pos:
            return f"{sig.name}() got multiple values for argument '{key}'"
    return "invalid keyword arguments"


# -- format_invalid_args (invalid_arguments.cpp) ---------------------------------------------
def _describe(v) -> str:
    if isinstance(v, (tuple, list)):
        inner = ", ".join(type_name(e) for e in v)
        if isinstance(v, tuple):
            return f"{type_name(v)} of ({inner}{',' if len(v) == 1 else ''})"
        return f"{type_name(v)} of [{inner}]"
    return type_name(v)


def _arg_desc(args, kwargs) -> str:
    s = "".join(f"{type_name(a)}, " for a in args) + \
        "".join(f"{k}={type_name(v)}, " for k, v in kwargs.items())
    return f"({s[:-2] if args else s})"


def _tokens(printed: str):
    """The option as invalid_arguments.cpp splits it: (type, name) per ", "-separated part,
    the type being all before the last space ("bool keepdim =" for "bool keepdim = False")."""
    out = []
    for part in printed[1:-1].split(", "):
        cut = part.rfind(" ")
        out.append((part, part) if cut < 0 else (part[:cut], part[cut + 1:]))
    return out


def _type_matches(tp: str, v) -> bool:
    name = type_name(v)
    if tp == "float":
        return name in ("float", "int")
    return name == tp


def _formatted_desc(tokens, args, kwargs) -> str:
    parts = []
    for i in range(len(args) + len(kwargs)):
        is_kwarg = i >= len(args)
        name = tokens[i][1] if i < len(tokens) else ""
        arg = kwargs.get(name) if is_kwarg else args[i]
        ok = i < len(tokens) and _type_matches(tokens[i][0], arg)
        mark = "" if ok else "!"
        parts.append(f"{mark}{name + '=' if is_kwarg else ''}{_describe(arg)}{mark}, ")
    s = "".join(parts)
    return f"({s[:-2] if args else s})"


def _count_matches(tokens, args, kwargs) -> bool:
    return len(tokens) == len(args) + len(kwargs)


def _unmatched_kwargs(tokens, kwargs):
    start = max(len(tokens) - len(kwargs), 0)
    names = {n for _, n in tokens[start:]}
    return [k for k in kwargs if k not in names]


def _invalid_combination(name, options, args, kwargs) -> str:
    # torch copies the keywords into an unordered_map, which lists a few in the reverse order
    kwargs = dict(reversed(kwargs.items()))
    msg = f"{name}() received an invalid combination of arguments - "
    if len(options) == 1:
        tokens = _tokens(options[0])
        unmatched = _unmatched_kwargs(tokens, kwargs) if kwargs else []
        if unmatched:
            return msg + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = _formatted_desc(tokens, args, kwargs) if _count_matches(tokens, args, kwargs) \
            else _arg_desc(args, kwargs)
        return msg + f"got {got}, but expected {options[0]}"
    msg += f"got {_arg_desc(args, kwargs)}, but expected one of:\n"
    for option in options:
        msg += f" * {option}\n"
        tokens = _tokens(option)
        if _count_matches(tokens, args, kwargs):
            unmatched = _unmatched_kwargs(tokens, kwargs) if kwargs else []
            if unmatched:
                msg += ("      didn't match because some of the keywords were incorrect: "
                        + ", ".join(unmatched) + "\n")
            else:
                msg += ("      didn't match because some of the arguments have invalid types: "
                        + _formatted_desc(tokens, args, kwargs) + "\n")
    return msg


# -- the parser ------------------------------------------------------------------------------
_PARSED: dict = {}   # (name, is_method) -> [Signature]: parsed on first use


def signatures(name: str, is_method: bool):
    """The overloads of function `name` (or of the Tensor method, `self` left out), in torch's
    order; None for a function the table does not hold."""
    key = (name, is_method)
    sigs = _PARSED.get(key)
    if sigs is None:
        from ._signatures import SIGNATURES
        table = SIGNATURES.get(name)
        if table is None and is_method and name.endswith("_"):   # add_: as add
            table = SIGNATURES.get(name[:-1])
        if table is None:
            return None
        sigs = []
        for text in table:
            text, _, where = text.partition("|")
            where = where.split(",")   # ("fn,hidden": a deprecated overload of the function)
            flag = "hidden" if "hidden" in where else ""
            if ("fn" if is_method else "method") in where:
                continue
            sig = Signature(f"{text}|{flag}")
            if is_method and "method" not in where:
                first = sig.params[0] if sig.params else None
                if first is None or first.kind != "Tensor" or first.name not in (
                        "input", "self"):
                    continue   # (pow's ``Number self``: a function's overload alone)
                sig = sig.without_self(name)
            elif is_method:
                sig.name = name
            sigs.append(sig)
        _PARSED[key] = sigs
    return sigs


def parse_error(name: str, args, kwargs, is_method: bool):
    """The message of torch's TypeError for ``name(*args, **kwargs)`` (``self`` not in `args`
    for a method), or None where an overload takes the arguments."""
    if is_method and (args or kwargs) and name in _noargs_methods():
        # a C method without parameters in torch (METH_NOARGS): Python's own words for it,
        # keywords first (x.abs(out=y), x.abs(1))
        if kwargs:
            return f"TensorBase.{name}() takes no keyword arguments"
        return f"TensorBase.{name}() takes no arguments ({len(args)} given)"
    return _error_for(signatures(name, is_method), name, args, kwargs)


_BINDINGS: dict = {}   # overloads' texts -> their parsed Signatures (binding_error)


def binding_error(texts, args, kwargs=None):
    """``parse_error`` for overloads given as torch's texts rather than by a name of the
    table: the bindings that torch's Python methods call and no public name stands for
    (``_VF.split``, ``_lu_with_info``). Function-style: `args` holds the tensor first."""
    sigs = _BINDINGS.get(texts)
    if sigs is None:
        sigs = _BINDINGS[texts] = [Signature(text + "|") for text in texts]
    return _error_for(sigs, sigs[0].name, args, kwargs or {})


def check_binding(texts, args, kwargs=None) -> None:
    """Raise the TypeError of ``binding_error`` where the binding's parser refuses the call."""
    _raise(binding_error(texts, args, kwargs))


def check_call(name: str, args, kwargs, is_method: bool) -> None:
    """Raise the TypeError of ``parse_error`` where torch's parser refuses the call."""
    _raise(parse_error(name, args, kwargs, is_method))


def _raise(msg) -> None:
    if msg is not None:
        raise TypeError(msg)


def _error_for(sigs, name, args, kwargs):
    if not sigs:
        return None
    try:
        if len(sigs) == 1:
            return _parse(sigs[0], args, kwargs, raise_=True)
        for sig in sigs:
            r = _parse(sig, args, kwargs)
            if r is not False:
                return r
        n = len(args) + len(kwargs)
        plausible = [s for s in sigs if s.min_args <= n <= s.max_args and not s.hidden]
        if len(plausible) == 1:
            r = _parse(plausible[0], args, kwargs, raise_=True)
            if r:
                return r
        options = [s.printed() for s in sigs if not s.hidden]
        return _invalid_combination(name, options, args, kwargs)
    except _Refused as e:
        return str(e)


# the errors that count arguments: worded already where they arise (tests/test_arg_count_errors)
_COUNTING = ("positional argument", "keyword argument", "takes no arguments")
# torch's words for missing arguments ("missing 1 required positional arguments: "dim"", and
# "argument" for several: "missing 2 required positional argument: "dim", "index"")
_MISSING = re.compile(r"missing \d+ required positional arguments?: \"")


def _noargs_methods():
    from ._signatures import NOARGS_METHODS
    return NOARGS_METHODS


def method_out_error(name: str, args, kwargs) -> TypeError:
    """The TypeError of a Tensor method called with ``out=``: no method of torch's takes one
    (its methods are the functions' overloads without ``out=``), so the parser refuses the
    keyword, in its words where the table holds the method (``x.sum(out=y)``: "sum() received
    an invalid combination of arguments..."; ``x.abs(out=y)``: "TensorBase.abs() takes no
    keyword arguments")."""
    from ._signatures import PYTHON_METHODS
    if name in PYTHON_METHODS:   # (a Python function in torch: Python's words, with its class)
        return TypeError(f"Tensor.{name}() got an unexpected keyword argument 'out'")
    try:
        msg = parse_error(name, args, kwargs, True)
    except Exception:   # noqa: BLE001  (a table or matcher fault: the plain words below)
        msg = None
    return TypeError(msg or f"{name}() got an unexpected keyword argument 'out'")


def explain(name, args, kwargs, is_method, err, depth=2, binding=False):
    """torch's TypeError for a call that failed with `err`, made from outside dyngrad; None
    to let `err` stand (the call's arguments suit an overload, or the call came from dyngrad's
    own code: the frame `depth` levels up). `binding`: `err` is Python's, from binding the
    arguments of a function whose parameters stand for torch's overloads (``median(input,
    dim=, keepdim=)``), so its counts are not torch's either."""
    caller = sys._getframe(depth).f_globals.get("__name__", "")
    if caller == "dyngrad" or caller.startswith("dyngrad."):
        return None
    try:
        msg = parse_error(name, args, kwargs, is_method)
    except Exception:   # noqa: BLE001  (a table or matcher fault must not hide `err`)
        return None
    if msg is not None and msg.startswith("TensorBase."):   # (Python's words for a C method)
        return TypeError(msg)
    if msg is None or (not binding and not is_method and isinstance(err, TypeError)
                       and any(s in str(err) for s in _COUNTING)
                       and any(s in msg for s in _COUNTING) and not _MISSING.search(msg)):
        return None   # (a count of arguments worded by Python, but torch's "missing" words;
        # a method's counts are the parser's: Python's and the dispatcher's count self)
    return TypeError(msg)


def sparse_failure(name, args, kwargs, e):
    """torch's dispatcher error for a function written for strided tensors that failed on a
    sparse one (it reads an array a sparse tensor has not: Note [Sparse dispatch] in
    sparse.py); None for any other failure."""
    from . import _dispatch
    if not _dispatch._sparse or isinstance(e, RuntimeError):
        return None
    from . import sparse
    return sparse._could_not_run(name) if sparse.among(args, kwargs) else None


def explaining(fn, name: str, is_method: bool = False):
    """`fn` behind one frame that words its failures as torch's parser would: for the public
    functions (and the Tensor methods installed as plain functions) that are Python functions
    rather than OpSpecs, whose failures ``call`` never sees. The frame is named `name`, as
    ``fn``'s was (nn/parameter.py's ``_used_in`` names the entry point by its code)."""
    # (each asks __torch_function__ as one op: Note [__torch_function__] in overrides.py; a
    # function asks a tensor-like argument, no Tensor, once the call fails on it)
    if is_method:
        def entry(self, *args, **kwargs):
            if _overrides._live:
                found = _overrides.asking((self,) + args, kwargs)
                if found:
                    return _overrides.dispatch(entry, found, (self,) + args, kwargs)
            if kwargs and "out" in kwargs:   # (no method of torch's takes out=)
                raise method_out_error(name, args, kwargs)
            try:
                return fn(self, *args, **kwargs)
            except Exception as e:
                err = sparse_failure(name, (self,) + args, kwargs, e) or \
                    explain(name, args, kwargs, True, e)
                if err is None:
                    raise
                raise err from None
    else:
        def entry(*args, **kwargs):
            if _overrides._live:
                found = _overrides.asking(args, kwargs)
                if found:
                    return _overrides.dispatch(entry, found, args, kwargs)
            depth = _overrides.enter()
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                if getattr(e, "torch_function_asked", False):   # (no handler took it)
                    raise
                found = () if depth else _overrides.asking(args, kwargs)
                if found:
                    return _overrides.dispatch(entry, found, args, kwargs)
                err = sparse_failure(name, args, kwargs, e) or \
                    explain(name, args, kwargs, False, e, binding=e.__traceback__.tb_next is None)
                if err is None:
                    raise
                raise err from None
            finally:
                _overrides.leave(depth)
    entry.__code__ = entry.__code__.replace(co_name=name, co_qualname=name)
    functools.update_wrapper(entry, fn)
    return entry


def public_qualname(fn, name: str):
    """`fn`, named `name` in Python's own errors (``median() takes ...``, not
    ``_median_public.<locals>.fn() takes ...``) where a factory made it as a local function.
    (Python words a call's binding errors with the function's ``__qualname__``.)"""
    if type(fn) is types.FunctionType and "<locals>" in fn.__qualname__:
        fn.__qualname__ = name
    return fn


def check_tensors(binding: str, *named) -> None:
    """torch's parser on the tensor arguments of a binding that a Python function of torch's
    calls (``F.cross_entropy`` calls ``cross_entropy_loss``): its TypeError for anything else,
    made where the function would call the binding, so that the checks made before it come
    first (a bad reduction's ValueError). `named` holds ``(name, value)`` in the binding's
    order; a name ending in "?" takes None too. A check up front, not an explanation after a
    failure: a non-tensor can pass through such a function unharmed (dropout in eval mode)."""
    tensor = _registry._Tensor
    for i, (name, value) in enumerate(named):
        if not isinstance(value, tensor) and not (value is None and name[-1] == "?"):
            raise TypeError(f"{binding}(): argument '{name.rstrip('?')}' (position {i + 1}) "
                            f"must be Tensor, not {type_name(value)}")


def float_arg(binding: str, name: str, position: int, value):
    """A ``float`` parameter as torch's parser takes it: a real Python or NumPy number (a bool
    too) or a 0-dim tensor that does not require grad, as a Python number; else the parser's
    TypeError (``cauchy_(): argument 'sigma' (position 2) must be float, not str``)."""
    if isinstance(value, _registry._Tensor):
        if value.dim() == 0 and not value.requires_grad:
            return value.item()
    elif _is_double(value):
        return value.item() if isinstance(value, xp.generic) else value
    raise TypeError(f"{binding}(): argument '{name}' (position {position}) must be float, "
                    f"not {type_name(value)}")


def published(functions: dict, binding=None) -> dict:
    """`functions` (public name -> function) with the plain Python functions that the table
    holds wrapped by ``explaining``; OpSpecs explain their failures in ``call`` already.
    `binding` names the function of torch's table that a public name stands for, where that
    differs (``linalg.cond`` calls ``linalg_cond``); a name it maps to None is left alone.
    A function published in two namespaces under one binding is one object in both (as
    ``torch.nn.functional.pdist is torch.pdist``)."""
    from ._signatures import SIGNATURES
    out = {}
    for k, v in functions.items():
        name = k if binding is None else binding(k)
        if name in SIGNATURES and type(public_qualname(v, k)) is types.FunctionType:
            key = (v, name)
            if key not in _EXPLAINING:
                _EXPLAINING[key] = explaining(v, name)
            v = _EXPLAINING[key]
        out[k] = v
    return out


_EXPLAINING: dict = {}   # (function, binding name) -> its wrapper: see published()
