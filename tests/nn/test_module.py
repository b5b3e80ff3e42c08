"""nn.Module against torch: registration and its errors, iteration, modes, conversion,
state dicts, hooks, reprs, copying. Each scenario runs on both libraries."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import dyngrad

from .helpers import copy_state, pair, to_torch


def outcome(fn, lib):
    try:
        return ("ok", fn(lib))
    except Exception as e:  # noqa: BLE001  (compared with torch's)
        return ("raised", type(e).__name__, str(e))


def same_outcome(fn):
    """`fn(lib)` returns equal plain values, or raises the same type and message."""
    expected, got = outcome(fn, torch), outcome(fn, dyngrad)
    assert got == expected
    return got


def same_result(fn):
    """`fn(lib)` runs on both libraries and returns equal plain values."""
    got = same_outcome(fn)
    assert got[0] == "ok", got
    return got[1]


def same_error(fn):
    """`fn(lib)` raises the same exception type and message on both libraries."""
    got = same_outcome(fn)
    assert got[0] == "raised", got
    return got


class Net:
    """A small model built on either library (Linear, BatchNorm, a shared submodule)."""

    @staticmethod
    def make(lib):
        nn = lib.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.bn = nn.BatchNorm1d(4)
                self.register_buffer("scale", lib.ones(1))
                self.register_buffer("cache", lib.zeros(2), persistent=False)

            def forward(self, x):
                return self.bn(self.fc(x)) * self.scale

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()
                self.head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2, bias=False))
                self.alpha = nn.Parameter(lib.tensor(0.5))
                self.empty = None

            def forward(self, x):
                return self.head(self.block(x)) * self.alpha

        return Model()


# -- registration ----------------------------------------------------------------------------
REGISTRATION_ERRORS = {
    "tensor_as_param": lambda lib: setattr(lib.nn.Linear(2, 2), "weight", lib.ones(2, 2)),
    "int_as_child": lambda lib: setattr(lib.nn.Sequential(lib.nn.ReLU()), "0", 3),
    "int_as_buffer": lambda lib: setattr(lib.nn.BatchNorm1d(2), "running_mean", 3),
    "param_before_init": lambda lib: _early(lib, lambda m: setattr(m, "w", lib.nn.Parameter(
        lib.ones(1)))),
    "module_before_init": lambda lib: _early(lib, lambda m: setattr(m, "c", lib.nn.ReLU())),
    "register_param_before_init": lambda lib: _early(
        lib, lambda m: m.register_parameter("w", None)),
    "buffer_before_init": lambda lib: _early(lib, lambda m: m.register_buffer("b", None)),
    "buffer_name_type": lambda lib: lib.nn.Module().register_buffer(3, lib.ones(1)),
    "buffer_name_dot": lambda lib: lib.nn.Module().register_buffer("a.b", lib.ones(1)),
    "buffer_name_empty": lambda lib: lib.nn.Module().register_buffer("", lib.ones(1)),
    "buffer_exists": lambda lib: lib.nn.Module().register_buffer("training", lib.ones(1)),
    "buffer_not_tensor": lambda lib: lib.nn.Module().register_buffer("b", [1.0]),
    "param_name_type": lambda lib: lib.nn.Module().register_parameter(1.5, None),
    "param_name_dot": lambda lib: lib.nn.Module().register_parameter("a.b", None),
    "param_name_empty": lambda lib: lib.nn.Module().register_parameter("", None),
    "param_exists": lambda lib: lib.nn.Module().register_parameter("forward", None),
    "param_not_param": lambda lib: lib.nn.Module().register_parameter("w", lib.ones(2)),
    "param_non_leaf": lambda lib: lib.nn.Module().register_parameter("w", _non_leaf_param(lib)),
    "module_not_module": lambda lib: lib.nn.Module().add_module("m", 3),
    "module_name_type": lambda lib: lib.nn.Module().add_module(3, None),
    "module_name_dot": lambda lib: lib.nn.Module().add_module("a.b", None),
    "module_name_empty": lambda lib: lib.nn.Module().add_module("", None),
    "module_exists": lambda lib: lib.nn.Module().add_module("train", None),
    "missing_attribute": lambda lib: lib.nn.Linear(2, 2).nothing,
    "init_kwargs": lambda lib: lib.nn.Module(foo=1),
    "init_args": lambda lib: lib.nn.Module(1, 2),
    "no_forward": lambda lib: lib.nn.Module()(lib.ones(1)),
    "int_parameter": lambda lib: lib.nn.Parameter(lib.ones(2, dtype=lib.long)),
}


def _early(lib, action):
    class Early(lib.nn.Module):
        def __init__(self):
            action(self)
            super().__init__()
    return Early()


def _non_leaf_param(lib):
    """A Parameter with history: an in-place op with an operand that requires grad."""
    p = lib.nn.Parameter(lib.ones(2), requires_grad=False)
    p.mul_(lib.ones(2, requires_grad=True))
    return p


@pytest.mark.parametrize("case", sorted(REGISTRATION_ERRORS))
def test_registration_errors_like_torch(case):
    same_error(REGISTRATION_ERRORS[case])


def test_setattr_routes_into_registries():
    for lib in (torch, dyngrad):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.ones(2))
        m.child = lib.nn.Linear(1, 1)
        m.register_buffer("b", lib.zeros(1))
        m.plain = lib.ones(3)                    # a plain tensor is not registered
        m.buf = lib.nn.Buffer(lib.ones(1), persistent=False)
        assert list(m._parameters) == ["w"] and list(m._modules) == ["child"]
        assert list(m._buffers) == ["b", "buf"] and "plain" in m.__dict__
        assert list(m.state_dict()) == ["w", "b", "child.weight", "child.bias"]
        m.b = lib.ones(2)                        # reassigning a buffer keeps it a buffer
        assert m._buffers["b"].shape == (2,)
        m.w = None
        assert m._parameters["w"] is None and m.w is None
        m.child = lib.nn.Parameter(lib.ones(1))  # a parameter replaces the submodule
        assert "child" not in m._modules and "child" in m._parameters
        del m.child, m.b, m.plain
        assert "child" not in m._parameters and "b" not in m._buffers
        assert "w" in dir(m) and "buf" in dir(m)


def test_named_members_prefix_recurse_duplicates():
    def names(lib):
        nn = lib.nn
        shared = nn.Linear(2, 2)
        m = nn.Sequential(shared, nn.Sequential(shared, nn.BatchNorm1d(2)))
        return (
            [n for n, _ in m.named_parameters()],
            [n for n, _ in m.named_parameters(remove_duplicate=False)],
            [n for n, _ in m.named_parameters(prefix="model", recurse=False)],
            [n for n, _ in m[1].named_parameters(prefix="x")],
            [n for n, _ in m.named_buffers()],
            [n for n, _ in m.named_modules()],
            [n for n, _ in m.named_modules(prefix="root", remove_duplicate=False)],
            [n for n, _ in m.named_children()],
            len(list(m.parameters())), len(list(m.modules())), len(list(m.children())),
            len(list(m.buffers(recurse=False))),
        )
    same_result(names)


def test_get_submodule_parameter_buffer():
    def lookups(lib):
        m = Net.make(lib)
        return (type(m.get_submodule("block.fc")).__name__,
                tuple(m.get_parameter("block.fc.bias").shape),
                tuple(m.get_buffer("block.bn.running_var").shape), m.get_submodule("") is m)
    same_result(lookups)
    for target in ("block.nope", "block.fc.weight", "alpha.x"):
        same_error(lambda lib: Net.make(lib).get_submodule(target))
    for target in ("block.fc.nope", "block.fc", "block.bn.running_mean"):
        same_error(lambda lib: Net.make(lib).get_parameter(target))
    for target in ("block.nope", "block.fc.weight", "block.scale"):
        same_outcome(lambda lib: type(Net.make(lib).get_buffer(target)).__name__)


def test_set_submodule():
    def swap(lib):
        m = Net.make(lib)
        m.set_submodule("head.1", lib.nn.Identity())
        return str(m)
    same_result(swap)
    same_error(lambda lib: Net.make(lib).set_submodule("", lib.nn.ReLU()))
    same_error(lambda lib: Net.make(lib).set_submodule("block.new", lib.nn.ReLU(),
                                                         strict=True))
    same_error(lambda lib: Net.make(lib).set_submodule("block.scale", lib.nn.ReLU()))


# -- modes, gradients, conversion -------------------------------------------------------------
def test_train_eval_requires_grad_zero_grad():
    def scenario(lib):
        m = Net.make(lib)
        modes = [m.training, m.eval().training, m.block.bn.training, m.train().head.training]
        m.block.requires_grad_(False)
        frozen = [p.requires_grad for p in m.parameters()]
        m.requires_grad_()
        m(lib.ones(3, 4)).sum().backward()
        m.zero_grad(set_to_none=False)
        zeroed = [float(p.grad.abs().sum()) for p in m.parameters()]
        m.zero_grad()
        nones = [p.grad is None for p in m.parameters()]
        return modes, frozen, zeroed, nones
    same_result(scenario)
    same_error(lambda lib: Net.make(lib).train("yes"))


def test_dtype_conversion_keeps_parameter_identity():
    def scenario(lib):
        m = Net.make(lib)
        w = m.block.fc.weight
        m(lib.ones(2, 4)).sum().backward()
        out = []
        for convert in (lambda: m.double(), lambda: m.half(), lambda: m.float(),
                        lambda: m.to(lib.float64), lambda: m.to("cpu", lib.float32),
                        lambda: m.to(lib.ones(1, dtype=lib.float64)),
                        lambda: m.to(dtype=lib.float16), lambda: m.type(lib.float64),
                        lambda: m.cpu()):
            assert convert() is m
            out.append((str(w.dtype), str(w.grad.dtype), m.block.fc.weight is w,
                        type(w).__name__, str(m.block.bn.num_batches_tracked.dtype),
                        str(m.block.bn.running_mean.dtype)))
        return out
    same_result(scenario)
    same_error(lambda lib: Net.make(lib).to(lib.int32))


def test_apply_order_and_return():
    def scenario(lib):
        seen = []
        m = Net.make(lib)
        assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
        return seen
    same_result(scenario)


def test_apply_initialises_like_a_user_would():
    m = dyngrad.nn.Sequential(dyngrad.nn.Linear(3, 3), dyngrad.nn.Linear(3, 1))

    def init(mod):
        if isinstance(mod, dyngrad.nn.Linear):
            dyngrad.nn.init.zeros_(mod.weight)
    m.apply(init)
    assert all(float(l.weight.abs().sum()) == 0 for l in m if hasattr(l, "weight"))
    assert all(l.weight.requires_grad and l.weight.is_leaf for l in m)


# -- state dict -------------------------------------------------------------------------------
def test_state_dict_keys_values_metadata():
    def scenario(lib):
        m = Net.make(lib)
        sd = m.state_dict()
        kv = m.state_dict(keep_vars=True)
        pre = m.block.state_dict(prefix="p.")
        return (type(sd).__name__, list(sd), dict(sd._metadata),
                [type(v).__name__ for v in kv.values()],
                [v.requires_grad for v in sd.values()], list(pre), dict(pre._metadata))
    same_result(scenario)
    ours = Net.make(dyngrad)
    sd = ours.state_dict()
    assert sd["block.fc.weight"].data_ptr() == ours.block.fc.weight.data_ptr()   # shared


def test_state_dict_round_trip_into_torch():
    ours, theirs = pair(Net.make)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype("float32")
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(dyngrad.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    back = Net.make(dyngrad)
    result = back.load_state_dict({k: dyngrad.tensor(v.numpy()) for k, v in
                                   theirs.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    for (k, a), b in zip(back.state_dict().items(), ours.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def _load(lib, edit, strict=True, assign=False):
    m = Net.make(lib)
    sd = m.state_dict()
    edit(lib, sd)
    return repr(m.load_state_dict(sd, strict=strict, assign=assign))


LOAD_CASES = {
    "missing": lambda lib, sd: sd.pop("block.fc.bias") and sd.pop("alpha"),
    "unexpected": lambda lib, sd: sd.update({"extra": lib.ones(1), "block.fc.zzz": lib.ones(1),
                                             "nochild.w": lib.ones(1)}),
    "size_mismatch": lambda lib, sd: sd.update({"block.fc.weight": lib.ones(3, 4),
                                                "head.1.weight": lib.ones(2)}),
    "not_a_tensor": lambda lib, sd: sd.update({"block.scale": [1.0]}),
    "all_three": lambda lib, sd: (sd.pop("alpha"), sd.update({"x": lib.ones(1)}),
                                  sd.update({"block.bn.weight": lib.ones(5)})),
    "scalar_from_1_elem": lambda lib, sd: sd.update({"alpha": lib.ones(1)}),
    "non_persistent_given": lambda lib, sd: sd.update({"block.cache": lib.ones(2)}),
}


@pytest.mark.parametrize("case", sorted(LOAD_CASES))
@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_reports_like_torch(case, strict):
    same_outcome(lambda lib: _load(lib, LOAD_CASES[case], strict))


def test_load_state_dict_not_a_mapping_and_assign():
    same_error(lambda lib: Net.make(lib).load_state_dict([1, 2]))

    def assign(lib):
        m = Net.make(lib)
        old = m.block.fc.weight
        sd = {k: v.clone() for k, v in m.state_dict().items()}
        m.load_state_dict(sd, assign=True)
        w = m.block.fc.weight
        return (w is old, type(w).__name__, w.requires_grad, m.block.bn.running_mean is
                sd["block.bn.running_mean"])
    same_result(assign)


def test_load_state_dict_copies_in_place():
    m = Net.make(dyngrad)
    w = m.block.fc.weight
    m.load_state_dict({k: v * 0 for k, v in m.state_dict().items()})
    assert m.block.fc.weight is w and float(w.abs().sum()) == 0 and w.is_leaf
    assert w._version > 0


def test_batchnorm_old_checkpoint_without_num_batches_tracked():
    def scenario(lib):
        m = lib.nn.BatchNorm1d(2)
        sd = m.state_dict()
        del sd["num_batches_tracked"]
        sd._metadata[""]["version"] = 1
        return repr(m.load_state_dict(sd)), int(m.num_batches_tracked)
    same_result(scenario)


def test_state_dict_and_load_hooks():
    def scenario(lib):
        log = []
        m = Net.make(lib)
        m.block.register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(("pre",
                                                                                  prefix)))
        m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(("post",
                                                                                 len(sd))))
        m.block.register_load_state_dict_post_hook(
            lambda mod, keys: log.append(("lpost", list(keys.missing_keys))))
        m.register_load_state_dict_post_hook(
            lambda mod, keys: log.append(("root", list(keys.missing_keys))))
        m.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, *rest: log.append(("lpre", prefix, type(mod).__name__)))
        sd = m.state_dict()
        sd.pop("block.fc.bias")
        m.load_state_dict(sd, strict=False)
        return log
    same_result(scenario)


def test_private_state_dict_hooks():
    # the older registration methods libraries still call: a post-hook that may hand back a
    # new state_dict, and a load pre-hook without the module unless with_module
    def scenario(lib):
        log = []
        m = Net.make(lib)
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": len(sd)})
        m.block._register_state_dict_hook(lambda mod, sd, prefix, meta: {"ignored": 0})
        out = dict(m.state_dict())
        m._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: log.append(
            ("bare", prefix)))
        m.block._register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: log.append(
            ("with", type(mod).__name__, prefix)), with_module=True)
        m.load_state_dict(Net.make(lib).state_dict())

        def public(mod, sd, prefix, meta):
            return None
        m.register_state_dict_post_hook(public)
        try:
            m._register_state_dict_hook(public)
        except RuntimeError as e:
            log.append(str(e))
        return out, log
    same_result(scenario)


def test_extra_state():
    def scenario(lib):
        class WithExtra(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(1, 1)
                self.n = 3

            def get_extra_state(self):
                return {"n": self.n}

            def set_extra_state(self, state):
                self.n = state["n"]

        m = WithExtra()
        sd = m.state_dict()
        keys = list(sd)
        sd["_extra_state"] = {"n": 7}
        m.load_state_dict(sd)
        missing = outcome(lambda _: m.load_state_dict({"lin.weight": lib.ones(1, 1),
                                                       "lin.bias": lib.ones(1)}), lib)
        return keys, m.n, missing
    same_result(scenario)


# -- hooks --------------------------------------------------------------------------------------
def test_forward_hooks_order_kwargs_prepend_removal():
    def scenario(lib):
        log = []
        m = lib.nn.Linear(2, 2)
        h1 = m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
        m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
        m.register_forward_pre_hook(lambda mod, args, kw: (log.append(("prekw", kw)),
                                                             (args, kw))[1],
                                    with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, args: args[0] * 2)   # replaces the input
        m.register_forward_hook(lambda mod, args, out: log.append(("fwd", args[0].shape[0])))
        m.register_forward_hook(lambda mod, args, kw, out: out + 1, with_kwargs=True)
        h2 = m.register_forward_hook(lambda mod, args, out: log.append("first"), prepend=True)
        x = lib.ones(3, 2)
        y1 = m(x).detach().clone()
        h1.remove()
        h2.remove()
        y2 = m(x)
        with m.register_forward_hook(lambda mod, args, out: log.append("ctx")):
            m(x)
        m(x)
        return log, bool((y1 == y2).all()), bool((y1 == m.forward(x * 2) + 1).all())
    same_result(scenario)


def test_forward_pre_hook_bad_return():
    def scenario(lib):
        m = lib.nn.Identity()
        m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
        return m(lib.ones(1))
    same_error(scenario)


def test_always_call_hook_runs_when_forward_raises():
    def scenario(lib):
        log = []

        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        m = Boom()
        m.register_forward_hook(lambda mod, args, out: log.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append("never"))
        return outcome(lambda _: m(lib.ones(1)), lib), log
    same_result(scenario)


def test_global_forward_hooks():
    def scenario(lib):
        from importlib import import_module
        mm = import_module(lib.__name__ + ".nn.modules.module")
        log = []
        h = mm.register_module_forward_pre_hook(lambda mod, a: log.append(type(mod).__name__))
        g = mm.register_module_forward_hook(lambda mod, a, o: log.append("post"))
        try:
            lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())(lib.ones(1))
        finally:
            h.remove()
            g.remove()
        lib.nn.ReLU()(lib.ones(1))
        return log
    same_result(scenario)


def _grads(t):
    return None if t is None else np.round(t.detach().numpy().astype(np.float64), 5).tolist()


def test_full_backward_hooks_like_torch():
    def scenario(lib):
        log = []
        m = lib.nn.Bilinear(2, 3, 2)
        lib.manual_seed(0) if lib is torch else None

        def pre(mod, grad_output):
            log.append(("pre", [_grads(g) for g in grad_output]))
            return (grad_output[0] * 2,)

        def post(mod, grad_input, grad_output):
            log.append(("post", [_grads(g) for g in grad_input],
                        [_grads(g) for g in grad_output]))
            return (grad_input[0] * 0, grad_input[1])

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(post)
        x1 = lib.ones(4, 2, requires_grad=True)
        x2 = lib.full((4, 3), 0.5, requires_grad=True)
        with lib.no_grad():
            m.weight.fill_(0.25)
            m.bias.fill_(0.0)
        y = m(x1, x2)
        log.append(type(y.grad_fn).__name__)
        y.sum().backward()
        return log, _grads(x1.grad), _grads(x2.grad), _grads(m.weight.grad)
    same_result(scenario)


def test_full_backward_hook_non_tensor_args_and_no_input_grad():
    def scenario(lib):
        log = []

        class Scale(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.full((2,), 3.0))

            def forward(self, x, k):
                return x * self.w * k

        m = Scale()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(
            ([_grads(g) for g in gi], [_grads(g) for g in go])))
        m(lib.ones(2, requires_grad=True), 2.0).sum().backward()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(lib.ones(2), 2.0).sum().backward()     # no input requires grad
        return log, [str(x.message)[:40] for x in w]
    same_result(scenario)


def test_full_backward_hook_bad_return_and_mixing():
    def bad(lib):
        m = lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        m(lib.ones(1, 2, requires_grad=True)).sum().backward()
    same_error(bad)

    def mixing(lib):
        m = lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda *a: None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.register_backward_hook(lambda *a: None)
    same_error(mixing)


def test_old_style_backward_hook():
    def scenario(lib):
        log = []
        m = lib.nn.Linear(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.register_backward_hook(lambda mod, gi, go: log.append(
                (type(mod).__name__, len(gi), len(go))))
            m(lib.ones(1, 2, requires_grad=True)).sum().backward()
        return log
    same_result(scenario)


# -- repr, copying ---------------------------------------------------------------------------------
def test_nested_reprs():
    def reprs(lib):
        nn = lib.nn
        return [
            str(Net.make(lib)),
            str(nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2),
                               nn.Sequential(nn.ReLU(), nn.ReLU()),
                               nn.Sequential(nn.ReLU(), nn.ReLU())])),
            str(nn.ModuleList()), str(nn.Sequential()), str(nn.Module()),
            str(nn.ModuleDict({"b": nn.Tanh(), "a": nn.Conv1d(1, 2, 3)})),
            str(nn.ParameterList([nn.Parameter(lib.ones(2, 3)), lib.ones(1, dtype=lib.float64),
                                  "text"])),
            str(nn.ParameterDict({"w": nn.Parameter(lib.ones(2)), "n": 3})),
            repr(nn.Parameter(lib.ones(2))), repr(nn.Parameter(lib.ones(2),
                                                               requires_grad=False)),
            repr(nn.Parameter()),
        ]
    same_result(reprs)

    def custom(lib):
        class Multi(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.nn.Linear(1, 1)

            def extra_repr(self):
                return "first line\nsecond line"
        return str(Multi())
    same_result(custom)


def test_deepcopy_and_pickle():
    m = Net.make(dyngrad)
    m(dyngrad.ones(3, 4))
    c = copy.deepcopy(m)
    assert c.block.fc.weight is not m.block.fc.weight
    assert type(c.block.fc.weight) is dyngrad.nn.Parameter and c.block.fc.weight.requires_grad
    for (k, a), b in zip(c.state_dict().items(), m.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    m = dyngrad.nn.Sequential(dyngrad.nn.Linear(4, 3), dyngrad.nn.BatchNorm1d(3))
    m(dyngrad.ones(3, 4)).sum().backward()
    p = pickle.loads(pickle.dumps(m))
    assert str(p) == str(m) and type(p[0].weight) is dyngrad.nn.Parameter
    assert p[0].weight.requires_grad and int(p[1].num_batches_tracked) == 1
    np.testing.assert_array_equal(p(dyngrad.ones(2, 4)).detach().numpy(),
                                  m(dyngrad.ones(2, 4)).detach().numpy())
    shared = dyngrad.nn.Linear(2, 2)
    seq = copy.deepcopy(dyngrad.nn.Sequential(shared, shared))
    assert seq[0] is seq[1] and len(list(seq.parameters())) == 2


def test_parameter_basics():
    def scenario(lib):
        base = lib.ones(3)
        p = lib.nn.Parameter(base)
        with lib.no_grad():
            p.mul_(2)
        q = copy.deepcopy(p)
        with lib.no_grad():
            r = lib.nn.Parameter(lib.zeros(1))
        return (type(p).__name__, p.is_leaf, p.requires_grad, base.tolist(),
                type(p * 2).__name__, type(p.data).__name__, type(p.detach()).__name__,
                type(p[0]).__name__, type(q).__name__, q.tolist(), r.requires_grad,
                isinstance(p, lib.Tensor), type(lib.nn.Buffer(lib.ones(1))).__name__,
                isinstance(lib.nn.Buffer(lib.ones(1)), lib.nn.Buffer),
                isinstance(lib.ones(1), lib.nn.Buffer))
    same_result(scenario)


def test_state_dict_copied_into_torch_module_works():
    ours, theirs = pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh()))
    theirs2 = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh())
    copy_state(ours, theirs2)
    x = torch.ones(2, 3)
    assert torch.equal(theirs(x), theirs2(x))
    assert torch.equal(theirs[0].weight, to_torch(ours[0].weight))


def test_global_registration_and_backward_hooks():
    def scenario(lib):
        from importlib import import_module
        mm = import_module(lib.__name__ + ".nn.modules.module")
        log = []
        handles = [
            mm.register_module_parameter_registration_hook(
                lambda mod, name, p: log.append(("param", name))),
            mm.register_module_buffer_registration_hook(
                lambda mod, name, b: log.append(("buffer", name))),
            mm.register_module_module_registration_hook(
                lambda mod, name, sub: log.append(("module", name))),
            mm.register_module_full_backward_pre_hook(
                lambda mod, go: log.append(("bpre", type(mod).__name__))),
            mm.register_module_full_backward_hook(
                lambda mod, gi, go: log.append(("bwd", type(mod).__name__))),
        ]
        try:
            m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
            m(lib.ones(3, 2, requires_grad=True)).sum().backward()
        finally:
            for h in handles:
                h.remove()
        lib.nn.Linear(1, 1)
        return log
    same_result(scenario)


def test_to_memory_format_device_and_errors():
    def scenario(lib):
        m = lib.nn.Conv2d(2, 3, 3)
        m.to(memory_format=lib.channels_last)
        strides = m.weight.stride(), m.bias.stride()
        m.to("cpu", lib.float64, True)
        dtype = str(m.weight.dtype)
        m.to(lib.ones(1, dtype=lib.float16), non_blocking=True)
        return strides, dtype, str(m.weight.dtype)
    same_result(scenario)
    same_error(lambda lib: lib.nn.Linear(1, 1).to("cuda"))
    same_error(lambda lib: lib.nn.Linear(1, 1).to(dtype=lib.bool))
    same_error(lambda lib: lib.nn.Linear(1, 1).cuda())


def test_full_backward_hook_with_double_backward():
    def scenario(lib):
        log = []
        m = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Tanh())
        with lib.no_grad():
            for p in m.parameters():
                p.fill_(0.3)
        m.register_full_backward_hook(lambda mod, gi, go: log.append(
            [None if g is None else round(float(g.detach().sum()), 4) for g in gi]))
        x = lib.ones(2, 3, requires_grad=True)
        g, = lib.autograd.grad(m(x).sum(), x, create_graph=True)
        (g ** 2).sum().backward()      # the second pass skips the hook, as in torch
        return log, _grads(m[0].weight.grad), _grads(x.grad)
    same_result(scenario)
