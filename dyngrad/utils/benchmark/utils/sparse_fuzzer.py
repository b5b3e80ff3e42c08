"""``FuzzedSparseTensor``: torch's sparse COO counterpart of ``FuzzedTensor``.

The class can be declared in a Fuzzer (and its constraints checked), but building a tensor
raises NotImplementedError: the draws that make torch's are not written here yet.
"""
from typing import Optional, Tuple, Union

import dyngrad
from .fuzzer import FuzzedTensor

__all__ = ["FuzzedSparseTensor"]


class FuzzedSparseTensor(FuzzedTensor):
    """Sparse COO tensors with fuzzed ``sparse_dim``, ``nnz``/``density`` and ``coalesced``
    parameters (names of parameters). Not buildable in dyngrad yet."""

    def __init__(self, name: str, size: Tuple[Union[str, int], ...],
                 min_elements: Optional[int] = None, max_elements: Optional[int] = None,
                 dim_parameter: Optional[str] = None, sparse_dim: Optional[str] = None,
                 nnz: Optional[str] = None, density: Optional[str] = None,
                 coalesced: Optional[str] = None, dtype=dyngrad.float32, cuda=False) -> None:
        super().__init__(name=name, size=size, min_elements=min_elements,
                         max_elements=max_elements, dim_parameter=dim_parameter, dtype=dtype,
                         cuda=cuda)
        self._density = density
        self._coalesced = coalesced
        self._sparse_dim = sparse_dim

    @staticmethod
    def sparse_tensor_constructor(size, dtype, sparse_dim, nnz, is_coalesced):
        raise NotImplementedError(
            "FuzzedSparseTensor: dyngrad does not draw sparse (COO) tensors yet.")

    def _make_tensor(self, params, state):
        size, _, _ = self._get_size_and_steps(params)
        return self.sparse_tensor_constructor(size, self._dtype, params.get("sparse_dim"),
                                              None, params.get("coalesced")), {}
