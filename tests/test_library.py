"""torch.library's custom ops and torch.ops, compared with live torch.

torch's op registry is global, so every test defines its ops under a namespace of its own
(``lt_<test>``); each library keeps its own registry, so one snippet runs on both.
"""
import re
from typing import Optional

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch, node_chain, same


def _both(fn):
    """(torch's, dyngrad's) results of fn(lib), or their (type name, message) when it raises."""
    out = []
    for lib in (torch, dyngrad):
        try:
            out.append(fn(lib))
        except Exception as e:   # noqa: BLE001
            out.append((type(e).__name__, _normalize(str(e))))
    return out


def _normalize(msg: str) -> str:
    """The library's own names out of a message: module reprs and the Tensor class path."""
    msg = re.sub(r"<module '[^']*' from '[^']*'>", "<module>", msg)
    return msg.replace("dyngrad.Tensor", "torch.Tensor")


def _same_error(fn):
    theirs, ours = _both(fn)
    assert isinstance(theirs, tuple) and theirs == ours, (theirs, ours)


def _numpy_sin(lib, ns):
    @lib.library.custom_op(f"{ns}::numpy_sin", mutates_args=())
    def numpy_sin(x: lib.Tensor) -> lib.Tensor:
        return lib.from_numpy(np.sin(x.numpy()))

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.cos()
    numpy_sin.register_autograd(backward, setup_context=setup_context)

    @numpy_sin.register_fake
    def _(x):
        return lib.empty_like(x)
    return numpy_sin


# -- custom_op and register_autograd ---------------------------------------------------------
def test_custom_op_forward_backward_and_node_name():
    def fn(lib):
        op = _numpy_sin(lib, "lt_basic")
        x = lib.linspace(-1, 1, 5, requires_grad=True)
        y = lib.ops.lt_basic.numpy_sin(x)
        (gx,) = lib.autograd.grad(y.sum(), x)
        assert repr(op) == "<CustomOpDef(lt_basic::numpy_sin)>"
        return y, gx, op(x.detach())
    like_torch(fn, rtol=1e-6)
    theirs, ours = _both(lambda lib: node_chain(
        _numpy_sin(lib, "lt_chain")(lib.ones(2, requires_grad=True) * 2)))
    assert theirs == ours == ["GeneratedBackwardFor_lt_chain_numpy_sin_defaultBackward",
                              "MulBackward0", "AccumulateGrad"]


def test_ops_reprs_and_overload_attributes():
    def fn(lib):
        _numpy_sin(lib, "lt_repr")
        packet = lib.ops.lt_repr.numpy_sin
        over = packet.default
        return (repr(lib.ops.lt_repr), repr(packet), repr(over), str(over), str(packet),
                over.name(), over.__name__, packet.overloads(), str(over._schema),
                over(lib.zeros(2)).tolist())
    theirs, ours = _both(fn)
    assert theirs == ours


def test_needs_input_grad_kwonly_args_and_multiple_outputs():
    def fn(lib):
        seen = []

        @lib.library.custom_op("lt_multi::scale", mutates_args=())
        def scale(x: lib.Tensor, y: Optional[lib.Tensor], *, k: float = 2.0, n: int = 1
                  ) -> tuple[lib.Tensor, lib.Tensor, int]:
            return x * k, (x * y if y is not None else x.clone()), n + 2

        def setup(ctx, inputs, keyword_only_inputs, output):
            seen.append((len(inputs), dict(keyword_only_inputs), ctx.needs_input_grad,
                         type(output).__name__))
            ctx.k = keyword_only_inputs["k"]
            ctx.save_for_backward(*inputs)

        def backward(ctx, g1, g2, g3):
            seen.append((ctx.needs_input_grad, g3, g2.tolist()))
            x, y = ctx.saved_tensors
            return g1 * ctx.k + g2 * y, g2 * x
        scale.register_autograd(backward, setup_context=setup)
        x = lib.ones(2, requires_grad=True)
        y = lib.full((2,), 3.0, requires_grad=True)
        a, b, c = scale(x, y, k=3.0)
        assert a.grad_fn is b.grad_fn and b.output_nr == 1 and c == 3
        a.sum().backward()
        a2, b2, _ = scale(x, y=None)
        assert b2.grad_fn is not None
        return seen, x.grad.tolist(), y.grad.tolist()
    theirs, ours = _both(fn)
    assert theirs == ours


def test_no_grad_inputs_give_no_node():
    like_torch(lambda lib: _numpy_sin(lib, "lt_nograd")(lib.ones(3)), rtol=1e-6)

    def fn(lib):
        op = _numpy_sin(lib, "lt_nograd2")
        with lib.no_grad():
            return op(lib.ones(3, requires_grad=True))
    like_torch(fn, rtol=1e-6)


def test_double_backward_through_differentiable_backward():
    def fn(lib):
        @lib.library.custom_op("lt_double::cube", mutates_args=())
        def cube(x: lib.Tensor) -> lib.Tensor:
            return x * x * x

        def setup(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x * x
        cube.register_autograd(backward, setup_context=setup)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (g,) = lib.autograd.grad(cube(x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g, gg
    like_torch(fn)


def test_tensor_list_inputs():
    def fn(lib):
        needs = []

        @lib.library.custom_op("lt_list::wsum", mutates_args=())
        def wsum(xs: list[lib.Tensor], w: float) -> lib.Tensor:
            return sum(x * w for x in xs)

        def backward(ctx, g):
            needs.append(ctx.needs_input_grad)
            return [g * ctx.w if n else None for n in ctx.needs_input_grad[0]], None

        def setup(ctx, inputs, output):
            ctx.w = inputs[1]
        wsum.register_autograd(backward, setup_context=setup)
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2)
        c = lib.ones(2, requires_grad=True)
        y = wsum([a, b, c], 2.5)
        y.sum().backward()
        return needs, y.tolist(), a.grad.tolist(), c.grad.tolist()
    theirs, ours = _both(fn)
    assert theirs == ours


def test_backward_without_register_autograd_raises():
    def fn(lib):
        @lib.library.custom_op("lt_noreg::f", mutates_args=())
        def f(x: lib.Tensor) -> lib.Tensor:
            return x.clone()
        y = f(lib.ones(2, requires_grad=True))
        assert type(y.grad_fn).__name__ == "GeneratedBackwardFor_lt_noreg_f_defaultBackward"
        y.sum().backward()
    _same_error(fn)


def test_integer_and_non_tensor_outputs():
    def fn(lib):
        @lib.library.custom_op("lt_int::split", mutates_args=())
        def split(x: lib.Tensor) -> tuple[lib.Tensor, lib.Tensor]:
            return x * 2, x.argmax().reshape(1)

        def backward(ctx, g, gi):
            return g * 2
        split.register_autograd(backward)
        a, i = split(lib.tensor([1.0, 3.0], requires_grad=True))
        return a, i
    like_torch(fn)


def test_mutates_args_bumps_versions():
    def fn(lib):
        @lib.library.custom_op("lt_mut::add_one_", mutates_args={"x"})
        def add_one_(x: lib.Tensor) -> None:
            x.add_(1)
        x = lib.zeros(2)
        r = add_one_(x)
        leaf = lib.zeros(2, requires_grad=True)
        add_one_(leaf)
        return r, x._version, x.tolist(), leaf._version, leaf.grad_fn
    theirs, ours = _both(fn)
    assert theirs == ours
    _same_error(lambda lib: lib.library.custom_op(
        "lt_mut::g_", lambda x: None, mutates_args={"x"}).register_autograd(lambda c, g: g))

    def annotated(lib):
        def g_(x: lib.Tensor) -> None:
            x.mul_(2)
        op = lib.library.custom_op("lt_mut::g2_", g_, mutates_args={"x"})
        op.register_autograd(lambda c, g: g)
    _same_error(annotated)


@pytest.mark.parametrize("body", ["x", "x.view(-1)", "pair"])
def test_returning_aliases_is_refused(body):
    def fn(lib):
        def alias(x: lib.Tensor) -> tuple[lib.Tensor, lib.Tensor]:
            if body == "pair":
                y = x.sin()
                return y, y
            return eval(body), x.sin()   # noqa: S307
        op = lib.library.custom_op(f"lt_alias::a{len(body)}", alias, mutates_args=())
        op(lib.ones(2))
    _same_error(fn)


def test_schema_inference():
    def fn(lib):
        def f(x: lib.Tensor, y: Optional[lib.Tensor], z: list[lib.Tensor], a: int, b: float,
              c: bool, d: str, e: list[int], *, k: int = 3, s: float = 1.5,
              o: Optional[int] = None) -> tuple[lib.Tensor, lib.Tensor]:
            pass
        return (lib.library.infer_schema(f, mutates_args=()),
                lib.library.infer_schema(f, mutates_args={"x", "z"}),
                lib.library.infer_schema(f, op_name="foo", mutates_args="unknown"))
    theirs, ours = _both(fn)
    assert theirs == ours


def _unannotated(x):
    return x


def _dict_arg(x: dict) -> int:
    return 0


def _tuple_arg(x: tuple[int, int]) -> int:
    return 0


def _varargs(*x: int) -> int:
    return 0


def _int_arg(x: int, n: int) -> int:
    return 0


@pytest.mark.parametrize("case", ["noann", "dict", "tuple", "noret", "badret", "varargs",
                                  "mut_missing", "mut_int", "mut_str", "no_mutates", "kwtensor",
                                  "name", "schema_mismatch"])
def test_definition_errors(case):
    def fn(lib):
        co = lib.library.custom_op

        def noret(x: lib.Tensor):
            return x

        def badret(x: lib.Tensor) -> dict:
            return x

        def kwt(x: lib.Tensor, *, y: lib.Tensor) -> lib.Tensor:
            return x

        def plain(x: lib.Tensor) -> lib.Tensor:
            return x.clone()
        ns = f"lt_err_{case}::f"
        return {
            "noann": lambda: co(ns, _unannotated, mutates_args=()),
            "dict": lambda: co(ns, _dict_arg, mutates_args=()),
            "tuple": lambda: co(ns, _tuple_arg, mutates_args=()),
            "noret": lambda: co(ns, noret, mutates_args=()),
            "badret": lambda: co(ns, badret, mutates_args=()),
            "varargs": lambda: co(ns, _varargs, mutates_args=()),
            "mut_missing": lambda: co(ns, plain, mutates_args=("y",)),
            "mut_int": lambda: co(ns, _int_arg, mutates_args=("n",)),
            "mut_str": lambda: co(ns, plain, mutates_args="x"),
            "no_mutates": lambda: co(ns, plain),
            "kwtensor": lambda: co(ns, kwt, mutates_args=()),
            "name": lambda: co("lt_err_name", plain, mutates_args=()),
            "schema_mismatch": lambda: co(ns, plain, mutates_args=("x",),
                                          schema="(Tensor x) -> Tensor"),
        }[case]()
    theirs, ours = _both(fn)
    assert isinstance(theirs, tuple)
    if case in ("dict", "tuple", "badret"):   # the valid types listed: typing's reprs differ
        theirs, ours = (theirs[0], theirs[1][:90]), (ours[0], ours[1][:90])
    assert theirs == ours


@pytest.mark.parametrize("call", ["too_many", "positional_kwonly", "missing", "not_tensor",
                                  "unknown_kw"])
def test_call_errors(call):
    def fn(lib):
        @lib.library.custom_op(f"lt_call_{call}::f", mutates_args=())
        def f(x: lib.Tensor, *, k: float = 2.0) -> lib.Tensor:
            return x * k

        @lib.library.custom_op(f"lt_call_{call}::g", mutates_args=())
        def g(x: lib.Tensor) -> lib.Tensor:
            return x.clone()
        t = lib.ones(2)
        return {"too_many": lambda: g(t, 3), "positional_kwonly": lambda: f(t, 3.0),
                "missing": lambda: g(), "not_tensor": lambda: g("a"),
                "unknown_kw": lambda: g(t, z=1)}[call]()
    _same_error(fn)


def test_register_kernel_and_set_kernel_enabled():
    def fn(lib):
        @lib.library.custom_op("lt_kern::f", mutates_args=(), device_types="cpu")
        def f(x: lib.Tensor) -> lib.Tensor:
            return x + 1
        out = [f(lib.zeros(1)).item()]

        @f.register_kernel("cpu")
        def _(x):
            return x + 2
        out.append(f(lib.zeros(1)).item())
        with f.set_kernel_enabled("cpu", False):
            out.append(f(lib.zeros(1)).item())
        out.append(f(lib.zeros(1)).item())
        return out
    theirs, ours = _both(fn)
    assert theirs == ours == [1.0, 2.0, 1.0, 2.0]


# -- the older Library API and the functional registrations ------------------------------------
def test_library_define_impl_and_register_autograd():
    def fn(lib):
        L = lib.library
        my = L.Library("lt_lib", "DEF")
        assert repr(my) == "Library(kind=DEF, ns=lt_lib, dispatch_key=)>"
        assert my.define("foo(Tensor x, float a=2.0, float b=0.1, int[] e=[1,2]) -> Tensor") \
            == "foo"
        my.impl("foo", lambda x, a=2.0, b=0.1, e=(1, 2): x * a, "CPU")
        x = lib.ones(2, requires_grad=True)
        y = lib.ops.lt_lib.foo(x)
        L.define("lt_lib2::baz", "(Tensor x) -> Tensor")

        @L.impl("lt_lib2::baz", "cpu")
        def _(x):
            return x * 3
        L.register_autograd("lt_lib2::baz", lambda ctx, g: g * 3)
        z = lib.ops.lt_lib2.baz(x)
        z.sum().backward()
        return (str(lib.ops.lt_lib.foo.default._schema), type(y.grad_fn).__name__,
                type(z.grad_fn).__name__, x.grad.tolist())
    theirs, ours = _both(fn)
    assert theirs == ours


def test_library_errors():
    _same_error(lambda lib: lib.library.Library("lt_libe", "FOO"))

    def twice(lib):
        lib.library.Library("lt_libe2", "DEF")
        lib.library.Library("lt_libe2", "DEF")
    theirs, ours = _both(twice)
    assert theirs == ours
    _same_error(lambda lib: lib.library.register_fake("lt_libe::nothere", lambda x: x))
    _same_error(lambda lib: lib.library.register_autograd("lt_libe::nope", lambda c, g: g))


# -- torch.ops.aten -------------------------------------------------------------------------
def test_aten_ops_resolve_to_registry():
    def fn(lib):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = lib.tensor([[0.5, -1.0], [2.0, 1.0]])
        aten = lib.ops.aten
        return (aten.add.Tensor(a, b, alpha=2), aten.add(a, b), aten.mm.default(a, b),
                aten.mul.Scalar(a, 2.0), aten.sum.default(a), aten.sin(a), aten.relu.default(a))
    like_torch(fn, rtol=1e-6)


@pytest.mark.parametrize("expr", ["aten.foo_bar", "aten.add.nope", "lt_none.x"])
def test_unknown_ops(expr):
    def fn(lib):
        obj = lib.ops
        for part in expr.split("."):
            obj = getattr(obj, part)
    _same_error(fn)


# -- opcheck --------------------------------------------------------------------------------
def test_opcheck_success_and_failures():
    def ok(lib):
        op = _numpy_sin(lib, "lt_opcheck")
        return (lib.library.opcheck(op, (lib.randn(3, requires_grad=True),)),
                lib.library.opcheck(op, (lib.randn(3),), test_utils="test_schema"))
    theirs, ours = _both(ok)
    assert theirs == ours

    def nofake(lib):
        @lib.library.custom_op("lt_opcheck::nofake", mutates_args=())
        def nofake(x: lib.Tensor) -> lib.Tensor:
            return x.sin()
        lib.library.opcheck(nofake, (lib.randn(2),))

    def badfake(lib):
        @lib.library.custom_op("lt_opcheck::badfake", mutates_args=())
        def badfake(x: lib.Tensor) -> lib.Tensor:
            return x.sin()
        badfake.register_fake(lambda x: lib.empty(3))
        lib.library.opcheck(badfake, (lib.randn(2),))

    def nograd(lib):
        @lib.library.custom_op("lt_opcheck::nograd", mutates_args=())
        def nograd(x: lib.Tensor) -> lib.Tensor:
            return x.sin()
        nograd.register_fake(lambda x: lib.empty_like(x))
        lib.library.opcheck(nograd, (lib.randn(2, requires_grad=True),))

    def undeclared(lib):
        @lib.library.custom_op("lt_opcheck::undeclared", mutates_args=())
        def undeclared(x: lib.Tensor) -> lib.Tensor:
            x.add_(1)
            return x.sin()
        undeclared.register_fake(lambda x: lib.empty_like(x))
        lib.library.opcheck(undeclared, (lib.randn(2),), test_utils="test_schema")
    for fn in (nofake, badfake, nograd, undeclared):
        _same_error(fn)


def test_torch_ops_keeps_internal_package():
    """dyngrad.ops is still the op registry package; namespaces come from its __getattr__."""
    assert isinstance(dyngrad.ops.OPS, dict) and dyngrad.ops.add is dyngrad.ops.FUNCTIONS["add"]
    with pytest.raises(AttributeError):
        dyngrad.ops._no_such_private_name
    same(dyngrad.ops.aten.mm(dyngrad.eye(2), dyngrad.ones(2, 2)),
         torch.ops.aten.mm(torch.eye(2), torch.ones(2, 2)))


@pytest.mark.parametrize("call", [
    "aten.slice.Tensor(x, dim=1, start=1, end=-1)", "aten.slice.Tensor(x, 1, 1, -1)",
    "aten.select.int(x, dim=1, index=0)", "aten.transpose.int(x, dim0=0, dim1=1)",
    "aten.unfold.default(x, dimension=2, size=2, step=1)",
    "aten.expand.default(x[:1], size=[3, 3, 4])",
    "aten.as_strided.default(x, size=[2], stride=[1])",
    "aten.view.default(x, size=[6, 4])", "aten.slice.Tensor(self=x, dim=1)",
    "aten.squeeze.dim(x[:1], dim=0)", "aten.add.Tensor(self=x, other=x)",
])
def test_aten_ops_take_keywords(call):
    """torch.ops.aten's overloads take their arguments by name, the views' too (whose kernels
    take the geometry where torch's schema has ``self``), and ``self=`` itself."""
    like_torch(lambda L: eval(call, {"aten": L.ops.aten, "x": L.arange(24.0).reshape(2, 3, 4)}))


def test_infer_schema_of_annotations_it_cannot_evaluate():
    """A string annotation naming what the function's module does not have (a local type under
    ``from __future__ import annotations``) gets torch's hint; another failure its exception."""
    def local(x: "LocalTensor") -> "LocalTensor":
        return x

    def broken(x: "1 / 0") -> "Tensor":
        return x
    for fn in (local, broken):
        _same_error(lambda lib, fn=fn: lib.library.infer_schema(fn, mutates_args=()))
