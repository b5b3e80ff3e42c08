"""DistributedDataParallel and DistributedSampler on N ranks, against one-process training."""
from __future__ import annotations

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
from dyngrad import nn
from dyngrad.nn.parallel import DistributedDataParallel as DDP
from dyngrad.utils.data import DistributedSampler
from common import Checks, init

R, N = init()
ck = Checks()
B, D, STEPS = 3, 5, 5                       # per-rank batch, features, optimizer steps


def make_model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(D, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(),
                         nn.Linear(8, 1))


def batches(step):
    rng = np.random.default_rng(step)
    x = rng.standard_normal((N * B, D)).astype(np.float32)
    y = rng.standard_normal((N * B, 1)).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


def params_of(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


# -- N steps of DDP on 4 ranks == one process on the concatenated batch ---------------------
model = DDP(make_model(seed=100 + R), bucket_cap_mb=1e-4)     # different inits: rank 0's wins
reference = make_model(seed=100)
ck.true(len(model.reducer.buckets) > 1, "small buckets: several all-reduces per backward")
for a, b in zip(params_of(model.module), params_of(reference)):
    ck.close(a, b, "rank 0's initial parameters were broadcast")
ck.true(list(model.state_dict()) == ["module." + k for k in reference.state_dict()],
        "state_dict keys are module.<name>")
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss()
for step in range(STEPS):
    x, y = batches(step)
    opt.zero_grad()
    loss_fn(model(x[R * B:(R + 1) * B]), y[R * B:(R + 1) * B]).backward()
    opt.step()
    ref_opt.zero_grad()
    loss_fn(reference(x), y).backward()
    ref_opt.step()
    for a, b in zip(model.module.parameters(), reference.parameters()):
        ck.close(a.grad, b.grad.numpy(), f"step {step}: averaged gradient", rtol=1e-5,
                 atol=1e-7)
for a, b in zip(params_of(model.module), params_of(reference)):
    ck.close(a, b, f"parameters after {STEPS} steps", rtol=1e-5, atol=1e-7)

# -- no_sync: local accumulation, then one synced backward averages the sum ------------------
model = DDP(make_model(seed=7))
reference = make_model(seed=7)
model.zero_grad()
reference.zero_grad()
local = make_model(seed=7)
for k in range(3):
    x, y = batches(50 + k)
    mine = slice(R * B, (R + 1) * B)
    if k < 2:
        with model.no_sync():
            loss_fn(model(x[mine]), y[mine]).backward()
        loss_fn(local(x[mine]), y[mine]).backward()
        for a, b in zip(model.module.parameters(), local.parameters()):
            ck.close(a.grad, b.grad.numpy(), "inside no_sync gradients stay local", rtol=1e-6)
    else:
        loss_fn(model(x[mine]), y[mine]).backward()
    loss_fn(reference(x), y).backward()
for a, b in zip(model.module.parameters(), reference.parameters()):
    ck.close(a.grad, b.grad.numpy(), "no_sync accumulation then sync", rtol=1e-5, atol=1e-7)


# -- find_unused_parameters ---------------------------------------------------------------
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.trunk = nn.Linear(D, 2)
        self.branch = nn.Linear(2, 2)          # used on rank 1 only
        self.never = nn.Linear(2, 2)           # used nowhere

    def forward(self, x, use_branch):
        h = self.trunk(x)
        return self.branch(h) if use_branch else h


x, _ = batches(99)
model = DDP(Branchy(), find_unused_parameters=True)
model(x[:B], use_branch=(R == 1)).sum().backward()
solo = Branchy()
solo(x[:B], use_branch=True).sum().backward()
ck.close(model.module.branch.weight.grad, solo.branch.weight.grad.numpy() / N,
         "a parameter used on one rank gets its gradient averaged over all", rtol=1e-5)
ck.true(model.module.never.weight.grad is None, "a parameter no rank used keeps grad None")
model(x[:B], use_branch=False).sum().backward()      # the next iteration works too
ck.true(model.module.trunk.weight.grad is not None, "second iteration")

model = DDP(Branchy())                                  # without detection: torch's error
model(x[:B], use_branch=False).sum().backward()
ck.raises(RuntimeError, "Expected to have finished reduction in the prior iteration",
          lambda: model(x[:B], use_branch=False), "unused parameters without detection")


# -- buffers: rank 0's are broadcast at every forward (unless broadcast_buffers=False) -------
class WithBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, 1)
        self.register_buffer("tag", torch.zeros(2))

    def forward(self, x):
        return self.lin(x) + self.tag.sum()


for flag in (True, False):
    model = DDP(WithBuffer(), broadcast_buffers=flag)
    model.module.tag.fill_(float(R + 1))
    model(x[:B]).sum().backward()
    want = 1.0 if flag else float(R + 1)
    ck.close(model.module.tag, np.full(2, want, np.float32), f"broadcast_buffers={flag}")

# -- communication hooks: torch's default hooks, a custom one, several buckets ----------------
from dyngrad.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: E402


def hooked_grads(hook, state=None, cap=None):
    kw = {} if cap is None else {"bucket_cap_mb": cap}
    model = DDP(make_model(seed=11), **kw)
    if hook is not None:
        model.register_comm_hook(state, hook)
    x, y = batches(77)
    mine = slice(R * B, (R + 1) * B)
    loss_fn(model(x[mine]), y[mine]).backward()
    return [p.grad.numpy().copy() for p in model.module.parameters()]


def summing_hook(state, bucket):
    """All-reduce without averaging: the gradients come out N times the average."""
    state.append(bucket.index())
    fut = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
    return fut.then(lambda f: f.value()[0])


plain = hooked_grads(None)
for cap in (None, 1e-4):
    for g, want in zip(hooked_grads(default_hooks.allreduce_hook, cap=cap), plain):
        ck.close(g, want, f"allreduce_hook == DDP's own reduction (cap {cap})", rtol=1e-6)
    for g, want in zip(hooked_grads(default_hooks.fp16_compress_hook, cap=cap), plain):
        ck.close(g, want, "fp16_compress_hook: float16 rounding", rtol=2e-3, atol=2e-3)
    seen = []
    for g, want in zip(hooked_grads(summing_hook, seen, cap), plain):
        ck.close(g, N * want, "a summing hook's gradients are N times the average", rtol=1e-5)
    ck.true(seen == list(range(len(seen))) and (cap is None) == (len(seen) == 1),
            "the hook ran once per bucket, in bucket order")

# -- DistributedSampler: disjoint shares covering the dataset, padded as torch ---------------
for n_items, drop_last, shuffle in ((10, False, True), (10, True, False), (3, False, False)):
    sampler = DistributedSampler(range(n_items), shuffle=shuffle, drop_last=drop_last, seed=5)
    sampler.set_epoch(1)
    mine = list(sampler)
    ck.true(len(mine) == len(sampler), "len(sampler)")
    shares = [None] * N
    dist.all_gather_object(shares, mine)
    together = [i for share in shares for i in share]
    if drop_last:
        ck.true(len(set(together)) == len(together), "drop_last: disjoint shares")
    else:
        ck.true(set(together) == set(range(n_items)), "the shares cover the dataset")
        ck.true(len(together) == N * -(-n_items // N), "padded to equal shares")
ck.done("ddp")
