"""torch.utils: ``swap_tensors`` here; ``data``, ``hooks``, ``checkpoint``, ``dlpack``... in
their modules."""


def __getattr__(name):
    """``dyngrad.utils.checkpoint`` without an import, as in torch; loaded on first use because
    dyngrad.utils is imported while autograd (which checkpoint needs) is still loading."""
    if name == "checkpoint":
        import importlib
        return importlib.import_module(__name__ + ".checkpoint")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_POISONED = (
    "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen "
    "when you try to run backward on a tensor that was swapped. For a module m with "
    "`torch.__future__.set_swap_module_params_on_conversion(True)` you should not change the "
    "device or dtype of the module (e.g. `m.cpu()` or `m.half()`) between running forward and "
    "backward. To resolve this, please only change the device/dtype before running forward (or "
    "after both forward and backward).")


def swap_tensors(t1, t2) -> None:
    """Swap the contents of two tensors, each keeping its identity: afterwards ``t1`` has
    ``t2``'s class, values, attributes and autograd state, and ``t2`` has ``t1``'s.

    As in torch, neither may have a weak reference, their classes must have the same slots,
    and a leaf whose AccumulateGrad node exists has that node poisoned: a backward through a
    graph built before the swap raises. torch also refuses a tensor that something else holds
    (a view's base, a graph's saved tensor: its C++ use count); dyngrad cannot count those
    holders and swaps such tensors all the same.
    """
    import copyreg
    import weakref
    from .._tensor import Tensor

    from ..autograd.views import register_view
    from ..overrides import is_counted_by, note_instance

    def weakrefs(t):   # (but dyngrad's own: its base's registry of views, and the one that
        # counts a subclass instance in overrides.py; torch's tensor would have neither)
        registry = getattr(t, "_base", None).__dict__.get("_views", ()) \
            if getattr(t, "_base", None) is not None else ()
        return [r for r in weakref.getweakrefs(t)
                if not is_counted_by(r) and not any(r is v for v in registry)]
    if weakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    # (a Tensor's own slots hold what torch keeps in its C++ TensorImpl: they are swapped as
    # that is, and only a subclass's further slots count here, as in torch)
    tensor_slots = set(copyreg._slotnames(Tensor))
    t1_slots = set(copyreg._slotnames(type(t1))) - tensor_slots
    t2_slots = set(copyreg._slotnames(type(t2))) - tensor_slots
    if t1_slots != t2_slots:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")

    def error_pre_hook(grad_outputs):
        raise RuntimeError(_POISONED)

    for t in (t1, t2):
        if not isinstance(t, Tensor):
            raise AttributeError(f"'{type(t).__name__}' object has no attribute '_use_count'")
        ref = t.__dict__.get("_accumulator")
        node = ref() if ref is not None else None
        if node is not None:
            node.register_prehook(error_pre_hook)

    counted = [any(is_counted_by(r) for r in weakref.getweakrefs(t)) for t in (t1, t2)]
    bases = [t._base for t in (t1, t2)]
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for slot in sorted(tensor_slots | t1_slots):
        has1, has2 = hasattr(t1, slot), hasattr(t2, slot)
        v1, v2 = getattr(t1, slot, None), getattr(t2, slot, None)
        if has2:
            setattr(t1, slot, v2)
        elif has1:
            delattr(t1, slot)
        if has1:
            setattr(t2, slot, v1)
        elif has2:
            delattr(t2, slot)
    for t, was_counted, old_base in zip((t1, t2), counted, bases):
        if not was_counted:   # (an instance of a class with a __torch_function__ now)
            note_instance(t)
        if old_base is not None and t._base is not old_base:   # (no longer its view)
            registry = old_base.__dict__.get("_views")
            if registry:
                registry[:] = [r for r in registry if r() is not t]
        if t._base is not None and t._base is not old_base:   # (a view now: its base's
            register_view(t._base, t)                          # registry finds it)
