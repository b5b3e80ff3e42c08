"""torch.Stream and torch.Event, the device-agnostic stream and event, for the devices dyngrad
has: the CPU, where work runs in order as it is issued, so a stream is always done and an
event, which the CPU cannot record, is always "complete" (torch's CPU backend says the same).
A stream or event of an accelerator type raises torch's "PyTorch is not linked with support
for ... devices"; an int names the accelerator, which does not exist."""
from __future__ import annotations

from . import _device as _dev

_TYPE_NAMES = {code: name for name, code in _dev._TYPES.items()}
_USABLE = ("cpu", "meta")   # the device types torch's CPU build makes streams and events for


def _device_type(cls_name: str, device) -> str:
    """The device type a Stream or Event is made for, after torch's checks of `device`."""
    if device is None:
        return "cpu"                 # (no accelerator: the CPU)
    if type(device) is int:
        raise RuntimeError(_dev._NO_ACCELERATOR)
    if not isinstance(device, (str, _dev.device)):
        raise TypeError(f"{cls_name}(): argument 'device' (position 1) must be torch.device, "
                        f"not {type(device).__name__}")
    kind = _dev.device(device).type
    if kind == "lazy":   # (torch's lazy backend makes events but no streams)
        if cls_name == "Stream":
            raise RuntimeError("Backend doesn't support create a new Stream.")
        return kind
    if kind not in _USABLE:
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")
    return kind


def _no_events(kind: str) -> RuntimeError:
    return RuntimeError(f"{kind} backend doesn't support events." if kind in _USABLE
                        else "Backend doesn't support events.")


class Stream:
    """An in-order queue of work on a device (torch.Stream). On the CPU every op has finished
    when it returns: ``query()`` is True and ``synchronize()`` returns at once."""

    __slots__ = ("stream_id", "device_index", "_type")

    def __init__(self, device=None, *args, priority: int = 0, stream_id=None, device_index=None,
                 device_type=None):
        if args:
            raise TypeError(f"Stream() takes from 0 to 1 positional arguments but "
                            f"{1 + len(args)} were given")
        internal = (stream_id, device_index, device_type)
        if any(v is not None for v in internal):   # torch's own (stream_id, index, type) form
            if device is not None or None in internal:
                given = next(k for k, v in zip(("stream_id", "device_index", "device_type"),
                                               internal) if v is not None)
                raise TypeError(f"Stream() got an unexpected keyword argument '{given}'")
            self.stream_id, self.device_index = stream_id, device_index
            self._type = _TYPE_NAMES[device_type]
            return
        if type(priority) is not int:
            raise TypeError("Stream(): argument 'priority' must be int, not "
                            f"{type(priority).__name__}")
        self._type = _device_type("Stream", device)
        self.stream_id = 0
        self.device_index = -1      # (the CPU's one stream has no index, whatever was asked)

    @property
    def device_type(self) -> int:
        return _dev._TYPES[self._type]

    @property
    def device(self) -> _dev.device:
        return _dev.device(self._type, None if self.device_index < 0 else self.device_index)

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def query(self) -> bool:
        """Whether all work queued on the stream has finished: on the CPU, always."""
        return True

    def synchronize(self) -> None:
        """Wait for the stream's work: on the CPU it is already done."""

    def wait_event(self, event) -> None:
        """Make the stream's future work wait for `event`: nothing to wait for on the CPU."""

    def wait_stream(self, stream) -> None:
        raise _no_events(self._type)

    def record_event(self, event=None):
        raise _no_events(self._type)

    def is_capturing(self) -> bool:
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        return None

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return NotImplemented
        return (self._type, self.device_index, self.stream_id) == \
            (other._type, other.device_index, other.stream_id)

    def __hash__(self) -> int:
        return hash((self._type, self.device_index, self.stream_id))

    def __repr__(self) -> str:
        return (f"torch.Stream device_type={self._type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a stream's work (torch.Event). The CPU backend cannot record one, so it is
    never pending: ``query()`` is True, waiting returns at once, ``record`` raises torch's error,
    and ``elapsed_time`` finds the events unrecorded."""

    __slots__ = ("_type", "_timing")

    def __init__(self, device=None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False):
        self._type = _device_type("Event", device)
        self._timing = bool(enable_timing)

    @property
    def device(self) -> _dev.device:
        return _dev.device(self._type)

    @property
    def event_id(self) -> int:
        return 0

    def record(self, stream=None) -> None:
        raise _no_events(self._type)

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        """Wait for the event: an event that was never recorded is complete."""

    def wait(self, stream=None) -> None:
        """Make `stream` wait for the event: nothing to wait for."""

    def elapsed_time(self, end_event) -> float:
        if not (self._timing and getattr(end_event, "_timing", False)):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    def __repr__(self) -> str:
        return (f"torch.Event device_type={self._type}, device_index=-1, "
                f"event_flag={int(self._timing)}, event_id=0")
