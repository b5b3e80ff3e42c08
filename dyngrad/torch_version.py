"""torch.torch_version: ``TorchVersion``, the str that ``torch.__version__`` is, which compares
with version strings and tuples as versions (``__version__ >= "2.0"``, ``> (1, 10)``).

torch compares with the ``packaging`` library's ``Version`` (vendored); dyngrad depends on NumPy
only, so ``_Version`` below parses and orders PEP 440 versions as ``packaging`` does (epoch,
release, pre-, post- and dev-releases, local labels). An operand that is no valid version
(``"parrot"``) is compared as a string, as in torch. ``!=`` is str's, as in torch.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .version import __version__ as internal_version

__all__ = ["TorchVersion"]


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


_PATTERN = re.compile(r"""
    v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))
        |(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    """, re.VERBOSE | re.IGNORECASE)

_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc",
        "rc": "rc"}


class _Infinity:
    """Greater than anything else (packaging's Infinity)."""

    def __lt__(self, other): return False
    def __le__(self, other): return isinstance(other, _Infinity)
    def __gt__(self, other): return not isinstance(other, _Infinity)
    def __ge__(self, other): return True
    def __eq__(self, other): return isinstance(other, _Infinity)
    __hash__ = object.__hash__


class _NegInfinity:
    """Less than anything else (packaging's NegativeInfinity)."""

    def __lt__(self, other): return not isinstance(other, _NegInfinity)
    def __le__(self, other): return True
    def __gt__(self, other): return False
    def __ge__(self, other): return isinstance(other, _NegInfinity)
    def __eq__(self, other): return isinstance(other, _NegInfinity)
    __hash__ = object.__hash__


_INF, _NEG_INF = _Infinity(), _NegInfinity()


class _Version:
    """A PEP 440 version, ordered as ``packaging.version.Version`` orders them."""

    def __init__(self, text: str):
        m = _PATTERN.fullmatch(text.strip())
        if m is None:
            raise InvalidVersion(f"Invalid version: {text!r}")
        release = tuple(int(x) for x in m["release"].split("."))
        while len(release) > 1 and release[-1] == 0:   # 1.0.0 == 1.0 == 1
            release = release[:-1]
        pre = (_PRE[m["pre_l"].lower()], int(m["pre_n"] or 0)) if m["pre_l"] else None
        if m["post_n1"] is not None:
            post = int(m["post_n1"])
        else:
            post = int(m["post_n2"] or 0) if m["post_l"] else None
        dev = int(m["dev_n"] or 0) if m["dev_l"] else None
        local = None
        if m["local"]:   # numbers sort after strings, strings among themselves
            local = tuple((int(p), "") if p.isdigit() else (_NEG_INF, p.lower())
                          for p in re.split(r"[-_.]", m["local"]))
        # packaging's _cmpkey: a dev release sorts before its pre-releases, a release without
        # a pre-release after them; no post-release before any; no local label before any
        self._key = (int(m["epoch"] or 0), release,
                     _NEG_INF if pre is None and post is None and dev is not None
                     else _INF if pre is None else pre,
                     _NEG_INF if post is None else post,
                     _INF if dev is None else dev,
                     _NEG_INF if local is None else local)

    def __lt__(self, other): return self._key < other._key
    def __le__(self, other): return self._key <= other._key
    def __eq__(self, other): return self._key == other._key
    def __ge__(self, other): return self._key >= other._key
    def __gt__(self, other): return self._key > other._key
    __hash__ = None


class TorchVersion(str):
    """A str that compares with str versions, other TorchVersions and tuples or lists of
    numbers (``(1, 10)`` is ``"1.10"``) as versions; with anything that is no valid version it
    compares as a str."""

    __slots__ = ()

    def _convert_to_version(self, inp: Any) -> _Version:
        if isinstance(inp, _Version):
            return inp
        if isinstance(inp, str):
            return _Version(inp)
        if isinstance(inp, Iterable):
            return _Version(".".join(str(item) for item in inp))
        raise InvalidVersion(inp)

    def _cmp_wrapper(self, cmp: Any, method: str) -> bool:
        try:
            return getattr(_Version(self), method)(self._convert_to_version(cmp))
        except InvalidVersion:
            return getattr(super(), method)(cmp)


# (set after the class, as torch does, so that the class keeps str's __hash__)
for _method in ("__gt__", "__lt__", "__eq__", "__ge__", "__le__"):
    setattr(TorchVersion, _method,
            lambda x, y, method=_method: x._cmp_wrapper(y, method))

__version__ = TorchVersion(internal_version)
