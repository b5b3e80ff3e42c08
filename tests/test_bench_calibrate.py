"""The bench's calibration (how many calls one timing sample takes) shrugs off one slow call.

A single hiccup (a collection of the cyclic GC, another process) used to set the count from
that call alone: the gradient penalty then took 2 calls per sample instead of about 75, timed
with cold caches, and its median doubled for the whole run. The timer is replaced here by one
that reports a fixed time per call, so nothing is timed for real."""
from bench import runner


def _fake_timer(per_call, slow_first=None):
    calls = []

    def time_call(fn, inner):
        calls.append(inner)
        if slow_first is not None and len(calls) == 1:
            return slow_first
        return per_call
    return time_call, calls


def test_one_slow_call_does_not_set_the_count(monkeypatch):
    timer, calls = _fake_timer(1e-4, slow_first=0.01)
    monkeypatch.setattr(runner, "_time_call", timer)
    # 0.1 ms per call: 200 calls make the 20 ms sample, whatever the first timing said
    assert runner._calibrate(lambda: None) == 200
    assert calls[0] == 1 and max(calls) == 64


def test_the_count_follows_the_time_per_call(monkeypatch):
    monkeypatch.setattr(runner, "_time_call", _fake_timer(1e-3)[0])
    assert runner._calibrate(lambda: None) == 20
    monkeypatch.setattr(runner, "_time_call", _fake_timer(0.05)[0])
    assert runner._calibrate(lambda: None) == 1   # a call longer than a sample: one call
