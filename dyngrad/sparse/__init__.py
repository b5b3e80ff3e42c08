"""``torch.sparse``: the functions for sparse COO tensors (Note [Sparse COO tensors] in
backends/sparse_coo.py): ``mm``, ``addmm`` and ``sum``, whose gradients w.r.t. a sparse input
are sparse."""
from __future__ import annotations

from ..ops.sparse import addmm, mm, sparse_sum as sum  # noqa: F401

__all__ = ["addmm", "mm", "sum"]
