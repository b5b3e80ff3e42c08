"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against torch."""
from collections import OrderedDict

from compare import same_outcome

from .test_module import same_error, same_result


def _names(m):
    return list(m._modules), str(m)


def test_sequential_indexing_and_editing():
    def scenario(lib):
        nn = lib.nn
        s = nn.Sequential(nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 3), nn.Tanh())
        out = [type(s[-1]).__name__, str(s[1:3]), type(s[1:3]).__name__, len(s)]
        s[0] = nn.Identity()
        del s[1]
        out.append(_names(s))
        s.append(nn.Sigmoid()).insert(1, nn.ELU()).insert(-1, nn.SELU())
        out.append(_names(s))
        out.append(type(s.pop(0)).__name__)
        s.extend([nn.ReLU6()])
        del s[::2]
        out.append(_names(s))
        out.append(_names(s + nn.Sequential(nn.GELU())))
        out.append(_names(s * 2))
        out.append(_names(2 * s))
        s += nn.Sequential(nn.Mish())
        s *= 2
        out.append(_names(s))
        named = nn.Sequential(OrderedDict([("conv", nn.Conv1d(1, 1, 1)), ("act", nn.ReLU())]))
        out.append((_names(named), type(named.conv).__name__, [k for k in named.state_dict()]))
        out.append([d for d in dir(s) if d.isdigit()])
        return out
    same_result(scenario)


def test_sequential_forward_and_errors():
    def run(lib):
        s = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
        return tuple(s(lib.ones(3, 2)).shape), list(iter(s)) == [s[0], s[1]]
    same_result(run)
    for bad in (lambda lib: lib.nn.Sequential(lib.nn.ReLU())[5],
                lambda lib: lib.nn.Sequential(lib.nn.ReLU())[-2],
                lambda lib: lib.nn.Sequential(lib.nn.ReLU()) + [lib.nn.ReLU()],
                lambda lib: lib.nn.Sequential(lib.nn.ReLU()) * 0,
                lambda lib: lib.nn.Sequential(lib.nn.ReLU()) * 1.5,
                lambda lib: lib.nn.Sequential(lib.nn.ReLU()).insert(3, lib.nn.ReLU()),
                lambda lib: lib.nn.Sequential(lib.nn.ReLU()).insert(0, 3),
                lambda lib: lib.nn.Sequential(3)):
        same_error(bad)


def test_module_list():
    def scenario(lib):
        nn = lib.nn
        ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
        out = [str(ml), len(ml), type(ml[1:]).__name__, len(ml[::2])]
        ml.append(nn.ReLU())
        ml.extend([nn.Tanh(), nn.Tanh()])
        ml.insert(1, nn.GELU())
        ml[0] = nn.Identity()
        out.append(str(ml))
        del ml[1:3]
        out.append(str(ml))
        out.append(type(ml.pop(-1)).__name__)
        out.append(str(ml + nn.ModuleList([nn.ReLU()])))
        ml += [nn.SiLU()]
        out.append((str(ml), [k for k in ml.state_dict()], len(list(ml.parameters()))))
        return out
    same_result(scenario)
    for bad in (lambda lib: lib.nn.ModuleList()[0], lambda lib: lib.nn.ModuleList().extend(3),
                lambda lib: lib.nn.ModuleList([3])):
        same_error(bad)


def test_module_dict():
    def scenario(lib):
        nn = lib.nn
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(2, 2)})
        out = [str(md), list(md), list(md.keys()), "a" in md, len(md)]
        md["c"] = nn.Tanh()
        md.update([("d", nn.SiLU())])
        md.update(nn.ModuleDict({"e": nn.GELU()}))
        out.append(type(md.pop("b")).__name__)
        del md["c"]
        out.append((str(md), [type(v).__name__ for v in md.values()],
                    [k for k, _ in md.items()], list(md.state_dict())))
        md.clear()
        out.append(str(md))
        return out
    same_result(scenario)
    for bad in (lambda lib: lib.nn.ModuleDict().update(3),
                lambda lib: lib.nn.ModuleDict().update([3]),
                lambda lib: lib.nn.ModuleDict().update([("a", lib.nn.ReLU(), 1)]),
                lambda lib: lib.nn.ModuleDict()["missing"],
                lambda lib: lib.nn.ModuleDict({"a.b": lib.nn.ReLU()})):
        same_error(bad)


def test_parameter_list():
    def scenario(lib):
        nn = lib.nn
        pl = nn.ParameterList([lib.ones(2), nn.Parameter(lib.zeros(3))])
        pl.append(lib.ones(1, 2, dtype=lib.float64))
        pl.extend([5])
        pl[0] = lib.full((2,), 3.0)
        out = [str(pl), len(pl), [type(p).__name__ for p in pl], type(pl[1:]).__name__,
               str(pl[::2]), list(pl.state_dict()), [n for n, _ in pl.named_parameters()],
               [p.requires_grad for p in pl.parameters()], pl[0].tolist()]
        pl += [lib.ones(1)]
        out.append(len(pl))
        return out
    same_result(scenario)
    for bad in (lambda lib: lib.nn.ParameterList()(1),
                lambda lib: lib.nn.ParameterList().extend(lib.ones(2)),
                lambda lib: lib.nn.ParameterList()[0]):
        same_error(bad)


def test_parameter_dict():
    def scenario(lib):
        nn = lib.nn
        pd = nn.ParameterDict({"b": lib.ones(2), "a": nn.Parameter(lib.zeros(1))})
        out = [str(pd), list(pd), list(pd.keys()), "a" in pd, len(pd)]
        pd["c"] = 3
        pd.update(OrderedDict([("e", lib.ones(1)), ("d", lib.ones(2))]))
        pd.update([("f", lib.ones(1))])
        out.append(str(pd))
        out.append((pd.get("zz", "default"), pd.setdefault("g", lib.ones(3)).tolist()))
        out.append(type(pd.pop("b")).__name__)
        out.append(pd.popitem()[0])
        del pd["c"]
        out.append((list(pd), list(reversed(pd)), list(pd.state_dict()),
                    [type(v).__name__ for v in pd.values()]))
        out.append(str(pd.copy()))
        out.append(str(pd | nn.ParameterDict({"z": lib.ones(1)})))
        out.append(list(pd.fromkeys(["x", "y"], lib.ones(1)).keys()))
        pd |= nn.ParameterDict({"w": lib.ones(1)})
        pd.clear()
        out.append(str(pd))
        return out
    same_result(scenario)
    for bad in (lambda lib: lib.nn.ParameterDict()(1),
                lambda lib: lib.nn.ParameterDict()[3],
                lambda lib: lib.nn.ParameterDict().update(3),
                lambda lib: lib.nn.ParameterDict().update([(1, 2, 3)])):
        same_error(bad)


def test_deprecated_container():
    """nn.Container: keyword arguments become submodules; torch's FutureWarning where Container
    is made and where a subclass is defined (not when the subclass is made)."""
    def scenario(lib):
        c = lib.nn.Container(a=lib.nn.Linear(2, 3), b=lib.nn.ReLU())

        class Sub(lib.nn.Container):
            def __init__(self):
                super().__init__(l=lib.nn.Identity())
        return _names(c), _names(Sub())
    same_outcome(scenario)
