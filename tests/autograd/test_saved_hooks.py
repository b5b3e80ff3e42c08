"""torch.autograd.graph.saved_tensors_hooks and friends, run on both libraries and compared."""
import numpy as np
import pytest
import torch

import dyngrad
from compare import torch_part

LIBS = [torch, dyngrad]


def logging_hooks(lib, log):
    """A pack/unpack pair that records what it sees (the documentation's printing example)."""
    def pack(t):
        log.append(("pack", tuple(t.shape), t.requires_grad, type(t.grad_fn).__name__,
                    lib.is_grad_enabled()))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t
    return pack, unpack


def on_both(fn):
    """Run ``fn(lib)`` on torch and dyngrad; return both results."""
    return fn(torch), fn(dyngrad)


def as_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach()._data


@pytest.mark.parametrize("program", [
    lambda x, y: (x * y).sum(),
    lambda x, y: x.pow(2).sum(),
    lambda x, y: x.exp().sum(),
    lambda x, y: (x.exp() * y).sqrt().sum(),
    lambda x, y: (x * 2 * y).sum(),
])
def test_pack_unpack_calls_match_torch(program):
    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            z = program(x, y)
        n_packed = len(log)
        z.backward()
        # torch's save order inside a node follows its derivatives.yaml, so compare multisets
        return (sorted(log[:n_packed]), sorted(log[n_packed:]),
                as_np(x.grad), None if y.grad is None else as_np(y.grad))
    want, got = on_both(run)
    assert got[0] == want[0]
    assert got[1] == want[1]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)
    assert (got[3] is None) == (want[3] is None)
    if want[3] is not None:
        np.testing.assert_allclose(got[3], want[3], rtol=1e-6)


def test_documentation_example_prints_like_torch():
    def snippet(lib):
        def pack_hook(x):
            print("Packing", x)
            return x

        def unpack_hook(x):
            print("Unpacking", x)
            return x
        a = lib.ones(5, requires_grad=True)
        b = lib.ones(5, requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = a * b
        y.sum().backward()
        print(a.grad)
    # pack order within MulBackward0 differs (torch saves `other` first): compare the lines
    want = sorted(_printed(snippet, torch))
    got = sorted(_printed(snippet, dyngrad))
    assert got == want


def _printed(fn, lib):
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(lib)
    return buf.getvalue().splitlines()


def test_pack_copy_and_graph_position():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = x * 3
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            a = w.exp()
            b = x.pow(2)
            c = w * w
        r = a.grad_fn._saved_result
        s = b.grad_fn._saved_self
        u = c.grad_fn._saved_self
        facts = (r is a, r.grad_fn is a.grad_fn, s is x, s.is_leaf, s.requires_grad,
                 s.grad_fn is None, u is w, u.grad_fn is w.grad_fn)
        values = as_np(r).copy()
        (a.sum() + b.sum() + c.sum()).backward()
        return facts, values, as_np(x.grad)
    want, got = on_both(run)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def test_nesting_innermost_applies():
    def run(lib):
        log = []

        def hooks(tag):
            return (lambda t: (log.append(("pack", tag)), t)[1],
                    lambda t: (log.append(("unpack", tag)), t)[1])
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*hooks("outer")):
            a = x.exp()
            with lib.autograd.graph.saved_tensors_hooks(*hooks("inner")):
                b = x.pow(2)
            c = x.sqrt()
        d = x.pow(3)            # no hooks
        (a + b + c + d).sum().backward()
        return sorted(log), as_np(x.grad)
    want, got = on_both(run)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def test_pack_to_npy_file(tmp_path):
    def run(lib):
        counter = [0]
        lib_dir = tmp_path / lib.__name__
        lib_dir.mkdir()

        def pack(t):
            counter[0] += 1
            path = lib_dir / f"{counter[0]}.npy"
            np.save(path, as_np(t))
            return path

        def unpack(path):
            return lib.tensor(np.load(path))
        x = lib.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        y = lib.tensor([[2.0, 1.0], [-1.0, 0.25]], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            z = (x * y).exp().pow(2).sum()
        z.backward()
        return counter[0], as_np(x.grad), as_np(y.grad)
    want, got = on_both(run)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def test_higher_order_through_hooks():
    def run(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = (x * x * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return as_np(g), as_np(x.grad)
    want, got = on_both(run)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- compared against torch's below
        return type(e).__name__, torch_part(str(e))
    return None


@pytest.mark.parametrize("bad", [lambda t: 3, lambda t: None, lambda t: [t]])
def test_unpack_must_return_tensor(bad):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, bad):
            a = x.exp()
        return _error(lambda: a.grad_fn._saved_result), _error(lambda: a.sum().backward())
    want, got = on_both(run)
    assert want[0] is not None
    assert got == want


def test_hooks_skip_the_version_check():
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            v = w * 2
            u = v * v
        v.add_(1)
        u.sum().backward()
        return as_np(w.grad)
    want, got = on_both(run)
    np.testing.assert_allclose(got, want)


def test_without_hooks_version_error_still_fires():
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
        v = w * 2
        u = v * v
        v.add_(1)
        return _error(lambda: u.sum().backward())
    want, got = on_both(run)
    assert want is not None and got == want


def test_pack_hook_modifying_input_in_place():
    def run(lib):
        def bad(t):
            t.add_(0)
            return t
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = x * 2

        def go():
            with lib.autograd.graph.saved_tensors_hooks(bad, lambda t: t):
                w.exp()
        return _error(go)
    want, got = on_both(run)
    assert want is not None and got == want


def test_disable_saved_tensors_hooks():
    def run(lib):
        g = lib.autograd.graph
        out = []

        def enter(mgr):
            with mgr:
                pass
        with g.disable_saved_tensors_hooks("outer"):
            out.append(_error(lambda: enter(g.saved_tensors_hooks(lambda t: t, lambda t: t))))
            with g.disable_saved_tensors_hooks("inner"):
                out.append(_error(lambda: enter(g.save_on_cpu())))
            out.append(_error(lambda: enter(g.save_on_cpu())))
        out.append(_error(lambda: enter(g.save_on_cpu())))      # enabled again

        def disable_inside_hooks():
            with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                with g.disable_saved_tensors_hooks("not while hooks are active"):
                    pass
        out.append(_error(disable_inside_hooks))
        out.append(_error(lambda: enter(g.save_on_cpu())))
        return out
    want, got = on_both(run)
    assert want[0] is not None
    assert got == want


@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu(pin_memory):
    def run(lib):
        a = lib.tensor([1.0, 2.0, -1.0], requires_grad=True)
        b = lib.tensor([0.5, 3.0, 2.0], requires_grad=True)
        c = lib.tensor([2.0, -1.0, 1.0], requires_grad=True)
        prod_1 = a * b
        with lib.autograd.graph.save_on_cpu(pin_memory=pin_memory):
            prod_2 = (prod_1 * c).exp()
        y = prod_2 * a
        y.sum().backward()
        return [as_np(t.grad) for t in (a, b, c)]
    want, got = on_both(run)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_raw_saved_register_hooks():
    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = x.exp()
        raw = b.grad_fn._raw_saved_result
        raw.register_hooks(lambda t: (log.append("p"), t.detach())[1],
                           lambda t: (log.append("u"), t)[1])
        err = _error(lambda: raw.register_hooks(lambda t: t, lambda t: t))
        r = b.grad_fn._saved_result
        facts = (r.grad_fn is b.grad_fn, r is b, as_np(r).copy())
        b.sum().backward()
        return log, err, facts, as_np(x.grad)
    want, got = on_both(run)
    assert got[:2] == want[:2]
    assert got[2][:2] == want[2][:2]
    np.testing.assert_allclose(got[2][2], want[2][2], rtol=1e-6)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6)


def test_raw_saved_register_hooks_on_an_input():
    """An input saved at version 0 is kept without a box (Note [Saved inputs without a box]):
    its _raw_saved_self still takes hooks, which the backward then runs, as torch's does."""
    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        b = y * y.sin()
        raw = b.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: (log.append("p"), t.detach())[1],
                           lambda t: (log.append("u"), t * 1)[1])
        same = b.grad_fn._raw_saved_self is raw
        b.sum().backward()
        return log, same, as_np(x.grad)
    want, got = on_both(run)
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def test_raw_saved_after_backward():
    """Once a backward has freed them, _raw_saved_* still gives a SavedTensor; registering
    hooks on it raises torch's message, _saved_* the second-backward one."""
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b, c = x.exp(), x * x
        (b.sum() + c.sum()).backward()
        raws = b.grad_fn._raw_saved_result, c.grad_fn._raw_saved_self
        return ([type(r).__name__ for r in raws],
                [_error(lambda r=r: r.register_hooks(lambda t: t, lambda t: t)) for r in raws],
                _error(lambda: b.grad_fn._saved_result))
    want, got = on_both(run)
    assert got == want


@pytest.mark.parametrize("freed", [False, True])
@pytest.mark.parametrize("args, kwargs", [((len,), {}), ((1, 2), {}), ((len, len, 3), {}),
                                          ((), {"pack_hook": len, "unpack_hook": len}),
                                          ((len,), {"unpack_hook": len})])
def test_register_hooks_arguments(args, kwargs, freed):
    """register_hooks takes two positional callables: anything else is torch's binding error
    (the saved tensor's own repr aside), checked before whether it was freed."""
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = x.exp()
        if freed:
            b.sum().backward()
        raw = b.grad_fn._raw_saved_result
        kind, message = _error(lambda: raw.register_hooks(*args, **kwargs))
        return kind, message.replace(repr(raw), "<raw>")
    want, got = on_both(run)
    assert got == want


@pytest.mark.parametrize("written_before", [False, True])
def test_saved_input_versions(written_before):
    """A saved input written in place after it was saved fails the backward with torch's
    message, whether it was kept as it is (version 0) or in a box (written before)."""
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        if written_before:
            y.add_(1)
        b = y * x
        y.mul_(2)
        return _error(lambda: b.sum().backward())
    want, got = on_both(run)
    assert got[0] == want[0] == "RuntimeError"
    assert torch_part(got[1]) == want[1]


def test_hooks_are_thread_local():
    import threading

    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)

        def other():
            x.exp()                      # saved without the main thread's hooks
        with lib.autograd.graph.saved_tensors_hooks(lambda t: (log.append("p"), t)[1],
                                                    lambda t: t):
            th = threading.Thread(target=other)
            th.start()
            th.join()
        return log
    want, got = on_both(run)
    assert got == want
