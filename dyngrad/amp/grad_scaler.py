"""``torch.amp.GradScaler``: dynamic loss scaling, as torch/amp/grad_scaler.py, and its two
kernels ``torch._amp_foreach_non_finite_check_and_unscale_`` and ``torch._amp_update_scale_``.

A step: ``scaler.scale(loss).backward()`` multiplies the loss (so the gradients) by the scale;
``scaler.step(opt)`` divides the gradients by it (``unscale_``, unless called already), noting
whether any is inf or NaN, and runs ``opt.step()`` only if none is; ``scaler.update()`` halves
the scale after a skipped step (``backoff_factor``) and doubles it after ``growth_interval``
steps in a row without one (``growth_factor``). The scale and the count of good steps are 0-d
tensors (float32, int32), updated in place, as torch's.
"""
from __future__ import annotations

import warnings
from collections import abc, defaultdict
from enum import Enum

import numpy as np

from .. import _dtypes as D

__all__ = ["OptState", "GradScaler"]


# -- the kernels --------------------------------------------------------------------------------
def _amp_foreach_non_finite_check_and_unscale_(scaled_grads, found_inf, inv_scale) -> None:
    """Multiply each tensor of `scaled_grads` by `inv_scale` in place (computing in float32 for
    half-precision tensors, as torch's opmath), and set `found_inf` to 1.0 if any held an inf
    or NaN before. `found_inf` and `inv_scale`: 1-element float32 tensors."""
    if inv_scale.numel() != 1:
        raise RuntimeError("inv_scale must be a 1-element tensor.")
    if found_inf.numel() != 1:
        raise RuntimeError("found_inf must be a 1-element tensor.")
    if inv_scale.dtype is not D.float32:
        raise RuntimeError("inv_scale must be a float tensor.")
    if found_inf.dtype is not D.float32:
        raise RuntimeError("found_inf must be a float tensor.")
    inv = inv_scale._data.reshape(()).item()
    for g in scaled_grads:
        if not g.dtype.is_floating_point:
            raise NotImplementedError('"_amp_foreach_non_finite_check_and_unscale_cpu" not '
                                      f"implemented for '{g.dtype._legacy}'")
        x = g._data
        if not np.isfinite(x).all():
            found_inf._data[...] = 1.0
        if inv != 1.0:
            wide = x if x.itemsize >= 4 else x.astype(np.float32)
            np.copyto(x, wide * wide.dtype.type(inv), casting="unsafe")
            g._storage_obj().version += 1


def _amp_update_scale_(current_scale, growth_tracker, found_inf, scale_growth_factor,
                       scale_backoff_factor, growth_interval):
    """Update the scale in place after a step: times `scale_backoff_factor` (and the count of
    good steps back to 0) if `found_inf` is nonzero; else the count goes up, and when it reaches
    `growth_interval` the scale grows by `scale_growth_factor` (if that stays finite) and the
    count restarts. Returns `current_scale`."""
    for t, name in ((growth_tracker, "growth_tracker"), (current_scale, "current_scale"),
                    (found_inf, "found_inf")):
        if t.numel() != 1:
            raise RuntimeError(f"{name} must be a 1-element tensor.")
    if growth_tracker.dtype is not D.int32:
        raise RuntimeError("growth_tracker must be an int tensor.")
    for t, name in ((current_scale, "current_scale"), (found_inf, "found_inf")):
        if t.dtype is not D.float32:
            raise RuntimeError(f"{name} must be a float tensor.")
    scale = current_scale._data
    tracker = growth_tracker._data
    if found_inf._data.reshape(()).item():
        scale[...] = np.float32(scale.reshape(()).item() * scale_backoff_factor)
        tracker[...] = 0
    else:
        successful = int(tracker.reshape(())) + 1
        if successful == growth_interval:   # (==, as torch's kernel: a count past it grows on)
            with np.errstate(over="ignore"):
                grown = np.float32(scale.reshape(()).item() * scale_growth_factor)
            if np.isfinite(grown):
                scale[...] = grown
            tracker[...] = 0
        else:
            tracker[...] = successful
    current_scale._storage_obj().version += 1
    growth_tracker._storage_obj().version += 1
    return current_scale


# -- GradScaler ---------------------------------------------------------------------------------
class _MultiDeviceReplicator:
    """The master tensor, served per device (dyngrad has one: the CPU)."""

    def __init__(self, master_tensor) -> None:
        self.master = master_tensor
        self._per_device_tensors = {}

    def get(self, device):
        retval = self._per_device_tensors.get(device, None)
        if retval is None:
            retval = self.master.to(device=device, non_blocking=True, copy=True)
            self._per_device_tensors[device] = retval
        return retval


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _torch():
    import dyngrad
    return dyngrad


class GradScaler:
    """Dynamic loss scaling (see the module docstring): ``GradScaler("cpu", init_scale=2.**16,
    growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True)``. On "cuda" it
    warns and is disabled, there being no CUDA."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return (self._scale, self._growth_tracker)

    def _lazy_init_scale_growth_tracker(self, dev) -> None:
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        torch = _torch()
        self._scale = torch.full((), self._init_scale, dtype=torch.float32, device=dev)
        self._growth_tracker = torch.full((), self._init_growth_tracker, dtype=torch.int32,
                                          device=dev)

    def scale(self, outputs):
        """`outputs` (a tensor, or an iterable of them, nested) times the current scale."""
        if not self._enabled:
            return outputs
        Tensor = _torch().Tensor
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)

        stash = []   # the replicator of the scale, made for the first tensor met

        def apply_scale(val):
            if isinstance(val, Tensor):
                if not stash:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    stash.append(_MultiDeviceReplicator(self._scale))
                return val * stash[0].get(val.device)
            if isinstance(val, abc.Iterable):
                iterable = map(apply_scale, val)
                return type(val)(iterable) if isinstance(val, (list, tuple)) else iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        torch = _torch()
        per_device_inv_scale = _MultiDeviceReplicator(inv_scale)
        per_device_found_inf = _MultiDeviceReplicator(found_inf)
        per_device_and_dtype_grads = defaultdict(lambda: defaultdict(list))
        with torch.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, torch.Tensor):
                        raise AssertionError(
                            f"expected param to be torch.Tensor, got {type(param).__name__}")
                    if param.grad is None:
                        continue
                    if (not allow_fp16) and param.grad.dtype == torch.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    to_unscale = param.grad
                    per_device_and_dtype_grads[to_unscale.device][to_unscale.dtype].append(
                        to_unscale)
            for device, per_dtype_grads in per_device_and_dtype_grads.items():
                for grads in per_dtype_grads.values():
                    _amp_foreach_non_finite_check_and_unscale_(
                        grads, per_device_found_inf.get(device), per_device_inv_scale.get(device))
        return per_device_found_inf._per_device_tensors

    def unscale_(self, optimizer) -> None:
        """Divide `optimizer`'s gradients by the scale (at most once per ``step``), noting
        whether any is inf or NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        torch = _torch()
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = torch.full((), 0.0, dtype=torch.float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        return retval

    def step(self, optimizer, *args, **kwargs):
        """``unscale_(optimizer)`` (unless done), then ``optimizer.step(*args, **kwargs)`` if no
        gradient is inf or NaN; returns what that returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Update the scale after this iteration's steps (``_amp_update_scale_``), or set it
        to `new_scale` (a float, or a 1-element float tensor not requiring grad)."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=_scale.device, non_blocking=True)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            for other in found_infs[1:]:
                found_inf_combined += other
            _amp_update_scale_(_scale, _growth_tracker, found_inf_combined,
                               self._growth_factor, self._backoff_factor,
                               self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self) -> float:
        """The current scale as a float (1.0 when disabled)."""
        if self._enabled:
            scale = self._get_scale_async()
            return self._init_scale if scale is None else scale.item()
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None \
                else self._growth_tracker.item()
        return 0

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} when
        disabled)."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer):
        _scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        torch = _torch()
        dummy_inv_scale = torch.full((), 1.0, dtype=torch.float32, device=_scale.device)
        found_inf = torch.full((), 0.0, dtype=torch.float32, device=_scale.device)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = \
            self._unscale_grads_(optimizer, dummy_inv_scale, found_inf, True)
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
