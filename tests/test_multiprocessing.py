"""dyngrad.multiprocessing against torch.multiprocessing: the names, the sharing strategies, the
pickling of tensors for other processes (ForkingPickler), and across real processes — fork,
spawn and forkserver children seeing the parent's shared memory, tensors sent through a Queue
in both directions, Hogwild training, and spawn's error propagation.

Child processes are joined with timeouts (a hang fails, and the fixture kills what is left);
the functions spawned children run live in tests/mp_workers.py, which imports dyngrad only."""
import multiprocessing
import re
import signal
import warnings
from multiprocessing.reduction import ForkingPickler

import pytest
import torch
import torch.multiprocessing

import dyngrad
import dyngrad.multiprocessing as dmp
import mp_workers

TIMEOUT = 30


@pytest.fixture
def procs():
    """Processes a test starts: joined at the end, killed if still alive."""
    started = []
    yield started
    for p in started:
        p.join(TIMEOUT)
        if p.is_alive():
            p.kill()
            p.join()


def _start(procs, ctx, target, *args):
    p = ctx.Process(target=target, args=args)
    p.start()
    procs.append(p)
    return p


def _join(p):
    p.join(TIMEOUT)
    assert p.exitcode == 0


# -- the module --------------------------------------------------------------------------------
def test_public_names_match_torch():
    assert sorted(dmp.__all__) == sorted(torch.multiprocessing.__all__)
    for name in multiprocessing.__all__:
        assert getattr(dmp, name) is getattr(multiprocessing, name)
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                 "ProcessExitedException", "SpawnContext", "init_reductions",
                 "ENV_VAR_PARALLEL_START"):
        assert hasattr(dmp, name) and hasattr(torch.multiprocessing, name)
    assert dmp.ENV_VAR_PARALLEL_START == torch.multiprocessing.ENV_VAR_PARALLEL_START
    assert [c.__name__ for c in dmp.ProcessRaisedException.__mro__] == \
        [c.__name__ for c in torch.multiprocessing.ProcessRaisedException.__mro__]
    assert dyngrad.multiprocessing is dmp


def test_sharing_strategies():
    tm, dm = torch.multiprocessing, dmp
    assert dm.get_sharing_strategy() == tm.get_sharing_strategy() == "file_descriptor"
    assert dm.get_all_sharing_strategies() <= tm.get_all_sharing_strategies()
    assert "file_descriptor" in dm.get_all_sharing_strategies()
    dm.set_sharing_strategy("file_descriptor")
    tm.set_sharing_strategy("file_descriptor")
    errors = []
    for lib in (tm, dm):
        with pytest.raises(AssertionError) as info:
            lib.set_sharing_strategy("shared_pixie_dust")
        errors.append(str(info.value))
    assert errors[1] == ("invalid sharing strategy 'shared_pixie_dust', expected one of "
                         f"{dm.get_all_sharing_strategies()}")
    assert errors[0].split(", expected")[0] == errors[1].split(", expected")[0]
    assert dm.get_sharing_strategy() == "file_descriptor"


# -- pickling for another process, within one --------------------------------------------------
def _round_trip(x):
    return ForkingPickler.loads(ForkingPickler.dumps(x))


def test_pickled_tensor_moves_to_shared_memory_and_comes_back_viewing_it():
    def run(L):
        t = L.arange(6.)
        v = t[2:]
        nc = L.arange(12.).reshape(3, 4).t()
        v2, nc2 = _round_trip(v), _round_trip(nc)
        return [t.is_shared(), v.is_shared(), type(v2).__name__, v2.tolist(),
                v2.data_ptr() == v.data_ptr(), v2.storage_offset(), v2.stride(), v2.is_shared(),
                v2._version, nc2.stride(), nc2.tolist(), nc2.data_ptr() == nc.data_ptr()]
    t, d = run(torch), run(dyngrad)
    assert t == d


def test_pickled_parameters_leaves_empties_and_dtypes():
    def run(L):
        p = L.nn.Parameter(L.ones(2))
        p2 = _round_trip(p)
        pi = _round_trip(L.nn.Parameter(L.ones(2, dtype=L.long), requires_grad=False))
        leaf = _round_trip(L.ones(2, requires_grad=True))
        e = L.empty(0, 3, dtype=L.int32)
        e2 = _round_trip(e)
        others = [_round_trip(x).tolist() for x in
                  (L.tensor(3.5), L.tensor([True, False]), L.tensor([1j, 2.], dtype=L.complex64))]
        return [type(p2).__name__, p2.requires_grad, p2.is_leaf, p2.is_shared(),
                p2.data_ptr() == p.data_ptr(), type(pi).__name__, pi.requires_grad,
                pi.dtype.itemsize,
                leaf.requires_grad, leaf.is_leaf, e.is_shared(), e2.is_shared(), e2.shape,
                e2.stride()] + others
    assert run(torch) == run(dyngrad)


def test_pickled_storage():
    def run(L):
        s = L.arange(3.).untyped_storage()
        s2 = _round_trip(s)
        return [s.is_shared(), s2.is_shared(), s2.data_ptr() == s.data_ptr(), s2.nbytes()]
    assert run(torch) == run(dyngrad)


def test_a_non_leaf_requiring_grad_is_refused():
    msgs = []
    for L in (torch, dyngrad):
        with pytest.raises(RuntimeError) as info:
            ForkingPickler.dumps(L.ones(2, requires_grad=True) * 2)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1] and msgs[0].startswith("Cowardly refusing to serialize non-leaf")


def test_backward_hooks_stay_behind_with_torch_s_warning():
    def run(L):
        x = L.arange(3.).requires_grad_()

        def hook(g):
            return g
        x.register_hook(hook)
        y = L.zeros(2).requires_grad_()
        y.register_hook(L.utils.hooks.unserializable_hook(lambda g: g))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ForkingPickler.dumps(x)
            ForkingPickler.dumps(y)
        return [(m.category.__name__, re.sub(r" at 0x[0-9a-f]+", "", str(m.message))) for m in w]
    t, d = run(torch), run(dyngrad)
    assert t == d and len(t) == 1


def test_a_tensor_that_cannot_move_is_not_sent():
    x = dyngrad.zeros(3)
    alias = x.detach()
    with pytest.raises(RuntimeError, match="share_memory_"):
        ForkingPickler.dumps(x)
    assert alias.tolist() == [0., 0., 0.]


# -- real processes ----------------------------------------------------------------------------
def _set_first(t, u):
    t[0] = 1.
    u[0] = 1.


def test_fork_children_write_into_shared_memory_only(procs):
    ctx = multiprocessing.get_context("fork")
    shared, private = dyngrad.zeros(3).share_memory_(), dyngrad.zeros(3)
    _join(_start(procs, ctx, _set_first, shared, private))
    assert shared.tolist() == [1., 0., 0.] and private.tolist() == [0., 0., 0.]


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_tensor_sent_through_a_queue_is_written_in_place_by_the_child(procs, method):
    ctx = dmp.get_context(method)
    inbox, outbox = ctx.Queue(), ctx.Queue()
    p = _start(procs, ctx, mp_workers.write_received, inbox, outbox)
    t = dyngrad.zeros(4)   # not shared yet: sending it moves it
    inbox.put(t)
    assert outbox.get(timeout=TIMEOUT) == ("Tensor", True, False, [1., 8., 1., 1.])
    _join(p)
    assert t.is_shared() and t.tolist() == [1., 8., 1., 1.]


def test_a_parameter_sent_through_a_queue_keeps_requires_grad(procs):
    ctx = dmp.get_context("fork")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    p = _start(procs, ctx, mp_workers.write_received, inbox, outbox)
    param = dyngrad.nn.Parameter(dyngrad.zeros(4))
    inbox.put(param)
    assert outbox.get(timeout=TIMEOUT) == ("Parameter", True, True, [1., 8., 1., 1.])
    _join(p)
    assert param.is_shared() and param.tolist() == [1., 8., 1., 1.]


def test_a_tensor_the_child_sends_is_shared_both_ways(procs):
    ctx = dmp.get_context("fork")
    outbox, result, written = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = _start(procs, ctx, mp_workers.send_back, outbox, written, result)
    r = outbox.get(timeout=TIMEOUT)
    assert r.is_shared() and r.tolist() == [0., 1., 2.]
    r[0] = 9.
    written.set()
    assert result.get(timeout=TIMEOUT) == [9., 1., 2.]
    _join(p)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_training_updates_the_shared_parameters(procs, method):
    ctx = dmp.get_context(method)
    model = dyngrad.nn.Linear(3, 1)
    with dyngrad.no_grad():   # exact in float32, so the result is known exactly
        model.weight.fill_(1.)
        model.bias.fill_(.5)
    model.share_memory()
    lock, results = ctx.Lock(), ctx.Queue()
    steps = 3
    workers = [_start(procs, ctx, mp_workers.hogwild, rank, model, lock, steps, results)
               for rank in range(2)]
    reports = sorted(results.get(timeout=TIMEOUT) for _ in workers)
    for p in workers:
        _join(p)
    assert reports == [(0, [True, True]), (1, [True, True])]
    # each step of process r: weight -= lr * (2 rows of r + 1), bias -= lr * 2 rows
    lr = .25
    weight = 1. - steps * lr * sum(2. * (rank + 1) for rank in range(2))
    bias = .5 - steps * lr * 2. * 2
    assert model.weight.tolist() == [[weight] * 3] and model.bias.tolist() == [bias]


# -- spawn / start_processes -------------------------------------------------------------------
def test_spawn_runs_fn_with_the_index_and_shared_args():
    t = dyngrad.zeros(3)
    assert dmp.spawn(mp_workers.fill, args=(t,), nprocs=2) is None
    assert t.is_shared() and t.tolist() == [1., 2., 0.]


def _frames(message):
    return re.findall(r", in (\w+)\n", message)


def test_an_exception_in_a_process_is_raised_with_its_traceback():
    errors = []
    for lib in (torch.multiprocessing, dmp):
        with pytest.raises(lib.ProcessRaisedException) as info:
            lib.start_processes(mp_workers.fill, args=([0, 0], 1), nprocs=2, start_method="fork")
        errors.append(info.value)
    t, d = errors
    assert d.error_index == t.error_index == 1 and isinstance(d.error_pid, int)
    assert d.msg == str(d)
    head = ("\n\n-- Process 1 terminated with the following error:\n"
            "Traceback (most recent call last):\n")
    assert t.msg.startswith(head) and d.msg.startswith(head)
    assert t.msg.splitlines()[-1] == d.msg.splitlines()[-1] == "ValueError: boom 1"
    assert _frames(t.msg) == _frames(d.msg) == ["_wrap", "fill"]


@pytest.mark.parametrize("code, expected", [(3, "process 0 terminated with exit code 3"),
                                            (-signal.SIGKILL,
                                             "process 0 terminated with signal SIGKILL")])
def test_a_process_that_exits_badly(code, expected):
    facts = []
    for lib in (torch.multiprocessing, dmp):
        with pytest.raises(lib.ProcessExitedException) as info:
            lib.start_processes(mp_workers.exit_with, args=(code,), nprocs=1,
                                start_method="fork")
        e = info.value
        facts.append([str(e), e.error_index, e.exit_code, e.signal_name])
    assert facts[0] == facts[1] and facts[0][0] == expected


def test_start_processes_without_join_returns_the_context():
    def run(lib):
        ctx = multiprocessing.get_context("fork")
        go = ctx.Event()
        context = lib.start_processes(lambda i: go.wait(TIMEOUT), nprocs=2, join=False,
                                      start_method="fork")
        facts = [type(context).__name__, len(context.pids()), context.join(timeout=0.05)]
        go.set()
        while not context.join(timeout=TIMEOUT):
            pass
        return facts + [context.join(), [p.exitcode for p in context.processes]]
    assert run(torch.multiprocessing) == run(dmp) == ["ProcessContext", 2, False, True, [0, 0]]


def test_spawn_warns_about_another_start_method():
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.spawn(mp_workers.fill, nprocs=0, start_method="fork")
        return [(m.category.__name__, str(m.message)) for m in w]
    t, d = run(torch.multiprocessing), run(dmp)
    assert t == d and len(t) == 1
