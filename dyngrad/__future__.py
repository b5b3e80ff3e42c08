"""torch.__future__: two switches for how ``nn.Module`` conversions treat its parameters.

By default ``module.to(...)``, ``.double()``, ``.float()``... change each parameter in place
(``param.data = converted``), so the Parameter objects an optimizer holds stay the module's.
``set_overwrite_module_params_on_conversion(True)`` makes them new Parameters instead;
``set_swap_module_params_on_conversion(True)`` keeps the objects but swaps their contents
with the converted ones (``utils.swap_tensors``), and ``load_state_dict`` then swaps in
``param.module_load(value)`` rather than copying into the parameter. The swap setting wins
over the overwrite one. See ``nn.Module._apply`` and ``_load_from_state_dict``.
"""
_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False

__all__ = ["set_overwrite_module_params_on_conversion",
           "get_overwrite_module_params_on_conversion",
           "set_swap_module_params_on_conversion", "get_swap_module_params_on_conversion"]


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Whether module conversions give the module new Parameter objects (default False)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Whether module conversions and ``load_state_dict`` swap each parameter's contents
    (``utils.swap_tensors``) instead of setting its ``.data`` or copying into it (default
    False)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    return _swap_module_params_on_conversion
