"""Variable-length sequences for the recurrent layers (torch.nn.utils.rnn).

Note [Packed sequences]
~~~~~~~~~~~~~~~~~~~~~~~
A batch of sequences sorted by decreasing length is *packed* time step by time step: step
``t`` holds the first ``batch_sizes[t]`` sequences (those longer than ``t``), so
``data`` is ``cat([x[t, :batch_sizes[t]] for t])`` and ``batch_sizes`` (int64, on the CPU) is
non-increasing. An unsorted batch is sorted first; ``sorted_indices`` records the order and
``unsorted_indices`` its inverse, which ``pad_packed_sequence`` (and the RNN's final state)
use to restore the caller's order. Packing is a primitive with torch's node
``PackPaddedSequenceBackward0``; unpacking copies into a padded tensor (``CopySlices``).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..._tensor import Tensor
from ...ops import _registry
from ...ops._registry import defop
from ..._promotion import Promote

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


def _dg():
    import dyngrad
    return dyngrad


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    """The data and step sizes of a packed batch of sequences. See Note [Packed sequences].

    Build one with ``pack_padded_sequence`` or ``pack_sequence``, not directly.

    Attributes:
        data (Tensor): the packed steps, ``(sum(lengths), *)``.
        batch_sizes (Tensor): int64, how many sequences each step holds.
        sorted_indices (Tensor, optional): the order the sequences were packed in.
        unsorted_indices (Tensor, optional): its inverse.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """``data.to(*args, **kwargs)``; the indices follow data's device (batch_sizes stays
        on the CPU). Returns ``self`` when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)

        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_dg().double)

    def float(self):
        return self.to(dtype=_dg().float)

    def half(self):
        return self.to(dtype=_dg().half)

    def long(self):
        return self.to(dtype=_dg().long)

    def int(self):
        return self.to(dtype=_dg().int)

    def short(self):
        return self.to(dtype=_dg().short)

    def char(self):
        return self.to(dtype=_dg().int8)

    def byte(self):
        return self.to(dtype=_dg().uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a CUDA device."""
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        """Whether ``data`` is in pinned memory."""
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of a permutation given as an index tensor (None stays None)."""
    if permutation is None:
        return None
    dg = _dg()
    output = dg.empty_like(permutation)
    output.scatter_(0, permutation, dg.arange(0, permutation.numel(),
                                              device=permutation.device))
    return output


# -- packing: a primitive (PackPaddedSequenceBackward0) -------------------------------------------
def _batch_sizes_of(lengths: list) -> list:
    """batch_sizes[t] = how many lengths exceed t (lengths sorted decreasing)."""
    return [sum(1 for n in lengths if n > t) for t in range(lengths[0])]


@defop("_pack_padded_sequence", node="PackPaddedSequenceBackward0", inputs=("input",),
       promote=Promote.NONE, variants=())
def _pack_padded_kernel(xp, input, batch_sizes, batch_first):
    if batch_first:
        input = xp.swapaxes(input, 0, 1)
    return xp.concatenate([input[t, :n] for t, n in enumerate(batch_sizes)], axis=0)


del _registry.OPS[_pack_padded_kernel.name]   # reached through pack_padded_sequence only


@_pack_padded_kernel.backward
def _(ctx, grad):
    dg = _dg()
    shape = list(ctx.input_shape)
    if ctx.batch_first:
        shape[0], shape[1] = shape[1], shape[0]
    total_steps, batch = shape[0], shape[1]
    steps, offset = [], 0
    # scatter each step's rows back into a zero-padded (T, B, *) gradient
    for n in ctx.batch_sizes:
        rows = grad[offset:offset + n]
        offset += n
        if n < batch:
            rows = dg.cat([rows, grad.new_zeros([batch - n] + shape[2:])], 0)
        steps.append(rows)
    if total_steps > len(steps):
        steps += [grad.new_zeros([batch] + shape[2:])] * (total_steps - len(steps))
    result = dg.stack(steps, 0)
    return (result.transpose(0, 1) if ctx.batch_first else result,)


def _pack_padded(input, lengths, batch_first):
    """(data, batch_sizes) with torch's checks."""
    dg = _dg()
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch_size = input.size(0 if batch_first else 1)
    lens = [int(n) for n in lengths.tolist()]
    if len(lens) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch_size})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    steps = input.size(1 if batch_first else 0)
    if lens[0] > steps:
        raise RuntimeError(f"pack_padded_sequence: a length ({lens[0]}) exceeds the "
                           f"sequence dimension ({steps})")
    batch_sizes = _batch_sizes_of(lens)
    data = _pack_padded_kernel(input, batch_sizes, bool(batch_first))
    return data, dg.tensor(batch_sizes, dtype=dg.int64)


def pack_padded_sequence(input, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch of sequences. See Note [Packed sequences].

    Args:
        input (Tensor): ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
        lengths (Tensor or list of int): each sequence's length.
        batch_first (bool, optional): the batch is dim 0.
        enforce_sorted (bool, optional): require lengths sorted decreasing; otherwise sort
            (recording ``sorted_indices``).

    Returns:
        a PackedSequence.

    Differences from torch: a length longer than the time dimension raises (torch reads past
    the end).
    """
    dg = _dg()
    if not isinstance(lengths, Tensor):
        lengths = dg.as_tensor(lengths, dtype=dg.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=dg.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = dg.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """torch's ``_pad_packed_sequence``: copy runs of equal batch size into a padded tensor
    (so the graph is CopySlices, as torch's); returns (padded, lengths)."""
    dg = _dg()
    sizes = [int(n) for n in batch_sizes.tolist()]
    max_batch = sizes[0]
    output = dg.full([total_length, max_batch] + list(data.shape[1:]), padding_value,
                     dtype=data.dtype, device=data.device)
    offset, prev_i, prev_size = 0, 0, max_batch
    lengths = [0] * max_batch
    for i in range(len(sizes) + 1):
        size = sizes[i] if i < len(sizes) else 0
        if size != prev_size:
            count = prev_size * (i - prev_i)
            piece = data[offset:offset + count].view([i - prev_i, prev_size]
                                                     + list(data.shape[1:]))
            output[prev_i:i, :prev_size].copy_(piece)
            offset += count
            prev_i = i
            for b in range(size, prev_size):   # sequences ending at step i
                lengths[b] = i
        prev_size = size
    if batch_first:
        output = output.transpose(0, 1)
    return output, dg.tensor(lengths, dtype=dg.int64)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None):
    """Unpack a PackedSequence into a padded tensor and the lengths (in the original order).

    Args:
        sequence (PackedSequence): the batch.
        batch_first (bool, optional): return ``(B, T, *)`` instead of ``(T, B, *)``.
        padding_value (float, optional): the value of the padding.
        total_length (int, optional): pad to this many steps (at least the longest).

    Returns:
        ``(padded, lengths)``, lengths an int64 tensor.
    """
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                         padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded_output.index_select(batch_dim, unsorted_indices),
                lengths[unsorted_indices.cpu()])
    return padded_output, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right"):
    """Stack sequences of different lengths ``(L_i, *)`` into ``(T, B, *)`` (``(B, T, *)``
    with ``batch_first``), padding with ``padding_value`` on the right (or left).

    Example::

        >>> pad_sequence([torch.ones(25, 300), torch.ones(22, 300)]).size()
        torch.Size([25, 2, 300])
    """
    dg = _dg()
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    max_len = max(s.size(0) for s in sequences)
    trailing = list(first.shape[1:])
    shape = ([len(sequences), max_len] if batch_first else [max_len, len(sequences)]) + trailing
    out = dg.full(shape, padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False) -> list:
    """The list of sequences in a padded batch, cut to ``lengths``. Like torch, without
    ``batch_first`` this transposes ``padded_sequences`` in place."""
    dg = _dg()
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = dg.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)`` (sorted by decreasing length unless
    ``enforce_sorted=False``)."""
    dg = _dg()
    lengths = dg.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences in a PackedSequence, in their original order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)

