"""backward_trace: per-edge gradient statistics equal torch's gradients, and the HTML page
really renders in headless Chromium (one launch: screenshot and DOM dump together)."""
import math
import os
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest
import torch

import dyngrad

pytest.importorskip("graphviz")
from dyngrad.viz import backward_trace  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
rng = np.random.default_rng(1)
X = rng.standard_normal((5, 3)).astype(np.float32)
W = rng.standard_normal((3, 4)).astype(np.float32)


def program(lib, x, w, scale):
    h = (x @ w).relu()
    dead = (x @ w).clamp(max=-1e9)      # clamp below every value: its gradient is exactly zero
    return (h * scale).sum() + dead.sum()


def run(lib, scale):
    x = lib.tensor(X)
    w = lib.tensor(W, requires_grad=True)
    return x, w, program(lib, x, w, lib.tensor(scale))


def test_edge_norms_match_torch_gradients():
    _, w, loss = run(dyngrad, 2.0)
    trace = backward_trace(loss, params={"w": w})
    _, tw, tloss = run(torch, 2.0)
    tloss.backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-6)
    by_edge = {(e.tail, e.head): e for e in trace.edges}
    leaf = by_edge[("w (3, 4)", "AccumulateGrad")]
    assert leaf.status == "ok" and leaf.shape == (3, 4)
    assert math.isclose(leaf.norm, float(tw.grad.double().norm()), rel_tol=1e-6)
    assert by_edge[("MmBackward0", "ClampBackward1")].status == "zero"
    assert by_edge[("SumBackward0", "AddBackward0")].status == "ok"
    root = by_edge[("AddBackward0", "()")]
    assert root.status == "ok" and root.norm == 1.0
    assert "ClampBackward1" in trace.svg and "gradient norm" in trace.svg


def test_nan_edges_are_red():
    _, w, loss = run(dyngrad, math.nan)
    trace = backward_trace(loss, params={"w": w})
    statuses = {(e.tail, e.head): e.status for e in trace.edges}
    assert statuses[("ReluBackward0", "MulBackward0")] == "nan"
    assert statuses[("w (3, 4)", "AccumulateGrad")] == "nan"
    assert statuses[("MmBackward0", "ClampBackward1")] == "zero"
    _, tw, tloss = run(torch, math.nan)
    tloss.backward()
    assert torch.isnan(tw.grad).any() and np.isnan(w.grad.numpy()).any()
    assert 'stroke="red"' in trace.svg


def test_hooks_are_removed_and_save_writes_each_format(tmp_path):
    _, w, loss = run(dyngrad, 1.0)
    trace = backward_trace(loss, params={"w": w}, retain_graph=True)
    assert all(not getattr(fn, "_hooks", None) for fn in trace.walk.fns.values())
    loss.backward()     # the graph was retained: a second backward accumulates as in torch
    _, tw, tloss = run(torch, 1.0)
    tloss.backward(retain_graph=True)
    tloss.backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-6)
    assert len(trace.edges) == 11
    assert open(trace.save(tmp_path / "g.svg")).read().lstrip().startswith("<?xml")
    assert "digraph" in open(trace.save(tmp_path / "g.dot")).read()
    page = open(trace.save(tmp_path / "g.html")).read()
    assert page.startswith("<!DOCTYPE html>") and "http" not in page.split("<svg")[0]


def png_pixels(data: bytes):
    """Decode an 8-bit RGB/RGBA PNG with zlib alone: (width, height, rows of bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0
    bpp = 3 if color == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def test_html_page_renders_in_headless_chromium(tmp_path):
    assert os.path.exists(CHROMIUM), "Debian chromium is missing: apt-get install chromium"
    assert shutil.which("dot"), "Graphviz's dot is missing: apt-get install graphviz"
    _, w, loss = run(dyngrad, 2.0)
    trace = backward_trace(loss, params={"w": w})
    page = trace.save(tmp_path / "trace.html")
    png = tmp_path / "shot.png"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
           f"--screenshot={png}", "--window-size=900,700", "--dump-dom", f"file://{page}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    dom = done.stdout
    # the page's script ran and counted the graph's nodes in the DOM
    assert trace.node_count == 11
    assert f'data-nodes="{trace.node_count}"' in dom, done.stderr[-2000:]
    assert dom.count('id="gnode') == trace.node_count
    assert "AccumulateGrad" in dom and "exactly zero" in dom
    width, height, bpp, rows = png_pixels(png.read_bytes())
    assert (width, height) == (900, 700)
    pixels = {row[i:i + 3] for row in rows[::7] for i in range(0, len(row), bpp * 7)}
    assert len(pixels) > 5, "the screenshot is blank"


def test_path_saves_and_graph_is_freed_unless_retained(tmp_path):
    _, w, loss = run(dyngrad, 1.0)
    trace = backward_trace(loss, params={"w": w}, path=tmp_path / "t.svg")
    assert open(tmp_path / "t.svg").read() == trace.svg
    _, tw, tloss = run(torch, 1.0)
    tloss.backward()
    message = "Trying to backward through the graph a second time"
    with pytest.raises(RuntimeError, match=message):
        tloss.backward()
    with pytest.raises(RuntimeError, match=message):
        loss.backward()
