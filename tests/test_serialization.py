"""dyngrad.save / dyngrad.load (PyTorch's format) and state dicts through safetensors.

Round trips are compared with torch.save/torch.load round trips of the same objects: the same
dtypes, shapes, strides, storage offsets, sharing and identity. Files cross over: written by
dyngrad.save and read by torch.load, and back; safetensors files the same way.
"""
import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad import serialization

st_torch = pytest.importorskip("safetensors.torch")   # the `test` extra installs safetensors
from dyngrad.utils import safetensors as dst  # noqa: E402


def roundtrip(lib, obj, **load_kwargs):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return lib.load(buf, **load_kwargs)


def values(t):
    t = t.detach()
    return (t.float() if str(t.dtype) == "torch.bfloat16" else t).numpy()


def assert_same_tensor(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.requires_grad == theirs.requires_grad
    assert ours.is_leaf and theirs.is_leaf
    np.testing.assert_array_equal(values(ours), values(theirs))


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


def sample(lib, dtype_name, shape=(3, 4)):
    data = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) - 5.5
    if dtype_name == "bool":
        arr = data > 0
    elif dtype_name.startswith("complex"):
        arr = (data + 1j * (data * 2 - 1)).astype(dtype_name)
    else:
        arr = data.astype(dtype_name)
    return lib.from_numpy(np.ascontiguousarray(arr))


VIEWS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "row": lambda t: t[1],
    "column": lambda t: t[:, 2],
    "strided slice": lambda t: t[::2, 1::2],
    "expanded": lambda t: t[0:1].expand(5, 4),
    "0-dim": lambda t: t[1, 1],
    "empty": lambda t: t[:, 4:],
    "reshaped": lambda t: t.reshape(2, 6),
}


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("view", list(VIEWS))
def test_tensor_roundtrip_like_torch(dtype_name, view):
    ours = roundtrip(dyngrad, VIEWS[view](sample(dyngrad, dtype_name)))
    theirs = roundtrip(torch, VIEWS[view](sample(torch, dtype_name)))
    assert_same_tensor(ours, theirs)


def test_channels_last_and_requires_grad_like_torch():
    def make(lib):
        x = lib.from_numpy(np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5))
        return [x.contiguous(memory_format=lib.channels_last),
                lib.ones(3, requires_grad=True),
                lib.ones(3, requires_grad=True) * 2,          # a non-leaf: comes back a leaf
                lib.zeros(2, dtype=lib.float64).requires_grad_()]
    for ours, theirs in zip(roundtrip(dyngrad, make(dyngrad)), roundtrip(torch, make(torch))):
        assert_same_tensor(ours, theirs)


def test_views_share_storage_after_load_like_torch():
    def make(lib):
        x = lib.from_numpy(np.arange(12.0).reshape(3, 4))
        return {"x": x, "xt": x.t(), "row": x[1], "x_again": x}

    for lib in (dyngrad, torch):
        loaded = roundtrip(lib, make(lib))
        ptr = loaded["x"].untyped_storage().data_ptr()
        assert all(v.untyped_storage().data_ptr() == ptr for v in loaded.values())
        assert loaded["x_again"] is loaded["x"]        # one object saved twice stays one
        loaded["x"][1, 0] = 100.0                      # views still alias the memory
        assert loaded["row"][0].item() == 100.0 and loaded["xt"][0, 1].item() == 100.0


def test_shared_storage_is_written_once():
    x = dyngrad.zeros(1000)
    buf = io.BytesIO()
    dyngrad.save([x, x[10:], x[::2], x.view(10, 100).t()], buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as archive:
        storages = [n for n in archive.namelist() if n.startswith("archive/data/")]
        assert len(storages) == 1
        info = archive.getinfo(storages[0])
        assert info.file_size == 1000 * 4
        with archive.open(info) as record:   # its bytes start on a 64-byte boundary, as torch's
            assert record._orig_compress_start % 64 == 0
    assert len(buf.getvalue()) < 1000 * 4 * 2


def test_archive_records_like_torch(tmp_path):
    """The same records in the same order, in a folder named after the file."""
    names = []
    for lib in (torch, dyngrad):
        lib.save({"w": lib.ones(2, 3), "n": 3}, tmp_path / f"ckpt_{lib.__name__}.pt")
        with zipfile.ZipFile(tmp_path / f"ckpt_{lib.__name__}.pt") as archive:
            names.append([n.split("/", 1)[1] for n in archive.namelist()])
            assert all(n.startswith(f"ckpt_{lib.__name__}/") for n in archive.namelist())
            assert [archive.read(f"ckpt_{lib.__name__}/{n}") for n in
                    ("version", "byteorder", ".format_version", ".storage_alignment")] \
                == [b"3\n", b"little", b"1", b"64"]
    assert names[0] == names[1]


@pytest.mark.parametrize("dtype_name", DTYPES + ["bfloat16", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("view", ["contiguous", "transposed", "strided slice", "0-dim"])
def test_files_cross_over(dtype_name, view):
    """torch.load reads dyngrad.save's files and dyngrad.load torch.save's: the same dtype,
    shape, strides, offset and values; views of one storage still share it."""
    def make(lib):
        base = sample(lib, "float64" if dtype_name in ("bfloat16", "uint16", "uint32", "uint64")
                      else dtype_name)
        if dtype_name in ("bfloat16", "uint16", "uint32", "uint64"):
            base = base.abs().to(getattr(lib, dtype_name))
        return {"t": VIEWS[view](base), "base": base, "dt": base.dtype, "size": base.shape,
                "p": lib.nn.Parameter(lib.ones(2)), "dev": lib.device("cpu")}
    for saver, loader in ((dyngrad, torch), (torch, dyngrad)):
        buf = io.BytesIO()
        saver.save(make(saver), buf)
        buf.seek(0)
        got, want = loader.load(buf), make(loader)
        assert_same_tensor(got["t"], want["t"])
        assert_same_tensor(got["base"], want["base"])
        assert got["dt"] is want["dt"] and got["size"] == want["size"]
        assert type(got["size"]) is loader.Size and got["dev"] == want["dev"]
        assert type(got["p"]) is loader.nn.Parameter and got["p"].requires_grad
        assert got["t"].untyped_storage().data_ptr() == got["base"].untyped_storage().data_ptr()


def test_torch_state_dict_and_optimizer_into_dyngrad(tmp_path):
    """A torch model's checkpoint (state dict, optimizer state, epoch) loads into the same model
    built with dyngrad, which then computes what torch's did."""
    model = torch_mlp()
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
    model(torch.from_numpy(x)).sum().backward()
    opt.step()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 2},
               tmp_path / "ckpt.pt")
    ckpt = dyngrad.load(tmp_path / "ckpt.pt")
    ours = dyngrad_nn_mlp()
    ours.load_state_dict(ckpt["model"])
    our_opt = dyngrad.optim.Adam(ours.parameters(), lr=0.1)
    our_opt.load_state_dict(ckpt["opt"])
    assert ckpt["epoch"] == 2 and our_opt.state_dict()["param_groups"] == \
        opt.state_dict()["param_groups"]
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours(dyngrad.from_numpy(x)).detach().numpy(), expected,
                               rtol=1e-6)


def test_cuda_storages_need_map_location(tmp_path):
    """A checkpoint saved on a GPU: torch's error without map_location, the CPU with it."""
    buf = io.BytesIO()
    dyngrad.save({"w": dyngrad.ones(2)}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src:
        files = {n: src.read(n) for n in src.namelist()}
    files["archive/data.pkl"] = files["archive/data.pkl"].replace(b"X\x03\x00\x00\x00cpu",
                                                                  b"X\x06\x00\x00\x00cuda:0")
    path = tmp_path / "gpu.pt"
    with zipfile.ZipFile(path, "w") as dst_zip:
        for name, data in files.items():
            dst_zip.writestr(name, data)
    errors = []
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError) as info:
            lib.load(path)
        errors.append(str(info.value))
        assert lib.load(path, map_location="cpu")["w"].tolist() == [1.0, 1.0]
        assert lib.load(path, map_location={"cuda:0": "cpu"})["w"].tolist() == [1.0, 1.0]
    assert errors[0] == errors[1]


def test_nested_containers_and_primitives_like_torch():
    def make(lib):
        sd = collections.OrderedDict(weight=lib.ones(2, 2), bias=lib.zeros(2))
        sd._metadata = collections.OrderedDict({"": {"version": 1}})   # as Module.state_dict
        return {
            "model": sd,
            "optim": {"state": {0: {"step": 3, "exp_avg": lib.full((2,), 0.5)}},
                      "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1]}]},
            "misc": [1, 2.5, -3, True, None, "text", b"bytes", 1 + 2j, (4, (5, [6])),
                     {7, 8}, bytearray(b"ba"), collections.Counter("aab"), float("inf")],
            "dtype": lib.float16, "shape": lib.ones(2, 3).shape, "device": lib.device("cpu"),
        }
    ours, theirs = roundtrip(dyngrad, make(dyngrad)), roundtrip(torch, make(torch))
    assert type(ours["model"]) is type(theirs["model"]) is collections.OrderedDict
    assert list(ours["model"]) == list(theirs["model"])
    assert ours["model"]._metadata == theirs["model"]._metadata
    for k in theirs["model"]:
        assert_same_tensor(ours["model"][k], theirs["model"][k])
    assert_same_tensor(ours["optim"]["state"][0]["exp_avg"],
                       theirs["optim"]["state"][0]["exp_avg"])
    assert ours["optim"]["state"][0]["step"] == 3
    assert ours["optim"]["param_groups"] == theirs["optim"]["param_groups"]
    assert ours["misc"] == theirs["misc"]
    assert [type(v) for v in ours["misc"]] == [type(v) for v in theirs["misc"]]
    assert repr(ours["dtype"]) == repr(theirs["dtype"]) and ours["dtype"] is dyngrad.float16
    assert repr(ours["shape"]) == repr(theirs["shape"])
    assert isinstance(ours["shape"], dyngrad.Size)
    assert repr(ours["device"]) == repr(theirs["device"])


def test_parameter_roundtrip_like_torch():
    ours = roundtrip(dyngrad, [dyngrad.nn.Parameter(dyngrad.ones(2)),
                               dyngrad.nn.Parameter(dyngrad.ones(2), requires_grad=False)])
    theirs = roundtrip(torch, [torch.nn.Parameter(torch.ones(2)),
                               torch.nn.Parameter(torch.ones(2), requires_grad=False)])
    for o, t in zip(ours, theirs):
        assert type(o) is dyngrad.nn.Parameter and type(t) is torch.nn.Parameter
        assert repr(o) == repr(t)
        assert_same_tensor(o, t)


def test_pickle_protocol_2():
    obj = {"t": dyngrad.arange(3), "b": b"\x00\xff", "s": {1}, "c": 1j}
    buf = io.BytesIO()
    dyngrad.save(obj, buf, pickle_protocol=2)
    buf.seek(0)
    loaded = dyngrad.load(buf)
    assert loaded["t"].tolist() == [0, 1, 2] and loaded["b"] == b"\x00\xff"
    assert loaded["s"] == {1} and loaded["c"] == 1j


def test_paths_and_file_objects(tmp_path):
    obj = {"a": dyngrad.arange(5)}
    for target in (str(tmp_path / "a.dg"), tmp_path / "b.dg"):
        dyngrad.save(obj, target)
        assert dyngrad.load(target)["a"].tolist() == [0, 1, 2, 3, 4]
    with open(tmp_path / "c.dg", "wb") as f:
        dyngrad.save(obj, f)
    with open(tmp_path / "c.dg", "rb") as f:
        assert dyngrad.load(f)["a"].tolist() == [0, 1, 2, 3, 4]


def test_map_location():
    x = dyngrad.arange(3.)
    for loc in (None, "cpu", dyngrad.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s):
        assert roundtrip(dyngrad, x, map_location=loc).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="can only be loaded to the CPU"):
        roundtrip(dyngrad, x, map_location="cuda")


def test_loaded_tensors_are_writable_and_independent():
    x = dyngrad.arange(4.)
    y = roundtrip(dyngrad, x)
    y.add_(1)
    assert x.tolist() == [0, 1, 2, 3] and y.tolist() == [1, 2, 3, 4]


# -- weights_only: Note [Loading safely: weights_only] -----------------------------------------
class RunsCommand:
    """Unpickling this runs a shell command (what a malicious checkpoint would do)."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def test_malicious_pickle_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.dg"
    dyngrad.save({"weight": dyngrad.ones(2), "payload": RunsCommand(f"touch {marker}")}, path)
    for kwargs in ({}, {"weights_only": True}, {"weights_only": None}):
        with pytest.raises(pickle.UnpicklingError) as info:
            dyngrad.load(path, **kwargs)
        assert type(info.value).__module__ == "_pickle"          # _pickle.UnpicklingError
        message = str(info.value)
        assert message.startswith("Weights only load failed.")
        assert f"GLOBAL {os.system.__module__}.system" in message
        assert "weights_only` set to `False`" in message
        assert not marker.exists()
    # torch refuses its own equivalent in the same way
    tpath = tmp_path / "evil.pt"
    torch.save({"payload": RunsCommand(f"touch {marker}")}, tpath)
    with pytest.raises(pickle.UnpicklingError, match="^Weights only load failed"):
        torch.load(tpath)
    assert not marker.exists()
    # trusted files: weights_only=False unpickles everything, and the command runs
    loaded = dyngrad.load(path, weights_only=False)
    assert marker.exists() and loaded["payload"] == 0
    assert loaded["weight"].tolist() == [1.0, 1.0]


def test_other_globals_are_refused(tmp_path):
    # protocol 4 has opcodes for sets and frozensets: no global, nothing to refuse; protocol 2
    # (the default, as torch's) names frozenset, which torch refuses too
    buf = io.BytesIO()
    dyngrad.save([frozenset({1}), {2}], buf, pickle_protocol=4)
    buf.seek(0)
    assert dyngrad.load(buf) == [frozenset({1}), {2}]
    for lib in (torch, dyngrad):
        with pytest.raises(pickle.UnpicklingError, match="frozenset"):
            roundtrip(lib, [frozenset({1}), {2}])
    path = tmp_path / "np.dg"
    dyngrad.save({"arr": np.ones(2)}, path)            # NumPy arrays need numpy globals
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        dyngrad.load(path)
    assert dyngrad.load(path, weights_only=False)["arr"].tolist() == [1.0, 1.0]


class MyTensor(dyngrad.Tensor):
    pass


def test_tensor_subclass_needs_add_safe_globals(tmp_path):
    t = dyngrad.ones(2).as_subclass(MyTensor) if hasattr(dyngrad.Tensor, "as_subclass") \
        else serialization._rebuild_tensor_subclass(MyTensor, dyngrad.ones(2))
    path = tmp_path / "sub.dg"
    dyngrad.save(t, path)
    with pytest.raises(pickle.UnpicklingError, match="MyTensor"):
        dyngrad.load(path)
    with serialization.safe_globals([MyTensor]):
        loaded = dyngrad.load(path)
    assert type(loaded) is MyTensor and loaded.tolist() == [1.0, 1.0]
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        dyngrad.load(path)


def test_not_a_checkpoint(tmp_path):
    (tmp_path / "junk").write_bytes(b"not a zip file at all")
    with pytest.raises(RuntimeError, match="is not a checkpoint written by torch.save"):
        dyngrad.load(tmp_path / "junk")
    torch.save(torch.ones(2), tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy format"):
        dyngrad.load(tmp_path / "old.pt")


def _old_format_file(path, shape, data=None):
    """A file in dyngrad's old format (Note [dyngrad's old save format]): one float32 tensor of
    `shape` over the bytes of `data` (four floats by default)."""
    storage = object()

    class OldPickler(pickle.Pickler):
        def reducer_override(self, o):
            if isinstance(o, dyngrad.Tensor):
                return serialization._rebuild_tensor, (storage, "float32", 0, shape,
                                                       (1,) * len(shape), False)
            return NotImplemented

        def persistent_id(self, o):
            return ("storage", 0, "<f4", 4) if o is storage else None
    out = io.BytesIO()
    OldPickler(out, 4).dump({"w": dyngrad.ones(1)})
    with zipfile.ZipFile(path, "w") as dst_zip:
        dst_zip.writestr("dyngrad/format", b"dyngrad-save 1")
        dst_zip.writestr("dyngrad/data.pkl", out.getvalue())
        dst_zip.writestr("dyngrad/storages/0", np.arange(4, dtype="<f4").tobytes()
                         if data is None else data)


def test_old_dyngrad_files_still_load(tmp_path):
    _old_format_file(tmp_path / "old.dg", (4,))
    assert dyngrad.load(tmp_path / "old.dg")["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("old", [False, True])
def test_tampered_geometry_is_refused(tmp_path, old):
    """A tensor claiming more elements than its storage holds must not read past it."""
    path = tmp_path / "tampered.pt"
    if old:
        _old_format_file(path, (400,))
    else:
        buf = io.BytesIO()
        dyngrad.save(dyngrad.ones(4), buf)
        with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src:
            files = {n: src.read(n) for n in src.namelist()}
        # the shape (4,) is pickled as BININT1 4, TUPLE1: make it 400 (BININT2)
        pkl = files["archive/data.pkl"]
        assert pkl.count(b"K\x04\x85") == 1
        files["archive/data.pkl"] = pkl.replace(b"K\x04\x85", b"M\x90\x01\x85")
        with zipfile.ZipFile(path, "w") as dst_zip:
            for name, data in files.items():
                dst_zip.writestr(name, data)
    with pytest.raises(pickle.UnpicklingError, match="reaches past its storage"):
        dyngrad.load(path)


# -- safetensors ------------------------------------------------------------------------------
def torch_mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def dyngrad_mlp(sd, x):
    """The same network written out by hand, its tensors named as torch's state dict keys."""
    h = (x @ sd["0.weight"].t() + sd["0.bias"]).relu()
    return h @ sd["2.weight"].t() + sd["2.bias"]


def test_state_dict_dyngrad_to_torch(tmp_path):
    g = dyngrad.Generator().manual_seed(0)
    sd = {"0.weight": dyngrad.randn(8, 4, generator=g), "0.bias": dyngrad.randn(8, generator=g),
          "2.weight": dyngrad.randn(3, 8, generator=g), "2.bias": dyngrad.randn(3, generator=g)}
    path = tmp_path / "mlp.safetensors"
    dst.save_file(sd, path, metadata={"framework": "dyngrad"})
    model = torch_mlp()
    result = model.load_state_dict(st_torch.load_file(path), strict=True)
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    got = dyngrad_mlp(sd, dyngrad.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy())


def test_state_dict_torch_to_dyngrad(tmp_path):
    model = torch_mlp()
    path = tmp_path / "mlp.safetensors"
    st_torch.save_file(model.state_dict(), path)
    sd = dst.load_file(path)
    assert sorted(sd) == sorted(model.state_dict())
    assert all(type(v) is dyngrad.Tensor and v.dtype is dyngrad.float32 for v in sd.values())
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(dyngrad_mlp(sd, dyngrad.from_numpy(x)).numpy(), expected,
                               rtol=1e-5, atol=1e-6)
    sd["0.bias"].add_(1)                      # loaded tensors are ordinary, writable tensors


SAFETENSORS_DTYPES = [d for d in DTYPES if d != "complex128"]   # the format has no complex128


@pytest.mark.parametrize("dtype_name", SAFETENSORS_DTYPES)
def test_safetensors_dtypes_cross_over(dtype_name, tmp_path):
    ours = {"x": sample(dyngrad, dtype_name), "s": sample(dyngrad, dtype_name, ())}
    dst.save_file(ours, tmp_path / "a.safetensors")
    theirs = st_torch.load_file(tmp_path / "a.safetensors")
    for k in ours:
        assert str(theirs[k].dtype) == str(ours[k].dtype) and theirs[k].shape == ours[k].shape
        np.testing.assert_array_equal(theirs[k].numpy(), ours[k].numpy())
    st_torch.save_file(theirs, tmp_path / "b.safetensors")
    back = dst.load_file(tmp_path / "b.safetensors")
    for k in ours:
        assert_same_tensor(back[k], theirs[k])
    assert dst.load(dst.save(ours))["x"].tolist() == ours["x"].tolist()
    assert dst.load(st_torch.save(theirs))["x"].tolist() == ours["x"].tolist()


def test_safetensors_save_errors_like_safetensors_torch():
    def check(make):
        errors = []
        for lib, save in ((dyngrad, dst.save), (torch, st_torch.save)):
            with pytest.raises(Exception) as info:
                save(make(lib))
            errors.append((type(info.value), str(info.value).strip().splitlines()[0]))
        assert errors[0] == errors[1]
    check(lambda lib: {"a": lib.ones(2, 3).t()})                        # not contiguous
    check(lambda lib: (lambda w: {"w": w, "row": w[0]})(lib.ones(2, 3)))   # shared memory
    check(lambda lib: {"a": [1, 2]})
    check(lambda lib: [lib.ones(1)])
    # disjoint pieces of one storage: both libraries save them
    for lib, save, load in ((dyngrad, dst.save, dst.load), (torch, st_torch.save, st_torch.load)):
        w = lib.arange(6.).reshape(2, 3)
        assert sorted(load(save({"a": w[0], "b": w[1]}))) == ["a", "b"]


def test_safetensors_bfloat16_cross_over(tmp_path):
    pytest.importorskip("ml_dtypes")
    made = {"x": torch.tensor([[1.1, -2.5], [3e38, 1e-39]], dtype=torch.bfloat16),
            "s": torch.tensor(-0.1, dtype=torch.bfloat16),
            "e": torch.empty(0, 3, dtype=torch.bfloat16),
            "y": torch.arange(5, dtype=torch.float16), "b": torch.tensor([True, False])}
    st_torch.save_file(made, tmp_path / "bf16.safetensors")
    for ours in (dst.load_file(tmp_path / "bf16.safetensors"),
                 dst.load((tmp_path / "bf16.safetensors").read_bytes())):
        assert sorted(ours) == sorted(made)
        for k, t in made.items():
            assert str(ours[k].dtype) == str(t.dtype) and ours[k].shape == t.shape, k
            assert ours[k].tolist() == t.tolist(), k
        ours["x"].add_(1)                      # ordinary, writable tensors
        dst.save_file(ours, tmp_path / "back.safetensors")
        for back in (st_torch.load_file(tmp_path / "back.safetensors"),
                     st_torch.load(dst.save(ours))):
            for k, t in made.items():
                assert back[k].dtype == t.dtype and back[k].shape == t.shape, k
                expected = t + 1 if k == "x" else t
                assert torch.equal(back[k].view(torch.uint16 if t.dtype == torch.bfloat16
                                                else t.dtype),
                                   expected.view(torch.uint16 if t.dtype == torch.bfloat16
                                                 else t.dtype)), k


def test_safetensors_float8_is_refused_clearly(tmp_path):
    st_torch.save_file({"x": torch.ones(2, dtype=torch.float8_e4m3fn), "y": torch.ones(1)},
                       tmp_path / "f8.safetensors")
    with pytest.raises(TypeError, match=r"\{'x': 'F8_E4M3'\}.*no float8"):
        dst.load_file(tmp_path / "f8.safetensors")
    with pytest.raises(TypeError, match="no float8"):
        dst.load((tmp_path / "f8.safetensors").read_bytes())


def dyngrad_nn_mlp():
    nn = dyngrad.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def test_module_state_dict_safetensors_both_ways(tmp_path):
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
    ours = dyngrad_nn_mlp()
    dst.save_file(ours.state_dict(), tmp_path / "ours.safetensors")
    theirs = torch_mlp()
    theirs.load_state_dict(st_torch.load_file(tmp_path / "ours.safetensors"))
    with torch.no_grad():
        np.testing.assert_allclose(theirs(torch.from_numpy(x)).numpy(),
                                   ours(dyngrad.from_numpy(x)).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    theirs = torch_mlp()
    st_torch.save_file(theirs.state_dict(), tmp_path / "theirs.safetensors")
    result = ours.load_state_dict(dst.load_file(tmp_path / "theirs.safetensors"))
    assert result.missing_keys == [] and result.unexpected_keys == []
    with torch.no_grad():
        np.testing.assert_allclose(ours(dyngrad.from_numpy(x)).detach().numpy(),
                                   theirs(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_module_save_load_like_torch(tmp_path):
    ours, theirs = dyngrad_nn_mlp(), torch_mlp()
    for lib, model in ((dyngrad, ours), (torch, theirs)):
        path = tmp_path / f"{lib.__name__}.ckpt"
        lib.save({"model": model.state_dict(), "epoch": 3}, path)
        ckpt = lib.load(path)
        assert list(ckpt["model"]) == ["0.weight", "0.bias", "2.weight", "2.bias"]
        assert str(model.load_state_dict(ckpt["model"])) == "<All keys matched successfully>"
        lib.save(model, path)                   # a whole module needs its classes: refused
        with pytest.raises(pickle.UnpicklingError, match="^Weights only load failed"):
            lib.load(path)
        assert repr(lib.load(path, weights_only=False)) == repr(model)
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    before = ours(dyngrad.from_numpy(x)).detach().numpy()
    path = tmp_path / "sd.dg"
    dyngrad.save(ours.state_dict(), path)
    fresh = dyngrad_nn_mlp()
    fresh.load_state_dict(dyngrad.load(path))
    np.testing.assert_array_equal(fresh(dyngrad.from_numpy(x)).detach().numpy(), before)


def _public_ops():
    import types
    from dyngrad.ops._registry import OpSpec
    for mod in (dyngrad, dyngrad.nn.functional, dyngrad.linalg, dyngrad.special):
        for name in dir(mod):
            fn = getattr(mod, name)
            if not name.startswith("_") and (type(fn) is types.FunctionType
                                             or isinstance(fn, OpSpec)):
                yield f"{mod.__name__}.{name}", fn


def test_every_public_function_pickles_by_reference():
    import pickle
    failed = [name for name, fn in _public_ops() if pickle.loads(pickle.dumps(fn)) is not fn]
    assert not failed


def test_a_module_holding_functional_ops_saves_whole():
    """dyngrad.save(model) with weights_only=False, as torch.save(model): TransformerEncoderLayer
    keeps F.relu as its activation."""
    m = dyngrad.nn.TransformerEncoderLayer(8, 2, 16).eval()
    buf = io.BytesIO()
    dyngrad.save(m, buf)
    buf.seek(0)
    again = dyngrad.load(buf, weights_only=False)
    x = dyngrad.randn(3, 5, 8)
    assert again.activation is dyngrad.nn.functional.relu
    assert dyngrad.equal(m(x), again(x))
