"""The recurrence of ``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` over a PackedSequence: torch's
``torch.lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
bidirectional)`` family, with the cells of dyngrad/ops/recurrent.py.

Note [Packed recurrence]
~~~~~~~~~~~~~~~~~~~~~~~~
As in torch's RNN.cpp (PackedLayer / ReversedPackedLayer): step ``t`` takes the next
``batch_sizes[t]`` rows of the packed data. Going forward the batch only shrinks: when it does,
the states of the sequences that just ended (the last rows) are set aside as their final
states, and the cell runs on the remaining rows; the final states are the pieces in batch
order. Going backward (the reverse direction of a bidirectional layer) the batch only grows:
it starts with the sequences present at the last step, and rows of the initial state are
appended as longer sequences begin. The outputs are concatenated into packed data again
(``CatBackward0``), so each sequence's final state is taken at its own length.
"""
from __future__ import annotations

from ...ops import recurrent as _rnn
from ...ops._registry import FUNCTIONS


def _cell(mode, igates, state, weights):
    _, w_hh, _, b_hh, w_hr = weights
    if mode == "LSTM":
        return _rnn._lstm_step(igates, state[0], state[1], w_hh, b_hh, w_hr)
    if mode == "GRU":
        return _rnn._gru_step(igates, state, w_hh, b_hh)
    activation = _rnn._tanh if mode == "RNN_TANH" else _rnn._relu
    return _rnn._rnn_step(igates, state, w_hh, b_hh, activation)


def _rows(mode, state, start, stop):
    if mode == "LSTM":
        return state[0][start:stop], state[1][start:stop]
    return state[start:stop]


def _cat_rows(mode, pieces):
    cat = FUNCTIONS["cat"]
    if mode == "LSTM":
        return cat([p[0] for p in pieces], 0), cat([p[1] for p in pieces], 0)
    return cat(pieces, 0)


def _output_of(mode, state):
    return state[0] if mode == "LSTM" else state


def _forward_direction(mode, data, sizes, state, weights):
    igates = _rnn._linear(data, weights[0], weights[2])
    outputs, finished = [], []
    offset, last = 0, sizes[0]
    for n in sizes:
        step = igates[offset:offset + n]
        offset += n
        if n < last:   # sequences last..n ended: keep their states
            finished.append(_rows(mode, state, n, last))
            state = _rows(mode, state, 0, n)
        last = n
        state = _cell(mode, step, state, weights)
        outputs.append(_output_of(mode, state))
    finished.append(state)
    finished.reverse()
    return FUNCTIONS["cat"](outputs, 0), _cat_rows(mode, finished)


def _reverse_direction(mode, data, sizes, initial, weights):
    igates = _rnn._linear(data, weights[0], weights[2])
    last = sizes[-1]
    state = _rows(mode, initial, 0, last)
    outputs, offset = [], data.shape[0]
    for n in reversed(sizes):
        if n > last:   # longer sequences start here: bring in their initial states
            state = _cat_rows(mode, [state, _rows(mode, initial, last, n)])
        step = igates[offset - n:offset]
        offset -= n
        last = n
        state = _cell(mode, step, state, weights)
        outputs.append(_output_of(mode, state))
    outputs.reverse()
    return FUNCTIONS["cat"](outputs, 0), state


def packed_recurrence(mode, data, batch_sizes, hx, params, has_biases, num_layers, dropout,
                      train, bidirectional, has_proj=False):
    """(output data, final states) for packed ``data``; ``hx`` is (L*D, B, H), or a pair of
    them for LSTM. See Note [Packed recurrence]."""
    stack, cat = FUNCTIONS["stack"], FUNCTIONS["cat"]
    sizes = [int(n) for n in batch_sizes.tolist()]
    dirs = 2 if bidirectional else 1
    weights = _rnn._layer_params(params, has_biases, has_proj)
    layer_input = data
    final = []
    for layer in range(num_layers):
        outputs = []
        for d in range(dirs):
            index = layer * dirs + d
            state = (hx[0][index], hx[1][index]) if mode == "LSTM" else hx[index]
            run = _reverse_direction if d == 1 else _forward_direction
            out, state = run(mode, layer_input, sizes, state, weights[index])
            outputs.append(out)
            final.append(state)
        layer_input = outputs[0] if dirs == 1 else cat(outputs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            layer_input = FUNCTIONS["nn.functional.dropout"](layer_input, dropout, True)
    if mode == "LSTM":
        return layer_input, (stack([s[0] for s in final], 0), stack([s[1] for s in final], 0))
    return layer_input, stack(final, 0)
