"""torch.device and torch.accelerator against torch 2.13 (CPU build): parsing, errors, equality,
hashing, pickling, the context manager, and the accelerator API with no accelerator."""
import pickle
import warnings

import pytest
import torch

import dyngrad


def _outcome(fn):
    """(kind, text) of calling fn: its repr, or its exception type and message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = ("ok", repr(fn()))
        except Exception as e:   # noqa: BLE001  (the exception is what is compared)
            value = (type(e).__name__, str(e))
    return value + (tuple((w.category.__name__, str(w.message)) for w in caught),)


def _same(call):
    ours = _outcome(lambda: call(dyngrad))
    theirs = _outcome(lambda: call(torch))
    assert ours == theirs


STRINGS = ["cpu", "cuda", "cuda:1", "cpu:0", "cpu:1", "cuda:10", "xpu", "mps:0", "meta", "hip",
           "privateuseone", "lazy", "ipu", "mtia", "hpu", "mkldnn",
           # torch's grammar: letters and _, then :index without a leading zero
           "0", "", "foo", "CPU", "Cuda", "_", "c_u", "cpu:", ":0", "cuda:01", "cuda:00",
           "cuda:-1", "cuda:a", "cuda:0:1", "cuda::0", " cpu", "cpu ", "cpu1",
           # the index is a signed byte: 128 reads back as 65408
           "cuda:127", "cuda:128", "cuda:200", "cuda:99999999999"]


@pytest.mark.parametrize("text", STRINGS)
def test_device_string(text):
    _same(lambda lib: lib.device(text))
    _same(lambda lib: str(lib.device(text)))


ARGS = [(("cuda", 0), {}), (("cpu", None), {}), (("cuda", 128), {}), (("cpu", -1), {}),
        (("cpu", -2), {}), (("cuda:0", 1), {}), (("cpu", "x"), {}), (("cpu", True), {}),
        (("cpu", 1.0), {}), ((0,), {}), ((1,), {}), ((-1,), {}), ((None,), {}), ((1.5,), {}),
        ((True,), {}), ((b"cpu",), {}), (("cpu", 0, 1), {}), ((), {}),
        ((), {"type": "cpu", "index": 0}), (("cpu",), {"index": 2}), ((), {"index": 0})]


@pytest.mark.parametrize("args, kwargs", ARGS, ids=[repr(a) + repr(k) for a, k in ARGS])
def test_device_arguments(args, kwargs):
    _same(lambda lib: lib.device(*args, **kwargs))


def test_device_of_a_device_and_its_attributes():
    _same(lambda lib: lib.device(lib.device("cuda", 1)))
    _same(lambda lib: lib.device(lib.device("cuda", 1), 0))
    for lib in (dyngrad, torch):
        d = lib.device("cuda", 3)
        assert (d.type, d.index) == ("cuda", 3)
        with pytest.raises(AttributeError):
            d.type = "cpu"


def test_equality_hash_order():
    for lib in (dyngrad, torch):
        d = lib.device("cpu")
        assert d == lib.device("cpu") and d != lib.device("cpu", 0)
        # a device never equals a string in torch 2.13
        assert not (d == "cpu") and d != "cpu" and not ("cpu" == d)
        assert {d: 1}.get("cpu") is None
    kinds = ["cpu", "cuda", "xpu", "mps", "meta", "hip", "ve", "lazy", "ipu", "mtia",
             "privateuseone", "hpu", "xla", "vulkan", "maia", "fpga", "opengl", "opencl",
             "ideep"]
    for kind in kinds:
        for index in (None, 0, 3):
            assert hash(dyngrad.device(kind, index)) == hash(torch.device(kind, index)), kind
    _same(lambda lib: lib.device("cpu") < lib.device("cuda"))


def test_pickle_and_repr():
    for d in (dyngrad.device("cuda", 2), dyngrad.device("cpu")):
        again = pickle.loads(pickle.dumps(d))
        assert again == d and repr(again) == repr(d)
    assert dyngrad.device("cuda", 2).__reduce__() == (dyngrad.device, ("cuda", 2))
    assert torch.device("cuda", 2).__reduce__() == (torch.device, ("cuda", 2))


def test_device_as_context_manager():
    for lib in (dyngrad, torch):
        before = lib.get_default_device()
        with lib.device("cpu") as bound:
            assert bound == lib.device("cpu")
            assert lib.get_default_device() == lib.device("cpu")
            assert lib.ones(2).device == lib.device("cpu")
        assert lib.get_default_device() == before
        d = lib.device("cpu", 0)
        with d:
            with d:   # the same object, nested
                assert lib.get_default_device() == d
        assert lib.get_default_device() == before
    for lib in (dyngrad, torch):   # entering a cuda block is fine; reading the device raises
        with lib.device("cuda"):
            _same_error = _outcome(lib.get_default_device)
        assert _same_error[0] == "AssertionError", lib
        assert lib.get_default_device() == lib.device("cpu")


@pytest.mark.parametrize("kind", ["cuda", "xpu", "mps", "hip", "ipu", "mkldnn", "opengl",
                                  "opencl", "ideep", "ve", "fpga", "maia", "vulkan", "hpu",
                                  "mtia", "xla", "lazy", "privateuseone"])
def test_tensors_on_devices_this_build_lacks(kind):
    # the exception's type as torch's (the factories' NotImplementedError texts list torch's
    # dispatch keys: dyngrad's names the device instead)
    for call in (lambda lib: lib.ones(2, device=kind), lambda lib: lib.ones(2).to(kind)):
        ours, theirs = _outcome(lambda: call(dyngrad)), _outcome(lambda: call(torch))
        assert ours[0] == theirs[0]
        if ours[0] != "NotImplementedError":
            assert ours == theirs


# -- torch.accelerator ---------------------------------------------------------------------------
def test_accelerator_names():
    assert sorted(dyngrad.accelerator.__all__) == sorted(torch.accelerator.__all__)
    for name in torch.accelerator.__all__:
        assert hasattr(dyngrad.accelerator, name), name
    for module in ("memory", "graphs"):
        theirs = getattr(torch.accelerator, module)
        ours = getattr(dyngrad.accelerator, module)
        for name in getattr(theirs, "__all__", [n for n in dir(theirs) if not n.startswith("_")
                                                 and callable(getattr(theirs, n))
                                                 and getattr(getattr(theirs, n), "__module__",
                                                             "").startswith("torch.accel")]):
            assert hasattr(ours, name), f"{module}.{name}"


ACCEL_CALLS = {
    "is_available": lambda a: a.is_available(),
    "device_count": lambda a: a.device_count(),
    "current_accelerator": lambda a: a.current_accelerator(),
    "current_accelerator(True)": lambda a: a.current_accelerator(check_available=True),
    "current_device_index": lambda a: a.current_device_index(),
    "current_device_idx": lambda a: a.current_device_idx(),
    "set_device_index(0)": lambda a: a.set_device_index(0),
    "set_device_index(None)": lambda a: a.set_device_index(None),
    "set_device_index('cpu')": lambda a: a.set_device_index("cpu"),
    "set_device_idx(0)": lambda a: a.set_device_idx(0),
    "synchronize()": lambda a: a.synchronize(),
    "synchronize(0)": lambda a: a.synchronize(0),
    "synchronize('cpu')": lambda a: a.synchronize("cpu"),
    "synchronize('0')": lambda a: a.synchronize("0"),
    "current_stream()": lambda a: a.current_stream(),
    "current_stream('cuda')": lambda a: a.current_stream("cuda"),
    "get_device_capability()": lambda a: a.get_device_capability(),
    "get_device_capability('cpu')": lambda a: a.get_device_capability("cpu"),
    "set_stream": lambda a: a.set_stream(None),
    "Graph()": lambda a: a.Graph(),
    "empty_cache": lambda a: a.empty_cache(),
    "empty_host_cache": lambda a: a.empty_host_cache(),
    "memory_stats('cpu')": lambda a: a.memory_stats("cpu"),
    "memory_allocated": lambda a: a.memory_allocated(),
    "max_memory_allocated": lambda a: a.max_memory_allocated(0),
    "memory_reserved": lambda a: a.memory_reserved(),
    "max_memory_reserved": lambda a: a.max_memory_reserved(),
    "reset_peak_memory_stats": lambda a: a.reset_peak_memory_stats(),
    "reset_accumulated_memory_stats": lambda a: a.reset_accumulated_memory_stats(),
    "get_memory_info()": lambda a: a.get_memory_info(),
    "get_memory_info('cpu')": lambda a: a.get_memory_info("cpu"),
    "memory.memory_stats": lambda a: a.memory.memory_stats(),
}


@pytest.mark.parametrize("name", sorted(ACCEL_CALLS))
def test_accelerator_without_one(name):
    _same(lambda lib: ACCEL_CALLS[name](lib.accelerator))


def test_accelerator_device_index_context():
    for lib in (dyngrad, torch):
        with lib.accelerator.device_index(None):
            pass
    _same(lambda lib: lib.accelerator.device_index(0).__enter__())


def test_the_tutorials_device_idiom():
    """PyTorch's tutorials pick the device this way; without an accelerator it is the CPU."""
    for lib in (dyngrad, torch):
        device = lib.accelerator.current_accelerator().type \
            if lib.accelerator.is_available() else "cpu"
        assert device == "cpu"
        assert lib.ones(2, device=device).device == lib.device("cpu")


def test_grad_scaler_at_top_level():
    assert dyngrad.GradScaler is dyngrad.amp.GradScaler
    assert torch.GradScaler is torch.amp.GradScaler


def test_nn_factory_kwargs_and_functional_grad():
    assert dyngrad.nn.functional.grad is dyngrad.nn.grad
    cases = [None, {}, {"dtype": "d", "device": "cpu"}, {"factory_kwargs": {"dtype": 1}},
             {"factory_kwargs": {"dtype": 1}, "device": 2}, {"dtype": 1, "bad": 2},
             {"factory_kwargs": {"dtype": 1}, "dtype": 2}]
    for kw in cases:
        # (torch walks a set of the keys: its dict's order follows the string hashes)
        _same(lambda lib: sorted(lib.nn.factory_kwargs(None if kw is None else dict(kw)).items(),
                                 key=repr))


# -- torch.Stream and torch.Event on the CPU ----------------------------------------------------
STREAM_CALLS = {
    "Stream()": lambda t: t.Stream(),
    "Stream(None)": lambda t: t.Stream(None),
    "Stream('cpu')": lambda t: t.Stream("cpu", priority=-1),
    "Stream('cpu:1')": lambda t: t.Stream("cpu:1"),
    "Stream('meta')": lambda t: t.Stream("meta"),
    "Stream('cuda')": lambda t: t.Stream("cuda"),
    "Stream('xpu')": lambda t: t.Stream("xpu"),
    "Stream('mps')": lambda t: t.Stream("mps"),
    "Stream(0)": lambda t: t.Stream(0),
    "Stream(3.5)": lambda t: t.Stream(3.5),
    "Stream('cpu', 1)": lambda t: t.Stream("cpu", 1),
    "Stream(priority='a')": lambda t: t.Stream("cpu", priority="a"),
    "Stream('cpu', device_index=0)": lambda t: t.Stream("cpu", device_index=0),
    "Stream(internal)": lambda t: t.Stream(stream_id=1, device_index=0, device_type=0),
    "Stream(internal cuda)": lambda t: t.Stream(stream_id=0, device_index=0, device_type=1),
    "attributes": lambda t: (t.Stream().device, t.Stream().device_type, t.Stream().device_index,
                             t.Stream().stream_id, t.Stream("meta").device_type),
    "query/synchronize": lambda t: (t.Stream().query(), t.Stream().synchronize(),
                                    t.Stream().is_capturing()),
    "native_handle": lambda t: t.Stream().native_handle,
    "wait_event": lambda t: t.Stream().wait_event(t.Event()),
    "wait_stream": lambda t: t.Stream().wait_stream(t.Stream()),
    "record_event": lambda t: t.Stream().record_event(),
    "equality": lambda t: (t.Stream() == t.Stream(), hash(t.Stream()) == hash(t.Stream()),
                           t.Stream() == t.Stream(stream_id=2, device_index=0, device_type=0),
                           t.Stream() != 3),
    "context": lambda t: (t.Stream().__enter__(), t.Stream().__exit__(None, None, None)),
    "Event()": lambda t: t.Event(),
    "Event(timing)": lambda t: t.Event(enable_timing=True, blocking=True, interprocess=True),
    "Event('meta')": lambda t: t.Event("meta"),
    "Event('cpu:1')": lambda t: t.Event("cpu:1"),
    "Event('cuda')": lambda t: t.Event("cuda"),
    "Event(0)": lambda t: t.Event(0),
    "Event attributes": lambda t: (t.Event().device, t.Event().event_id, t.Event().query(),
                                   t.Event().synchronize(), t.Event().wait(),
                                   t.Event().wait(t.Stream())),
    "Event.record": lambda t: t.Event().record(),
    "Event.record(stream)": lambda t: t.Event().record(t.Stream()),
    "elapsed_time": lambda t: t.Event().elapsed_time(t.Event()),
    "elapsed_time timing": lambda t: t.Event(enable_timing=True).elapsed_time(
        t.Event(enable_timing=True)),
    "ipc_handle": lambda t: t.Event().ipc_handle(),
    "from_ipc_handle": lambda t: t.Event.from_ipc_handle("cpu", b""),
    "Event equality": lambda t: (t.Event() == t.Event(),),
}
for _kind in ("mkldnn", "opengl", "ve", "vulkan", "hpu", "mtia", "xla", "lazy",
              "privateuseone", "hip", "ipu"):
    STREAM_CALLS[f"Stream('{_kind}')"] = lambda t, k=_kind: t.Stream(k)
    STREAM_CALLS[f"Event('{_kind}')"] = lambda t, k=_kind: t.Event(k)
STREAM_CALLS["lazy Event"] = lambda t: (lambda e: (e.device, e.query(), e.synchronize()))(
    t.Event("lazy"))
STREAM_CALLS["lazy Event.record"] = lambda t: t.Event("lazy").record()


@pytest.mark.parametrize("name", sorted(STREAM_CALLS))
def test_streams_and_events_on_the_cpu(name):
    _same(lambda lib: STREAM_CALLS[name](lib))


# -- the default device and the factories ------------------------------------------------------
import numpy as np  # noqa: E402

FACTORIES = {
    "zeros": lambda t: t.zeros(2), "ones": lambda t: t.ones(2), "empty": lambda t: t.empty(2),
    "full": lambda t: t.full((2,), 3.0), "eye": lambda t: t.eye(2),
    "empty_strided": lambda t: t.empty_strided((2,), (1,)),
    "empty_permuted": lambda t: t.empty_permuted((2, 3), (1, 0)),
    "scalar_tensor": lambda t: t.scalar_tensor(1.0), "tensor": lambda t: t.tensor([1.0]),
    "as_tensor(list)": lambda t: t.as_tensor([1.0]),
    "as_tensor(array)": lambda t: t.as_tensor(np.ones(2)),
    "asarray": lambda t: t.asarray([1.0]), "arange(3)": lambda t: t.arange(3),
    "arange(0., 1., .5)": lambda t: t.arange(0.0, 1.0, 0.5),
    "linspace": lambda t: t.linspace(0, 1, 3), "logspace": lambda t: t.logspace(0, 1, 3),
    "rand": lambda t: t.rand(2), "randn": lambda t: t.randn(2),
    "randint": lambda t: t.randint(3, (2,)), "randperm": lambda t: t.randperm(3),
    "tril_indices": lambda t: t.tril_indices(3, 3), "hann_window": lambda t: t.hann_window(4),
    "bartlett_window(1)": lambda t: t.bartlett_window(1), "fftfreq": lambda t: t.fft.fftfreq(4),
}
KEEP_THEIR_DEVICE = {   # not factories: the input's device, or always the cpu
    "zeros_like": lambda t, x: t.zeros_like(x), "rand_like": lambda t, x: t.rand_like(x),
    "new_ones": lambda t, x: x.new_ones(2), "from_numpy": lambda t, x: t.from_numpy(np.ones(2)),
    "normal": lambda t, x: t.normal(x, 1.0), "x + 1": lambda t, x: x + 1,
    "multinomial": lambda t, x: t.multinomial(x.abs() + 1, 1),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_take_the_default_device(name):
    for lib in (dyngrad, torch):
        with lib.device("cpu"):
            assert FACTORIES[name](lib).device == lib.device("cpu")
    outcomes = []
    for lib in (dyngrad, torch):
        with lib.device("cuda"):   # stored; a factory then raises, as torch without CUDA
            outcomes.append(_outcome(lambda: FACTORIES[name](lib)))
        assert lib.ones(1).device == lib.device("cpu")
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == "AssertionError"
    # an explicit device wins over the default
    for lib in (dyngrad, torch):
        lib.set_default_device("cuda")
        try:
            assert lib.zeros(2, device="cpu").device == lib.device("cpu")
        finally:
            lib.set_default_device(None)


@pytest.mark.parametrize("name", sorted(KEEP_THEIR_DEVICE))
def test_other_functions_keep_their_input_device(name):
    for lib in (dyngrad, torch):
        x = lib.ones(2)
        with lib.device("cuda"):
            assert KEEP_THEIR_DEVICE[name](lib, x).device == lib.device("cpu"), lib
