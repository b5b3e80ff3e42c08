"""torch.return_types: the named tuples some ops return (``max(x, dim)`` gives ``values`` and
``indices``), printed as torch prints them."""
from __future__ import annotations


def _structseq(name: str, fields: tuple):
    """A tuple subclass with named fields, like torch's C++ structseq types."""

    def __new__(cls, values):
        values = tuple(values)
        if len(values) != len(fields):
            raise TypeError(f"torch.return_types.{name} takes a {len(fields)}-sequence "
                            f"({len(values)}-sequence given)")
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    namespace = {"__new__": __new__, "__repr__": __repr__, "__reduce__": __reduce__,
                 "__slots__": (), "n_fields": len(fields), "n_sequence_fields": len(fields),
                 "n_unnamed_fields": 0, "__module__": "torch.return_types"}
    for i, f in enumerate(fields):
        namespace[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (tuple,), namespace)


_TYPES = {
    "max": ("values", "indices"), "min": ("values", "indices"),
    "aminmax": ("min", "max"), "cummax": ("values", "indices"), "cummin": ("values", "indices"),
    "kthvalue": ("values", "indices"), "median": ("values", "indices"),
    "nanmedian": ("values", "indices"), "mode": ("values", "indices"),
    "sort": ("values", "indices"), "topk": ("values", "indices"),
    "frexp": ("mantissa", "exponent"), "slogdet": ("sign", "logabsdet"),
    "qr": ("Q", "R"), "svd": ("U", "S", "V"),
    "linalg_slogdet": ("sign", "logabsdet"), "linalg_qr": ("Q", "R"),
    "linalg_svd": ("U", "S", "Vh"), "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_eig": ("eigenvalues", "eigenvectors"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_cholesky_ex": ("L", "info"),
    "linalg_solve_ex": ("result", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "linalg_lu_factor": ("LU", "pivots"), "linalg_lu": ("P", "L", "U"),
    "triangular_solve": ("solution", "cloned_coefficient"),
    "histogram": ("hist", "bin_edges"), "histogramdd": ("hist", "bin_edges"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"), "lu_unpack": ("P", "L", "U"),
    "linalg_ldl_factor": ("LD", "pivots"), "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "geqrf": ("a", "tau"), "_lu_with_info": ("LU", "pivots", "info"),
}

# what ``out=`` calls return (``torch.sort(x, out=(v, i))`` gives a ``sort_out``)
_TYPES.update({f"{_name}_out": _TYPES[_name] for _name in (
    "cummax", "cummin", "kthvalue", "median", "nanmedian", "mode", "sort", "topk", "frexp",
    "histogram", "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_lu", "lu_unpack", "qr",
    "svd", "slogdet", "linalg_qr", "linalg_svd", "linalg_eigh", "linalg_eig", "linalg_slogdet",
    "linalg_inv_ex", "linalg_cholesky_ex", "linalg_solve_ex", "linalg_lstsq",
    "triangular_solve")})

def pytree_register_structseq(cls):
    """Make `cls` a pytree node (its fields the children, in order), as torch registers its
    return types: torch.func's transforms and tree_map then see through ``max(x, 1)``."""
    from .utils._pytree import SequenceKey, register_pytree_node

    def flatten(value):
        return list(value), None

    def flatten_with_keys(value):
        return [(SequenceKey(i), v) for i, v in enumerate(value)], None

    register_pytree_node(cls, flatten, lambda values, context: cls(values),
                         flatten_with_keys_fn=flatten_with_keys)


all_return_types = []
for _name, _fields in _TYPES.items():
    globals()[_name] = _structseq(_name, _fields)
    all_return_types.append(globals()[_name])
    pytree_register_structseq(globals()[_name])
del _name, _fields
