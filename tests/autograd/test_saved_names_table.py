"""dyngrad/autograd/_torch_saved_names.py against live torch, and what ``dir`` lists under
``_saved_`` on each op's node class against torch's node class of that name."""
import sys
import pathlib

import torch

import dyngrad
from dyngrad.autograd._torch_saved_names import SAVED_NAMES
from dyngrad.ops._registry import _SPECS

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from torch_saved_names import table  # noqa: E402


def test_table_is_torchs():
    assert SAVED_NAMES == table()


# Names torch's node has that dyngrad's op does not keep (op name: missing names)
MISSING = {
    "_adaptive_avg_pool2d_backward": {"grad_output_sym_argsize_minus_1",
                                      "grad_output_sym_argsize_minus_2"},
    "_adaptive_avg_pool3d_backward": {"grad_output_sym_argsize_minus_1",
                                      "grad_output_sym_argsize_minus_2",
                                      "grad_output_sym_argsize_minus_3"},
    "_fft_r2c": {"self"},
    "_weight_norm_interface": {"result1"},
    "_pack_padded_sequence": {"result1"},
}


def test_node_classes_list_torchs_saved_names():
    """Every op whose node torch has lists exactly torch's ``_saved_`` names (no argument or
    input shape torch does not keep), but for the MISSING ones."""
    functions = torch._C._functions
    missing = {}
    checked = 0
    for spec in _SPECS.values():
        theirs = getattr(functions, spec.node, None) if spec.node_cls is not None else None
        if theirs is None:
            continue
        want = {n[7:] for n in dir(theirs) if n.startswith("_saved_")}
        got = {n[7:] for n in dir(spec.node_cls) if n.startswith("_saved_")}
        assert got <= want, (spec.name, sorted(got - want))
        if want - got:
            missing[spec.name] = want - got
        checked += 1
    assert missing == MISSING
    assert checked > 400
    assert dyngrad.autograd.graph.SAVED_NAMES is SAVED_NAMES


def test_names_prefixed_saved_are_torchs():
    """The notes' way to see what a node saved, its attributes prefixed ``_saved``, lists the
    same names as torch, for an op's node and a custom Function's (no internal slot shows)."""
    def names(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                ctx.save_for_forward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        function_node = Double.apply(x).grad_fn
        return [sorted(n for n in dir(node) if n.startswith(("_saved", "_raw_saved")))
                for node in (x.exp().grad_fn, (x * x).grad_fn, x[:1].grad_fn,
                             function_node)] + [function_node.saved_for_forward]
    assert names(dyngrad) == names(torch)
