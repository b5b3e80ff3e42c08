"""copy.deepcopy, copy.copy and pickle of tensors, against torch: what the copy keeps (size,
strides, offset, storage, version, requires_grad, .grad, the user's attributes, the subclass)
and what it shares."""
import copy
import pickle
import warnings

import pytest
import torch

import dyngrad
from compare import like_torch


def _roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


COPIES = {"deepcopy": copy.deepcopy, "copy": copy.copy, "pickle": _roundtrip}

LAYOUTS = {
    "contiguous": lambda lib: lib.arange(6.).reshape(2, 3),
    "transposed": lambda lib: lib.arange(6.).reshape(2, 3).t(),
    "offset view": lambda lib: lib.arange(6.).reshape(2, 3).t()[1:],
    "expanded": lambda lib: lib.ones(3, 1).expand(3, 4),
    "channels_last": lambda lib: lib.arange(12.).reshape(1, 3, 2, 2).to(
        memory_format=lib.channels_last),
    "0-d": lambda lib: lib.tensor(2.5),
    "empty": lambda lib: lib.empty(0, 3),
    "int64": lambda lib: lib.tensor([1, 2, 3]),
    "bool": lambda lib: lib.tensor([True, False]),
    "complex": lambda lib: lib.tensor([1 + 2j, 3 - 1j]),
    "dtype view": lambda lib: lib.arange(4.).view(lib.int32)[1:5],
}


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_copy_keeps_geometry(how, layout):
    def fn(lib):
        c = COPIES[how](LAYOUTS[layout](lib))
        return c, (c.storage_offset(), c._version, len(c.untyped_storage()))
    like_torch(lambda lib: fn(lib)[0])
    assert fn(dyngrad)[1] == fn(torch)[1]


@pytest.mark.parametrize("how", COPIES)
def test_copy_of_a_trained_leaf(how):
    def fn(lib):
        w = lib.ones(2, requires_grad=True)
        (w * 3).sum().backward()
        w.foo = [1, 2]
        c = COPIES[how](w)
        return (c.requires_grad, c.is_leaf, None if c.grad is None else c.grad.tolist(),
                c.grad is w.grad, c.foo, c.foo is w.foo, c is w)
    assert fn(dyngrad) == fn(torch)


@pytest.mark.parametrize("how", COPIES)
def test_copy_shares_memory_as_torch(how):
    def fn(lib):
        t = lib.ones(3)
        c = COPIES[how](t)
        c.add_(1)
        return t.tolist(), c._version, t._version
    assert fn(dyngrad) == fn(torch)


@pytest.mark.parametrize("how", COPIES)
def test_views_copied_together(how):
    """deepcopy keeps two views of one storage sharing a new storage; pickle does not."""
    def fn(lib):
        a = lib.arange(4.)
        b, v = COPIES[how]([a, a[1:3]])
        v.add_(10)
        return b.tolist(), v.storage_offset(), v._base is None
    assert fn(dyngrad) == fn(torch)


@pytest.mark.parametrize("how", ["copy", "pickle"])
def test_non_leaf_copies_as_a_leaf(how):
    like_torch(lambda lib: COPIES[how](lib.ones(2, requires_grad=True) * 2))


def test_deepcopy_refuses_a_non_leaf():
    like_torch(lambda lib: copy.deepcopy(lib.ones(2, requires_grad=True) * 2))


def test_deepcopy_refuses_a_grad_with_history():
    def fn(lib):
        w = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (w * w).sum().backward(create_graph=True)
        return copy.deepcopy(w)
    like_torch(fn)


def test_deepcopy_of_a_non_leaf_without_grad_works():
    like_torch(lambda lib: copy.deepcopy(lib.ones(2) * 2))


def test_deepcopy_memo_shares_the_grad():
    def fn(lib, grad_first):
        w = lib.ones(2, requires_grad=True)
        w.sum().backward()
        if grad_first:
            g, c = copy.deepcopy([w.grad, w])
        else:
            c, g = copy.deepcopy([w, w.grad])
        return c.grad is g, c.grad is w.grad
    for grad_first in (False, True):
        assert fn(dyngrad, grad_first) == fn(torch, grad_first)


def test_deepcopy_of_the_same_tensor_twice_is_one_copy():
    def fn(lib):
        a = lib.ones(2)
        x, y = copy.deepcopy([a, a])
        return x is y
    assert fn(dyngrad) == fn(torch) is True


def test_deepcopy_copies_attributes_deeply_and_no_hooks():
    def fn(lib):
        t = lib.ones(2, requires_grad=True)
        t.register_hook(lambda g: g * 2)
        t.tag = {"a": [1]}
        c = copy.deepcopy(t)
        c.sum().backward()
        return c.grad.tolist(), c.tag, c.tag is t.tag, c.tag["a"] is t.tag["a"]
    assert fn(dyngrad) == fn(torch)


def test_pickling_hooks_warns_as_torch():
    def fn(lib):
        t = lib.ones(2, requires_grad=True)
        t.register_hook(lambda g: g)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            pickle.dumps(t)
        return [str(w.message).split(" at 0x")[0] for w in seen]
    assert fn(dyngrad) == fn(torch)


@pytest.mark.parametrize("how", COPIES)
def test_parameter_copies(how):
    def fn(lib):
        p = lib.nn.Parameter(lib.ones(2, 3).t())
        p.sum().backward()
        c = COPIES[how](p)
        return type(c).__name__, c.requires_grad, c.grad, c.stride()
    assert fn(dyngrad) == fn(torch)



class DyngradSub(dyngrad.Tensor):
    pass


class TorchSub(torch.Tensor):
    pass


@pytest.mark.parametrize("how", ["copy", "pickle"])
def test_subclass_survives_copy_and_pickle(how):
    def fn(lib, cls):
        c = COPIES[how](lib.ones(2).as_subclass(cls))
        return type(c) is cls, c.tolist()
    assert fn(dyngrad, DyngradSub) == fn(torch, TorchSub)


def test_subclass_deepcopy_error_as_torch():
    def fn(lib, cls):
        try:
            copy.deepcopy(lib.ones(2).as_subclass(cls))
        except RuntimeError as e:
            return str(e)
        return None
    assert fn(dyngrad, DyngradSub) == fn(torch, TorchSub)
