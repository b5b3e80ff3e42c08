"""``torch.library.opcheck``: test an op's registrations against each other.

torch runs its test utils under FakeTensor/AOTAutograd modes; dyngrad has neither, so each one
checks here, on real tensors, what the mode would catch:

* ``test_schema``: the op mutates exactly the arguments its schema marks written;
* ``test_autograd_registration``: calling the op works (every op here has an autograd path);
* ``test_faketensor``: the fake implementation exists (or the op returns nothing) and gives
  outputs of the real outputs' shapes and dtypes;
* ``test_aot_dispatch_static`` / ``_dynamic``: forward, then backward through the outputs that
  require grad (a missing ``register_autograd`` raises there, as in torch).
"""
from __future__ import annotations

__all__ = ["opcheck", "OpCheckError"]

_DEFAULT = ("test_schema", "test_autograd_registration", "test_faketensor",
            "test_aot_dispatch_dynamic")
_ALL = ("test_schema", "test_autograd_registration", "test_faketensor",
        "test_aot_dispatch_static", "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    pass


def _tensor_cls():
    from .. import Tensor
    return Tensor


def _clone(x):
    Tensor = _tensor_cls()
    if isinstance(x, Tensor):
        c = x.detach().clone()
        c.requires_grad_(x.requires_grad)
        return c
    if isinstance(x, (list, tuple)):
        return type(x)(_clone(v) for v in x)
    if isinstance(x, dict):
        return {k: _clone(v) for k, v in x.items()}
    return x


def _tensors(x) -> list:
    if isinstance(x, _tensor_cls()):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _tensors(v)]
    return []


def _schema_check(op, opdef, args, kwargs):
    import dyngrad
    args, kwargs = _clone(args), _clone(kwargs)
    bound, kw = opdef._fs.bind(args, kwargs)
    values = list(bound) + list(kw.values())
    before = [[t.detach().clone() for t in _tensors(v)] for v in values]
    op(*args, **kwargs)
    for a, v, pre in zip(opdef._fs.arguments, values, before):
        post = _tensors(v)
        if not post:
            continue
        mutated = any(not dyngrad.equal(p, q.detach()) and not (p.isnan().all() and
                                                                q.isnan().all())
                      for p, q in zip(pre, post))
        if mutated and not a.is_write:   # (torch's SchemaCheckMode)
            raise RuntimeError(f"Argument {a.name} is not defined as mutable but was mutated")


def _fake_check(op, opdef, args, kwargs):
    from .. import no_grad
    args, kwargs = _clone(args), _clone(kwargs)
    with no_grad():
        real = op(*args, **kwargs)
    if opdef._abstract_fn is None:
        if not opdef._fs.returns:
            return
        raise RuntimeError(f"There was no fake impl registered for {opdef}. This is necessary "
                           "for torch.compile/export/fx tracing to work. Please use "
                           f"`{getattr(opdef._init_fn, '__name__', opdef._name)}.register_fake` "
                           "to add an fake impl.")
    with no_grad():
        fake = opdef._abstract_fn(*args, **kwargs)
    for r, f in zip(_tensors(real), _tensors(fake)):
        msg = None
        if r.shape != f.shape:
            msg = f"Shapes {r.shape} and {f.shape} are not equal!"
        elif r.dtype != f.dtype:
            msg = f"Dtypes {r.dtype} and {f.dtype} are not equal!"
        if msg:
            raise RuntimeError(f"When comparing the output of {op} on FakeTensor and concrete "
                               f"Tensors, found mismatched tensor metadata: {msg}")


def _aot_check(op, opdef, args, kwargs):
    import dyngrad
    args, kwargs = _clone(args), _clone(kwargs)
    out = op(*args, **kwargs)
    outs = [t for t in _tensors(out) if t.requires_grad]
    inputs = [t for t in _tensors([args, list(kwargs.values())]) if t.requires_grad]
    if outs and inputs:
        dyngrad.autograd.grad(outs, inputs, [dyngrad.ones_like(t) for t in outs],
                              allow_unused=True)


def opcheck(op, args, kwargs=None, *, test_utils=_DEFAULT, raise_exception=True, rtol=None,
            atol=None):
    """Check `op`'s schema, fake and autograd registrations on ``op(*args, **kwargs)``."""
    from . import CustomOpDef, OpOverload, OpOverloadPacket, _opdef
    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify "
                         "both")
    kwargs = {} if kwargs is None else kwargs
    if isinstance(op, CustomOpDef):
        op = op._opoverload
    if isinstance(op, OpOverloadPacket):
        op = op.default
    if not isinstance(op, OpOverload):
        raise ValueError("opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. "
                         f"torch.ops.aten.sin.default, got {type(op)}")
    if test_utils == "ALL":
        test_utils = _ALL
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils) <= set(_ALL):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be "
                         f"subset of {_ALL} but it was not")
    opdef = _opdef(op)
    testers = {"test_schema": _schema_check, "test_faketensor": _fake_check,
               "test_autograd_registration": lambda op, d, a, k: op(*_clone(a), **_clone(k)),
               "test_aot_dispatch_static": _aot_check, "test_aot_dispatch_dynamic": _aot_check}
    results = {}
    for name in test_utils:
        try:
            testers[name](op, opdef, args, kwargs)
            results[name] = "SUCCESS"
        except Exception as ex:   # noqa: BLE001  (reported as torch does)
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for "
                                   "stack trace)") from ex
            results[name] = ex
    return results
