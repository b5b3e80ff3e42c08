"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (whole sequences, stacked, optionally
bidirectional) and the single-step ``RNNCell``, ``LSTMCell``, ``GRUCell``, as torch.nn has
them: same arguments, parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``,
``weight_hr_l0``…), shapes, registration order, initialisation (uniform in
``±1/sqrt(hidden_size)``), checks and error texts.

The math lives in dyngrad/ops/recurrent.py (``torch.lstm``, ``torch.gru_cell``…); see
Note [Recurrent layers are composites] there.

A ``PackedSequence`` input gives a ``PackedSequence`` output and each sequence's final state
at its own length (see Note [Packed recurrence] in _rnn_packed.py).

Differences from torch: there is no cuDNN weight flattening (``flatten_parameters`` does
nothing).
"""
from __future__ import annotations

import math
import numbers
import warnings

from ...ops import recurrent as _rnn
from .. import init
from ._rnn_packed import packed_recurrence
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _empty(shape, factory_kwargs):
    from ... import empty   # late: dyngrad imports nn before its own namespace is full
    return empty(shape, **factory_kwargs)


def _zeros(*size, dtype=None, device=None):
    from ... import zeros
    return zeros(*size, dtype=dtype, device=device)


def _is_packed(input) -> bool:
    from ..utils.rnn import PackedSequence
    return isinstance(input, PackedSequence)


def _packed(data, batch_sizes, sorted_indices, unsorted_indices):
    from ..utils.rnn import PackedSequence
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


class RNNBase(Module):
    """The parameters, checks and repr shared by RNN, LSTM and GRU.

    ``mode`` is ``"LSTM"``, ``"GRU"``, ``"RNN_TANH"`` or ``"RNN_RELU"``. For each layer ``k``
    and direction (suffix ``""`` or ``"_reverse"``) it registers, in this order,
    ``weight_ih_l{k}`` (gates*hidden, in), ``weight_hh_l{k}`` (gates*hidden, hidden or proj),
    then with ``bias`` ``bias_ih_l{k}``, ``bias_hh_l{k}``, then with ``proj_size``
    ``weight_hr_l{k}`` (proj, hidden).
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        # torch's checks, in torch's order and words
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
            for direction in range(num_directions):
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input_size)),
                          ("weight_hh", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_empty(shape, factory_kwargs)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        """The weights in the order ``torch.lstm``/``torch.gru`` take them (looked up each time,
        so that ``.to()``, ``load_state_dict`` or reassignment are always seen)."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters grouped per (layer, direction)."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Does nothing: there is no cuDNN weight buffer to pack the weights into."""

    def reset_parameters(self) -> None:
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # -- checks ----------------------------------------------------------------------------
    def check_input(self, input, batch_sizes) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got "
                               f"{input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def _prepare(self, input, hx, name):
        """The shared preamble of RNN/GRU forward: accept 2-D (unbatched) or 3-D input, make
        the zero initial state; returns (input, hx, is_batched, batch_dim)."""
        if input.dim() not in (2, 3):
            what = "tensor instead" if name == "RNN" else "instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D {what}")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            hx = _zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                       dtype=input.dtype, device=input.device)
        self.check_forward_args(input, hx, None)
        return input, hx, is_batched, batch_dim

    def _finish(self, output, hidden, is_batched, batch_dim):
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _run(self, fn, input, hx):
        return fn(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                  self.training, self.bidirectional, self.batch_first)

    def _forward_packed(self, input, hx):
        """torch's PackedSequence path: hx (given in the caller's batch order) is permuted to
        the packed order, the recurrence runs on the packed data, and the final states go
        back to the caller's order."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            max_batch_size = int(batch_sizes[0])
            real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            size = (self.num_layers * num_directions, max_batch_size)
            h0 = _zeros(*size, real_hidden_size, dtype=data.dtype, device=data.device)
            hx = h0
            if self.mode == "LSTM":
                hx = (h0, _zeros(*size, self.hidden_size, dtype=data.dtype,
                                 device=data.device))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if self.mode != "LSTM":   # torch's LSTM skips the checks on packed input
            self.check_forward_args(data, hx, batch_sizes)
        output, hidden = packed_recurrence(self.mode, data, batch_sizes, hx, self._flat_weights,
                                           self.bias, self.num_layers, self.dropout,
                                           self.training, self.bidirectional,
                                           self.proj_size > 0)
        return (_packed(output, batch_sizes, sorted_indices, unsorted_indices),
                self.permute_hidden(hidden, unsorted_indices))


class RNN(RNNBase):
    r"""Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``).

    Args:
        input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
        batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None

    Returns ``(output, h_n)``: output (L, N, D*H) (N first with ``batch_first``), h_n
    (D*num_layers, N, H).

    Example::

        >>> rnn = nn.RNN(10, 20, 2)
        >>> output, hn = rnn(torch.randn(5, 3, 10), torch.randn(2, 3, 20))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._forward_packed(input, hx)
        input, hx, is_batched, batch_dim = self._prepare(input, hx, "RNN")
        fn = _rnn.rnn_tanh if self.mode == "RNN_TANH" else _rnn.rnn_relu
        output, hidden = self._run(fn, input, hx)
        return self._finish(output, hidden, is_batched, batch_dim)


class LSTM(RNNBase):
    r"""Long short-term memory over a sequence.

    Args:
        input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
        bidirectional=False, proj_size=0, device=None, dtype=None

    Returns ``(output, (h_n, c_n))``; with ``proj_size > 0`` the hidden state (and output)
    has ``proj_size`` features and each layer has a ``weight_hr_l{k}`` projection.

    Example::

        >>> lstm = nn.LSTM(10, 20, 2)
        >>> output, (hn, cn) = lstm(torch.randn(5, 3, 10))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._forward_packed(input, hx)
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            layers = self.num_layers * num_directions
            hx = (_zeros(layers, max_batch_size, real_hidden_size, dtype=input.dtype,
                        device=input.device),
                  _zeros(layers, max_batch_size, self.hidden_size, dtype=input.dtype,
                        device=input.device))
        elif is_batched:
            if hx[0].dim() != 3 or hx[1].dim() != 3:
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        else:
            if hx[0].dim() != 2 or hx[1].dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but "
                                   f"got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, h_n, c_n = self._run(_rnn.lstm, input, hx)
        if not is_batched:
            output = output.squeeze(batch_dim)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


class GRU(RNNBase):
    r"""Gated recurrent unit over a sequence.

    Args:
        input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
        bidirectional=False, device=None, dtype=None

    Returns ``(output, h_n)``.

    Example::

        >>> gru = nn.GRU(10, 20, 2)
        >>> output, hn = gru(torch.randn(5, 3, 10))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._forward_packed(input, hx)
        input, hx, is_batched, batch_dim = self._prepare(input, hx, "GRU")
        output, hidden = self._run(_rnn.gru, input, hx)
        return self._finish(output, hidden, is_batched, batch_dim)


# -- cells ---------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """Parameters ``weight_ih`` (chunks*hidden, input), ``weight_hh`` (chunks*hidden, hidden),
    ``bias_ih``, ``bias_hh`` (registered as None without bias), U(±1/sqrt(hidden)) init."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_empty((num_chunks * hidden_size, input_size),
                                          factory_kwargs))
        self.weight_hh = Parameter(_empty((num_chunks * hidden_size, hidden_size),
                                          factory_kwargs))
        if bias:
            self.bias_ih = Parameter(_empty((num_chunks * hidden_size,), factory_kwargs))
            self.bias_hh = Parameter(_empty((num_chunks * hidden_size,), factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @staticmethod
    def _batched(input):
        """(input as 2-D, is_batched)."""
        is_batched = input.dim() == 2
        return (input if is_batched else input.unsqueeze(0)), is_batched

    def _zero_state(self, input):
        return _zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    r"""One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu).

    Example::

        >>> cell = nn.RNNCell(10, 20)
        >>> hx = cell(torch.randn(3, 10))
    """

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        input, is_batched = self._batched(input)
        hx = self._zero_state(input) if hx is None else (hx if is_batched else hx.unsqueeze(0))
        if self.nonlinearity == "tanh":
            fn = _rnn.rnn_tanh_cell
        elif self.nonlinearity == "relu":
            fn = _rnn.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = fn(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""One LSTM step; ``hx`` is ``(h, c)`` (zeros when omitted); returns ``(h', c')``.

    Example::

        >>> cell = nn.LSTMCell(10, 20)
        >>> hx, cx = cell(torch.randn(3, 10))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        input, is_batched = self._batched(input)
        if hx is None:
            zero = self._zero_state(input)
            hx = (zero, zero)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        ret = _rnn.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                             self.bias_hh)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    r"""One GRU step; returns ``h'``.

    Example::

        >>> cell = nn.GRUCell(10, 20)
        >>> hx = cell(torch.randn(3, 10))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        input, is_batched = self._batched(input)
        hx = self._zero_state(input) if hx is None else (hx if is_batched else hx.unsqueeze(0))
        ret = _rnn.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                            self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
