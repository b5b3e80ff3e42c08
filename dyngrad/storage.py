"""``dyngrad.storage``: the storage classes under torch's module name (``torch.storage``)."""
from ._storage import TypedStorage, UntypedStorage  # noqa: F401

__all__ = ["TypedStorage", "UntypedStorage"]
