"""dyngrad.distributed in one process (backend "loopback"), side by side with torch's gloo
backend at world size 1: the same values, errors, grad_fn names and gradients."""
from __future__ import annotations

import tempfile

import numpy as np
import pytest
import torch
import torch.distributed as tdist
import torch.distributed.nn.functional as TF

import dyngrad
import dyngrad.distributed as ddist
import dyngrad.distributed.nn.functional as DF

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")


@pytest.fixture
def both():
    """Both libraries initialised with a world of one process; torch's own gloo group."""
    ddist.init_process_group("loopback")
    tdist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0,
                             world_size=1)
    yield
    ddist.destroy_process_group()
    tdist.destroy_process_group()


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:       # noqa: BLE001 - the comparison is the point
        return (type(e), str(e))


def same_outcome(fn):
    ours, theirs = outcome(lambda: fn(dyngrad, ddist)), outcome(lambda: fn(torch, tdist))
    assert ours == theirs
    return ours


@pytest.mark.parametrize("call", [
    lambda lib, d: d.get_rank(), lambda lib, d: d.get_world_size(),
    lambda lib, d: d.get_backend(), lambda lib, d: d.barrier(),
    lambda lib, d: d.all_reduce(lib.ones(2)), lambda lib, d: d.broadcast(lib.ones(2), 0),
    lambda lib, d: d.all_gather([lib.ones(2)], lib.ones(2)), lambda lib, d: d.new_group([0]),
    lambda lib, d: d.is_initialized(),
])
def test_use_before_init_is_torchs_error(call):
    kind, value = same_outcome(call)
    if kind != "ok":
        assert "Default process group has not been initialized" in value


def test_init_twice_and_destroy(both):
    same_outcome(lambda lib, d: d.init_process_group("gloo", world_size=1, rank=0))
    assert ddist.is_initialized()
    assert (ddist.get_rank(), ddist.get_world_size()) == (0, 1)
    assert ddist.get_backend() == "loopback" and isinstance(ddist.get_backend(), str)
    assert ddist.group.WORLD is not None


def test_backends_and_ops_as_torch():
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        ours, theirs = getattr(ddist.ReduceOp, name), getattr(tdist.ReduceOp, name)
        assert int(ours) == int(theirs) and repr(ours) == repr(theirs)
    assert ddist.Backend("MPI") == tdist.Backend("MPI") == "mpi"
    assert ddist.default_pg_timeout == tdist.default_pg_timeout
    assert ddist.is_available() and ddist.is_mpi_available()
    assert ddist.GroupMember.NON_GROUP_MEMBER == tdist.GroupMember.NON_GROUP_MEMBER


def test_torch_code_asking_for_gloo_gets_one_process():
    ddist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", world_size=1, rank=0)
    try:
        assert ddist.get_backend() == "loopback"
    finally:
        ddist.destroy_process_group()
    with pytest.raises(ValueError, match="single-process backend has world_size 1"):
        ddist.init_process_group("loopback", world_size=2, rank=0)
    assert not ddist.is_initialized()


def _run_all(lib, d):
    """Every collective at world size 1, results and versions."""
    t = lib.arange(6.0).reshape(2, 3)
    out = {}
    x = t.clone()
    out["all_reduce"] = (d.all_reduce(x), x.tolist(), x._version)
    x = t.clone().t()
    d.all_reduce(x, op=d.ReduceOp.MAX)
    out["all_reduce_T"] = (x.tolist(), x.is_contiguous())
    x = t.clone()
    d.broadcast(x, src=0)
    d.reduce(x, dst=0)
    out["broadcast_reduce"] = x.tolist()
    gl = [lib.zeros(2, 3)]
    d.all_gather(gl, t)
    out["all_gather"] = gl[0].tolist()
    o = lib.zeros(2, 3)
    d.all_gather_into_tensor(o, t)
    out["agit"] = o.tolist()
    gl = [lib.zeros(2, 3)]
    d.gather(t, gl, dst=0)
    out["gather"] = gl[0].tolist()
    o = lib.zeros(2, 3)
    d.scatter(o, [t], src=0)
    out["scatter"] = o.tolist()
    o = lib.zeros(2, 3)
    d.reduce_scatter(o, [t])
    out["reduce_scatter"] = o.tolist()
    o = lib.zeros(2, 3)
    d.reduce_scatter_tensor(o, t)
    out["rst"] = o.tolist()
    ol = [lib.zeros(2, 3)]
    d.all_to_all(ol, [t])
    out["all_to_all"] = ol[0].tolist()
    o = lib.zeros(2, 3)
    d.all_to_all_single(o, t, [2], [2])
    out["a2as"] = o.tolist()
    w = d.all_reduce(t.clone(), async_op=True)
    out["work"] = (w.wait(), w.is_completed(), len(w.result()))
    objs = [None]
    d.all_gather_object(objs, {"k": [1, 2]})
    lst = ["a", 3]
    d.broadcast_object_list(lst, src=0)
    out["objects"] = (objs, lst)
    out["group"] = d.get_rank(d.new_group([0]))
    return out


def test_every_collective_at_world_size_one(both):
    ours, theirs = _run_all(dyngrad, ddist), _run_all(torch, tdist)
    assert ours == theirs


@pytest.mark.parametrize("call, fragment", [
    (lambda lib, d: d.all_reduce(3), None),
    (lambda lib, d: d.all_gather([lib.ones(2)], [lib.ones(2)]), None),
    (lambda lib, d: d.all_gather([lib.ones(2)], lib.ones(2, dtype=lib.float64)), None),
    (lambda lib, d: d.gather(lib.ones(2), None, dst=0), None),
    (lambda lib, d: d.scatter(lib.ones(2), None, src=0), None),
    (lambda lib, d: d.send(lib.ones(2), dst=0), None),
    (lambda lib, d: d.all_to_all_single(lib.empty(4), lib.arange(4.0), [3], [4]), None),
    (lambda lib, d: d.all_gather([lib.ones(2)], lib.ones(3)),
     "allgather: invalid tensor size at index 0 (expected (3), got (2))"),
    (lambda lib, d: d.gather(lib.ones(2), [lib.empty(3)], dst=0),
     "gather: invalid tensor size at index 0 (expected (2), got (3))"),
    (lambda lib, d: d.scatter(lib.ones(2), [lib.ones(3)], src=0),
     "scatter: invalid tensor size at index 0 (expected (2), got (3))"),
])
def test_errors_as_torch(both, call, fragment):
    ours, theirs = outcome(lambda: call(dyngrad, ddist)), outcome(lambda: call(torch, tdist))
    if fragment is None:
        assert ours == theirs
    else:   # torch names its backend (ProcessGroupGloo::allgather); ours names the collective
        assert ours[0] is theirs[0] is RuntimeError
        assert fragment.split(": ", 1)[1] in ours[1] and fragment in theirs[1]


# -- differentiable collectives at world size one: same values, grads, grad_fn names ---------
CASES = {
    "all_reduce": lambda lib, F, x: [F.all_reduce(x * 1)],
    "all_reduce_avg": lambda lib, F, x: [F.all_reduce(x * 1, op=_op(lib, "AVG"))],
    "broadcast": lambda lib, F, x: [F.broadcast(x * 1, 0)],
    "reduce": lambda lib, F, x: [F.reduce(x * 1, 0)],
    "all_gather": lambda lib, F, x: list(F.all_gather(x * 1)),
    "gather": lambda lib, F, x: list(F.gather(x * 1)),
    "scatter": lambda lib, F, x: [F.scatter([x * 1])],
    "reduce_scatter": lambda lib, F, x: [F.reduce_scatter(lib.empty(2, 3, dtype=x.dtype),
                                                          [x * 1])],
    "all_to_all": lambda lib, F, x: list(F.all_to_all([lib.empty(2, 3, dtype=x.dtype)],
                                                      [x * 1])),
    "all_to_all_single": lambda lib, F, x: [F.all_to_all_single(
        lib.empty(2, 3, dtype=x.dtype), x * 1, [2], [2])],
}


def _op(lib, name):
    return getattr((ddist if lib is dyngrad else tdist).ReduceOp, name)


def _grads(lib, F, case):
    x = lib.from_numpy(np.linspace(-1, 1, 6).reshape(2, 3)).requires_grad_()
    outs = CASES[case](lib, F, x)
    names = [type(o.grad_fn).__name__ for o in outs]
    w = lib.from_numpy(np.arange(6.0).reshape(2, 3) - 2)
    loss = sum(((o * o).sin() * w).sum() for o in outs)
    g, = lib.autograd.grad(loss, x, create_graph=True)
    gg, = lib.autograd.grad((g * w).sum(), x)
    return [o.tolist() for o in outs], names, g.tolist(), gg.tolist()


@pytest.mark.parametrize("case", sorted(CASES))
def test_differentiable_collectives_like_torch(both, case):
    ours, theirs = _grads(dyngrad, DF, case), _grads(torch, TF, case)
    assert ours[1] == theirs[1]                     # grad_fn names
    for a, b in zip(ours[:1] + ours[2:], theirs[:1] + theirs[2:]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", sorted(CASES))
def test_differentiable_collectives_gradcheck(case):
    ddist.init_process_group("loopback")
    try:
        x = dyngrad.from_numpy(np.linspace(-1, 1, 6).reshape(2, 3)).requires_grad_()

        def fn(x):
            return tuple(CASES[case](dyngrad, DF, x))
        assert dyngrad.autograd.gradcheck(fn, (x,))
        assert dyngrad.autograd.gradgradcheck(fn, (x,))
    finally:
        ddist.destroy_process_group()


def test_plain_all_to_all_single_breaks_the_chain(both):
    def run(lib, d):
        x = lib.ones(4, requires_grad=True)
        out = lib.empty(4)
        d.all_to_all_single(out, x * 2)
        return out.requires_grad, out.grad_fn, outcome(lambda: out.sum().backward())
    assert run(dyngrad, ddist) == run(torch, tdist)


def test_launcher_command_and_environment():
    from dyngrad.distributed import run
    opts = run._parser().parse_args(["-n", "4", "--hostfile", "hosts", "--ppn", "2",
                                     "train.py", "--lr", "0.1"])
    cmd = run.launch_command(opts)
    assert cmd[1:3] == ["-n", "4"] and cmd[3:5] == ["-f", "hosts"] and cmd[5:7] == ["-ppn", "2"]
    assert cmd[-6:] == ["-m", "dyngrad.distributed.run", "--worker", "train.py", "--lr", "0.1"]
    assert cmd[cmd.index("-genv") + 1] == "MASTER_ADDR"
    env = run.worker_environment({"PMI_RANK": "3", "PMI_SIZE": "4", "MPI_LOCALRANKID": "1",
                                  "MPI_LOCALNRANKS": "2", "MASTER_ADDR": "node0"})
    assert (env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"], env["LOCAL_WORLD_SIZE"],
            env["MASTER_ADDR"]) == ("3", "4", "1", "2", "node0")


def _future_values(lib, d):
    """What the futures of asynchronous collectives hold, and callbacks chained on them."""
    t = lib.tensor([1.0, 2.0])
    out = {}
    fut = d.all_reduce(t, async_op=True).get_future()
    out["all_reduce"] = [v.tolist() for v in fut.wait()]
    out["then"] = fut.then(lambda f: f.value()[0].sum().item()).wait()
    out["broadcast"] = [v.tolist() for v in d.broadcast(t, 0, async_op=True).get_future().wait()]
    gathered = [lib.zeros(2)]
    out["all_gather"] = [v.tolist() for v in
                         d.all_gather(gathered, t, async_op=True).get_future().wait()]
    out["barrier"] = d.barrier(async_op=True).get_future().wait()
    both = lib.futures.collect_all([d.all_reduce(t.clone(), async_op=True).get_future(),
                                    d.broadcast(t.clone(), 0, async_op=True).get_future()])
    out["collect_all"] = [[v.tolist() for v in f.value()] for f in both.wait()]
    return out


def test_work_futures(both):
    same_outcome(_future_values)
