"""``GradBucket``: what a DDP communication hook is given, one bucket of gradients at a time."""
from __future__ import annotations


class GradBucket:
    """One bucket of DDP gradients (torch.distributed.GradBucket): a flat buffer holding the
    gradients of its parameters one after the other, in the parameters' order in the model.

    A communication hook (``DistributedDataParallel.register_comm_hook``) gets one for each
    bucket once all its gradients are in the buffer, and returns a Future of the tensor to
    write back into those gradients (the reduced buffer)."""

    def __init__(self, index, is_last, buffer, params, offsets):
        self._index = index
        self._is_last = is_last
        self._buffer = buffer
        self._params = list(params)
        self._offsets = list(offsets)

    def index(self) -> int:
        """The bucket's position: 0 holds the gradients backward computes first."""
        return self._index

    def is_last(self) -> bool:
        """Whether this is the last bucket to be reduced in the iteration."""
        return self._is_last

    def buffer(self):
        """The flat 1-D tensor of the bucket's gradients (its memory is the bucket's)."""
        return self._buffer

    def set_buffer(self, buffer) -> None:
        """Replace the bucket's buffer by `buffer` (a flat tensor of the same size)."""
        self._buffer = buffer

    def parameters(self) -> list:
        """The bucket's parameters, in the model's order."""
        return list(self._params)

    def gradients(self) -> list:
        """Each parameter's gradient, as a view of the buffer shaped like the parameter."""
        return [self._buffer[start:start + p.numel()].view(p.shape)
                for p, start in zip(self._params, self._offsets)]
