"""Every layer against torch: repr, state_dict keys, forward values and grad_fn, and the
gradients w.r.t. inputs and parameters, with our weights copied into torch's module."""
import numpy as np
import pytest
import torch

import dyngrad

from .helpers import check_forward_backward, pair


def f(*shape):
    return lambda rng: rng.standard_normal(shape)


def pos(*shape):
    return lambda rng: rng.uniform(0.1, 0.9, shape)


def ints(high, *shape):
    return lambda rng: rng.integers(0, high, shape)


def signs(*shape):
    """Targets of +-1 (floats that must not require grad: torch refuses it for some losses)."""
    def make(rng):
        return np.where(rng.standard_normal(shape) > 0, 1.0, -1.0)
    make.no_grad = True
    return make



# (id, constructor on either library, input makers)
CASES = [
    ("Identity", lambda nn: nn.Identity(3, unused=1), [f(2, 3)]),
    ("Linear", lambda nn: nn.Linear(5, 3), [f(4, 5)]),
    ("Linear_nobias", lambda nn: nn.Linear(5, 3, bias=False), [f(2, 4, 5)]),
    ("Bilinear", lambda nn: nn.Bilinear(3, 4, 2), [f(5, 3), f(5, 4)]),
    ("Conv1d", lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding=1), [f(2, 2, 9)]),
    ("Conv1d_reflect", lambda nn: nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect"),
     [f(1, 2, 7)]),
    ("Conv2d", lambda nn: nn.Conv2d(2, 4, (3, 2), padding=(1, 0), dilation=(1, 2)),
     [f(2, 2, 6, 6)]),
    ("Conv2d_groups_same", lambda nn: nn.Conv2d(4, 4, 3, groups=2, padding="same",
                                                bias=False), [f(1, 4, 5, 5)]),
    ("Conv2d_circular", lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular"),
     [f(1, 2, 5, 5)]),
    ("Conv2d_replicate", lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate"),
     [f(2, 5, 5)]),
    ("Conv3d", lambda nn: nn.Conv3d(2, 2, 2), [f(1, 2, 3, 4, 3)]),
    ("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(3, 2, 3, stride=2, output_padding=1),
     [f(2, 3, 5)]),
    ("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1,
                                                      groups=2), [f(1, 2, 4, 4)]),
    ("MaxPool1d", lambda nn: nn.MaxPool1d(3, stride=2, padding=1), [f(2, 3, 9)]),
    ("MaxPool2d", lambda nn: nn.MaxPool2d(2), [f(2, 3, 6, 6)]),
    ("MaxPool2d_indices", lambda nn: nn.MaxPool2d(3, 2, 1, return_indices=True,
                                                  ceil_mode=True), [f(1, 2, 7, 7)]),
    ("AvgPool1d", lambda nn: nn.AvgPool1d(3, 2, 1, count_include_pad=False), [f(2, 3, 8)]),
    ("AvgPool2d", lambda nn: nn.AvgPool2d((2, 3), divisor_override=4), [f(2, 3, 6, 6)]),
    ("AdaptiveAvgPool1d", lambda nn: nn.AdaptiveAvgPool1d(4), [f(2, 3, 9)]),
    ("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((None, 3)), [f(2, 3, 7, 8)]),
    ("AdaptiveMaxPool1d", lambda nn: nn.AdaptiveMaxPool1d(3), [f(2, 3, 8)]),
    ("AdaptiveMaxPool2d", lambda nn: nn.AdaptiveMaxPool2d(2, return_indices=True),
     [f(1, 2, 5, 5)]),
    ("BatchNorm1d", lambda nn: nn.BatchNorm1d(3), [f(6, 3)]),
    ("BatchNorm1d_3d", lambda nn: nn.BatchNorm1d(3, momentum=None), [f(4, 3, 5)]),
    ("BatchNorm2d", lambda nn: nn.BatchNorm2d(3, affine=False), [f(4, 3, 3, 3)]),
    ("BatchNorm2d_nostats", lambda nn: nn.BatchNorm2d(3, track_running_stats=False),
     [f(4, 3, 2, 2)]),
    ("BatchNorm3d", lambda nn: nn.BatchNorm3d(2, bias=False), [f(2, 2, 2, 3, 2)]),
    ("InstanceNorm1d", lambda nn: nn.InstanceNorm1d(3, affine=True), [f(2, 3, 6)]),
    ("InstanceNorm2d", lambda nn: nn.InstanceNorm2d(3, track_running_stats=True),
     [f(2, 3, 4, 4)]),
    ("InstanceNorm2d_nobatch", lambda nn: nn.InstanceNorm2d(3), [f(3, 4, 4)]),
    ("LayerNorm", lambda nn: nn.LayerNorm([3, 4]), [f(2, 3, 4)]),
    ("LayerNorm_nobias", lambda nn: nn.LayerNorm(4, eps=1e-3, bias=False), [f(2, 4)]),
    ("LayerNorm_noaffine", lambda nn: nn.LayerNorm(4, elementwise_affine=False), [f(3, 4)]),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 4), [f(2, 4, 3)]),
    ("RMSNorm", lambda nn: nn.RMSNorm(4), [f(3, 4)]),
    ("RMSNorm_eps", lambda nn: nn.RMSNorm([2, 4], eps=1e-4, elementwise_affine=False),
     [f(3, 2, 4)]),
    ("LocalResponseNorm", lambda nn: nn.LocalResponseNorm(2), [f(2, 4, 3, 3)]),
    ("Embedding", lambda nn: nn.Embedding(10, 3), [ints(10, 2, 4)]),
    ("Embedding_pad", lambda nn: nn.Embedding(10, 3, padding_idx=-1), [ints(10, 7)]),
    ("Embedding_max_norm", lambda nn: nn.Embedding(10, 3, max_norm=1.0, norm_type=1.5),
     [ints(10, 2, 4)]),
    ("Embedding_freq", lambda nn: nn.Embedding(10, 3, scale_grad_by_freq=True),
     [ints(4, 2, 4)]),
    ("EmbeddingBag", lambda nn: nn.EmbeddingBag(10, 3, mode="sum"), [ints(10, 2, 4)]),
    ("EmbeddingBag_max", lambda nn: nn.EmbeddingBag(10, 3, mode="max", padding_idx=2),
     [ints(10, 3, 4)]),
    ("Flatten", lambda nn: nn.Flatten(), [f(2, 3, 4)]),
    ("Flatten_dims", lambda nn: nn.Flatten(0, 1), [f(2, 3, 4)]),
    ("Unflatten", lambda nn: nn.Unflatten(1, (2, 3)), [f(2, 6)]),
    ("CosineSimilarity", lambda nn: nn.CosineSimilarity(dim=0), [f(3, 4), f(3, 4)]),
    ("PairwiseDistance", lambda nn: nn.PairwiseDistance(p=1.5, keepdim=True),
     [f(3, 4), f(3, 4)]),
    ("PixelShuffle", lambda nn: nn.PixelShuffle(2), [f(1, 8, 2, 3)]),
    ("PixelUnshuffle", lambda nn: nn.PixelUnshuffle(2), [f(1, 2, 4, 6)]),
    ("Upsample", lambda nn: nn.Upsample(scale_factor=2), [f(1, 2, 3, 3)]),
    ("Upsample_bilinear", lambda nn: nn.Upsample(size=(5, 4), mode="bilinear",
                                                 align_corners=False), [f(1, 2, 3, 3)]),
    ("UpsamplingBilinear2d", lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
     [f(1, 1, 2, 3)]),
    ("UpsamplingNearest2d", lambda nn: nn.UpsamplingNearest2d(size=4), [f(1, 1, 2, 2)]),
    ("Fold", lambda nn: nn.Fold((4, 5), 2), [f(1, 8, 12)]),
    ("Unfold", lambda nn: nn.Unfold(2, padding=1, stride=2), [f(1, 2, 4, 4)]),
    ("ConstantPad1d", lambda nn: nn.ConstantPad1d((1, 2), 3.5), [f(2, 3)]),
    ("ConstantPad2d", lambda nn: nn.ConstantPad2d(1, -1.0), [f(1, 2, 3)]),
    ("ZeroPad2d", lambda nn: nn.ZeroPad2d((1, 0, 2, 1)), [f(1, 2, 3)]),
    ("ZeroPad1d", lambda nn: nn.ZeroPad1d(2), [f(1, 2, 3)]),
    ("ReflectionPad1d", lambda nn: nn.ReflectionPad1d(2), [f(1, 2, 4)]),
    ("ReflectionPad2d", lambda nn: nn.ReflectionPad2d((1, 1, 2, 0)), [f(1, 2, 3, 4)]),
    ("ReplicationPad2d", lambda nn: nn.ReplicationPad2d(2), [f(1, 2, 3, 3)]),
    ("ReplicationPad3d", lambda nn: nn.ReplicationPad3d(1), [f(1, 1, 2, 2, 2)]),
    ("CircularPad1d", lambda nn: nn.CircularPad1d(1), [f(1, 2, 4)]),
    ("CircularPad2d", lambda nn: nn.CircularPad2d((1, 2, 0, 1)), [f(1, 1, 3, 4)]),
    ("Softmax2d", lambda nn: nn.Softmax2d(), [f(2, 3, 2, 2)]),
]

ACTIVATIONS = [
    ("ReLU", lambda nn: nn.ReLU()), ("ReLU6", lambda nn: nn.ReLU6()),
    ("LeakyReLU", lambda nn: nn.LeakyReLU(0.2)), ("PReLU", lambda nn: nn.PReLU()),
    ("PReLU_channels", lambda nn: nn.PReLU(3, init=0.1)), ("ELU", lambda nn: nn.ELU(0.7)),
    ("SELU", lambda nn: nn.SELU()), ("CELU", lambda nn: nn.CELU(1.5)),
    ("GELU", lambda nn: nn.GELU()), ("GELU_tanh", lambda nn: nn.GELU(approximate="tanh")),
    ("SiLU", lambda nn: nn.SiLU()), ("Mish", lambda nn: nn.Mish()),
    ("Sigmoid", lambda nn: nn.Sigmoid()), ("Tanh", lambda nn: nn.Tanh()),
    ("Softplus", lambda nn: nn.Softplus(beta=2, threshold=1)),
    ("Softsign", lambda nn: nn.Softsign()), ("Softshrink", lambda nn: nn.Softshrink(0.3)),
    ("Hardshrink", lambda nn: nn.Hardshrink()), ("Tanhshrink", lambda nn: nn.Tanhshrink()),
    ("Hardtanh", lambda nn: nn.Hardtanh(-0.5, 0.7)), ("Hardsigmoid", lambda nn: nn.Hardsigmoid()),
    ("Hardswish", lambda nn: nn.Hardswish()), ("LogSigmoid", lambda nn: nn.LogSigmoid()),
    ("Softmax", lambda nn: nn.Softmax(dim=1)), ("LogSoftmax", lambda nn: nn.LogSoftmax(1)),
    ("Softmin", lambda nn: nn.Softmin(dim=-1)), ("Threshold", lambda nn: nn.Threshold(0.1, 2.0)),
    ("GLU", lambda nn: nn.GLU()), ("RReLU_eval", lambda nn: nn.RReLU().eval()),
]
CASES += [(name, make, [f(2, 3, 4)]) for name, make in ACTIVATIONS]

LOSSES = [
    ("L1Loss", lambda nn: nn.L1Loss(), [f(3, 4), f(3, 4)]),
    ("MSELoss_sum", lambda nn: nn.MSELoss(reduction="sum"), [f(3, 4), f(3, 4)]),
    ("MSELoss_none", lambda nn: nn.MSELoss(reduction="none"), [f(3, 4), f(3, 4)]),
    ("CrossEntropyLoss", lambda nn: nn.CrossEntropyLoss(), [f(5, 4), ints(4, 5)]),
    ("CrossEntropyLoss_smooth", lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1,
                                                               ignore_index=1),
     [f(5, 4), ints(4, 5)]),
    ("NLLLoss", lambda nn: nn.NLLLoss(reduction="sum"), [f(5, 4), ints(4, 5)]),
    ("BCELoss", lambda nn: nn.BCELoss(), [pos(3, 2), pos(3, 2)]),
    ("BCEWithLogitsLoss", lambda nn: nn.BCEWithLogitsLoss(), [f(3, 2), pos(3, 2)]),
    ("KLDivLoss", lambda nn: nn.KLDivLoss(reduction="batchmean"), [f(3, 4), pos(3, 4)]),
    ("PoissonNLLLoss", lambda nn: nn.PoissonNLLLoss(), [f(3, 4), pos(3, 4)]),
    ("HuberLoss", lambda nn: nn.HuberLoss(delta=0.5), [f(3, 4), f(3, 4)]),
    ("SmoothL1Loss", lambda nn: nn.SmoothL1Loss(beta=0.5), [f(3, 4), f(3, 4)]),
    ("SoftMarginLoss", lambda nn: nn.SoftMarginLoss(), [f(3, 4), signs(3, 4)]),
    ("HingeEmbeddingLoss", lambda nn: nn.HingeEmbeddingLoss(margin=0.5), [f(3, 4),
                                                                         signs(3, 4)]),
    ("CosineEmbeddingLoss", lambda nn: nn.CosineEmbeddingLoss(0.1), [f(3, 4), f(3, 4),
                                                                    signs(3)]),
    ("MarginRankingLoss", lambda nn: nn.MarginRankingLoss(0.2), [f(5), f(5), signs(5)]),
    ("TripletMarginLoss", lambda nn: nn.TripletMarginLoss(p=1.0, swap=True),
     [f(3, 4), f(3, 4), f(3, 4)]),
]
CASES += LOSSES


@pytest.mark.parametrize("name,make,inputs", CASES, ids=[c[0] for c in CASES])
def test_repr_and_state_dict_keys(name, make, inputs):
    ours, theirs = make(dyngrad.nn), make(torch.nn)
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape), n
        assert str(p.dtype) == str(q.dtype), n


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,inputs", CASES, ids=[c[0] for c in CASES])
def test_forward_backward_like_torch(name, make, inputs, dtype):
    rng = np.random.default_rng(0)
    arrays = [mk(rng) for mk in inputs]
    grad_inputs = [a.dtype.kind == "f" and not getattr(mk, "no_grad", False)
                   for a, mk in zip(arrays, inputs)]
    ours, theirs = pair(lambda lib: make(lib.nn), dtype)
    check_forward_backward(ours, theirs, arrays, dtype, grad_inputs)
    # parameters changed in place by forward (Embedding's max_norm) and buffers (running
    # statistics) moved the same way
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(),
                                   rtol=1e-5 if dtype == "float32" else 1e-10, err_msg=n)
    for (n, b), (_, c) in zip(ours.named_buffers(), theirs.named_buffers()):
        np.testing.assert_allclose(b.numpy(), c.numpy(), rtol=1e-5 if dtype == "float32"
                                   else 1e-10, err_msg=n)


def test_conv_transpose_output_size():
    ours, theirs = pair(lambda lib: lib.nn.ConvTranspose2d(2, 3, 3, stride=2))
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 4)).astype("float32")
    out_o = ours(dyngrad.tensor(x), output_size=[10, 10])
    out_t = theirs(torch.tensor(x), output_size=[10, 10])
    np.testing.assert_allclose(out_o.detach().numpy(), out_t.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError) as expected:
        theirs(torch.tensor(x), output_size=[20, 20])
    with pytest.raises(ValueError) as got:
        ours(dyngrad.tensor(x), output_size=[20, 20])
    assert str(got.value) == str(expected.value)


def test_pairwise_distance_graph():
    names = []
    for lib in (torch, dyngrad):
        a = lib.ones(2, 3, requires_grad=True)
        names.append(type(lib.nn.PairwiseDistance()(a, lib.zeros(2, 3)).grad_fn).__name__)
    assert names[0] == names[1]
