"""The ``__torch_function__`` protocol against torch: Tensor subclasses keep their class through
ops (the default ``Tensor.__torch_function__``), a subclass's own ``__torch_function__`` is asked
with the function that was called, tensor-likes that are no Tensor (torch's "Extending torch"
example), the disabling contexts, mixed subclasses, and ``torch.overrides``' helpers.
Note [__torch_function__] in dyngrad/overrides.py lists what is left different."""
import pytest
import torch

import dyngrad


def _outcome(L, fn):
    """What `fn` printed and returned (class names, values), or its error. (The result is
    described with the protocol off: torch asks for attribute reads and ``tolist`` too.)"""
    lines = []
    try:
        result = fn(L, lines.append)
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return lines, (type(e).__name__, str(e))
    with L._C.DisableTorchFunctionSubclass():
        return lines, _describe(L, result)


def _describe(L, r):
    if isinstance(r, L.Tensor):
        return type(r).__name__, r.dtype is L.float64, r.detach().tolist() if r.numel() else []
    if isinstance(r, (tuple, list)):
        return type(r).__name__, [_describe(L, v) for v in r]
    return r


_SUBCLASSES = {}


def _subclass(L):
    """One subclass ``M`` per library (two unrelated classes would refuse each other)."""
    if L not in _SUBCLASSES:
        class M(L.Tensor):
            pass
        _SUBCLASSES[L] = M
    return _SUBCLASSES[L]


def _m(L):
    return L.arange(6.0).reshape(2, 3).as_subclass(_subclass(L))


PROPAGATION = {
    "operator": lambda L: _m(L) + 1,
    "reflected operator": lambda L: 2 * _m(L),
    "function": lambda L: L.add(_m(L), 1),
    "method": lambda L: _m(L).sum(0),
    "in-place method returns self": lambda L: _m(L).mul_(2),
    "view": lambda L: _m(L).view(3, 2),
    "indexing": lambda L: _m(L)[0],
    "boolean mask": lambda L: _m(L)[_m(L) > 2],
    "tensor list": lambda L: L.cat([_m(L), _m(L)]),
    "plain tensor mixed in": lambda L: L.ones(2, 3) * _m(L),
    "named tuple": lambda L: _m(L).max(1),
    "sort (values and indices)": lambda L: _m(L).sort(descending=True),
    "several results": lambda L: _m(L).split(1),
    "detach": lambda L: _m(L).detach(),
    "data": lambda L: _m(L).data,
    "clone": lambda L: _m(L).clone(),
    "to": lambda L: _m(L).to(L.float64),
    "zeros_like": lambda L: L.zeros_like(_m(L)),
    "new_zeros": lambda L: _m(L).new_zeros(2),
    "nn.functional": lambda L: L.nn.functional.relu(_m(L) - 2),
    "linear layer": lambda L: L.nn.functional.linear(_m(L), L.ones(4, 3)),
    "matmul operator": lambda L: _m(L) @ L.ones(3, 2),
    "einsum": lambda L: L.einsum("ij->j", _m(L)),
    "reversed": lambda L: list(reversed(_m(L))),
    "tolist": lambda L: _m(L).tolist(),
    "parameter opts out": lambda L: L.nn.Parameter(L.ones(2)) * 2,
    "parameter with a subclass": lambda L: L.nn.Parameter(L.ones(3)) + _m(L),
}


@pytest.mark.parametrize("case", PROPAGATION)
def test_subclass_propagates_like_torch(case):
    """The class of each result (and its values), as torch gives it."""
    def run(L, _):
        return PROPAGATION[case](L)
    assert _outcome(dyngrad, run) == _outcome(torch, run)


def _logged(L, show):
    class Logged(L.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            show(f"{func.__name__} {[t.__name__ for t in types]}")
            return super().__torch_function__(func, types, args, kwargs)
    return L.ones(2, 3).as_subclass(Logged)


LOGGED = {
    "binary operator": lambda L, x: x * L.ones(2, 3),
    "function": lambda L, x: L.abs(x),
    "method with a keyword": lambda L, x: x.sum(dim=0),
    "in-place": lambda L, x: x.add_(1),
    "view method": lambda L, x: x.t(),
    "function written in Python": lambda L, x: L.cat([x, x]),
    "factory like": lambda L, x: L.zeros_like(x),
    "method written in Python": lambda L, x: x.sort(),
    "detach": lambda L, x: x.detach(),
    "disabled": lambda L, x: _disabled(L, x),
}


def _disabled(L, x):
    with L._C.DisableTorchFunctionSubclass():
        inside = (type(x + 1).__name__, L._C._is_torch_function_enabled())
    return inside, L._C._is_torch_function_enabled()


@pytest.mark.parametrize("case", LOGGED)
def test_subclass_torch_function_is_asked_like_torch(case):
    """A subclass's own ``__torch_function__`` sees each public call once, with the function's
    name and the types, and the default implementation gives the result its class."""
    def run(L, show):
        return LOGGED[case](L, _logged(L, show))
    assert _outcome(dyngrad, run) == _outcome(torch, run)


def _scalar_tensor(L, show):
    """torch's "Extending torch with a Tensor-like type" example: no Tensor subclass."""
    handled = {}

    class ScalarTensor:
        def __init__(self, n, value):
            self._n, self._value = n, value

        def tensor(self):
            return self._value * L.eye(self._n)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            show(func.__name__)
            if func not in handled:
                return NotImplemented
            return handled[func](*args, **(kwargs or {}))

    def as_tensor(d):
        return d.tensor() if isinstance(d, ScalarTensor) else d
    handled[L.mean] = lambda input: float(input._value) / input._n
    handled[L.add] = lambda input, other: L.add(as_tensor(input), as_tensor(other))
    return ScalarTensor(5, 2)


TENSOR_LIKE = {
    "handled function": lambda L, d: L.mean(d),
    "handled with a tensor": lambda L, d: L.add(d, L.ones(5, 5)),
    "unhandled": lambda L, d: L.exp(d),
    "unhandled function written in Python": lambda L, d: L.cat([d, d]),
}


@pytest.mark.parametrize("case", TENSOR_LIKE)
def test_tensor_like_object_like_torch(case):
    def run(L, show):
        return TENSOR_LIKE[case](L, _scalar_tensor(L, show))
    assert _outcome(dyngrad, run) == _outcome(torch, run)


def _two_subclasses(L):
    class M(L.Tensor):
        pass

    class N(L.Tensor):
        pass

    class M2(M):
        pass
    return [L.ones(2).as_subclass(c) for c in (M, N, M2)]


MIXED = {
    "subclass of a subclass wins": lambda L, m, n, m2: (m + m2, m2 + m),
    "unrelated subclasses": lambda L, m, n, m2: L.add(m, n),
    "unrelated subclasses, method": lambda L, m, n, m2: m.mul(n),
    "unrelated subclasses, operator": lambda L, m, n, m2: m * n,
    "has_torch_function": lambda L, m, n, m2: (
        L.overrides.has_torch_function((m,)), L.overrides.has_torch_function((L.ones(1),)),
        L.overrides.has_torch_function_unary(L.nn.Parameter(L.ones(1))),
        L.overrides.has_torch_function_variadic(L.ones(1), m)),
    "is_tensor_like": lambda L, m, n, m2: (L.overrides.is_tensor_like(m),
                                           L.overrides.is_tensor_like(L.ones(1)),
                                           L.overrides.is_tensor_like(3)),
    "handle_torch_function": lambda L, m, n, m2: L.overrides.handle_torch_function(
        L.add, (m, L.ones(2)), m, L.ones(2)),
}


@pytest.mark.parametrize("case", MIXED)
def test_mixed_subclasses_and_helpers_like_torch(case):
    def run(L, _):
        out = MIXED[case](L, *_two_subclasses(L))
        return out
    ours, theirs = _outcome(dyngrad, run), _outcome(torch, run)
    # (the classes are local to _two_subclasses: their printed paths name this file)
    assert ours == theirs


def test_subclass_autograd_like_torch():
    """An op on a subclass records its node and then the alias that gives the result its
    class (AliasBackward0, as torch's as_subclass); gradients reach the leaves as plain
    tensors."""
    def run(L, show):
        M = _subclass(L)
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = (x.as_subclass(M) * 3).sum()
        show(f"{type(y).__name__} {y.grad_fn.name()} {y.grad_fn.next_functions[0][0].name()}")
        y.backward()
        w = L.ones(2).as_subclass(M).requires_grad_()
        (w * w).sum().backward()
        return x.grad, w.grad
    assert _outcome(dyngrad, run) == _outcome(torch, run)


def test_fast_paths_return_once_no_such_instance_is_alive():
    """The dispatcher asks while instances of a class with a ``__torch_function__`` are alive,
    and takes its fast paths again once they are gone (Note [__torch_function__])."""
    import gc
    from dyngrad.ops import _dispatch
    gc.collect()
    assert not _dispatch._intercept
    m = _m(dyngrad)
    parameter = dyngrad.nn.Parameter(dyngrad.ones(2))   # (opts out: not counted)
    assert _dispatch._intercept and type(m * 2).__name__ == "M"
    del m
    gc.collect()
    assert not _dispatch._intercept and type(parameter * 2) is dyngrad.Tensor


def test_func_is_the_function_or_the_method_called():
    """``func`` is the Tensor method for a method, an operator or an in-place call, and the
    function for a function call, as torch hands them."""
    def run(L, show):
        class Which(L.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                show((func is L.Tensor.mul, func is L.mul, func is L.Tensor.add_,
                      func is L.Tensor.neg))
                return super().__torch_function__(func, types, args, kwargs)
        w = L.ones(2).as_subclass(Which)
        return w * 2, w.mul(2), L.mul(w, 2), 2 * w, w.add_(1), -w
    assert _outcome(dyngrad, run) == _outcome(torch, run)
