"""``torch.functional``, the module of torch's Python-written functions: the same names, each
the top-level function itself, reachable after ``import dyngrad``."""
import torch

import dyngrad


def test_same_names_as_the_top_level_functions():
    assert sorted(dyngrad.functional.__all__) == sorted(torch.functional.__all__)
    for name in torch.functional.__all__:
        assert getattr(dyngrad.functional, name) is getattr(dyngrad, name)
    x = dyngrad.ones(2, 3)
    assert dyngrad.functional.einsum("ij->", x).item() == 6.0
    assert [t.shape for t in dyngrad.functional.split(x, 2, 1)] == [(2, 2), (2, 1)]
