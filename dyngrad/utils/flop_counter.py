"""torch.utils.flop_counter: count the FLOPs of the ops run inside a block, per module.

Note [Counting FLOPs]
~~~~~~~~~~~~~~~~~~~~~
torch's ``FlopCounterMode`` is a TorchDispatchMode: it sees every aten op that reaches the
dispatcher, forward and backward, after composite ops (``linear``, ``matmul``, ``einsum``) have
decomposed into the ops that really run (``addmm``, ``mm``, ``bmm``), and counts those that its
registry has a formula for. dyngrad's ops reach one place too, the dispatcher's
``_intercepted`` (ops/_dispatch.py), which the profiler and autocast already use: while a
counter is open, ``_dispatch._flop_hook`` is ``_count_op`` here, and the dispatcher's flag
``_intercept`` sends every op through ``_intercepted``, which calls the hook with the op's
arguments and result once the op has run. Backward formulas call ops through the dispatcher as
well (``MmBackward0`` runs two ``mm``), so backward is counted as torch counts its backward
aten ops. dyngrad decomposes composite functions into the same primitives as torch (a linear
layer on 3-d input is a ``view``, an ``addmm`` and a ``view``); tests/test_flop_counter.py
checks the counts against torch's. With no counter open the hook is None and ``_intercept``
stays off: the ops pay nothing.

The counts are keyed by op as torch's are, by ``OpOverloadPacket``: here a ``_OpPacket`` whose
``str`` is torch's (``aten.mm``), found through the module's ``aten`` (``aten.mm``), as in
torch's module. Which modules are running comes from ``ModuleTracker``
(utils/module_tracker.py): an op counts for every module in its ``parents``, "Global" included.

Differences from torch: no higher-order ops (cond, triton kernels), and on CPU, as in torch,
attention (``_scaled_dot_product_flash_attention_for_cpu``) has no formula and counts nothing.
A custom formula for an op receives the op's arguments as dyngrad's dispatcher receives them:
torch's aten order for the ops in the registry.
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from functools import wraps
from math import prod

from ._pytree import tree_map
from .module_tracker import ModuleTracker

__all__ = ["FlopCounterMode", "register_flop_formula"]


class _OpPacket:
    """An aten op as a key of the counts (torch's OpOverloadPacket): ``str`` is ``aten.mm``."""

    __slots__ = ("__name__", "_qualified_op_name")

    def __init__(self, name: str) -> None:
        self.__name__ = name
        self._qualified_op_name = "aten::" + name

    def __str__(self) -> str:
        return "aten." + self.__name__

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self.__name__}')>"

    def __reduce__(self):
        return (getattr, (aten, self.__name__))


class _Aten:
    """The ``aten`` namespace of op keys: ``aten.mm`` is the one key of the op ``mm``."""

    def __init__(self) -> None:
        self._packets = {}

    def __getattr__(self, name: str) -> _OpPacket:
        if name.startswith("__"):
            raise AttributeError(name)
        packet = self._packets.get(name)
        if packet is None:
            packet = self._packets[name] = _OpPacket(name)
        return packet


aten = _Aten()


def get_shape(i):
    from .._tensor import Tensor
    return i.shape if isinstance(i, Tensor) else i


def shape_wrapper(f):
    """A formula over shapes as one over the op's arguments and result (``out_val``)."""
    @wraps(f)
    def nf(*args, out_val=None, **kwargs):
        args, kwargs, out_shape = tree_map(get_shape, (args, kwargs, out_val))
        return f(*args, out_shape=out_shape, **kwargs)
    return nf


flop_registry: dict = {}


def register_flop_formula(targets, get_raw=False):
    """Register a formula for an op (or a list of ops): ``formula(*shapes, out_shape=...)``
    called with the shapes of the op's arguments and result, or with the arguments themselves
    and ``out_val=`` when ``get_raw``."""
    def register_fun(flop_formula):
        if not get_raw:
            flop_formula = shape_wrapper(flop_formula)
        for target in (targets if isinstance(targets, (list, tuple)) else [targets]):
            if not isinstance(target, _OpPacket):
                raise ValueError(
                    f"register_flop_formula(targets): expected each target to be "
                    f"OpOverloadPacket (i.e. torch.ops.mylib.foo), JitFunction, "
                    f"or HigherOrderOperator, got {target} which is of type {type(target)}")
            if target in flop_registry:
                raise RuntimeError(f"duplicate registrations for {target}")
            flop_registry[target] = flop_formula
        return flop_formula
    return register_fun


# -- the formulas (a multiply and an add per term; bias terms are not counted) -----------------
@register_flop_formula(aten.mm)
def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    """(m, k) @ (k, n): m * n dot products of length k."""
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


@register_flop_formula(aten.addmm)
def addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    return mm_flop(a_shape, b_shape)


@register_flop_formula(aten.bmm)
def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs) -> int:
    """(b, m, k) @ (b, k, n): b matrix products."""
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


@register_flop_formula(aten.baddbmm)
def baddbmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    return bmm_flop(a_shape, b_shape)


@register_flop_formula(aten._scaled_mm)
def _scaled_mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    return mm_flop(a_shape, b_shape)


def conv_flop_count(x_shape, w_shape, out_shape, transposed: bool = False) -> int:
    """Each point of the output (of the input, transposed) is a filter's worth of products,
    for each pair of input and output channels (per group: ``w_shape[1]`` is ``c_in / groups``)
    and each sample. Padding is not discounted."""
    batch_size = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return prod(conv_shape) * prod(filter_size) * batch_size * c_out * c_in * 2


@register_flop_formula([aten.convolution, aten._convolution, aten.cudnn_convolution,
                        aten._slow_conv2d_forward, aten.convolution_overrideable])
def conv_flop(x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed, *args,
              out_shape=None, **kwargs) -> int:
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


@register_flop_formula(aten.convolution_backward)
def conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation,
                       transposed, _output_padding, _groups, output_mask, out_shape,
                       **kwargs) -> int:
    """grad_input is the transposed convolution of grad_out by the weight (the plain one for a
    transposed convolution); grad_weight a convolution of the input by grad_out (of grad_out
    by the input, transposed), batch and channels swapped."""
    def t(shape):
        return [shape[1], shape[0]] + list(shape[2:])
    flops = 0
    if output_mask[0]:
        flops += conv_flop_count(grad_out_shape, w_shape, get_shape(out_shape[0]),
                                 not transposed)
    if output_mask[1]:
        gw_shape = get_shape(out_shape[1])
        if transposed:
            flops += conv_flop_count(t(grad_out_shape), t(x_shape), t(gw_shape), False)
        else:
            flops += conv_flop_count(t(x_shape), t(grad_out_shape), t(gw_shape), False)
    return flops


def sdpa_flop_count(query_shape, key_shape, value_shape) -> int:
    """q @ k^T then scores @ v, per batch and query head (key/value heads may be fewer)."""
    b, h_q, s_q, d_q = query_shape
    _b2, h_kv, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    if not (b == _b2 == _b3 and h_kv == _h3 and d_q == _d2 and s_k == _s3):
        raise AssertionError(f"sdpa_flop_count: query/key/value shapes are incompatible: "
                             f"q={query_shape}, k={key_shape}, v={value_shape}")
    return (bmm_flop((b * h_q, s_q, d_q), (b * h_q, d_q, s_k))
            + bmm_flop((b * h_q, s_q, s_k), (b * h_q, s_k, d_v)))


@register_flop_formula([aten._scaled_dot_product_efficient_attention,
                        aten._scaled_dot_product_flash_attention,
                        aten._scaled_dot_product_cudnn_attention])
def sdpa_flop(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    return sdpa_flop_count(query_shape, key_shape, value_shape)


def sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape) -> int:
    """The scores again, then the gradients through scores @ v (two products) and q @ k^T
    (two more)."""
    b, h_q, s_q, d_q = query_shape
    _b2, h_kv, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    bh = b * h_q
    return (bmm_flop((bh, s_q, d_q), (bh, d_q, s_k))
            + bmm_flop((bh, s_q, d_v), (bh, d_v, s_k))
            + bmm_flop((bh, s_k, s_q), (bh, s_q, d_v))
            + bmm_flop((bh, s_q, s_k), (bh, s_k, d_q))
            + bmm_flop((bh, d_q, s_q), (bh, s_q, s_k)))


@register_flop_formula([aten._scaled_dot_product_efficient_attention_backward,
                        aten._scaled_dot_product_flash_attention_backward,
                        aten._scaled_dot_product_cudnn_attention_backward])
def sdpa_backward_flop(grad_out_shape, query_shape, key_shape, value_shape, *args,
                       out_shape=None, **kwargs) -> int:
    return sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


# -- the table --------------------------------------------------------------------------------
suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number) -> str:
    """The suffix for a number of this many digits, one digit of overflow allowed (1001M, not
    1.001B)."""
    return suffixes[max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))]


def convert_num_with_suffix(number, suffix: str) -> str:
    return f"{number / 1000 ** suffixes.index(suffix):.3f}" + suffix


def convert_to_percent_str(num, denom) -> str:
    return "0%" if denom == 0 else f"{num / denom:.2%}"


def _tabulate(rows, headers) -> str:
    """The table as torch prints it through ``tabulate`` (format "simple", columns aligned
    left, right, right): each column as wide as its widest cell and at least its header plus
    two; a column whose cells are all numbers (the counts, with no suffix) shows them as
    tabulate does, with format "g". torch asks tabulate to keep the cells' leading spaces (its
    global PRESERVE_WHITESPACE), which tabulate 0.10 no longer reads: the cells are stripped,
    and nested modules print unindented, as torch prints them with the tabulate pip installs."""
    cols = [[v.strip() for v in c] for c in zip(*rows)]
    for c in cols:
        if all(_is_number(v) for v in c):
            c[:] = [format(float(v), "g") if "." in v else str(int(v)) for v in c]
    widths = [max([len(h) + 2] + [len(v) for v in c]) for h, c in zip(headers, cols)]

    def line(cells):
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                         for i, (v, w) in enumerate(zip(cells, widths)))
    out = [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in zip(*cols)]
    return "\n".join(out)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# -- the counter -------------------------------------------------------------------------------
_active: list = []   # the open counters, innermost last


def _count_op(spec, args, kwargs, out) -> None:
    """The dispatcher's hook (Note [Counting FLOPs]): count one op in every open counter."""
    bound = None
    for counter in _active:
        formula = counter._by_name.get(spec.base)
        if formula is None:
            continue
        if bound is None:   # the arguments in the op's order, as torch's mode receives them
            bound = args, kwargs
            if kwargs:
                kwargs = {k: v for k, v in kwargs.items() if k != "out"}
                bound = spec.bind(args, kwargs) if kwargs else (args, kwargs)
        counter._count_flops(formula[0], formula[1], out, *bound)


class FlopCounterMode:
    """A context manager that counts the FLOPs of the ops run inside it, forward and backward,
    for the whole block ("Global") and per module (torch's FlopCounterMode).

    Args:
        mods: not needed any more (a warning says so); modules are found as they run.
        depth: how deep the table goes into the module tree.
        display: print the table when the block ends.
        custom_mapping: ``{aten.op: formula}``, formulas of one's own (see
            ``register_flop_formula``), over those of the registry.

    Example::

        >>> mod = dyngrad.nn.Linear(8, 4)
        >>> with FlopCounterMode(display=False) as counter:
        ...     mod(dyngrad.randn(2, 8)).sum().backward()
        >>> counter.get_total_flops()
        192
    """

    def __init__(self, mods=None, depth: int = 2, display: bool = True,
                 custom_mapping: dict | None = None) -> None:
        self.flop_counts: dict = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        if custom_mapping is None:
            custom_mapping = {}
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it",
                          stacklevel=2)
        self.flop_registry = {
            **flop_registry,
            **{k: v if getattr(v, "_get_raw", False) else shape_wrapper(v)
               for k, v in custom_mapping.items()}}
        self.mod_tracker = ModuleTracker()
        self._by_name = {}

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """The counts: ``{module name: {op: flops}}``, "Global" for the whole block."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None) -> str:
        """The counts as torch prints them: a module's row, then one row per op, for each
        module down to `depth` (in name order), under a "Global" row when some FLOPs ran
        outside every module."""
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        header = ["Module", "FLOP", "% Total"]
        values = []
        global_flops = self.get_total_flops()
        global_suffix = get_suffix_str(global_flops)
        is_global_subsumed = False

        def process_mod(mod_name, depth):
            nonlocal is_global_subsumed
            total_flops = sum(self.flop_counts[mod_name].values())
            is_global_subsumed |= total_flops >= global_flops
            padding = " " * depth
            rows = [[padding + mod_name, convert_num_with_suffix(total_flops, global_suffix),
                     convert_to_percent_str(total_flops, global_flops)]]
            for k, v in self.flop_counts[mod_name].items():
                rows.append([padding + " - " + str(k), convert_num_with_suffix(v, global_suffix),
                             convert_to_percent_str(v, global_flops)])
            return rows

        for mod in sorted(self.flop_counts.keys()):
            if mod == "Global":
                continue
            mod_depth = mod.count(".") + 1
            if mod_depth > depth:
                continue
            values.extend(process_mod(mod, mod_depth - 1))
        if "Global" in self.flop_counts and not is_global_subsumed:
            for value in values:
                value[0] = " " + value[0]
            values = process_mod("Global", 0) + values
        if len(values) == 0:
            values = [["Global", "0", "0%"]]
        return _tabulate(values, header)

    # NB: as torch's, this context manager is not reentrant
    def __enter__(self):
        from ..ops import _dispatch
        self.flop_counts.clear()
        self._by_name = {k.__name__: (k, f) for k, f in self.flop_registry.items()
                         if isinstance(k, _OpPacket)}
        self.mod_tracker.__enter__()
        _active.append(self)
        _dispatch.set_flop_hook(_count_op)
        return self

    def __exit__(self, *args):
        from ..ops import _dispatch
        if self in _active:
            _active.remove(self)
        if not _active:
            _dispatch.set_flop_hook(None)
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return None

    def _count_flops(self, func_packet, formula, out, args, kwargs):
        flop_count = formula(*args, **kwargs, out_val=out)
        for par in set(self.mod_tracker.parents):
            self.flop_counts[par][func_packet] += flop_count
        return out
