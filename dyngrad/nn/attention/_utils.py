"""Input checks shared by bias and flex_attention (torch.nn.attention._utils)."""


def _validate_sdpa_input(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                         scale=None, allow_lowp_kv=False):
    """torch.nn.attention._utils._validate_sdpa_input."""
    if not allow_lowp_kv and (query.dtype != key.dtype or query.dtype != value.dtype):
        raise ValueError(f"Expected query, key, and value to have the same dtype, but got "
                         f"query.dtype: {query.dtype}, key.dtype: {key.dtype}, and "
                         f"value.dtype: {value.dtype} instead.")
    if query.device != key.device or query.device != value.device:
        raise ValueError(f"Expected query, key, and value to have the same device type, but "
                         f"got query.device: {query.device}, key.device: {key.device}, and "
                         f"value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                         f"but got query.dim: {query.dim()}, key.dim: {key.dim()} and "
                         f"value.dim: {value.dim()} instead.")
