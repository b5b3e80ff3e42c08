"""dyngrad.func: composable function transforms (torch.func).

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``,
``hessian`` (eager_transforms.py), ``vmap`` (vmap.py), ``functional_call`` and
``stack_module_state`` (module_utils.py). They are built on the ordinary autograd tape and
forward-mode duals; Note [Levels without wrapper tensors] (_levels.py) and Note [vmap as a
loop] (vmap.py) say how, and what that changes.
"""
from .eager_transforms import (grad, grad_and_value, hessian, jacfwd, jacrev, jvp,  # noqa: F401
                               linearize, vjp)
from .module_utils import (functional_call, replace_all_batch_norm_modules_,  # noqa: F401
                           stack_module_state)
from .vmap import vmap  # noqa: F401

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
