"""The warnings dyngrad gives, against torch 2.13's: the same messages (with torch's "(Triggered
internally at ...cpp:LINE.)" ends), the same categories, once per process where torch warns
once (TORCH_WARN_ONCE) and every call where it warns every call, and reported at the caller's
line where torch reports there (where torch reports inside its own Python files, dyngrad may
report at the caller's line).

Each case is one ``call(lib)``, run on torch and on dyngrad:

* twice with ``set_warn_always(True)``, where every warning is given (once-per-process ones
  too, so the test does not depend on what ran earlier in the process);
* twice more with it off: the first of these uses up a once-per-process warning, so the second
  gives exactly the warnings torch gives on every call.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import dyngrad
from compare import warn_always


def F(L):
    return L.nn.functional


def _warnings_of(call, lib):
    """[(message, category name, line of this file reported or None)] of the warnings of
    call(lib) (an exception it raises is part of the case: torch's warning may come first)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call(lib)
        except Exception as e:   # noqa: BLE001
            caught.append(warnings.WarningMessage(f"raised {type(e).__name__}: {e}", _Raised,
                                                  __file__, 0))
    return [(str(w.message), w.category.__name__, w.lineno if w.filename == __file__ else None)
            for w in caught]


class _Raised(Warning):
    """Stands for an exception in the records (compared as a warning is)."""


def _record(lib, call):
    with warn_always(lib):
        always = [_warnings_of(call, lib), _warnings_of(call, lib)]
    _warnings_of(call, lib)          # (uses up a once-per-process warning not given yet)
    return always + [_warnings_of(call, lib)]


def _assert_like_torch(call):
    theirs, ours = _record(torch, call), _record(dyngrad, call)
    for t, d in zip(theirs, ours):
        assert [w[:2] for w in d] == [w[:2] for w in t]
        # reported at the caller's line wherever torch reports there
        assert [dw[2] for tw, dw in zip(t, d) if tw[2]] == [tw[2] for tw in t if tw[2]]


# -- calls with more than one statement -----------------------------------------------------
def _sgd(L):
    p = L.nn.Parameter(L.zeros(1))
    return L.optim.SGD([p], lr=0.1)


def _step_lr(L):
    opt = _sgd(L)
    return opt, L.optim.lr_scheduler.StepLR(opt, 1)


def _scheduler_after_overridden_step(L):
    opt, sched = _step_lr(L)
    opt.step = lambda: None
    sched.step()


def _scheduler_with_epoch(L):
    opt, sched = _step_lr(L)
    opt.step()
    sched.step(1)


def _grad_against_layout(L):
    """A .grad set by hand with other strides than its leaf's, then accumulated into."""
    g = L.ones(3, 4).requires_grad_()
    g.grad = L.zeros(4, 3).t()
    (g * 2).sum().backward()
    e = L.ones(3, 1).expand(3, 4).requires_grad_()   # (not dense: C order is the contract)
    e.grad = L.zeros(4, 3).t()
    (e * 2).sum().backward()


def _readonly_array():
    a = np.ones(2)
    a.flags.writeable = False
    return a


def _stft(L):
    return L.stft(L.ones(16), 4, window=L.ones(4), return_complex=True)


def _setitem(L, x, index, value):
    x[index] = value


def _module_returning_list(L):
    class M(L.nn.Module):
        def forward(self, x):
            return [x]
    m = M()
    m.register_full_backward_hook(lambda *a: None)
    m(L.ones(1, requires_grad=True))


def _failing_forward_with_always_hook(L, glob):
    def hook(module, args, output):
        raise ValueError("hook failed")

    class M(L.nn.Module):
        def forward(self, x):
            raise RuntimeError("forward failed")
    m = M()
    if glob:
        handle = L.nn.modules.module.register_module_forward_hook(hook, always_call=True)
    else:
        handle = m.register_forward_hook(hook, always_call=True)
    try:
        m(L.ones(1))
    finally:
        handle.remove()


def _full_backward_hook_without_input_grad(L):
    m = L.nn.Linear(1, 1)
    m.register_full_backward_hook(lambda *a: None)
    m(L.ones(1, 1)).sum().backward()


def _ambiguous_kl(L):
    D = L.distributions

    class A(D.Normal):
        pass

    class B(D.Normal):
        pass
    D.kl.register_kl(A, D.Normal)(lambda p, q: 1)
    D.kl.register_kl(D.Normal, B)(lambda p, q: 2)
    try:
        D.kl.kl_divergence(A(0., 1.), B(0., 1.))
    finally:
        del D.kl._KL_REGISTRY[A, D.Normal], D.kl._KL_REGISTRY[D.Normal, B]


def _distribution_without(L, what):
    class Dist(L.distributions.Distribution):
        if what == "support":
            arg_constraints = {}
    d = Dist(validate_args=True)
    if what == "support":
        d._validate_sample(L.ones(()))


def _gradcheck_float32(L):
    try:
        L.autograd.gradcheck(lambda x: x * 2, (L.ones(1, requires_grad=True),))
    except Exception:   # noqa: BLE001  (only the warning is compared)
        pass


def _instantiated_function(L):
    class Fn(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x
    Fn()


def _anomaly_without_forward_trace(L):
    class Fn(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward failed")
    y = Fn.apply(L.ones(1, requires_grad=True)).sum()   # made outside anomaly mode
    with L.autograd.detect_anomaly():
        y.backward()


def _iterable_past_its_length(L):
    class DS(L.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

        def __len__(self):
            return 1

        def __repr__(self):
            return "DS"
    loader = L.utils.data.DataLoader(DS(), batch_size=None)
    len(loader)
    list(loader)


def _too_many_workers(L):
    L.utils.data.DataLoader([1, 2], num_workers=1000).check_worker_number_rationality()


CASES = {
    # optim
    "optimizer_duplicate_params": lambda L: L.optim.SGD([_sgd(L).param_groups[0]["params"][0]] * 2,
                                                        lr=0.1),
    "plateau_step_epoch": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_sgd(L)).step(
        1.0, epoch=1),
    "scheduler_get_lr": lambda L: _step_lr(L)[1].get_lr(),
    "scheduler_optimizer_step_overridden": _scheduler_after_overridden_step,
    "scheduler_before_optimizer": lambda L: _step_lr(L)[1].step(),
    "scheduler_step_epoch": _scheduler_with_epoch,
    # deprecated ops (torch warns once)
    "chain_matmul": lambda L: L.chain_matmul(L.ones(2, 2), L.ones(2, 2)),
    "float_of_requires_grad": lambda L: float(L.ones((), requires_grad=True)),
    "float_of_non_leaf": lambda L: float(L.ones((), requires_grad=True) * 2),
    "float_of_two_elements": lambda L: float(L.ones(2, requires_grad=True)),
    "complex_of_requires_grad": lambda L: complex(L.ones((), requires_grad=True)),
    "float_under_no_grad_does_not_warn": lambda L: L.no_grad()(
        lambda: (float(L.ones((), requires_grad=True)), complex(L.ones((), requires_grad=True))))(),
    "math_of_requires_grad": lambda L: __import__("math").exp(L.ones((), requires_grad=True)),
    "tensor_of_requires_grad_scalars": lambda L: L.tensor([L.ones((), requires_grad=True)] * 2),
    "int_item_bool_do_not_warn": lambda L: [f(L.ones((), requires_grad=True))
                                            for f in (int, bool, lambda t: t.item())],
    "cholesky": lambda L: L.cholesky(L.eye(2)),
    "lu": lambda L: L.lu(L.eye(2)),
    "lu_solve": lambda L: L.lu_solve(L.ones(2, 1), *L.linalg.lu_factor(L.eye(2))),
    "cross_without_dim": lambda L: L.cross(L.ones(3), L.ones(3)),
    "meshgrid_without_indexing": lambda L: L.meshgrid(L.ones(2), L.ones(2)),
    "adjoint_0d": lambda L: L.tensor(1.).adjoint(),
    "T_3d": lambda L: L.ones(1, 1, 1).T,
    "mH_0d": lambda L: L.tensor(1.).mH,
    "index_reduce_beta": lambda L: L.zeros(3).index_reduce(0, L.tensor([0]), L.ones(1), "prod"),
    "scatter_reduce_tensor_src": lambda L: L.zeros(3).scatter(0, L.tensor([0]), L.ones(1),
                                                              reduce="add"),
    "where_uint8": lambda L: L.where(L.tensor([1], dtype=L.uint8), L.ones(1), L.zeros(1)),
    "set_default_tensor_type": lambda L: (L.set_default_tensor_type("torch.DoubleTensor"),
                                          L.set_default_dtype(L.float32)),
    # spectral
    "stft_without_window": lambda L: L.stft(L.ones(16), 4, return_complex=True),
    "stft_real_output": lambda L: L.stft(L.ones(16), 4, window=L.ones(4), return_complex=False),
    "istft_without_window": lambda L: L.istft(_stft(L), 4),
    "istft_signal_shorter_than_length": lambda L: L.istft(_stft(L), 4, window=L.ones(4),
                                                          length=40),
    # casts of complex values to real
    "complex_to_float": lambda L: L.tensor([1 + 1j]).float(),
    "copy_complex_into_real": lambda L: L.zeros(2).copy_(L.ones(2, dtype=L.complex64)),
    "setitem_complex_into_real": lambda L: _setitem(L, L.zeros(2), 0, L.tensor(1 + 1j)),
    "sum_complex_to_real_dtype": lambda L: L.ones(2, dtype=L.complex64).sum(dtype=L.float32),
    "cumsum_complex_to_real_dtype": lambda L: L.ones(2, dtype=L.complex64).cumsum(
        0, dtype=L.float32),
    "bincount_complex_weights": lambda L: L.bincount(L.tensor([0, 1]),
                                                     weights=L.tensor([1 + 1j, 2j])),
    # searchsorted on non-contiguous tensors
    "searchsorted_values": lambda L: L.searchsorted(L.arange(4.), L.ones(2, 2).t()),
    "searchsorted_boundaries": lambda L: L.searchsorted(L.arange(4.).reshape(2, 2).t(),
                                                        L.ones(2, 2)),
    "searchsorted_sorter": lambda L: L.searchsorted(
        L.arange(4.), L.ones(2), sorter=L.tensor([[0, 0], [1, 0], [2, 0], [3, 0]])[:, 0]),
    # tensors from Python and NumPy data
    "frombuffer_readonly": lambda L: L.frombuffer(b"\x01\x00\x00\x00", dtype=L.int32),
    "from_numpy_readonly": lambda L: L.from_numpy(_readonly_array()),
    "as_tensor_readonly": lambda L: L.as_tensor(_readonly_array()),
    "tensor_from_list_of_arrays": lambda L: L.tensor([np.ones(2), np.ones(2)]),
    "tensor_of_tensor": lambda L: L.tensor(L.ones(2)),
    "new_tensor_of_tensor": lambda L: L.ones(2).new_tensor(L.ones(2)),
    "range": lambda L: L.range(1, 4),
    # indexing
    "index_non_tuple_sequence": lambda L: L.ones(2, 2)[[0, slice(None)]],
    "index_uint8_mask": lambda L: L.ones(2)[L.tensor([1, 0], dtype=L.uint8)],
    "setitem_uint8_mask": lambda L: _setitem(L, L.ones(2), L.tensor([1, 0], dtype=L.uint8), 0.),
    "setitem_on_expanded": lambda L: _setitem(L, L.zeros(1).expand(3), L.tensor([0]), 1.),
    "index_put_on_expanded": lambda L: L.zeros(1).expand(3).index_put_((L.tensor([0]),),
                                                                       L.tensor(1.)),
    "index_fill_on_expanded": lambda L: L.zeros(1).expand(3).index_fill_(0, L.tensor([0]), 1.),
    "masked_fill_on_expanded": lambda L: L.zeros(1).expand(3).masked_fill_(
        L.tensor([True, False, False]), 1.),
    "masked_scatter_uint8_mask": lambda L: L.zeros(2).masked_scatter(
        L.tensor([1, 0], dtype=L.uint8), L.ones(2)),
    # random
    "random_to_out_of_float_range": lambda L: L.zeros(2).random_(0, 2 ** 25),
    "random_from_out_of_float_range": lambda L: L.zeros(2).random_(-2 ** 25, 0),
    "binomial_broadcast_count": lambda L: L.binomial(L.ones(1), L.full((2,), 0.5)),
    # out= resized
    "ger_out": lambda L: L.ger(L.ones(2), L.ones(2), out=L.empty(0)),
    "ger_without_out": lambda L: L.ger(L.ones(2), L.ones(2)),
    "sort_out_resized": lambda L: L.sort(L.ones(3), out=(L.zeros(5), L.zeros(5, dtype=L.long))),
    "add_out_resized": lambda L: L.add(L.ones(3), 1, out=L.zeros(5)),
    "add_out_empty": lambda L: L.add(L.ones(3), 1, out=L.zeros(0)),
    "mul_out_same_shape": lambda L: L.mul(L.ones(3), L.ones(3), out=L.zeros(3)),
    "exp_out_resized": lambda L: L.exp(L.ones(2, 2), out=L.zeros(4)),
    "mm_out_resized": lambda L: L.mm(L.ones(2, 3), L.ones(3, 2), out=L.zeros(3)),
    "sum_out_resized": lambda L: L.sum(L.ones(2, 3), 1, out=L.zeros(3)),
    "cat_out_resized": lambda L: L.cat([L.ones(2), L.ones(2)], out=L.zeros(2)),
    "stack_out_resized": lambda L: L.stack([L.ones(2)], out=L.zeros(5)),
    "hstack_out_resized": lambda L: L.hstack([L.ones(2)], out=L.zeros(5)),
    "nonzero_out_resized": lambda L: L.nonzero(L.ones(3), out=L.zeros(5, dtype=L.long)),
    "view_copy_dtype_out_resized": lambda L: L.view_copy(
        L.ones(2), L.int32, out=L.zeros(5, dtype=L.int32)),
    "arange_out_resized": lambda L: L.arange(3, out=L.zeros(5)),
    "arange_out_resized_from_empty": lambda L: L.arange(0, 3, out=L.zeros(0)),
    "arange_out_of_another_shape": lambda L: L.arange(0., 1., 0.5, out=L.zeros(2, 2)),
    "arange_out_same_count": lambda L: L.arange(0., 1., 0.25, out=L.zeros(2, 2)),
    "linspace_out_resized_silently": lambda L: L.linspace(0, 1, 3, out=L.zeros(5)),
    "zeros_out_resized_silently": lambda L: L.zeros(3, out=L.zeros(5)),
    "where_out_with_a_number": lambda L: L.where(L.ones(3) > 0, L.ones(3), 2,
                                                 out=L.zeros(3)),
    # tensor methods
    "non_leaf_grad": lambda L: (L.ones(1, requires_grad=True) * 2).grad,
    "resize": lambda L: L.ones(4).resize(2, 2),
    "resize_as": lambda L: L.ones(4).resize_as(L.ones(2, 2)),
    "is_pinned_device": lambda L: L.ones(1).is_pinned("cpu"),
    "matmul_precision": lambda L: L.set_float32_matmul_precision("fastest"),
    # nn.functional
    "conv1d_same_even_kernel": lambda L: F(L).conv1d(L.ones(1, 1, 5), L.ones(1, 1, 2),
                                                     padding="same"),
    "conv_module_same_even_kernel": lambda L: L.nn.Conv1d(1, 1, 2, padding="same")(
        L.ones(1, 1, 5)),
    "affine_grid_align_corners": lambda L: F(L).affine_grid(L.zeros(1, 2, 3), [1, 1, 2, 2]),
    "affine_grid_unit_size": lambda L: F(L).affine_grid(L.zeros(1, 2, 3), [1, 1, 1, 2],
                                                        align_corners=True),
    "grid_sample_align_corners": lambda L: F(L).grid_sample(L.ones(1, 1, 2, 2),
                                                            L.zeros(1, 1, 1, 2)),
    "upsample": lambda L: F(L).upsample(L.ones(1, 1, 2), scale_factor=2),
    "upsample_nearest": lambda L: F(L).upsample_nearest(L.ones(1, 1, 2), scale_factor=2),
    "upsample_bilinear": lambda L: F(L).upsample_bilinear(L.ones(1, 1, 2, 2), scale_factor=2),
    "softmax_without_dim": lambda L: F(L).softmax(L.ones(2, 2)),
    "log_softmax_without_dim": lambda L: F(L).log_softmax(L.ones(2, 2, 2)),
    "softmin_without_dim": lambda L: F(L).softmin(L.ones(2)),
    "softmax_module_without_dim": lambda L: L.nn.Softmax()(L.ones(2, 2)),
    "gumbel_softmax_eps": lambda L: F(L).gumbel_softmax(L.ones(2, 2), eps=1e-3),
    "mha_mismatched_masks": lambda L: L.nn.MultiheadAttention(4, 1)(
        *[L.zeros(2, 1, 4)] * 3, key_padding_mask=L.zeros(1, 2, dtype=L.bool),
        attn_mask=L.zeros(2, 2)),
    "loss_elementwise_mean": lambda L: F(L).mse_loss(L.ones(2), L.ones(2),
                                                     reduction="elementwise_mean"),
    "loss_size_average": lambda L: F(L).nll_loss(L.ones(2, 2), L.tensor([0, 1]),
                                                 size_average=False),
    "loss_reduce": lambda L: F(L).l1_loss(L.ones(2), L.ones(2), reduce=False),
    "loss_target_size": lambda L: F(L).mse_loss(L.ones(2), L.ones(2, 1)),
    "loss_module_target_size": lambda L: L.nn.HuberLoss()(L.ones(2), L.ones(2, 1)),
    "kl_div_mean": lambda L: F(L).kl_div(L.ones(2), L.ones(2)),
    "dropout2d_1d_input": lambda L: F(L).dropout2d(L.ones(2)),
    "dropout2d_3d_input": lambda L: F(L).dropout2d(L.ones(2, 2, 2)),
    "dropout3d_2d_input": lambda L: L.nn.Dropout3d()(L.ones(2, 2)),
    # nn modules, init and utils
    "hook_output_not_tensor": _module_returning_list,
    "global_always_call_hook_raises": lambda L: _failing_forward_with_always_hook(L, True),
    "always_call_hook_raises": lambda L: _failing_forward_with_always_hook(L, False),
    "full_backward_hook_without_input_grad": _full_backward_hook_without_input_grad,
    "instance_norm_num_features": lambda L: L.nn.InstanceNorm1d(3)(L.ones(2, 4, 5)),
    "rnn_dropout_one_layer": lambda L: L.nn.LSTM(2, 2, dropout=0.5),
    "state_dict_positional": lambda L: L.nn.Linear(1, 1).state_dict(OrderedDict(), "p."),
    "hardtanh_min_value": lambda L: L.nn.Hardtanh(min_value=-2.0),
    "hardtanh_max_value": lambda L: L.nn.Hardtanh(max_value=2.0),
    "transformer_nested_tensor": lambda L: L.nn.TransformerEncoder(
        L.nn.TransformerEncoderLayer(4, 1), 1),
    "loss_module_legacy_reduction": lambda L: L.nn.MSELoss(size_average=False),
    "nll_loss_2d": lambda L: L.nn.NLLLoss2d(),
    "trunc_normal_mean_far": lambda L: L.nn.init.trunc_normal_(L.empty(2), mean=10.0),
    "kaiming_uniform_zero_elements": lambda L: L.nn.init.kaiming_uniform_(L.empty(0, 2)),
    "kaiming_normal_zero_elements": lambda L: L.nn.init.kaiming_normal_(L.empty(0, 2)),
    "init_without_underscore": lambda L: L.nn.init.xavier_normal(L.empty(2, 2)),
    "clip_grad_norm_empty_generator": lambda L: L.nn.utils.clip_grad_norm_(
        (p for p in []), 1.0),
    "clip_grad_norm": lambda L: L.nn.utils.clip_grad_norm([L.nn.Parameter(L.ones(1))], 1.0),
    "weight_norm": lambda L: L.nn.utils.weight_norm(L.nn.Linear(2, 2)),
    "stateless_functional_call": lambda L: L.nn.utils.stateless.functional_call(
        L.nn.Linear(1, 1), {"weight": L.ones(1, 1), "bias": L.zeros(1)}, (L.ones(1, 1),)),
    # distributions
    "kl_ambiguous": _ambiguous_kl,
    "wishart_low_df": lambda L: L.distributions.Wishart(df=L.tensor(1.5),
                                                        covariance_matrix=L.eye(2)),
    "distribution_without_arg_constraints": lambda L: _distribution_without(L, "arg_constraints"),
    "distribution_without_support": lambda L: _distribution_without(L, "support"),
    "sample_n": lambda L: L.distributions.Normal(0., 1.).sample_n(2),
    # autograd
    "variable_volatile": lambda L: L.autograd.Variable(L.ones(1), volatile=True),
    "gradcheck_float32_input": _gradcheck_float32,
    "function_instantiated": _instantiated_function,
    "detect_anomaly": lambda L: L.autograd.detect_anomaly(),
    "grad_against_layout_contract": _grad_against_layout,
    "anomaly_without_forward_trace": _anomaly_without_forward_trace,
    # testing, checkpoint, data
    "make_tensor_low_equals_high": lambda L: L.testing.make_tensor(2, dtype=L.float32,
                                                                   device="cpu", low=1, high=1),
    "assert_allclose": lambda L: L.testing.assert_allclose(L.ones(1), L.ones(1)),
    "checkpoint_no_input_requires_grad": lambda L: L.utils.checkpoint.checkpoint(
        lambda x: x * 2, L.ones(1), use_reentrant=True),
    "checkpoint_use_reentrant_not_passed": lambda L: L.utils.checkpoint.checkpoint(
        lambda x: x * 2, L.ones(1, requires_grad=True)),
    "checkpoint_sequential_use_reentrant_not_passed":
        lambda L: L.utils.checkpoint.checkpoint_sequential(
            L.nn.Sequential(L.nn.Identity(), L.nn.Identity()), 2, L.ones(1, requires_grad=True)),
    "random_split_empty_part": lambda L: L.utils.data.random_split(
        list(range(2)), [0.0, 1.0], generator=L.Generator().manual_seed(0)),
    "iterable_dataset_past_its_length": _iterable_past_its_length,
    "dataloader_pin_memory": lambda L: list(L.utils.data.DataLoader([1, 2], pin_memory=True)),
    "dataloader_too_many_workers": _too_many_workers,
}


@pytest.mark.parametrize("name", list(CASES))
def test_warns_like_torch(name):
    _assert_like_torch(CASES[name])


def test_once_per_process_counts_no_warning_given_under_warn_always():
    """torch's TORCH_WARN_ONCE is used up only by a warning given with warn_always off."""
    def calls(lib):
        call = CASES["scatter_reduce_tensor_src"]
        with warn_always(lib):
            _warnings_of(call, lib)
        first = _warnings_of(call, lib)   # (given, unless an earlier test used it up)
        return first, _warnings_of(call, lib)
    from dyngrad.ops import gather_scatter, pointwise
    pointwise._WARNED.discard(gather_scatter._REDUCE_WARNING)   # (as in a fresh process)
    first, again = calls(dyngrad)
    assert [w[0] for w in first] == [gather_scatter._REDUCE_WARNING] and again == []
    # torch: the same, where no earlier test gave the warning with warn_always off
    first, again = calls(torch)
    assert [w[0] for w in first] in ([], [gather_scatter._REDUCE_WARNING]) and again == []


def test_complex_casts_share_torch_once_per_process_warning():
    """The casts of complex values to real in copies, reductions and bincount are one
    TORCH_WARN_ONCE in torch (Copy.cpp): once given by one, the others do not warn."""
    from dyngrad.ops import creation, pointwise
    pointwise._WARNED.discard(creation._COMPLEX_WARNING)
    calls = [CASES[n] for n in ("complex_to_float", "sum_complex_to_real_dtype",
                                "setitem_complex_into_real", "bincount_complex_weights")]
    given = [_warnings_of(call, dyngrad) for call in calls]
    assert [[w[0] for w in g] for g in given] == [[creation._COMPLEX_WARNING], [], [], []]
    # torch: the first of these calls uses the warning up (if no earlier test did)
    given = [_warnings_of(call, torch) for call in calls]
    assert [[w[0] for w in g] for g in given[1:]] == [[], [], []]
