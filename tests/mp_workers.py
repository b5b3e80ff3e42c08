"""What tests/test_multiprocessing.py runs in child processes. A module of its own that imports
dyngrad only: a spawned child imports the module of its target, and torch would cost it a
second."""
import os

import dyngrad


def write_received(inbox, outbox):
    """Take a tensor from `inbox` and write into it in place; tell what arrived."""
    t = inbox.get(timeout=30)
    with dyngrad.no_grad():   # (a Parameter too)
        t[1] = 7.
        t.add_(1.)
    outbox.put((type(t).__name__, t.is_shared(), t.requires_grad, t.tolist()))


def send_back(outbox, written, result):
    """Send a new tensor to the parent, wait for it to write into it, report what is seen here."""
    r = dyngrad.arange(3.)
    outbox.put(r)
    if written.wait(30):   # (the parent fetches the file descriptor from this process)
        result.put(r.tolist())


def hogwild(rank, model, lock, steps, results):
    """A few SGD steps on the shared parameters. The loss is linear in them, so each step
    subtracts lr * its gradient, the same whatever the parameters: the sum over processes is
    known. The lock only keeps two read-modify-writes from overlapping (Hogwild takes that
    risk; a test should not)."""
    x = dyngrad.full((2, 3), float(rank + 1))
    opt = dyngrad.optim.SGD(model.parameters(), lr=0.25)
    for _ in range(steps):
        opt.zero_grad()
        model(x).sum().backward()
        with lock:
            opt.step()
    results.put((rank, [p.is_shared() for p in model.parameters()]))


def fill(i, t, fail_index=-1):
    """spawn's fn: write i + 1 into t[i]; raise in process `fail_index`."""
    if i == fail_index:
        raise ValueError(f"boom {i}")
    t[i] = i + 1


def exit_with(i, code):
    """spawn's fn: end the process with an exit status, or (code < 0) a signal."""
    if code < 0:
        os.kill(os.getpid(), -code)
    os._exit(code)
