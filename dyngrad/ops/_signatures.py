"""The overloads of torch's functions and Tensor methods as its Python argument parser holds
them, for the errors of Note [Parser errors] in _arg_parser.py.

One entry per function: its overloads in torch's order, in torch's signature format (types
``Tensor``, ``Scalar`` (printed ``Number``), ``int``, ``SymInt``, ``float``, ``bool``, ``str``,
``dtype``, ``int[]``/``SymInt[]`` (``int[1]``: one int will do too), ``Tensor[]``, ``Device``,
``Layout``, ``MemoryFormat``, ``Generator``; ``?``: None accepted; ``=default`` as printed).
The Tensor method takes the function's overloads that start with ``Tensor input``, without it
and without ``out=``; ``|fn`` marks an overload of the function alone, ``|method`` one of the
method alone, ``|hidden`` one that torch accepts but does not list (deprecated), ``|fn,hidden``
and ``|method,hidden`` such an overload of one of the two. An in-place
method with no entry of its own (``add_``) has its out-of-place method's overloads. The
named-tensor (Dimname) overloads are left out: torch neither lists nor matches them.

The entries of _signatures_more.py were made from torchgen's data, which the torch wheel ships
(``python tests/torchgen_signatures.py NAME`` prints a new one); tests/test_signature_table.py
checks them, and those here that torch generates, against it.
"""

from ._signatures_more import SIGNATURES as _MORE

_F = ("dtype? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
      "bool? requires_grad=False")
_LIKE = ("*, MemoryFormat? memory_format=None, dtype? dtype=None, Layout? layout=None, "
         "Device? device=None, bool? pin_memory=False, bool? requires_grad=False")
_NEW = ("*, dtype? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
        "bool? requires_grad=False")


def _unary(*names):
    return {n: (f"{n}(Tensor input, *, Tensor out=None)",) for n in names}


def _compare(*names):
    return {n: (f"{n}(Tensor input, Tensor other, *, Tensor out=None)",
                f"{n}(Tensor input, Scalar other, *, Tensor out=None)") for n in names}


def _binary(*names):
    return {n: (f"{n}(Tensor input, Tensor other, *, Tensor out=None)",) for n in names}


SIGNATURES = {
    # -- creation ------------------------------------------------------------------------------
    "zeros": (f"zeros(SymInt[] size, *, Tensor out=None, {_F})",),
    "ones": (f"ones(SymInt[] size, *, Tensor out=None, {_F})",),
    "empty": (f"empty(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor out=None, "
              f"{_F})",),
    "full": (f"full(SymInt[] size, Scalar fill_value, *, Tensor out=None, {_F})",),
    "randn": (f"randn(SymInt[] size, *, Generator? generator, Tensor out=None, {_F})",
              f"randn(SymInt[] size, *, Tensor out=None, {_F})"),
    "rand": (f"rand(SymInt[] size, *, Generator? generator, Tensor out=None, {_F})",
             f"rand(SymInt[] size, *, Tensor out=None, {_F})"),
    "arange": (f"arange(Scalar end, *, Tensor out=None, {_F})",
               f"arange(Scalar start, Scalar end, *, {_F})",
               f"arange(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, {_F})"),
    "randint": (f"randint(SymInt high, SymInt[] size, *, Generator? generator, "
                f"Tensor out=None, {_F})",
                f"randint(SymInt high, SymInt[] size, *, Tensor out=None, {_F})",
                f"randint(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, "
                f"Tensor out=None, {_F})",
                f"randint(SymInt low, SymInt high, SymInt[] size, *, Tensor out=None, {_F})"),
    "randperm": (f"randperm(SymInt n, *, Generator? generator, Tensor out=None, {_F})",
                 f"randperm(SymInt n, *, Tensor out=None, {_F})"),
    "linspace": tuple(f"linspace({a} start, {b} end, int steps, *, Tensor out=None, {_F})"
                      for a, b in (("Tensor", "Tensor"), ("Scalar", "Tensor"),
                                   ("Tensor", "Scalar"), ("Scalar", "Scalar"))),
    "eye": (f"eye(SymInt n, *, Tensor out=None, {_F})",
            f"eye(SymInt n, SymInt m, *, Tensor out=None, {_F})"),
    "zeros_like": (f"zeros_like(Tensor input, {_LIKE})",),
    "ones_like": (f"ones_like(Tensor input, {_LIKE})",),
    "empty_like": (f"empty_like(Tensor input, {_LIKE})",),
    "full_like": (f"full_like(Tensor input, Scalar fill_value, {_LIKE})",),
    "new_zeros": (f"new_zeros(SymInt[] size, {_NEW})|method",),
    "new_ones": (f"new_ones(SymInt[] size, {_NEW})|method",),
    "new_empty": (f"new_empty(SymInt[] size, {_NEW})|method",),
    "new_full": (f"new_full(SymInt[] size, Scalar fill_value, {_NEW})|method",),
    # -- shape -----------------------------------------------------------------------------------
    "view": ("view(dtype dtype)|method", "view(SymInt[] size)|method"),
    "reshape": ("reshape(Tensor input, SymInt[] shape)",),
    "permute": ("permute(Tensor input, int[] dims)",),
    "transpose": ("transpose(Tensor input, int dim0, int dim1)",),
    "unsqueeze": ("unsqueeze(Tensor input, int dim)",),
    "squeeze": ("squeeze(Tensor input)", "squeeze(Tensor input, int dim)",
                "squeeze(Tensor input, int[] dim)"),
    "flatten": ("flatten(Tensor input, int start_dim=0, int end_dim=-1)",),
    "expand": ("expand(SymInt[] size, *, bool implicit=False)|method",),
    "repeat": ("repeat(SymInt[] repeats)|method",),
    "narrow": ("narrow(Tensor input, int dim, Tensor start, SymInt length)",
               "narrow(Tensor input, int dim, SymInt start, SymInt length)"),
    "select": ("select(Tensor input, int dim, SymInt index)",),
    "chunk": ("chunk(Tensor input, int chunks, int dim=0)",),
    "cat": ("cat(Tensor[] tensors, int dim=0, *, Tensor out=None)",),
    "stack": ("stack(Tensor[] tensors, int dim=0, *, Tensor out=None)",),
    "gather": ("gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False, "
               "Tensor out=None)",),
    "index_select": ("index_select(Tensor input, int dim, Tensor index, *, Tensor out=None)",),
    "scatter": ("scatter(Tensor input, int dim, Tensor index, Tensor src, *, Tensor out=None)",
                "scatter(Tensor input, int dim, Tensor index, Tensor src, *, str reduce, "
                "Tensor out=None)",
                "scatter(Tensor input, int dim, Tensor index, Scalar value, *, Tensor out=None)",
                "scatter(Tensor input, int dim, Tensor index, Scalar value, *, str reduce, "
                "Tensor out=None)"),
    "index_add": ("index_add(Tensor input, int dim, Tensor index, Tensor source, *, "
                  "Scalar alpha=1, Tensor out=None)",),
    "index_fill": ("index_fill(Tensor input, int dim, Tensor index, Tensor value)",
                   "index_fill(Tensor input, int dim, Tensor index, Scalar value)"),
    "masked_fill": ("masked_fill(Tensor input, Tensor mask, Tensor value)",
                    "masked_fill(Tensor input, Tensor mask, Scalar value)"),
    "masked_select": ("masked_select(Tensor input, Tensor mask, *, Tensor out=None)",),
    "movedim": ("movedim(Tensor input, int source, int destination)",
                "movedim(Tensor input, int[] source, int[] destination)"),
    "flip": ("flip(Tensor input, int[] dims)",),
    "roll": ("roll(Tensor input, SymInt[1] shifts, int[1] dims=None)",),
    "diagonal": ("diagonal(Tensor input, int offset=0, int dim1=0, int dim2=1)",),
    "diag": ("diag(Tensor input, int diagonal=0, *, Tensor out=None)",),
    "tril": ("tril(Tensor input, SymInt diagonal=0, *, Tensor out=None)",),
    "triu": ("triu(Tensor input, SymInt diagonal=0, *, Tensor out=None)",),
    "unbind": ("unbind(Tensor input, int dim=0)",),
    "t": ("t(Tensor input)",),
    "broadcast_to": ("broadcast_to(Tensor input, SymInt[] size)",),
    "tile": ("tile(Tensor input, SymInt[] dims)",),
    "expand_as": ("expand_as(Tensor other)|method",),
    "view_as": ("view_as(Tensor other)|method",),
    "reshape_as": ("reshape_as(Tensor other)|method",),
    "type_as": ("type_as(Tensor other)|method",),
    "repeat_interleave": (
        "repeat_interleave(Tensor input, Tensor repeats, int? dim=None, *, "
        "SymInt? output_size=None)",
        "repeat_interleave(Tensor repeats, *, SymInt? output_size=None)|fn",
        "repeat_interleave(Tensor input, SymInt repeats, int? dim=None, *, "
        "SymInt? output_size=None)"),
    # -- reductions ------------------------------------------------------------------------------
    "sum": ("sum(Tensor input, *, dtype? dtype=None)",
            "sum(Tensor input, int[1]? dim, bool keepdim=False, *, dtype? dtype=None, "
            "Tensor out=None)"),
    "mean": ("mean(Tensor input, *, dtype? dtype=None, Tensor out=None)",
             "mean(Tensor input, int[1]? dim, bool keepdim=False, *, dtype? dtype=None, "
             "Tensor out=None)"),
    "prod": ("prod(Tensor input, *, dtype? dtype=None)",
             "prod(Tensor input, int dim, bool keepdim=False, *, dtype? dtype=None, "
             "Tensor out=None)"),
    "max": ("max(Tensor input, *, Tensor out=None)",
            "max(Tensor input, Tensor other, *, Tensor out=None)",
            "max(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)"),
    "min": ("min(Tensor input, *, Tensor out=None)",
            "min(Tensor input, Tensor other, *, Tensor out=None)",
            "min(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)"),
    "argmax": ("argmax(Tensor input, int? dim=None, bool keepdim=False, *, Tensor out=None)",),
    "mode": ("mode(Tensor input, int dim=-1, bool keepdim=False, *, Tensor[2] out=None)",),
    "aminmax": ("aminmax(Tensor input, *, int? dim=None, bool keepdim=False, "
                "Tensor[2] out=None)",),
    "median": ("median(Tensor input)",
               "median(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)"),
    "nanmedian": ("nanmedian(Tensor input)",
                  "nanmedian(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)"),
    "nansum": ("nansum(Tensor input, int[1]? dim=None, bool keepdim=False, *, dtype? dtype=None, "
               "Tensor out=None)",),
    "nanmean": ("nanmean(Tensor input, int[1]? dim=None, bool keepdim=False, *, "
                "dtype? dtype=None, Tensor out=None)",),
    "count_nonzero": ("count_nonzero(Tensor input, int? dim=None)",
                      "count_nonzero(Tensor input, int[] dim)"),
    "argmin": ("argmin(Tensor input, int? dim=None, bool keepdim=False, *, Tensor out=None)",),
    "amax": ("amax(Tensor input, int[1] dim=None, bool keepdim=False, *, Tensor out=None)",),
    "amin": ("amin(Tensor input, int[1] dim=None, bool keepdim=False, *, Tensor out=None)",),
    "cumsum": ("cumsum(Tensor input, int dim, *, dtype? dtype=None, Tensor out=None)",),
    "cumprod": ("cumprod(Tensor input, int dim, *, dtype? dtype=None, Tensor out=None)",),
    "logsumexp": ("logsumexp(Tensor input, int[1] dim, bool keepdim=False, *, "
                  "Tensor out=None)",),
    "std": ("std(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
            "Tensor out=None)",
            "std(Tensor input, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False, Tensor out=None)",
            "std(Tensor input, bool unbiased=True)"),
    "var": ("var(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
            "Tensor out=None)",
            "var(Tensor input, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False, Tensor out=None)",
            "var(Tensor input, bool unbiased=True)"),
    "all": ("all(Tensor input, *, Tensor out=None)",
            "all(Tensor input, int[]? dim=None, bool keepdim=False, *, Tensor out=None)",
            "all(Tensor input, int dim, bool keepdim=False, *, Tensor out=None)"),
    "any": ("any(Tensor input, *, Tensor out=None)",
            "any(Tensor input, int[]? dim=None, bool keepdim=False, *, Tensor out=None)",
            "any(Tensor input, int dim, bool keepdim=False, *, Tensor out=None)"),
    "softmax": ("softmax(Tensor input, int dim, dtype? dtype=None, *, Tensor out=None)",),
    "log_softmax": ("log_softmax(Tensor input, int dim, dtype? dtype=None, *, "
                    "Tensor out=None)",),
    "hsplit": ("hsplit(Tensor input, int sections)", "hsplit(Tensor input, int[] indices)"),
    "vsplit": ("vsplit(Tensor input, int sections)", "vsplit(Tensor input, int[] indices)"),
    "dsplit": ("dsplit(Tensor input, int sections)", "dsplit(Tensor input, int[] indices)"),
    "kthvalue": ("kthvalue(Tensor input, SymInt k, int dim=-1, bool keepdim=False, *, "
                 "Tensor[2] out=None)",),
    "topk": ("topk(Tensor input, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
             "Tensor[2] out=None)",),
    "sort": ("sort(Tensor input, *, bool? stable, int dim=-1, bool descending=False, "
             "Tensor[2] out=None)",
             "sort(Tensor input, int dim=-1, bool descending=False, *, Tensor[2] out=None)"),
    "argsort": ("argsort(Tensor input, *, bool stable, int dim=-1, bool descending=False, "
                "Tensor out=None)",
                "argsort(Tensor input, int dim=-1, bool descending=False)"),
    # -- pointwise -------------------------------------------------------------------------------
    "add": ("add(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|hidden",
            "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)"),
    "sub": ("sub(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|hidden",
            "sub(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)"),
    "mul": ("mul(Tensor input, Tensor other, *, Tensor out=None)",),
    "div": ("div(Tensor input, Tensor other, *, Tensor out=None)",
            "div(Tensor input, Tensor other, *, str? rounding_mode, Tensor out=None)",
            "div(Tensor input, Scalar other, *, str? rounding_mode)"),
    "pow": ("pow(Tensor input, Tensor exponent, *, Tensor out=None)",
            "pow(Scalar self, Tensor exponent, *, Tensor out=None)|fn",
            "pow(Tensor input, Scalar exponent, *, Tensor out=None)"),
    "clamp": ("clamp(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor out=None)",
              "clamp(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor out=None)"),
    "clamp_": ("clamp_(Tensor input, Tensor? min=None, Tensor? max=None)",
               "clamp_(Tensor input, Scalar? min=None, Scalar? max=None)"),
    "where": ("where(Tensor condition)|fn",
              "where(Tensor condition, Tensor input, Tensor other, *, Tensor out=None)|fn",
              "where(Tensor condition, Scalar self, Tensor other)|fn",
              "where(Tensor condition, Tensor input, Scalar other)|fn",
              "where(Tensor condition, Scalar self, Scalar other)|fn",
              "where(Tensor condition, Tensor other)|method",
              "where(Tensor condition, Scalar other)|method"),
    # bound by hand in torch (python_variable_methods.cpp), a method alone
    "to": ("to(Device device=None, dtype dtype=None, bool non_blocking=False, bool copy=False, *, "
           "MemoryFormat? memory_format=None)|method",
           "to(dtype dtype, bool non_blocking=False, bool copy=False, *, "
           "MemoryFormat? memory_format=None)|method",
           "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, "
           "MemoryFormat? memory_format=None)|method"),
    "set_": ("set_()|method", "set_(Storage source)|method",
             "set_(Storage source, SymInt storage_offset, SymInt[] size, SymInt[] stride=None)"
             "|method",
             "set_(Tensor source)|method",
             "set_(Tensor source, SymInt storage_offset, SymInt[] size, SymInt[] stride=None)"
             "|method"),
    "new": ("new(*, Device? device=None)|method", "new(Storage storage)|method",
            "new(*, int cdata)|method,hidden", "new(Tensor other)|method",
            "new(Tensor other, *, Device? device=None)|method,hidden",
            "new(SymInt[] size, *, Device? device=None)|method",
            "new(object data, *, Device? device=None)|method"),
    "map_": ("map_(Tensor other, object callable)|method",),
    "map2_": ("map2_(Tensor x, Tensor y, object callable)|method",),
    "new_tensor": ("new_tensor(object data, *, dtype dtype=None, Device? device=None, "
                   "bool requires_grad=False)|method",),
    "lerp": ("lerp(Tensor input, Tensor end, Tensor weight, *, Tensor out=None)",
             "lerp(Tensor input, Tensor end, Scalar weight, *, Tensor out=None)"),
    "fill_": ("fill_(Tensor input, Tensor value)", "fill_(Tensor input, Scalar value)"),
    "zero_": ("zero_(Tensor input)",),
    "copy_": ("copy_(Tensor other, bool non_blocking=False)|method",),
    "round": ("round(Tensor input, *, Tensor out=None)",
              "round(Tensor input, *, int decimals, Tensor out=None)"),
    "nan_to_num": ("nan_to_num(Tensor input, float? nan=None, float? posinf=None, "
                   "float? neginf=None, *, Tensor out=None)",),
    "diff": ("diff(Tensor input, int n=1, int dim=-1, Tensor? prepend=None, "
             "Tensor? append=None, *, Tensor out=None)",),
    # -- products --------------------------------------------------------------------------------
    "matmul": ("matmul(Tensor input, Tensor other, *, Tensor out=None)",),
    "mm": ("mm(Tensor input, Tensor mat2, *, Tensor out=None)",
           "mm(Tensor input, Tensor mat2, dtype out_dtype, *, Tensor out=None)|fn"),
    "bmm": ("bmm(Tensor input, Tensor mat2, *, Tensor out=None)",
            "bmm(Tensor input, Tensor mat2, dtype out_dtype, *, Tensor out=None)|fn"),
    "dot": ("dot(Tensor input, Tensor tensor, *, Tensor out=None)",),
    "outer": ("outer(Tensor input, Tensor vec2, *, Tensor out=None)",),
    # (addmm, baddbmm and the other add*: _signatures_more.py)
    # -- other -----------------------------------------------------------------------------------
    "clone": ("clone(Tensor input, *, MemoryFormat? memory_format=None)",),
    "detach": ("detach(Tensor input)",),
    "nonzero": ("nonzero(Tensor input, *, Tensor out=None)",
                "nonzero(Tensor input, *, bool as_tuple)"),
    "allclose": ("allclose(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, "
                 "bool equal_nan=False)",),
    "equal": ("equal(Tensor input, Tensor other)",),
    # -- Python composites in dyngrad, bindings in torch (their failures on a wrong argument
    # are explained: published() in _arg_parser.py) ------------------------------------------
    "unsafe_chunk": ("unsafe_chunk(Tensor input, int chunks, int dim=0)",),
    "conj": ("conj(Tensor input)",),
    "conj_physical": ("conj_physical(Tensor input, *, Tensor out=None)",),
    "cross": ("cross(Tensor input, Tensor other, int? dim=None, *, Tensor out=None)",),
    "kron": ("kron(Tensor input, Tensor other, *, Tensor out=None)",),
    "masked_scatter": ("masked_scatter(Tensor input, Tensor mask, Tensor source)",),
    "as_strided": ("as_strided(Tensor input, SymInt[] size, SymInt[] stride, "
                   "SymInt? storage_offset=None)",),
    "as_strided_copy": ("as_strided_copy(Tensor input, SymInt[] size, SymInt[] stride, "
                        "SymInt? storage_offset=None, *, Tensor out=None)",),
    "as_strided_scatter": ("as_strided_scatter(Tensor input, Tensor src, SymInt[] size, "
                           "SymInt[] stride, SymInt? storage_offset=None)",),
    "scaled_dot_product_attention": (
        "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
        "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, "
        "float? scale=None, bool enable_gqa=False)",),
    "tensor_split": ("tensor_split(Tensor input, SymInt[] indices, int dim=0)",
                     "tensor_split(Tensor input, Tensor tensor_indices_or_sections, int dim=0)",
                     "tensor_split(Tensor input, SymInt sections, int dim=0)"),
    "svd": ("svd(Tensor input, bool some=True, bool compute_uv=True, *, Tensor[3] out=None)",),
    "unflatten": ("unflatten(Tensor input, int dim, SymInt[] sizes)",),
    "pinverse": ("pinverse(Tensor input, float rcond=1e-15)",),
    "index_reduce": ("index_reduce(Tensor input, int dim, Tensor index, Tensor source, "
                     "str reduce, *, bool include_self=True, Tensor out=None)",),
    "put": ("put(Tensor input, Tensor index, Tensor source, bool accumulate=False)",),
    "take_along_dim": ("take_along_dim(Tensor input, Tensor indices, int? dim=None, *, "
                       "Tensor out=None)",),
    "nonzero_static": ("nonzero_static(Tensor input, *, SymInt size, int fill_value=-1, "
                       "Tensor out=None)",),
    "argwhere": ("argwhere(Tensor input)",),
    "diagflat": ("diagflat(Tensor input, int offset=0)",),
    "cosine_similarity": ("cosine_similarity(Tensor x1, Tensor x2, int dim=1, "
                          "float eps=1e-08)",),
    "pairwise_distance": ("pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, "
                          "bool keepdim=False)",),
    "bilinear": ("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)",),
    "rms_norm": ("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
                 "float? eps=None)",),
    "matrix_exp": ("matrix_exp(Tensor input)",),
    "logdet": ("logdet(Tensor input)",),
    "qr": ("qr(Tensor input, bool some=True, *, Tensor[2] out=None)",),
    "lu_solve": ("lu_solve(Tensor input, Tensor LU_data, Tensor LU_pivots, *, Tensor out=None)",),
    "layer_norm": ("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
                   "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True)",),
    # OpSpecs whose table entry words the error for a wrongly typed argument (dim='a')
    **{n: (f"{n}(Tensor input, int dim, *, Tensor[2] out=None)",) for n in ("cummax", "cummin")},
    "logcumsumexp": ("logcumsumexp(Tensor input, int dim, *, Tensor out=None)",),
    "index_copy": ("index_copy(Tensor input, int dim, Tensor index, Tensor source, *, "
                   "Tensor out=None)",),
    "scatter_add": ("scatter_add(Tensor input, int dim, Tensor index, Tensor src, *, "
                    "Tensor out=None)",),
    "renorm": ("renorm(Tensor input, Scalar p, int dim, Scalar maxnorm, *, Tensor out=None)",),
    "select_scatter": ("select_scatter(Tensor input, Tensor src, int dim, SymInt index)",),
    "slice_scatter": ("slice_scatter(Tensor input, Tensor src, int dim=0, SymInt? start=None, "
                      "SymInt? end=None, SymInt step=1, *, Tensor out=None)",),
    "unbind_copy": ("unbind_copy(Tensor input, int dim=0, *, Tensor[] out=None)",),
    "unsqueeze_copy": ("unsqueeze_copy(Tensor input, int dim, *, Tensor out=None)",),
    "transpose_copy": ("transpose_copy(Tensor input, int dim0, int dim1, *, Tensor out=None)",),
    "unfold_copy": ("unfold_copy(Tensor input, int dimension, int size, int step, *, "
                    "Tensor out=None)",),
    "permute_copy": ("permute_copy(Tensor input, int[] dims, *, Tensor out=None)",),
    "expand_copy": ("expand_copy(Tensor input, SymInt[] size, *, bool implicit=False, "
                    "Tensor out=None)",),
    "split_with_sizes": ("split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)",),
    "split_with_sizes_copy": ("split_with_sizes_copy(Tensor input, SymInt[] split_sizes, "
                              "int dim=0, *, Tensor[] out=None)",),
    "unsafe_split": ("unsafe_split(Tensor input, SymInt split_size, int dim=0)",),
    "native_batch_norm": ("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
                          "Tensor? running_mean, Tensor? running_var, bool training, "
                          "float momentum, float eps, *, Tensor[3] out=None)",),
    "native_group_norm": ("native_group_norm(Tensor input, Tensor? weight, Tensor? bias, "
                          "SymInt N, SymInt C, SymInt HxW, int group, float eps)",),
    "native_layer_norm": ("native_layer_norm(Tensor input, SymInt[] normalized_shape, "
                          "Tensor? weight, Tensor? bias, float eps)",),
    **{f"grid_sampler_{n}d": (f"grid_sampler_{n}d(Tensor input, Tensor grid, "
                              "int interpolation_mode, int padding_mode, bool align_corners)",)
       for n in (2, 3)},
    "glu": ("glu(Tensor input, int dim=-1, *, Tensor out=None)",),
    "avg_pool1d": ("avg_pool1d(Tensor input, int[1] kernel_size, int[1] stride=None, "
                   "int[1] padding=0, bool ceil_mode=False, bool count_include_pad=True)",),
    "adaptive_avg_pool1d": ("adaptive_avg_pool1d(Tensor input, int[1] output_size)",),
    **{f"avg_pool{n}d": (f"avg_pool{n}d(Tensor input, int[{n}] kernel_size, "
                         f"int[{n}] stride=None, int[{n}] padding=0, bool ceil_mode=False, "
                         "bool count_include_pad=True, int? divisor_override=None, *, "
                         "Tensor out=None)",) for n in (2, 3)},
    "scatter_reduce": ("scatter_reduce(Tensor input, int dim, Tensor index, Tensor src, "
                       "str reduce, *, bool include_self=True, Tensor out=None)",),
    "unfold": ("unfold(int dimension, int size, int step)|method",),
    # OpSpecs whose overloads decide the message for a wrong first argument
    **{n: (f"{n}(Tensor input, Tensor other, *, Tensor out=None)",
           f"{n}(Scalar self, Tensor other)|fn",
           f"{n}(Tensor input, Scalar other, *, Tensor out=None)")
       for n in ("remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                 "bitwise_right_shift")},
    "floor_divide": ("floor_divide(Tensor input, Tensor other, *, Tensor out=None)",
                     "floor_divide(Tensor input, Scalar other)"),
    "true_divide": ("true_divide(Tensor input, Tensor other, *, Tensor out=None)",
                    "true_divide(Tensor input, Scalar other)"),
    **{n: (f"{n}(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False)",
           f"{n}(Tensor input, int[1]? dim=None, *, Scalar? correction=None, "
           "bool keepdim=False)",
           f"{n}(Tensor input, bool unbiased=True)") for n in ("var_mean", "std_mean")},
    "fill": ("fill(Tensor input, Tensor value)", "fill(Tensor input, Scalar value)"),
    "view_copy": ("view_copy(Tensor input, dtype dtype, *, Tensor out=None)",
                  "view_copy(Tensor input, SymInt[] size, *, Tensor out=None)"),
    # torch.nn.functional's convolutions are these bindings
    **{f"conv{n}d": tuple(
        f"conv{n}d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[{n}] stride=1, "
        f"{padding}, SymInt[{n}] dilation=1, SymInt groups=1)"
        for padding in (f"SymInt[{n}] padding=0", 'str padding="valid"')) for n in (1, 2, 3)},
    **{f"conv_transpose{n}d": (
        f"conv_transpose{n}d(Tensor input, Tensor weight, Tensor? bias=None, "
        f"SymInt[{n}] stride=1, SymInt[{n}] padding=0, SymInt[{n}] output_padding=0, "
        f"SymInt groups=1, SymInt[{n}] dilation=1)",) for n in (1, 2, 3)},
    # torch.linalg.<name> (published under its binding's name, linalg_<name>)
    "linalg_vector_norm": ("linalg_vector_norm(Tensor input, Scalar ord=2, int[1]? dim=None, "
                           "bool keepdim=False, *, dtype? dtype=None, Tensor out=None)",),
    "linalg_eig": ("linalg_eig(Tensor input, *, Tensor[2] out=None)",),
    "linalg_eigh": ('linalg_eigh(Tensor input, str UPLO="L", *, Tensor[2] out=None)',),
    "linalg_matrix_power": ("linalg_matrix_power(Tensor input, int n, *, Tensor out=None)",),
    "linalg_det": ("linalg_det(Tensor A, *, Tensor out=None)",),
    "linalg_inv": ("linalg_inv(Tensor A, *, Tensor out=None)",),
    "linalg_cholesky": ("linalg_cholesky(Tensor input, *, bool upper=False, Tensor out=None)",),
    "linalg_ldl_factor": ("linalg_ldl_factor(Tensor input, *, bool hermitian=False, "
                          "Tensor[2] out=None)",),
    "linalg_slogdet": ("linalg_slogdet(Tensor A, *, Tensor[2] out=None)",),
    "linalg_lu_factor": ("linalg_lu_factor(Tensor A, *, bool pivot=True, Tensor[2] out=None)",),
    "linalg_solve": ("linalg_solve(Tensor A, Tensor B, *, bool left=True, Tensor out=None)",),
    "linalg_solve_ex": ("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, "
                        "bool check_errors=False, Tensor[2] out=None)",),
    "linalg_svd": ("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None, "
                   "Tensor[3] out=None)",),
    "linalg_diagonal": ("linalg_diagonal(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1)",),
    "linalg_vecdot": ("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1, Tensor out=None)",),
    "linalg_cond": ("linalg_cond(Tensor input, Scalar? p=None, *, Tensor out=None)",
                    "linalg_cond(Tensor input, str p, *, Tensor out=None)"),
    "linalg_eigvals": ("linalg_eigvals(Tensor input, *, Tensor out=None)",),
    "linalg_eigvalsh": ('linalg_eigvalsh(Tensor input, str UPLO="L", *, Tensor out=None)',),
    "linalg_norm": tuple(
        f"linalg_norm(Tensor input, {o}, int[1]? dim=None, bool keepdim=False, *, "
        "dtype? dtype=None, Tensor out=None)" for o in ("Scalar? ord=None", "str ord")),
    "linalg_matrix_norm": tuple(
        f"linalg_matrix_norm(Tensor input, {o}, int[] dim={{-2,-1}}, bool keepdim=False, *, "
        "dtype? dtype=None, Tensor out=None)" for o in ("Scalar ord", 'str ord="fro"')),
    "linalg_matrix_rank": (
        "linalg_matrix_rank(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, "
        "bool hermitian=False, Tensor out=None)",
        "linalg_matrix_rank(Tensor input, *, float? atol=None, float? rtol=None, "
        "bool hermitian=False, Tensor out=None)",
        "linalg_matrix_rank(Tensor input, Tensor tol, bool hermitian=False, *, Tensor out=None)",
        "linalg_matrix_rank(Tensor input, float tol, bool hermitian=False, *, Tensor out=None)"),
    "linalg_pinv": (
        "linalg_pinv(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, "
        "bool hermitian=False, Tensor out=None)",
        "linalg_pinv(Tensor input, *, float? atol=None, float? rtol=None, "
        "bool hermitian=False, Tensor out=None)",
        "linalg_pinv(Tensor input, Tensor rcond, bool hermitian=False, *, Tensor out=None)",
        "linalg_pinv(Tensor input, float rcond, bool hermitian=False, *, Tensor out=None)"),
    "linalg_svdvals": ("linalg_svdvals(Tensor A, *, str? driver=None, Tensor out=None)",),
    "linalg_tensorinv": ("linalg_tensorinv(Tensor input, int ind=2, *, Tensor out=None)",),
    "linalg_tensorsolve": ("linalg_tensorsolve(Tensor input, Tensor other, int[]? dims=None, *, "
                           "Tensor out=None)",),
    **_unary("abs", "exp", "sigmoid", "tanh", "sqrt", "neg", "floor", "log", "sign", "square",
             "sin", "cos", "ceil", "trunc", "log2", "log10", "rsqrt", "reciprocal", "exp2",
             "expm1", "log1p", "frac"),
    **{n: (f"{n}(Tensor input)",) for n in ("relu", "isnan")},
    **_compare("eq", "ne", "lt", "le", "gt", "ge"),
    **_binary("maximum", "minimum", "atan2"),
    **_MORE,
}

# The Tensor methods torch binds as C methods without parameters (METH_NOARGS: one overload
# taking only ``self``), for which Python itself words a call with arguments:
# "TensorBase.abs() takes no keyword arguments", "... takes no arguments (1 given)" (keywords
# are refused first). tests/test_method_keywords.py keeps the list equal to torch's.
NOARGS_METHODS = frozenset("""
    abs abs_ absolute absolute_ acos acos_ acosh acosh_ adjoint angle apply_ arccos arccos_
    arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan_ arctanh arctanh_ argwhere
    asin asin_ asinh asinh_ atan atan_ atanh atanh_ bitwise_not bitwise_not_ ccol_indices ceil
    ceil_ coalesce col_indices conj conj_physical conj_physical_ const_data_ptr corrcoef cos cos_
    cosh cosh_ crow_indices data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_
    digamma digamma_ dim element_size erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_
    expm1 expm1_ fix fix_ fliplr flipud floor floor_ frac frac_ frexp geqrf get_device i0 i0_
    indices int_repr inverse is_coalesced is_complex is_conj is_distributed is_floating_point
    is_inference is_neg is_nonzero is_signed isfinite isinf isnan isneginf isposinf isreal item
    lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_ logdet logical_not logical_not_
    matrix_exp msort ndimension neg neg_ negative negative_ nelement numel positive
    q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qscheme
    rad2deg rad2deg_ ravel reciprocal reciprocal_ relu relu_ resolve_conj resolve_neg retain_grad
    row_indices rsqrt rsqrt_ sgn sgn_ sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_
    sinh sinh_ slogdet sparse_dim sqrt sqrt_ square square_ storage_offset t t_ tan tan_ tanh
    tanh_ tolist trace trunc trunc_ untyped_storage values zero_
""".split())

# The Tensor methods torch writes in Python (torch/_tensor.py): Python words their binding
# errors, naming the class ("Tensor.norm() got an unexpected keyword argument 'out'").
# tests/test_method_keywords.py keeps the list equal to torch's.
PYTHON_METHODS = frozenset("""
    backward dim_order eig is_shared istft lstsq lu module_load norm register_hook
    register_post_accumulate_grad_hook reinforce resize resize_as share_memory_ solve split stft
    storage storage_type symeig unflatten unique unique_consecutive
""".split())
