"""DistributedDataParallel and DistributedSampler in one process, against torch's (gloo, world
size 1). The multi-process behaviour is in test_mpi.py (workers/ddp.py)."""
from __future__ import annotations

import tempfile

import numpy as np
import pytest
import torch
import torch.distributed as tdist

import dyngrad
import dyngrad.distributed as ddist

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture
def both():
    ddist.init_process_group("loopback")
    tdist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0,
                             world_size=1)
    yield
    ddist.destroy_process_group()
    tdist.destroy_process_group()


def _branchy(lib):
    class Branchy(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(3, 2)
            self.b = lib.nn.Linear(2, 2)

        def forward(self, x):
            return self.a(x)
    return Branchy()


def _copy_weights(src, dst):
    for (name, p), (name2, q) in zip(src.named_parameters(), dst.named_parameters()):
        assert name == name2
        with torch.no_grad():
            q.copy_(torch.from_numpy(p.detach().numpy().copy()))


def test_training_steps_like_torch(both):
    dmodel = dyngrad.nn.Sequential(dyngrad.nn.Linear(4, 6), dyngrad.nn.Tanh(),
                                   dyngrad.nn.Linear(6, 1))
    tmodel = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1))
    _copy_weights(dmodel, tmodel)
    dddp = dyngrad.nn.parallel.DistributedDataParallel(dmodel, bucket_cap_mb=1e-5)
    tddp = torch.nn.parallel.DistributedDataParallel(tmodel, bucket_cap_mb=1e-5)
    assert list(dddp.state_dict()) == list(tddp.state_dict())
    assert dddp.module is dmodel
    dopt = dyngrad.optim.SGD(dddp.parameters(), lr=0.1)
    topt = torch.optim.SGD(tddp.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    for step in range(4):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        for lib, model, opt in ((dyngrad, dddp, dopt), (torch, tddp, topt)):
            opt.zero_grad()
            ctx = model.no_sync() if step == 1 else None
            if ctx is not None:
                with ctx:
                    model(lib.from_numpy(x)).square().mean().backward()
            else:
                model(lib.from_numpy(x)).square().mean().backward()
            opt.step()
    for p, q in zip(dmodel.parameters(), tmodel.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5,
                                   atol=1e-7)


def _error(fn):
    try:
        fn()
    except Exception as e:     # noqa: BLE001
        return type(e), str(e)
    return None


def test_errors_like_torch(both):
    assert _error(lambda: dyngrad.nn.parallel.DistributedDataParallel(dyngrad.nn.ReLU())) == \
        _error(lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.ReLU()))

    def unused(lib):
        model = lib.nn.parallel.DistributedDataParallel(_branchy(lib))
        model(lib.ones(1, 3)).sum().backward()
        return _error(lambda: model(lib.ones(1, 3)))
    ours, theirs = unused(dyngrad), unused(torch)
    assert ours == theirs and ours[0] is RuntimeError


def test_find_unused_parameters_like_torch(both):
    def run(lib):
        model = lib.nn.parallel.DistributedDataParallel(_branchy(lib),
                                                        find_unused_parameters=True)
        for _ in range(2):
            model(lib.ones(1, 3)).sum().backward()
        return (model.module.b.weight.grad is None, model.module.a.weight.grad is None,
                model.module.a.bias.grad.tolist())
    assert run(dyngrad) == run(torch)


def test_ddp_before_init_is_torchs_error():
    def make(lib):
        return lambda: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2))
    assert _error(make(dyngrad)) == _error(make(torch))


@pytest.mark.parametrize("n", [0, 1, 5, 7, 8])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_like_torch(n, replicas, drop_last):
    from torch.utils.data import DistributedSampler as TS

    from dyngrad.utils.data import DistributedSampler as DS
    for rank in range(replicas):
        ours = DS(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        theirs = TS(range(n), num_replicas=replicas, rank=rank, shuffle=False,
                    drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
        shuffled = DS(range(n), num_replicas=replicas, rank=rank, seed=3, drop_last=drop_last)
        shuffled.set_epoch(2)
        first, again = list(shuffled), list(shuffled)
        assert first == again and len(first) == len(theirs)


def test_distributed_sampler_errors_like_torch():
    from torch.utils.data import DistributedSampler as TS

    from dyngrad.utils.data import DistributedSampler as DS
    assert _error(lambda: DS(range(4), num_replicas=2, rank=2)) == \
        _error(lambda: TS(range(4), num_replicas=2, rank=2))
    assert _error(lambda: DS(range(4))) == _error(lambda: TS(range(4)))


def test_shuffled_epochs_differ_and_shares_partition():
    from dyngrad.utils.data import DistributedSampler as DS
    orders = []
    for epoch in (0, 1):
        shares = []
        for rank in range(3):
            s = DS(range(12), num_replicas=3, rank=rank, seed=1)
            s.set_epoch(epoch)
            shares.append(list(s))
        assert sorted(i for share in shares for i in share) == list(range(12))
        orders.append(shares)
    assert orders[0] != orders[1]


# -- communication hooks -------------------------------------------------------------------------
def _hooked_run(lib, make_hook, bucket_cap_mb=None):
    """A small model's DDP step with a hook; what the hook saw and the gradients."""
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) / (7 + i) - 0.5)
    kw = {} if bucket_cap_mb is None else {"bucket_cap_mb": bucket_cap_mb}
    ddp = lib.nn.parallel.DistributedDataParallel(model, **kw)
    log = []
    hook = make_hook(lib, log)
    ddp.register_comm_hook("state" if hook.__name__ == "hook" else None, hook)
    x = lib.arange(15, dtype=lib.float32).reshape(5, 3) / 10
    ddp(x).sum().backward()
    return log, [p.grad.tolist() for p in model.parameters()]


def _recording_hook(lib, log):
    def hook(state, bucket):
        log.append((state, bucket.index(), bucket.is_last(), list(bucket.buffer().shape),
                    str(bucket.buffer().dtype), [list(p.shape) for p in bucket.parameters()],
                    [g.tolist() for g in bucket.gradients()]))
        fut = lib.futures.Future()
        fut.set_result(bucket.buffer() * 2)
        return fut
    return hook


def _default_hook(name):
    def make(lib, log):
        return getattr(lib.distributed.algorithms.ddp_comm_hooks.default_hooks, name)
    return make


@pytest.mark.parametrize("make_hook, cap", [
    (_recording_hook, None), (_default_hook("allreduce_hook"), None),
    (_default_hook("fp16_compress_hook"), None),
], ids=["recording", "allreduce", "fp16"])
def test_comm_hooks_like_torch(both, make_hook, cap):
    import torch.distributed.algorithms.ddp_comm_hooks.default_hooks  # noqa: F401
    ours = _rounded(_hooked_run(dyngrad, make_hook, cap))
    theirs = _rounded(_hooked_run(torch, make_hook, cap))
    assert ours == theirs   # (values to 6 digits: the two backwards differ in the last bit)


def _rounded(value):
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, (list, tuple)):
        return type(value)(_rounded(v) for v in value)
    return value


def _hook_errors(lib):
    out = []
    ddp = lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2))

    def tensor_hook(state, bucket):
        return bucket.buffer()

    def annotated_bucket(state, bucket: int):
        return None

    def annotated_return(state, bucket) -> int:
        return None

    def badly_named(state, b):
        return None
    for hook in (3, annotated_bucket, annotated_return, badly_named):
        try:
            ddp.register_comm_hook(None, hook)
            out.append("ok")
        except Exception as e:   # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    ddp.register_comm_hook(None, tensor_hook)
    try:
        ddp.register_comm_hook(None, tensor_hook)
    except RuntimeError as e:
        out.append(str(e))
    try:
        ddp(lib.ones(1, 2)).sum().backward()
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_comm_hook_errors_like_torch(both):
    assert _hook_errors(dyngrad) == _hook_errors(torch)


def test_grad_bucket_set_buffer_and_views(both):
    for lib in (dyngrad, torch):
        seen = []

        def hook(state, bucket):
            grads = bucket.gradients()
            seen.append(all(g.data_ptr() >= bucket.buffer().data_ptr() for g in grads))
            bucket.set_buffer(lib.zeros_like(bucket.buffer()))
            fut = lib.futures.Future()
            fut.set_result(bucket.buffer())
            return fut
        model = lib.nn.Linear(2, 3)
        ddp = lib.nn.parallel.DistributedDataParallel(model)
        ddp.register_comm_hook(None, hook)
        ddp(lib.ones(4, 2)).sum().backward()
        assert seen == [True]
        assert all(not p.grad.any() for p in model.parameters())


def test_comm_hook_sees_each_small_bucket(both):
    """With small buckets the hook runs once per bucket, last layers first, each bucket's
    parameters in the model's order. (torch's first iteration puts every parameter in one
    bucket whatever bucket_cap_mb says, and rebuilds its buckets from the order gradients
    arrived in; dyngrad's buckets are fixed from the start: see the closing note.)"""
    log, grads = _hooked_run(dyngrad, _recording_hook, 1e-5)
    assert [entry[1:3] for entry in log] == [(0, False), (1, False), (2, False), (3, True)]
    assert [entry[5] for entry in log] == [[[2]], [[2, 4]], [[4]], [[4, 3]]]
    _, plain = _hooked_run(dyngrad, _recording_hook, None)
    assert grads == plain      # each bucket's buffer doubled, as the single bucket's
