"""``BlockMask`` and the conversions between dense and block-sparse masks, for flex_attention.

Note [Block masks and dense masks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A BlockMask describes which (Q_BLOCK_SIZE x KV_BLOCK_SIZE) tiles of the score matrix a fused
kernel has to visit: per query-block row, ``kv_num_blocks`` counts the visited kv blocks and
``kv_indices`` lists them first (the rest of the row is padding, in argsort order). With
``separate_full_blocks`` the tiles where the mask is all True ("full") are listed apart
(``full_kv_*``) from those where it is partly True ("partial", ``kv_*``); the ``q_*`` tensors
are the same lists transposed, for the backward pass. ``to_dense()`` is the (B, H, rows, cols)
int32 tile map, not the element mask.

torch's eager flex_attention (the dense math path its unfused implementation runs) ignores the
tiles: it evaluates ``mask_mod`` on every (b, h, q_idx, kv_idx) and masks the scores with it.
dyngrad computes the same dense way (flex_attention.py), so only ``mask_mod`` decides the
result and the tile tensors are bookkeeping kept for their observable values (shapes, repr,
sparsity, to_dense, slicing, _adjust), built with the same ops as torch's, without vmap.
"""
from __future__ import annotations

import functools
import itertools
import operator

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30


def noop_mask(batch, head, token_q, token_kv):
    """Returns a noop mask_mod"""
    from ... import bool as _bool
    # torch's ``batch.new_ones(size=())`` under vmap is batched along b: ones shaped as `batch`
    # (Note [flex_attention runs the dense math path])
    return batch.new_ones(size=batch.shape, dtype=_bool, device=batch.device)


def _sliced_mask_mod_error(batch, head, token_q, token_kv):
    """The mask_mod of a sliced BlockMask: raises (torch's message)."""
    raise RuntimeError(
        "Cannot use mask_mod from a sliced BlockMask. "
        "When you slice a BlockMask using [], the mask_mod attribute is reset. "
        "You must set it from the original BlockMask's mask_mod."
        "\n\nIncorrect usage:"
        "\n  base_mask = create_block_mask(my_mask_fn, ...)"
        "\n  sliced_mask = base_mask[:, :, block_idx]"
        "\n  sliced_mask.mask_mod = apply_offset(sliced_mask.mask_mod, offset)  # WRONG!"
        "\n\nCorrect usage:"
        "\n  base_mask = create_block_mask(my_mask_fn, ...)"
        "\n  sliced_mask = base_mask[:, :, block_idx]"
        "\n  sliced_mask.mask_mod = apply_offset(base_mask.mask_mod, offset)  # Use base_mask!")


def _ordered_to_dense(num_blocks_in_row, col_indices, num_cols):
    """The (..., rows, num_cols) int32 0/1 map of the first ``num_blocks_in_row`` entries of
    each row of ``col_indices`` (torch vmaps a per-row scatter; one batched scatter here)."""
    from ... import arange, int32, where
    max_entries = col_indices.shape[-1]
    index_mask = arange(max_entries, dtype=int32) < num_blocks_in_row.unsqueeze(-1)
    valid_indices = where(index_mask, col_indices, num_cols)   # one spot "out of bounds"
    dense = col_indices.new_zeros((*col_indices.shape[:-1], num_cols + 1), dtype=int32)
    dense.scatter_(-1, valid_indices.long(), 1)
    return dense[..., :num_cols].contiguous()


def _dense_to_ordered(dense_mask):
    """(num_blocks_in_row, col_indices) of a dense 0/1 block map, both int32."""
    from ... import argsort, contiguous_format, int32
    dense_mask = dense_mask.to(dtype=int32)
    num_blocks_in_row = dense_mask.sum(dim=-1)
    col_indices = argsort(dense_mask, dim=-1, descending=True, stable=True)
    return (num_blocks_in_row.to(int32, memory_format=contiguous_format),
            col_indices.to(int32, memory_format=contiguous_format))


def _transpose_ordered(num_blocks_in_row, col_indices):
    dense = _ordered_to_dense(num_blocks_in_row, col_indices, col_indices.shape[-1])
    return _dense_to_ordered(dense.transpose(-2, -1))


def _adjust_num_blocks_and_indices(num_blocks, indices, new_num_rows, new_num_cols):
    from ... import int32, where
    indices = indices[:, :, :new_num_rows, :new_num_cols]
    num_blocks = num_blocks[:, :, :new_num_rows]
    num_blocks = where(num_blocks < new_num_cols, num_blocks, new_num_cols)
    num_blocks = (indices < num_blocks[:, :, :, None]).sum(dim=-1).to(int32)
    return num_blocks, indices


class BlockMask:
    r"""flex_attention's block-sparse description of an attention mask (Note [Block masks and
    dense masks]): ``kv_num_blocks``/``kv_indices`` (partial blocks), optional
    ``full_kv_num_blocks``/``full_kv_indices`` (full blocks), their transposes ``q_*``,
    ``BLOCK_SIZE`` (Q, KV), ``seq_lengths`` (Q_LEN, KV_LEN) and the ``mask_mod``."""

    _TENSOR_ATTRS = ["kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                     "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices",
                     "dq_write_order", "dq_write_order_full", "dq_kv_order"]
    _CONTEXT_ATTRS = ["seq_lengths", "BLOCK_SIZE", "mask_mod", "dq_kv_order_spt"]

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                 full_kv_indices, q_num_blocks, q_indices, full_q_num_blocks, full_q_indices,
                 BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE),
                 mask_mod=noop_mask, *, dq_write_order=None, dq_write_order_full=None,
                 dq_kv_order=None, dq_kv_order_spt=None) -> None:
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if kv_num_blocks is None:
            raise AssertionError("kv_num_blocks must be provided")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError("full_kv_num_blocks and full_kv_indices must be both provided "
                                 "or omitted")
        if (full_q_num_blocks is None) != (full_q_indices is None):
            raise AssertionError("full_q_num_blocks and full_q_indices must be both provided "
                                 "or omitted")
        if dq_write_order_full is not None and dq_write_order is None:
            raise ValueError("dq_write_order_full requires dq_write_order")
        self.seq_lengths = seq_lengths
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.dq_write_order, self.dq_write_order_full = dq_write_order, dq_write_order_full
        self.dq_kv_order, self.dq_kv_order_spt = dq_kv_order, dq_kv_order_spt
        self.BLOCK_SIZE = BLOCK_SIZE
        self.mask_mod = mask_mod

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks, kv_indices, full_kv_num_blocks=None,
                       full_kv_indices=None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                       mask_mod=None, seq_lengths=None, compute_q_blocks=True, *,
                       dq_write_order=None, dq_write_order_full=None, dq_kv_order=None):
        """A BlockMask from its kv block lists; the q lists are their transposes."""
        from ..._tensor import Tensor
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError("full_kv_num_blocks and full_kv_indices must be both provided "
                                 "or omitted")
        q_num_blocks = q_indices = full_q_num_blocks = full_q_indices = None
        if compute_q_blocks:
            q_num_blocks, q_indices = _transpose_ordered(kv_num_blocks, kv_indices)
            if full_kv_num_blocks is not None:
                full_q_num_blocks, full_q_indices = _transpose_ordered(full_kv_num_blocks,
                                                                       full_kv_indices)
        if isinstance(BLOCK_SIZE, int):
            BLOCK_SIZE = (BLOCK_SIZE, BLOCK_SIZE)
        mask_mod = mask_mod if mask_mod is not None else noop_mask
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * BLOCK_SIZE[0],
                           kv_indices.shape[-1] * BLOCK_SIZE[1])
        if dq_kv_order is not None and not isinstance(dq_kv_order, (bool, Tensor)):
            raise ValueError("dq_kv_order must be a bool, Tensor, or None")
        return cls(seq_lengths=seq_lengths, kv_num_blocks=kv_num_blocks, kv_indices=kv_indices,
                   full_kv_num_blocks=full_kv_num_blocks, full_kv_indices=full_kv_indices,
                   q_num_blocks=q_num_blocks, q_indices=q_indices,
                   full_q_num_blocks=full_q_num_blocks, full_q_indices=full_q_indices,
                   BLOCK_SIZE=BLOCK_SIZE, mask_mod=mask_mod, dq_write_order=dq_write_order,
                   dq_write_order_full=dq_write_order_full,
                   dq_kv_order=dq_kv_order if isinstance(dq_kv_order, Tensor) else None,
                   dq_kv_order_spt=dq_kv_order if isinstance(dq_kv_order, bool) else None)

    def as_tuple(self, flatten: bool = True):
        """The attributes as a tuple (BLOCK_SIZE and seq_lengths flattened with `flatten`)."""
        block_size = tuple(self.BLOCK_SIZE) if flatten else (self.BLOCK_SIZE,)
        seq_lengths = tuple(self.seq_lengths) if flatten else (self.seq_lengths,)
        return (*seq_lengths, self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks,
                self.full_kv_indices, self.q_num_blocks, self.q_indices,
                self.full_q_num_blocks, self.full_q_indices, self.dq_write_order,
                self.dq_write_order_full, self.dq_kv_order, self.dq_kv_order_spt,
                *block_size, self.mask_mod)

    @property
    def shape(self):
        *batch_dims, _, _ = self.kv_indices.shape
        return tuple(batch_dims) + tuple(self.seq_lengths)

    def __str__(self) -> str:
        s = f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n"
        s += self.to_string().strip()
        return s + "\n)"

    def __getitem__(self, index):
        """The BlockMask of the batch/head/query-block rows `index` selects; its mask_mod is
        reset to one that raises (as in torch)."""
        if self.dq_kv_order is not None:
            raise NotImplementedError(
                "Slicing BlockMask with tensor dq_kv_order is not supported yet. "
                "Construct a new BlockMask with matching precomputed dq_write_order metadata.")
        index = (index,) if not isinstance(index, tuple) else index
        padded = (*index, slice(None), slice(None), slice(None))[:3]
        sizes = self.kv_num_blocks.shape[:3]
        index = tuple((slice(i + n, i + n + 1) if -n <= i < 0 else slice(i, i + 1))
                      if isinstance(i, int) else i for i, n in zip(padded, sizes))
        full = self.full_kv_num_blocks is not None
        new = BlockMask.from_kv_blocks(
            self.kv_num_blocks[index], self.kv_indices[index],
            self.full_kv_num_blocks[index] if full else None,
            self.full_kv_indices[index] if full else None,
            BLOCK_SIZE=self.BLOCK_SIZE, mask_mod=_sliced_mask_mod_error,
            seq_lengths=self.seq_lengths, compute_q_blocks=self.q_indices is not None)
        new.dq_kv_order_spt = self.dq_kv_order_spt
        return new

    def __repr__(self) -> str:
        def shape_or_none(x):
            return x.shape if x is not None else None
        name = getattr(self.mask_mod, "__name__", self.mask_mod)
        return (f"BlockMask(\n"
                f"    kv_num_blocks={self.kv_num_blocks.shape},\n"
                f"    kv_indices={self.kv_indices.shape},\n"
                f"    full_kv_num_blocks={shape_or_none(self.full_kv_num_blocks)},\n"
                f"    full_kv_indices={shape_or_none(self.full_kv_indices)},\n"
                f"    q_num_blocks={shape_or_none(self.q_num_blocks)},\n"
                f"    q_indices={shape_or_none(self.q_indices)},\n"
                f"    full_q_num_blocks={shape_or_none(self.full_q_num_blocks)},\n"
                f"    full_q_indices={shape_or_none(self.full_q_indices)},\n"
                f"    BLOCK_SIZE={self.BLOCK_SIZE},\n"
                f"    shape={self.shape},\n"
                f"    sparsity={self.sparsity():.2f}%,\n"
                f"    mask_mod={name}\n"
                f")")

    def _adjust(self, new_q_len: int, new_kv_len: int):
        """The mask cropped (or grown) to the upper-left (new_q_len, new_kv_len) corner."""
        if self.dq_kv_order is not None:
            raise NotImplementedError(
                "Adjusting BlockMask with tensor dq_kv_order is not supported yet. "
                "Construct a new BlockMask with matching precomputed dq_write_order metadata.")
        rows = (new_q_len + self.BLOCK_SIZE[0] - 1) // self.BLOCK_SIZE[0]
        cols = (new_kv_len + self.BLOCK_SIZE[1] - 1) // self.BLOCK_SIZE[1]
        kv = _adjust_num_blocks_and_indices(self.kv_num_blocks, self.kv_indices, rows, cols)
        full = (None, None)
        if self.full_kv_num_blocks is not None:
            full = _adjust_num_blocks_and_indices(self.full_kv_num_blocks, self.full_kv_indices,
                                                  rows, cols)
        new = self.from_kv_blocks(*kv, *full, BLOCK_SIZE=self.BLOCK_SIZE,
                                  mask_mod=self.mask_mod, seq_lengths=(new_q_len, new_kv_len),
                                  compute_q_blocks=self.q_indices is not None)
        new.dq_kv_order_spt = self.dq_kv_order_spt
        return new

    def numel(self) -> int:
        """The number of elements of the mask (not accounting for sparsity)."""
        return functools.reduce(operator.mul, self.shape, 1)

    def sparsity(self) -> float:
        """The percentage of blocks that are sparse (not computed). As in torch, blocks count
        whole even where they overhang the sequence, so it can be negative."""
        computed_blocks = self.kv_num_blocks.sum()
        if self.full_kv_num_blocks is not None:
            computed_blocks += self.full_kv_num_blocks.sum()
        computed_size = computed_blocks.item() * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - computed_size / self.numel())

    def to_dense(self):
        """The (..., q_blocks, kv_blocks) int32 map of the visited blocks."""
        partial = _ordered_to_dense(self.kv_num_blocks, self.kv_indices,
                                    self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None:
            return partial | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                               self.full_kv_indices.shape[-1])
        return partial

    def to_string(self, grid_size=(20, 20), limit: int = 4) -> str:
        """A picture of the block map per (batch, head): █ visited, ░ partly, blank not."""
        dense_mask = self.to_dense()
        *batch_dims, num_rows, num_cols = dense_mask.shape
        if isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        elif grid_size == -1:
            max_rows, max_cols = num_rows, num_cols
        else:
            max_rows, max_cols = grid_size
        row_step = max(1, -(-num_rows // max_rows))
        col_step = max(1, -(-num_cols // max_cols))

        def summarize(section) -> str:
            percentage = section.float().mean().item()
            return "█" if percentage == 1 else " " if percentage == 0 else "░"

        def block_vis(*batch_idx):
            cur = dense_mask
            for idx in batch_idx:
                cur = cur[idx]
            vis = f"{batch_idx}\n"
            for r in range(0, num_rows, row_step):
                for c in range(0, num_cols, col_step):
                    vis += summarize(cur[r:r + row_step, c:c + col_step]) * 2
                vis += "\n"
            return vis

        total_vis = []
        for idx, batch_idx in enumerate(itertools.product(*[range(i) for i in batch_dims])):
            if idx == limit:
                total_vis.append("...")
                total_vis.append("To print out more, set BlockMask.to_string(limit=N)")
                total_vis.append("You can also index (BlockMask[batch, head]) to choose a "
                                 "specific batch or head")
                break
            total_vis.append(block_vis(*batch_idx))
        return "\n".join(total_vis)

    def to(self, device):
        """A BlockMask with every tensor moved to `device`."""
        tensors = {a: (getattr(self, a).to(device) if getattr(self, a) is not None else None)
                   for a in self._TENSOR_ATTRS}
        return BlockMask(seq_lengths=self.seq_lengths, **tensors, BLOCK_SIZE=self.BLOCK_SIZE,
                         mask_mod=self.mask_mod, dq_kv_order_spt=self.dq_kv_order_spt)


def _convert_mask_to_block_mask(mask, Q_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                                KV_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                                separate_full_blocks=False):
    """(partial, full) int8 block maps of a boolean (B, H, Q, KV) mask; full is None without
    `separate_full_blocks` (then every non-empty block is partial)."""
    from ... import bool as _bool, int8
    from .. import functional as F
    if mask.dtype != _bool:
        raise AssertionError(f"mask.dtype must be torch.bool, got {mask.dtype}")
    while mask.dim() < 4:
        mask = mask.unsqueeze(0)
    pad_kv = -mask.shape[-1] % KV_BLOCK_SIZE
    pad_q = -mask.shape[-2] % Q_BLOCK_SIZE
    mask = F.pad(mask, (0, pad_kv, 0, pad_q))
    B, H, Q, KV = mask.shape
    mask = mask.view(B, H, Q // Q_BLOCK_SIZE, Q_BLOCK_SIZE, KV // KV_BLOCK_SIZE, KV_BLOCK_SIZE)
    mask_block_sum = mask.permute(0, 1, 2, 4, 3, 5).sum(dim=[-2, -1])
    if separate_full_blocks:
        full_block_sum = Q_BLOCK_SIZE * KV_BLOCK_SIZE
        full_blocks = mask_block_sum == full_block_sum
        partial_blocks = (mask_block_sum > 0) & (mask_block_sum < full_block_sum)
        return partial_blocks.to(dtype=int8), full_blocks.to(dtype=int8)
    return (mask_block_sum > 0).to(dtype=int8), None


def _create_sparse_block_from_block_mask(block_mask, mask_mod, seq_lengths,
                                         Q_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                                         KV_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE):
    partial_blocks, full_blocks = block_mask
    partial_bm = _dense_to_ordered(partial_blocks)
    full_bm = _dense_to_ordered(full_blocks) if full_blocks is not None else (None, None)
    return BlockMask.from_kv_blocks(partial_bm[0], partial_bm[1], full_bm[0], full_bm[1],
                                    BLOCK_SIZE=(Q_BLOCK_SIZE, KV_BLOCK_SIZE),
                                    mask_mod=mask_mod, seq_lengths=seq_lengths)
