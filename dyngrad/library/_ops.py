"""``torch.ops``: operators by namespace, ``torch.ops.<namespace>.<name>.<overload>``.

Note [torch.ops]
~~~~~~~~~~~~~~~~
``dyngrad.ops`` is dyngrad's own op package (the registry and its kernels), so torch's
``torch.ops`` lookup is attached to it through a module ``__getattr__`` (ops/__init__.py): a
name that is neither one of its attributes nor one of its submodules is a namespace,
``dyngrad.ops.mylib`` an ``_OpNamespace`` as ``torch.ops.mylib`` is.

* A namespace's attribute is an ``OpOverloadPacket`` for an op defined through
  ``dyngrad.library`` (``custom_op``, ``Library.define``), whose ``.default`` (or named overload)
  is the ``OpOverload`` that runs it (Note [Custom ops] in library/__init__.py).
* In ``aten``, a name resolves to dyngrad's registry: ``aten.add.Tensor`` is the ``OpSpec``
  ``"add.Tensor"``, ``aten.mm.default`` the one named ``"mm"``; the packet itself calls the public
  function (``dyngrad.add``), which picks the overload as torch's packet does. An op torch
  decomposes in Python (a ``composite``) has only its ``default`` overload.
"""
from __future__ import annotations

import types

_DEFS: dict = {}   # "ns::name" -> OpOverload of ops defined through dyngrad.library


class OpOverload:
    """One overload of an op (torch._ops.OpOverload); call it like the op."""

    def __init__(self, namespace, opname, overload, fn, schema=None):
        self._namespace, self._opname, self._overloadname = namespace, opname, overload
        self._op, self._schema = fn, schema
        self.__name__ = f"{opname}.{overload}"
        self._name = f"{namespace}::{opname}" + ("" if overload == "default" else
                                                  f".{overload}")

    @property
    def op(self):
        return self._op

    def name(self) -> str:
        return self._name

    @property
    def overloadpacket(self):
        return getattr(namespace(self._namespace), self._opname)

    def __call__(self, /, *args, **kwargs):   # (`self=` may be the op's own argument)
        return self._op(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._namespace}.{self._opname}', " \
               f"overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self._namespace}.{self._opname}.{self._overloadname}"


class OpOverloadPacket:
    """All overloads of one op name (torch._ops.OpOverloadPacket)."""

    def __init__(self, namespace, opname, overloads: dict, call):
        self._namespace, self._opname = namespace, opname
        self._qualified_op_name = f"{namespace}::{opname}"
        self.__name__ = opname
        self._overloads, self._call = overloads, call

    def overloads(self) -> list:
        return list(self._overloads)

    @property
    def _schemas(self) -> dict:
        return {("" if k == "default" else k): o._schema for k, o in self._overloads.items()}

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        try:
            return self.__dict__["_overloads"][key]
        except KeyError:
            raise AttributeError(f"The underlying op of '{self._namespace}.{self._opname}' has "
                                 f"no overload name '{key}'") from None

    def __call__(self, /, *args, **kwargs):   # (`self=` may be the op's own argument)
        return self._call(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._namespace}.{self._opname}')>"

    def __str__(self) -> str:
        return f"{self._namespace}.{self._opname}"


class _OpNamespace(types.ModuleType):
    """``torch.ops.<namespace>``: its ops as attributes."""

    def __init__(self, name):
        super().__init__("torch.ops." + name)
        self.name = name
        self.__file__ = "torch.ops"

    def __iter__(self):
        return iter(sorted(k.split("::")[1] for k in _DEFS if k.startswith(self.name + "::")))

    def __getattr__(self, opname):
        if opname.startswith("__"):
            raise AttributeError(opname)
        packet = _aten_packet(opname) if self.name == "aten" else _custom_packet(self.name,
                                                                                 opname)
        if packet is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{opname}'")
        return packet


def namespace(name: str) -> _OpNamespace:
    return _OpNamespace(name)


def register(overload: OpOverload) -> None:
    _DEFS[f"{overload._namespace}::{overload._opname}"] = overload


def lookup(qualname: str) -> OpOverload:
    """The OpOverload of ``"ns::name"`` (or ``"ns::name.overload"``)."""
    ns, _, name = qualname.partition("::")
    name = name.split(".")[0]
    return getattr(getattr(namespace(ns), name), "default")


def _custom_packet(ns, opname):
    over = _DEFS.get(f"{ns}::{opname}")
    if over is None:
        return None
    return OpOverloadPacket(ns, opname, {"default": over}, over)


def _aten_packet(opname):
    from .. import ops as _ops
    import dyngrad
    overloads = {}
    for key, spec in _ops.OPS.items():
        base, _, over = key.partition(".")
        if base == opname:
            overloads[over or "default"] = OpOverload("aten", opname, over or "default", spec)
    public = _ops.FUNCTIONS.get(opname) or _ops.INPLACE.get(opname)
    public = getattr(dyngrad, opname, None) if hasattr(dyngrad, opname) and \
        opname in _ops.FUNCTIONS else public
    if public is None and not overloads:
        return None
    if "default" not in overloads and public is not None and not any(
            k for k in _ops.OPS if k.partition(".")[0] == opname):
        overloads["default"] = OpOverload("aten", opname, "default", public)
    return OpOverloadPacket("aten", opname, overloads, public or next(iter(overloads.values())))
