"""Anomaly detection against live torch: switches, stored forward tracebacks, the warnings a
failing backward gives (with double-backward parents), the NaN check, and dyngrad's extra
lines on the version-counter error (torch's text stays first, word for word)."""
import re
import warnings

import pytest
import torch

import dyngrad
from compare import torch_part
from .helpers import assert_prints_like_torch

# torch's warnings come from C++ and end with where in torch's C++ they were raised
_CPP_SUFFIX = re.compile(r" \(Triggered internally at [^)]*\)$")
_FILE = __file__


def run(fn, lib):
    """``fn(lib)`` -> (result or None, (exception type, message) or None, warning texts)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prev = lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()
        try:
            out, err = fn(lib), None
        except Exception as e:  # noqa: BLE001 -- compared against torch's
            out, err = None, (type(e).__name__, str(e))
        finally:
            lib.autograd.set_detect_anomaly(*prev)
    texts = [_CPP_SUFFIX.sub("", str(w.message)) for w in caught
             if issubclass(w.category, UserWarning)]
    return out, err, texts


def user_frames(text):
    """The frames of this test file in a formatted traceback (torch adds its own files)."""
    blocks = re.findall(r'  File "([^"]+)", line (\d+), in (\S+)\n    (.*)\n', text)
    return [b for b in blocks if b[0] == _FILE]


def both(fn):
    return run(fn, torch), run(fn, dyngrad)


# -- switches ------------------------------------------------------------------------------
def test_switches_like_torch():
    def fn(lib):
        states = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]
        with lib.autograd.detect_anomaly():
            states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            with lib.autograd.detect_anomaly(check_nan=False):
                states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        lib.autograd.set_detect_anomaly(True, check_nan=False)
        states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        with lib.autograd.set_detect_anomaly(False):
            states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        lib.autograd.set_detect_anomaly(False)
        states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        return states
    want, got = both(fn)
    assert got == want
    assert len(want[2]) == 2 and want[2][0].startswith("Anomaly Detection has been enabled.")


def test_public_names_like_torch():
    for name in ("is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled"):
        assert hasattr(dyngrad, name) == hasattr(torch, name)
    for name in ("detect_anomaly", "set_detect_anomaly"):
        assert hasattr(dyngrad.autograd, name)
    assert not dyngrad.is_anomaly_enabled()


def test_detect_anomaly_is_not_a_decorator():
    """torch 2.13's detect_anomaly is a context manager only: calling it on a function raises
    TypeError, and anomaly mode stays as it was."""
    def ex(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                L.autograd.detect_anomaly(check_nan=False)(lambda: None)
            except TypeError as e:
                print(type(e).__name__, e)
        print(L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled())
    assert_prints_like_torch(ex)


# -- stored tracebacks -----------------------------------------------------------------------
def test_traceback_stored_on_nodes_like_torch():
    def fn(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            y = x * 2
            b = y * 1
            b[1:].mul_(3)   # CopySlices on b, MulBackward0 inside it
        z = x.exp()         # anomaly off: nothing stored
        out = []
        for node in (y.grad_fn, b.grad_fn):
            tb = node.metadata["traceback_"]
            assert isinstance(tb, list) and all(isinstance(f, str) for f in tb)
            out.append((node.name(), sorted(node.metadata), user_frames("".join(tb))[-1]))
        out.append(dict(z.grad_fn.metadata))
        return out
    (want, werr, _), (got, gerr, _) = both(fn)
    assert werr is None and gerr is None
    assert got == want
    assert got[0][2][3] == "y = x * 2"


def test_traceback_ends_at_the_users_line():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with dyngrad.autograd.detect_anomaly():
            x = dyngrad.ones(2, requires_grad=True)
            y = (x + 1).sum()
    last = y.grad_fn.metadata["traceback_"][-1]
    assert f'File "{_FILE}"' in last and "y = (x + 1).sum()" in last


# -- the NaN check ---------------------------------------------------------------------------
@pytest.mark.parametrize("program", ["div_both", "div_self_only", "sqrt_double", "log0"])
def test_nan_check_like_torch(program):
    def fn(lib):
        with lib.autograd.detect_anomaly():
            if program == "div_both":
                x = lib.tensor([0.0, 1.0], requires_grad=True)
                (x / x).sum().backward()
            elif program == "div_self_only":
                a = lib.tensor([1.0], requires_grad=True)
                b = lib.tensor([0.0])
                (a / b).backward(lib.tensor([0.0]))
            elif program == "sqrt_double":
                z = lib.tensor([0.0], requires_grad=True)
                (g,) = lib.autograd.grad(z.sqrt().sum(), z, create_graph=True)
                (g * 0).sum().backward()
            else:
                z = lib.tensor([0.0, 1.0], requires_grad=True)
                (z.log() * 0).sum().backward()
            return True
    (_, werr, wwarn), (_, gerr, gwarn) = both(fn)
    assert werr is not None and gerr == werr
    assert "returned nan values" in werr[1]
    # the report: the enabling warning, then the failing node's forward traceback
    assert len(gwarn) == len(wwarn)
    for g, w in zip(gwarn[1:], wwarn[1:]):
        assert g.split("\n")[0] == w.split("\n")[0]
        assert user_frames(g) == user_frames(w)


def test_no_nan_check_when_disabled_like_torch():
    def fn(lib):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=False):
            (x / x).sum().backward()
        return x.grad.isnan().tolist()
    (want, werr, _), (got, gerr, _) = both(fn)
    assert werr is None and gerr is None and got == want == [True, False]


def test_anomaly_off_lets_nan_through():
    def fn(lib):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        (x / x).sum().backward()
        return x.grad.isnan().tolist()
    (want, _, wwarn), (got, _, gwarn) = both(fn)
    assert got == want and gwarn == wwarn == []


# -- backward errors -------------------------------------------------------------------------
def _bad_functions(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    class Bad2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return Bad.apply(g * x)

    return Bad, Bad2


def test_error_in_custom_backward_reports_forward_traceback():
    def fn(lib):
        Bad, _ = _bad_functions(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.detect_anomaly(check_nan=False):
            y = Bad.apply(x)
            y.sum().backward()
    (_, werr, wwarn), (_, gerr, gwarn) = both(fn)
    assert gerr == werr == ("ValueError", "boom")
    assert len(gwarn) == len(wwarn) == 2
    head = "Error detected in BadBackward. Traceback of forward call that caused the error:\n"
    assert wwarn[1].startswith(head) and gwarn[1].startswith(head)
    assert user_frames(gwarn[1]) == user_frames(wwarn[1])
    assert user_frames(gwarn[1])[-1][3] == "y = Bad.apply(x)"


def test_double_backward_error_reports_parents_like_torch():
    def fn(lib):
        _, Bad2 = _bad_functions(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.detect_anomaly():
            y = Bad2.apply(x * 2)
            (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
            inner = g.grad_fn.next_functions[0][0]
            parent = inner.metadata["parent_"]
            names = (g.grad_fn.name(), sorted(g.grad_fn.metadata), inner.name(), parent.name())
            try:
                g.sum().backward()
            except ValueError:
                return names
    (want, werr, wwarn), (got, gerr, gwarn) = both(fn)
    assert werr is None and gerr is None
    assert got == want
    assert len(gwarn) == len(wwarn) == 3
    assert gwarn[2].startswith("\n\nPrevious calculation was induced by Bad2Backward. "
                               "Traceback of forward call that induced the previous "
                               "calculation:\n")
    assert gwarn[2].split(":\n")[0] == wwarn[2].split(":\n")[0]
    for g, w in zip(gwarn[1:], wwarn[1:]):
        assert user_frames(g) == user_frames(w)
    assert user_frames(gwarn[2])[-1][3] == "y = Bad2.apply(x * 2)"


def test_no_forward_information_like_torch():
    def fn(lib):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        y = x / x
        with lib.autograd.set_detect_anomaly(True):
            y.sum().backward()
    (_, werr, wwarn), (_, gerr, gwarn) = both(fn)
    assert gerr == werr
    assert gwarn == wwarn
    assert wwarn == ["Error detected in DivBackward0. No forward pass information available. "
                     "Enable detect anomaly during forward pass for more information."]


# -- in-place diagnostics (Note [In-place diagnostics]) --------------------------------------
def _inplace_program(lib, anomaly, which):
    with lib.autograd.set_detect_anomaly(anomaly, check_nan=False):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2
        if which == "self":
            d = b * b.sin()  # saved here
            b.add_(1)  # modified here
        elif which == "result":
            d = b.exp()  # saved here
            d.mul_(2)  # modified here
        else:
            d = b.sin() * b  # saved here
            b[0:2].zero_()  # modified here
        d.sum().backward()


@pytest.mark.parametrize("which", ["self", "result", "other"])
@pytest.mark.parametrize("anomaly", [False, True])
def test_inplace_error_keeps_torch_text_first(which, anomaly):
    (_, werr, _), (_, gerr, _) = both(lambda lib: _inplace_program(lib, anomaly, which))
    assert werr is not None and gerr is not None
    assert gerr[0] == werr[0] == "RuntimeError"
    assert gerr[1].startswith(werr[1] + "\n  ")
    assert torch_part(gerr[1]) == werr[1]
    extra = gerr[1][len(werr[1]):]
    node = "ExpBackward0" if which == "result" else "MulBackward0"
    assert f"The modified tensor is `{which}` of {node} (read back as " \
           f"{node}._saved_{which})." in extra
    if not anomaly:
        assert "Enable anomaly detection during the forward pass" in extra
        return
    saved_line, modified_line = {
        "self": ("d = b * b.sin()  # saved here", "b.add_(1)  # modified here"),
        "result": ("d = b.exp()  # saved here", "d.mul_(2)  # modified here"),
        "other": ("d = b.sin() * b  # saved here", "b[0:2].zero_()  # modified here"),
    }[which]
    lines = extra.split("\n")
    i = lines.index("  It was saved by the forward call at:")
    assert lines[i + 1].startswith(f'    File "{_FILE}"') and lines[i + 2].strip() == saved_line
    op = {"self": "add_", "result": "mul_", "other": "zero_"}[which]
    j = lines.index(f"  It was then modified in place by {op} at:")
    assert lines[j + 2].strip() == modified_line


def test_inplace_error_names_custom_function_saved_tensors():
    class Sq(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 2

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * a * g

    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    y = Sq.apply(a)
    a.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert "The modified tensor is saved_tensors[0] of SqBackward (read back as " \
           "SqBackward.saved_tensors[0])." in str(info.value)
