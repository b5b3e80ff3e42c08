"""Recurrent layers as functions: the cells ``rnn_tanh_cell``, ``rnn_relu_cell``,
``lstm_cell``, ``gru_cell`` and the whole-sequence ``rnn_tanh``, ``rnn_relu``, ``lstm``,
``gru`` (torch's ``torch.lstm(input, hx, params, has_biases, num_layers, dropout, train,
bidirectional, batch_first)`` family), composed of ``linear``, ``sigmoid``, ``tanh``, ``chunk``
and ``stack``. ``nn.RNN``/``nn.LSTM``/``nn.GRU`` and the cell modules call these.

Note [Recurrent layers are composites]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU cells (aten/src/ATen/native/RNN.cpp) are built from ordinary ops, so their graph is
ordinary nodes (AddmmBackward0, SigmoidBackward0, MulBackward0…); we follow the same formulas:

    RNN:  h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)            (or relu)
    LSTM: i, f, g, o = chunk(x W_ih^T + b_ih + h W_hh^T + b_hh, 4)
          c' = sigmoid(f) * c + sigmoid(i) * tanh(g);  h' = sigmoid(o) * tanh(c')
          with proj_size: h' = (sigmoid(o) * tanh(c')) W_hr^T
    GRU:  r, z, n from chunk(x W_ih^T + b_ih, 3) and chunk(h W_hh^T + b_hh, 3):
          r = sigmoid(i_r + h_r);  z = sigmoid(i_z + h_z);  n = tanh(i_n + r * h_n)
          h' = (h - n) * z + n

Over a whole sequence the input projection ``x W_ih^T + b_ih`` is computed once for every time
step (one matrix product, as torch's CPU ``FullLayer`` does), then the cell runs step by step.
Layers are stacked; a bidirectional layer runs a second cell over the reversed sequence and
concatenates both outputs on the feature dimension; between layers (not after the last) dropout
is applied in training mode. torch's full-sequence CPU kernel for float32 is a fused oneDNN
kernel (MkldnnRnnLayerBackward0): the values agree to rounding, the graph differs. torch's
cells split the gates with ``unsafe_chunk`` (UnsafeSplitBackward0); we use ``chunk``
(SplitBackward0). Packed sequences take their own recurrence (nn/modules/_rnn_packed.py).
"""
from __future__ import annotations

from ._registry import FUNCTIONS, composite


def _linear(input, weight, bias=None):
    return FUNCTIONS["nn.functional.linear"](input, weight, bias)


# -- shape checks (torch's words, from RNN.cpp) ---------------------------------------------------
def _check_cell_input(input, input_size):
    if input.shape[1] != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                           f"expected {input_size}")


def _check_cell_hidden(input, hx, hidden_size, label):
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{label} "
                           f"batch size {hx.shape[0]}")
    if hx.shape[1] != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.shape[1]}, "
                           f"expected {hidden_size}")


# -- one time step, given the input gates x W_ih^T + b_ih ----------------------------------------
def _rnn_step(igates, hx, w_hh, b_hh, activation):
    return activation(_linear(hx, w_hh, b_hh) + igates)


def _lstm_step(igates, hx, cx, w_hh, b_hh, w_hr=None):
    gates = _linear(hx, w_hh, b_hh) + igates
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    cy = forgetgate.sigmoid() * cx + ingate.sigmoid() * cellgate.tanh()
    hy = outgate.sigmoid() * cy.tanh()
    if w_hr is not None:
        hy = _linear(hy, w_hr)
    return hy, cy


def _gru_step(igates, hx, w_hh, b_hh):
    i_r, i_z, i_n = igates.chunk(3, 1)
    h_r, h_z, h_n = _linear(hx, w_hh, b_hh).chunk(3, 1)
    resetgate = (h_r + i_r).sigmoid()
    inputgate = (h_z + i_z).sigmoid()
    newgate = (i_n + h_n * resetgate).tanh()
    return (hx - newgate) * inputgate + newgate


def _tanh(x):
    return x.tanh()


def _relu(x):
    return x.relu()


# -- the cells -------------------------------------------------------------------------------------
def _simple_cell(activation):
    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        _check_cell_input(input, w_ih.shape[1])
        _check_cell_hidden(input, hx, w_hh.shape[1], 0)
        return _rnn_step(_linear(input, w_ih, b_ih), hx, w_hh, b_hh, activation)
    return cell


rnn_tanh_cell = composite("rnn_tanh_cell", method=False)(_simple_cell(_tanh))
rnn_tanh_cell.__name__ = rnn_tanh_cell.__qualname__ = "rnn_tanh_cell"
rnn_tanh_cell.__doc__ = "``tanh(input W_ih^T + b_ih + hx W_hh^T + b_hh)``: one Elman RNN step."
rnn_relu_cell = composite("rnn_relu_cell", method=False)(_simple_cell(_relu))
rnn_relu_cell.__name__ = rnn_relu_cell.__qualname__ = "rnn_relu_cell"
rnn_relu_cell.__doc__ = "``relu(input W_ih^T + b_ih + hx W_hh^T + b_hh)``: one ReLU RNN step."


@composite("lstm_cell", method=False)
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: ``hx`` is ``(h, c)``; returns ``(h', c')``.
    See Note [Recurrent layers are composites]."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell_input(input, w_ih.shape[1])
    _check_cell_hidden(input, hx[0], w_hh.shape[1], 0)
    _check_cell_hidden(input, hx[1], w_hh.shape[1], 1)
    return _lstm_step(_linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh)


@composite("gru_cell", method=False)
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step; returns ``h'``. See Note [Recurrent layers are composites]."""
    _check_cell_input(input, w_ih.shape[1])
    _check_cell_hidden(input, hx, w_hh.shape[1], 0)
    return _gru_step(_linear(input, w_ih, b_ih), hx, w_hh, b_hh)


# -- whole sequences -----------------------------------------------------------------------------
def _layer_params(params, has_biases, has_proj):
    """Split the flat weight list into one tuple per (layer, direction):
    ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` with None where absent."""
    per = 2 + (2 if has_biases else 0) + (1 if has_proj else 0)
    if len(params) % per != 0:   # torch's words (MatrixRef in RNN.cpp)
        raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by stride {per}")
    groups = []
    for start in range(0, len(params), per):
        chunk = list(params[start:start + per])
        w_ih, w_hh = chunk[0], chunk[1]
        b_ih, b_hh = (chunk[2], chunk[3]) if has_biases else (None, None)
        w_hr = chunk[-1] if has_proj else None
        groups.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    return groups


def _run_direction(mode, input, state, weights, reverse):
    """Run one cell over ``input`` (T, B, I) from ``state``; returns (outputs (T, B, H), state)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    steps = _linear(input, w_ih, b_ih).unbind(0)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outputs = [None] * len(steps)
    for t in order:
        if mode == "LSTM":
            state = _lstm_step(steps[t], state[0], state[1], w_hh, b_hh, w_hr)
            outputs[t] = state[0]
        else:
            if mode == "GRU":
                state = _gru_step(steps[t], state, w_hh, b_hh)
            else:
                state = _rnn_step(steps[t], state, w_hh, b_hh,
                                  _tanh if mode == "RNN_TANH" else _relu)
            outputs[t] = state
    return FUNCTIONS["stack"](outputs, 0), state


def _run_layers(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                batch_first, has_proj=False):
    """The stacked (and possibly bidirectional) recurrence shared by rnn/lstm/gru.
    ``hx`` is a tensor (L*D, B, H), or a pair of them for LSTM; returns (output, final states)."""
    stack, cat = FUNCTIONS["stack"], FUNCTIONS["cat"]
    dirs = 2 if bidirectional else 1
    weights = _layer_params(params, has_biases, has_proj)
    if input.shape[1 if batch_first else 0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    if batch_first:
        input = input.transpose(0, 1)
    layer_input = input
    final = []
    for layer in range(num_layers):
        outputs = []
        for d in range(dirs):
            index = layer * dirs + d
            state = (hx[0][index], hx[1][index]) if mode == "LSTM" else hx[index]
            out, state = _run_direction(mode, layer_input, state, weights[index], d == 1)
            outputs.append(out)
            final.append(state)
        layer_input = outputs[0] if dirs == 1 else cat(outputs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            layer_input = FUNCTIONS["nn.functional.dropout"](layer_input, dropout, True)
    output = layer_input
    if batch_first:
        # torch transposes the result in place for rnn/gru (TransposeBackward1), not for lstm
        output = output.transpose(0, 1) if mode == "LSTM" else output.transpose_(0, 1)
    if mode == "LSTM":
        return output, (stack([s[0] for s in final], 0), stack([s[1] for s in final], 0))
    return output, stack(final, 0)


def _sequence_fn(mode, name):
    def fn(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        output, hy = _run_layers(mode, input, hx, params, has_biases, num_layers, dropout, train,
                                 bidirectional, batch_first)
        return output, hy

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"torch.{name}(input, hx, params, has_biases, num_layers, dropout, train, "
                  "bidirectional, batch_first) -> (output, h_n). "
                  "See Note [Recurrent layers are composites].")
    return composite(name, method=False)(fn)


rnn_tanh = _sequence_fn("RNN_TANH", "rnn_tanh")
rnn_relu = _sequence_fn("RNN_RELU", "rnn_relu")
gru = _sequence_fn("GRU", "gru")


@composite("lstm", method=False)
def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """torch.lstm(input, (h_0, c_0), params, …) -> (output, h_n, c_n). With projections
    (``h_0`` narrower than ``c_0``) each layer has a fifth weight ``w_hr``.
    See Note [Recurrent layers are composites]."""
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_proj = hx[0].shape[2] != hx[1].shape[2]
    output, (hy, cy) = _run_layers("LSTM", input, hx, params, has_biases, num_layers, dropout,
                                   train, bidirectional, batch_first, has_proj)
    return output, hy, cy
