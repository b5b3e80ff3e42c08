"""``torch.xpu`` and ``torch.mps`` as torch's CPU build has them: device-selection code
(``torch.xpu.is_available()``...) runs, and the calls that need the device raise torch's
errors. Each call against live torch."""
import pytest
import torch

import dyngrad

from compare import same_outcome


def _with(ctx):
    with ctx:
        return "entered"


CALLS = {
    "xpu.is_available": lambda L: L.xpu.is_available(),
    "xpu.device_count": lambda L: L.xpu.device_count(),
    "xpu.is_initialized": lambda L: L.xpu.is_initialized(),
    "xpu._is_compiled": lambda L: L.xpu._is_compiled(),
    "xpu.init": lambda L: L.xpu.init(),
    "xpu.current_device": lambda L: L.xpu.current_device(),
    "xpu.set_device": lambda L: L.xpu.set_device(0),
    "xpu.set_device_str": lambda L: L.xpu.set_device("xpu:0"),
    "xpu.synchronize": lambda L: L.xpu.synchronize(),
    "xpu.synchronize_0": lambda L: L.xpu.synchronize(0),
    "xpu.get_device_name": lambda L: L.xpu.get_device_name(),
    "xpu.get_device_name_0": lambda L: L.xpu.get_device_name(0),
    "xpu.get_device_properties": lambda L: L.xpu.get_device_properties(),
    "xpu.get_device_capability": lambda L: L.xpu.get_device_capability(),
    "xpu.get_arch_list": lambda L: L.xpu.get_arch_list(),
    "xpu.get_gencode_flags": lambda L: L.xpu.get_gencode_flags(),
    "xpu.manual_seed": lambda L: L.xpu.manual_seed(1),
    "xpu.manual_seed_all": lambda L: L.xpu.manual_seed_all(1),
    "xpu.seed": lambda L: L.xpu.seed(),
    "xpu.seed_all": lambda L: L.xpu.seed_all(),
    "xpu.initial_seed": lambda L: L.xpu.initial_seed(),
    "xpu.get_rng_state": lambda L: L.xpu.get_rng_state(),
    "xpu.get_rng_state_all": lambda L: L.xpu.get_rng_state_all(),
    "xpu.set_rng_state": lambda L: L.xpu.set_rng_state(L.zeros(1, dtype=L.uint8)),
    "xpu.set_rng_state_all": lambda L: L.xpu.set_rng_state_all([]),
    "xpu.empty_cache": lambda L: L.xpu.empty_cache(),
    "xpu.memory_allocated": lambda L: (L.xpu.memory_allocated(), L.xpu.memory_allocated(0)),
    "xpu.max_memory_allocated": lambda L: L.xpu.max_memory_allocated("xpu:1"),
    "xpu.memory_reserved": lambda L: (L.xpu.memory_reserved(), L.xpu.max_memory_reserved()),
    "xpu.memory_stats": lambda L: L.xpu.memory_stats(),
    "xpu.memory_stats_as_nested_dict": lambda L: L.xpu.memory_stats_as_nested_dict(),
    "xpu.memory_snapshot": lambda L: L.xpu.memory_snapshot(),
    "xpu.mem_get_info": lambda L: L.xpu.mem_get_info(),
    "xpu.per_process_memory_fraction": lambda L: L.xpu.set_per_process_memory_fraction(0.5),
    "xpu.get_per_process_memory_fraction": lambda L: L.xpu.get_per_process_memory_fraction(),
    "xpu.is_bf16_supported": lambda L: (L.xpu.is_bf16_supported(),
                                        L.xpu.is_bf16_supported(False)),
    "xpu.is_tf32_supported": lambda L: L.xpu.is_tf32_supported(),
    "xpu.current_stream": lambda L: L.xpu.current_stream(),
    "xpu.Stream": lambda L: L.xpu.Stream(),
    "xpu.Event": lambda L: L.xpu.Event(),
    "xpu.device": lambda L: _with(L.xpu.device(0)),
    "xpu.device_none": lambda L: _with(L.xpu.device(None)),
    "xpu.device_of": lambda L: _with(L.xpu.device_of(L.ones(1))),
    "xpu.device indices": lambda L: [L.xpu.device(d).idx for d in (
        None, "xpu", "xpu:3", L.device("xpu", 3), -1, 1.5, L.xpu.device(5))],
    "xpu.device cpu": lambda L: L.xpu.device("cpu"),
    "xpu.device cuda": lambda L: L.xpu.device(L.device("cuda")),
    "xpu.device bad string": lambda L: L.xpu.device("abc"),
    "xpu.utilization": lambda L: L.xpu.utilization(),
    "mps.is_available": lambda L: L.mps.is_available(),
    "mps.device_count": lambda L: L.mps.device_count(),
    "mps.manual_seed": lambda L: L.mps.manual_seed(1),
    "mps.seed": lambda L: L.mps.seed(),
    "mps.get_rng_state": lambda L: L.mps.get_rng_state(),
    "mps.set_rng_state": lambda L: L.mps.set_rng_state(L.zeros(1, dtype=L.uint8)),
    "mps.synchronize": lambda L: L.mps.synchronize(),
    "mps.empty_cache": lambda L: L.mps.empty_cache(),
    "mps.set_per_process_memory_fraction": lambda L: L.mps.set_per_process_memory_fraction(.5),
    "mps.set_per_process_memory_fraction_int":
        lambda L: L.mps.set_per_process_memory_fraction(1),
    "mps.current_allocated_memory": lambda L: L.mps.current_allocated_memory(),
    "mps.driver_allocated_memory": lambda L: L.mps.driver_allocated_memory(),
    "mps.recommended_max_memory": lambda L: L.mps.recommended_max_memory(),
    "mps.compile_shader": lambda L: L.mps.compile_shader("kernel void f() {}"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_like_torch(call):
    same_outcome(CALLS[call])


def test_device_selection_falls_back_to_the_cpu():
    for L in (torch, dyngrad):
        device = ("cuda" if L.cuda.is_available() else "xpu" if L.xpu.is_available()
                  else "mps" if L.mps.is_available() else "cpu")
        assert device == "cpu"


@pytest.mark.parametrize("kind", ["xpu", "mps"])
def test_get_device_module(kind):
    assert dyngrad.get_device_module(kind) is getattr(dyngrad, kind)
    assert dyngrad.get_device_module(dyngrad.device(kind)).__name__ == f"dyngrad.{kind}"
    assert torch.get_device_module(kind).__name__ == f"torch.{kind}"
