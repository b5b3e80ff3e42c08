"""``dyngrad.functional``: the module torch keeps its Python-written functions in
(``torch.functional``), re-exporting the same functions as the top-level namespace:
``torch.functional.einsum is torch.einsum``."""
import dyngrad as _dyngrad

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
           "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]

globals().update({name: getattr(_dyngrad, name) for name in __all__})
