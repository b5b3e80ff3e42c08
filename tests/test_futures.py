"""torch.futures against torch 2.13: completion once, wait/value/done, exceptions, then()
chains (a failing callback included), add_done_callback, collect_all, wait_all, threads."""
import threading
import time
import warnings

import pytest
import torch

import dyngrad


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = ("ok", fn())
        except Exception as e:   # noqa: BLE001  (the exception is what is compared)
            # (a failing callback's message ends with a traceback of each library's frames)
            value = (type(e).__name__, str(e).split("\n")[0])
    return value + (tuple((w.category.__name__, str(w.message)) for w in caught),)


def _same(call):
    assert _outcome(lambda: call(dyngrad)) == _outcome(lambda: call(torch))


def _completed(lib, value):
    f = lib.futures.Future()
    f.set_result(value)
    return f


def _failed(lib, error):
    f = lib.futures.Future()
    f.set_exception(error)
    return f


CASES = {
    "new future": lambda t: t.futures.Future().done(),
    "value before done": lambda t: t.futures.Future().value(),
    "set_result": lambda t: (lambda f: (f.done(), f.value(), f.wait()))(_completed(t, 5)),
    "set_result twice": lambda t: _completed(t, 5).set_result(6),
    "set_exception after result": lambda t: _completed(t, 5).set_exception(ValueError("x")),
    "set_exception non-exception": lambda t: t.futures.Future().set_exception(3),
    "exception wait": lambda t: _failed(t, ValueError("boom")).wait(),
    "exception value": lambda t: _failed(t, ValueError("boom")).value(),
    "exception done": lambda t: _failed(t, ValueError("boom")).done(),
    "then": lambda t: _completed(t, 1).then(lambda f: f.wait() + 1).wait(),
    "then before completion": lambda t: (lambda f, c: (c.done(), f.set_result(3), c.wait()))(
        *(lambda f: (f, f.then(lambda g: g.value() * 2)))(t.futures.Future())),
    "then chain": lambda t: _completed(t, 1).then(lambda f: f.wait() + 1)
                                            .then(lambda f: f.wait() * 10).wait(),
    "then raising": lambda t: _completed(t, 1).then(lambda f: 1 / 0).wait(),
    "then on failure": lambda t: _failed(t, ValueError("v")).then(lambda f: f.wait()).wait(),
    "add_done_callback": lambda t: (lambda seen, f: (f.add_done_callback(
        lambda g: seen.append(g.value())), f.set_result(9), seen)[2])([], t.futures.Future()),
    "add_done_callback done": lambda t: (lambda seen: (_completed(t, 4).add_done_callback(
        lambda g: seen.append(g.value())), seen)[1])([]),
    "collect_all": lambda t: [f.wait() for f in t.futures.collect_all(
        [_completed(t, 1), _completed(t, 2)]).wait()],
    "collect_all pending": lambda t: (lambda a, b: (lambda al: (
        al.done(), a.set_result(1), al.done(), b.set_result(2), al.done()))(
        t.futures.collect_all([a, b])))(t.futures.Future(), t.futures.Future()),
    "collect_all empty": lambda t: t.futures.collect_all([]).wait(),
    "wait_all": lambda t: t.futures.wait_all([_completed(t, 1), _completed(t, 2)]),
    "wait_all failure": lambda t: t.futures.wait_all([_completed(t, 1),
                                                      _failed(t, RuntimeError("bad"))]),
    "devices cpu": lambda t: t.futures.Future(devices=["cpu"]),
    "tensor value": lambda t: _completed(t, t.ones(2)).wait().tolist(),
    "Future at top level": lambda t: isinstance(t.futures.Future(), t.Future),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_futures_like_torch(name):
    _same(CASES[name])


@pytest.mark.parametrize("lib", [dyngrad, torch], ids=["dyngrad", "torch"])
def test_wait_blocks_until_another_thread_completes(lib):
    fut = lib.futures.Future()
    child = fut.then(lambda f: f.wait() + "!")
    timer = threading.Timer(0.05, lambda: fut.set_result("late"))
    start = time.monotonic()
    timer.start()
    assert child.wait() == "late!"
    assert time.monotonic() - start >= 0.04
    timer.join()
