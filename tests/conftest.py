"""Test setup: torch 2.13.0 (CPU) is the oracle. A broken reference install fails loudly."""
import numpy as np
import pytest
import torch
import torch.autograd  # noqa: F401

assert torch.__version__.split("+")[0] == "2.13.0", f"oracle must be torch 2.13.0, got {torch.__version__}"

torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _restore_defaults():
    """Tests may change the default dtype or print options; put them back."""
    import dyngrad
    from dyngrad.autograd import grad_mode
    yield
    grad_mode._state.grad_enabled = True
    grad_mode._state.inference = False
    torch.set_grad_enabled(True)
    if dyngrad.get_default_dtype() is not dyngrad.float32:
        dyngrad.set_default_dtype(dyngrad.float32)
    if torch.get_default_dtype() is not torch.float32:
        torch.set_default_dtype(torch.float32)
