"""The app side of jetsam's app protocol (PROTOCOL.md), for Python 3 programs. Standard library only.

jetsamd runs programs as iOS-style apps and hands each a channel: a Unix stream socket whose descriptor number
is in ``$JETSAM_FD``. This module speaks the protocol over it, shaped after UIKit's UIApplication::

    import jetsam_client

    class Notes(jetsam_client.JetsamApp):
        def did_finish_launching(self, launch_reason):
            if launch_reason.is_after_exit:
                restore()

        def did_enter_background(self):
            save()
            self.state_summary = "page=3"

    Notes.connect().run()

Every handler's event is acknowledged when the handler returns; a handler that does not return within the
event's deadline gets the app killed by jetsam's watchdog. Handlers run one at a time on the thread that calls
``run()``; replies to requests are read on a thread of their own, so handlers may make requests.
"""

import datetime
import os
import queue
import socket
import sys
import threading

__all__ = [
    "INVALID_TASK",
    "DaemonError",
    "Event",
    "JetsamApp",
    "JetsamError",
    "LaunchReason",
    "LineError",
    "NotLaunchedByJetsam",
    "decode_value",
    "encode_value",
    "format_line",
    "parse_fields",
    "parse_line",
    "split_line",
]

PROTOCOL_VERSION = 1
#: The longest line, in bytes, counting its newline.
MAX_LINE = 4096
#: The longest ``valid_for`` of a saved digest, in seconds (366 days).
MAX_VALID_FOR = 366 * 24 * 3600
# The longest signpost name, in UTF-8 bytes.
MAX_SIGNPOST_NAME_BYTES = 128
#: Returned by ``begin_background_task`` when the daemon grants no task; ending it does nothing.
INVALID_TASK = -1

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/+,@")
_HEX = "0123456789ABCDEF"
#: Events that are not acknowledged. Unknown events are: a needless ack costs an error line, a missing one a kill.
_UNACKNOWLEDGED = frozenset({"memoryWarning", "backgroundTaskWillExpire"})


# --- Lines ---------------------------------------------------------------------------------------------------
# The rule is PROTOCOL.md's *Lines*; the Swift module JetsamWire reads lines by the same rule, and both are tested
# against one table of examples (Tests/Fixtures/wire-lines.json), error messages included.


class LineError(ValueError):
    """A line breaks the protocol's rule. ``str()`` says which word or field, where and which rule, in the same
    words as the Swift module JetsamWire: ``field 2 "x1=3" at column 13: keys are ASCII letters`` for
    ``reply id=2 x1=3``. ``field`` counts fields from 1 (None for the word), ``column`` bytes of the line from 1."""

    def __init__(self, message, field=None, column=1):
        super().__init__(message)
        self.field = field
        self.column = column


# The longest stretch of a word or field quoted in a LineError's message.
_MAX_QUOTED = 40


def encode_value(value):
    """Percent-encodes a value: every UTF-8 byte outside ``A-Za-z0-9-._~:/+,@`` becomes ``%XX``."""
    out = []
    for byte in str(value).encode("utf-8"):
        if byte in _UNRESERVED:
            out.append(chr(byte))
        else:
            out.append("%" + _HEX[byte >> 4] + _HEX[byte & 0xF])
    return "".join(out)


def decode_value(encoded):
    """Decodes a percent-encoded value (text or bytes; hex of either case), keeping other printable bytes.

    Raises ValueError where a line holding the value would be refused: a ``%`` not followed by two hex digits, an
    unencoded space or control byte, or bytes that are not UTF-8 once decoded.
    """
    data = _as_bytes(encoded)
    try:
        return _decode_value(data, 0, len(data))
    except _ValueProblem as problem:
        raise ValueError("%s in %r" % (problem.rule, encoded)) from None


def format_line(word, fields=()):
    """Builds a line (without its newline): ``word key=value …``, values percent-encoded.

    ``fields`` is a dict or a sequence of (key, value) pairs; order is kept.
    """
    items = fields.items() if isinstance(fields, dict) else fields
    return " ".join([word] + ["%s=%s" % (key, encode_value(value)) for key, value in items])


def split_line(line):
    """Takes a line (text or bytes, without its newline) apart into ``(word, [(key, value), …])``, values decoded
    and in order, a repeated key kept. Raises LineError naming the word or field at fault and its column."""
    data = _as_bytes(line)
    parts = _space_separated_parts(data)
    if not parts:
        raise LineError("empty line: a line starts with a word")
    start, end = parts[0]
    for index in range(start, end):
        if not _is_letter(data[index]):
            raise LineError(_message(None, data[start:end], index, "words are ASCII letters"), None, index + 1)
    return data[start:end].decode("ascii"), _parse_fields(data, parts[1:])


def parse_fields(text):
    """Parses space-separated ``key=value`` fields without a word, such as ``$JETSAM_PREVIOUS_EXIT``, into a list
    of (key, decoded value) pairs. Raises LineError naming the field at fault (counting from 1)."""
    data = _as_bytes(text)
    return _parse_fields(data, _space_separated_parts(data))


def parse_line(line):
    """Takes a line apart into ``(word, fields)``; ``fields`` is a dict in which a repeated key keeps its first
    value. Raises LineError (a ValueError) on a line that breaks the rule."""
    word, pairs = split_line(line)
    return word, _first_values(pairs)


def _first_values(pairs):
    fields = {}
    for key, value in pairs:
        fields.setdefault(key, value)
    return fields


def _as_bytes(text):
    return bytes(text) if isinstance(text, (bytes, bytearray)) else text.encode("utf-8")


def _is_letter(byte):
    return 0x41 <= byte <= 0x5A or 0x61 <= byte <= 0x7A


def _space_separated_parts(data):
    # (start, end) of each part: runs of spaces, and spaces before the word or after the last field, separate
    # nothing. The offsets become the columns of errors.
    parts = []
    index = 0
    while index < len(data):
        if data[index] == 0x20:
            index += 1
            continue
        start = index
        while index < len(data) and data[index] != 0x20:
            index += 1
        parts.append((start, index))
    return parts


def _parse_fields(data, parts):
    pairs = []
    for number, (start, end) in enumerate(parts, 1):
        part = data[start:end]
        equals = data.find(b"=", start, end)
        if equals < 0:
            raise LineError(_message(number, part, start, "a field is key=value"), number, start + 1)
        if equals == start:
            raise LineError(_message(number, part, start, "a field needs a key before ="), number, start + 1)
        for index in range(start, equals):
            if not _is_letter(data[index]):
                raise LineError(_message(number, part, index, "keys are ASCII letters"), number, index + 1)
        try:
            value = _decode_value(data, equals + 1, end)
        except _ValueProblem as problem:
            message = _message(number, part, problem.index, problem.rule)
            raise LineError(message, number, problem.index + 1) from None
        pairs.append((data[start:equals].decode("ascii"), value))
    return pairs


class _ValueProblem(Exception):
    """Why a value cannot be decoded: the rule broken, and the index of the byte at fault."""

    def __init__(self, rule, index):
        super().__init__(rule)
        self.rule = rule
        self.index = index


def _decode_value(data, start, end):
    """The decoded value of ``data[start:end]``; raises _ValueProblem."""
    decoded = bytearray()
    origins = []  # where each decoded byte came from, to point at the escape behind a byte that breaks UTF-8
    index = start
    while index < end:
        byte = data[index]
        if byte == 0x25:  # '%'
            pair = data[index + 1 : index + 3]
            if index + 2 >= end or not all(c in b"0123456789abcdefABCDEF" for c in pair):
                raise _ValueProblem("% must be followed by two hex digits", index)
            decoded.append(int(pair, 16))
            origins.append(index)
            index += 3
        elif byte <= 0x20 or byte == 0x7F:
            # A control byte unencoded is damage (a CR from a CRLF line end, a stray tab), not data.
            raise _ValueProblem("byte 0x%02X must be written %%%02X" % (byte, byte), index)
        else:
            decoded.append(byte)
            origins.append(index)
            index += 1
    try:
        return decoded.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _ValueProblem("the value does not decode to UTF-8", origins[error.start]) from None


def _message(field, part, index, rule):
    place = "word" if field is None else "field %d" % field
    return "%s %s at column %d: %s" % (place, _quoted(part), index + 1, rule)


def _quoted(part):
    # Printable ASCII as it is, everything else escaped, so that a message shows exactly the bytes at fault.
    out = ['"']
    for byte in part[:_MAX_QUOTED]:
        if byte == 0x22:
            out.append('\\"')
        elif byte == 0x5C:
            out.append("\\\\")
        elif byte == 0x09:
            out.append("\\t")
        elif byte == 0x0D:
            out.append("\\r")
        elif 0x20 <= byte <= 0x7E:
            out.append(chr(byte))
        else:
            out.append("\\x%02X" % byte)
    out.append('"…' if len(part) > _MAX_QUOTED else '"')
    return "".join(out)


class _LineFramer:
    """Cuts the bytes read into lines of at most MAX_LINE bytes, newline included, as JetsamWire's LineFramer
    does: an over-long line yields ``TOO_LONG`` once, as soon as it is known, and is dropped up to its newline."""

    TOO_LONG = object()

    def __init__(self, max_bytes=MAX_LINE):
        self.max_bytes = max_bytes
        self._pending = bytearray()
        self._discarding = False

    def append(self, data):
        outputs = []
        start = 0
        while start <= len(data):
            newline = data.find(b"\n", start)
            piece = data[start:] if newline < 0 else data[start:newline]
            if not self._discarding:
                self._pending += piece
                if len(self._pending) >= self.max_bytes:
                    self._pending.clear()
                    self._discarding = True
                    outputs.append(self.TOO_LONG)
            if newline < 0:
                break
            if not self._discarding:
                outputs.append(bytes(self._pending))
            self._pending.clear()
            self._discarding = False
            start = newline + 1
        return outputs


# --- Values ----------------------------------------------------------------------------------------------------


class JetsamError(Exception):
    """Something went wrong between the app and jetsamd."""


class NotLaunchedByJetsam(JetsamError):
    """``$JETSAM_FD`` is not set: the program was not launched by jetsamd."""

    def __init__(self):
        super().__init__(
            "JETSAM_FD is not set: this program was not launched by jetsamd. Run it as a jetsamd app, which "
            "hands it its channel to the daemon (see PROTOCOL.md)."
        )


class DaemonError(JetsamError):
    """The daemon refused a line: ``error code=CODE message=TEXT``."""

    def __init__(self, code, message):
        super().__init__("jetsamd refused a line: %s: %s" % (code, message))
        self.code = code
        self.message = message


class LaunchReason:
    """Why the app is starting: ``fresh``, or ``afterExit`` with the previous exit's reason, state and time."""

    def __init__(self, kind="fresh", previous_reason=None, previous_state=None, time=None):
        self.kind = kind if kind == "afterExit" else "fresh"
        self.previous_reason = previous_reason
        self.previous_state = previous_state
        #: A timezone-aware datetime, or None if not given or unreadable.
        self.time = time

    @property
    def is_after_exit(self):
        return self.kind == "afterExit"

    @classmethod
    def from_fields(cls, reason, previous_reason, previous_state, time_text):
        return cls(reason, previous_reason, previous_state, _parse_time(time_text))

    def __eq__(self, other):
        return isinstance(other, LaunchReason) and vars(self) == vars(other)

    def __repr__(self):
        if not self.is_after_exit:
            return "LaunchReason(fresh)"
        return "LaunchReason(afterExit, previous_reason=%r, previous_state=%r, time=%r)" % (
            self.previous_reason,
            self.previous_state,
            self.time,
        )


def _parse_time(text):
    if not text:
        return None
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


class Event:
    """A lifecycle event: ``event id=N name=EVENT …``. Call ``acknowledge()`` when it has been handled (``run``
    does this when the handler returns)."""

    def __init__(self, event_id, name, fields, send_ack):
        self.id = event_id
        self.name = name
        #: Every field, decoded. For backgroundTaskWillExpire, ``taskName`` holds the task's name.
        self.fields = fields
        self._send_ack = send_ack
        self._acknowledged = False
        self._lock = threading.Lock()

    @property
    def requires_acknowledgement(self):
        return self.name not in _UNACKNOWLEDGED

    def acknowledge(self):
        """Sends ``ack event=N`` once (and never for events that need no acknowledgement)."""
        with self._lock:
            if self._acknowledged or not self.requires_acknowledgement:
                return
            self._acknowledged = True
        self._send_ack(self.id)

    def __repr__(self):
        return "Event(%d, %s, %r)" % (self.id, self.name, self.fields)


# --- The application -------------------------------------------------------------------------------------------


class JetsamApp:
    """An app's connection to jetsamd. Subclass it and override the handlers, or pass a delegate to ``run``.

    Handlers (all optional): ``did_finish_launching(launch_reason)``, ``will_enter_foreground()``,
    ``did_become_active()``, ``will_resign_active()``, ``did_enter_background()``,
    ``did_receive_memory_warning(level)``, ``will_terminate()``, ``did_receive_unknown_event(event)``.
    """

    def __init__(self, fd=None, environ=None, reply_timeout=5.0):
        """Connects through ``fd`` (default: ``$JETSAM_FD``) and says hello.

        ``environ`` (default ``os.environ``) supplies the launch variables. The app owns the descriptor from now
        on. Raises NotLaunchedByJetsam without a descriptor, JetsamError if it is not a socket.
        """
        environ = os.environ if environ is None else environ
        if fd is None:
            text = environ.get("JETSAM_FD")
            if text is None:
                raise NotLaunchedByJetsam()
            try:
                fd = int(text)
            except ValueError:
                raise JetsamError("JETSAM_FD is not a descriptor number: %r" % text) from None
        try:
            self._socket = socket.socket(fileno=fd)
        except OSError as error:
            raise JetsamError("JETSAM_FD does not name an open socket: %s" % error) from None
        self._socket.setblocking(True)
        os.set_inheritable(fd, False)  # the app's own children must not hold its channel

        self.reply_timeout = reply_timeout
        #: Called with a JetsamError nobody else sees (refusals without a request id, unreadable lines);
        #: None prints to standard error.
        self.error_handler = None
        self.app_name = environ.get("JETSAM_APP")
        self.launch_number = _int_or_none(environ.get("JETSAM_LAUNCH"))
        previous = dict(_safe_fields(environ.get("JETSAM_PREVIOUS_EXIT", "")))
        self.launch_reason = LaunchReason.from_fields(
            environ.get("JETSAM_LAUNCH_REASON"), previous.get("reason"), previous.get("state"), previous.get("time")
        )
        summary = environ.get("JETSAM_STATE_SUMMARY")
        self._state_summary = _decode_leniently(summary) if summary is not None else None
        #: "active", "inactive" or "background", updated before each handler runs.
        self.application_state = "inactive"
        #: Seconds the app was away from the foreground in its last stay in the background, and how many of them
        #: it was suspended (its timers did not run): set when willEnterForeground arrives, before its handler.
        self.background_duration = None
        self.suspended_duration = None

        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._next_id = 1
        self._pending = {}  # request id -> [threading.Event, reply fields or exception]
        self._closed = False
        self._events = queue.Queue()
        self._expiration_handlers = {}
        reader = threading.Thread(target=self._read_loop, name="jetsam-channel", daemon=True)
        reader.start()
        self._send("hello", {"version": PROTOCOL_VERSION})

    @classmethod
    def connect(cls, **kwargs):
        """Connects through ``$JETSAM_FD``; raises NotLaunchedByJetsam when it is not set."""
        return cls(**kwargs)

    # --- State ---

    @property
    def state_summary(self):
        """Up to 128 bytes jetsam keeps and hands back at the next launch: the one handed back at this launch,
        or the last one set. Setting sends it (None sends an empty summary)."""
        return self._state_summary

    @state_summary.setter
    def state_summary(self, value):
        self._state_summary = value
        self._send("stateSummary", {"value": "" if value is None else value})

    def report_state_digest(self, value, phase, valid_for=None):
        """Reports a digest of the state: ``phase="saved"`` at didEnterBackground (from the live state the user
        is leaving), ``"restored"`` after restoring at a launch, ``"resumed"`` at didBecomeActive after a return
        from the background (what the app shows). ``valid_for`` (seconds, saved only) says how long the saved
        state stays current: a return that shows it after longer is judged stale (PROTOCOL.md, "Verdicts")."""
        if phase not in ("saved", "restored", "resumed"):
            raise ValueError("phase must be 'saved', 'restored' or 'resumed'")
        fields = [("phase", phase), ("value", value)]
        if valid_for is not None:
            if phase != "saved":
                raise ValueError("valid_for belongs to phase 'saved'")
            if not 0 < valid_for <= MAX_VALID_FOR:
                raise ValueError("valid_for must be above 0 and at most %d seconds" % MAX_VALID_FOR)
            fields.append(("validFor", "%.3f" % valid_for))
        self._send("stateDigest", fields)

    def signpost(self, name, phase="event"):
        """Marks a point (``phase="event"``), or the start (``"begin"``) or end (``"end"``) of an interval of the
        app's own work, like MetricKit's mxSignpost: jetsamd stamps it with the time and labs draw it on their
        timelines. ``name`` is 1 to 128 bytes; a begin and the next end of the same name make an interval."""
        if phase not in ("begin", "end", "event"):
            raise ValueError("phase must be 'begin', 'end' or 'event'")
        if not 0 < len(name.encode("utf-8")) <= MAX_SIGNPOST_NAME_BYTES:
            raise ValueError("a signpost name is 1 to %d bytes" % MAX_SIGNPOST_NAME_BYTES)
        self._send("signpost", [("name", name), ("phase", phase)])

    # --- Background tasks ---

    def begin_background_task(self, name="unnamed", expiration_handler=None, kind="finishing"):
        """Asks for time to finish work in the background; returns the task number, or INVALID_TASK.

        ``expiration_handler`` is called on the event loop's thread when the task's time is nearly up; it must
        end the task. ``kind="processing"`` (like BGProcessingTask) marks deferrable heavy work, bound by neither
        the background budget nor the CPU monitor while the device is idle and charging. Blocks for the daemon's
        reply.
        """
        if kind not in ("finishing", "processing"):
            raise ValueError("kind must be 'finishing' or 'processing'")
        fields = [("name", name)] + ([("kind", kind)] if kind != "finishing" else [])
        try:
            reply = self._request("beginBackgroundTask", fields)
            task = int(reply["task"])
        except (JetsamError, KeyError, ValueError) as error:
            self._report(error if isinstance(error, JetsamError) else JetsamError("malformed reply: %r" % error))
            return INVALID_TASK
        if expiration_handler is not None:
            with self._lock:
                self._expiration_handlers[task] = expiration_handler
        return task

    def end_background_task(self, task):
        """Ends a background task: the work is done."""
        if task == INVALID_TASK:
            return
        with self._lock:
            self._expiration_handlers.pop(task, None)
        self._send("endBackgroundTask", {"task": task})

    def background_time_remaining(self):
        """Seconds the open background tasks may still run; ``math.inf`` while not in the background.

        If the daemon cannot be asked: inf in the foreground, 0 in the background.
        """
        try:
            text = self._request("backgroundTimeRemaining")["seconds"]
            return float("inf") if text == "inf" else float(text)
        except (JetsamError, KeyError, ValueError) as error:
            self._report(error if isinstance(error, JetsamError) else JetsamError("malformed reply: %r" % error))
            return 0.0 if self.application_state == "background" else float("inf")

    # --- The event loop ---

    def next_event(self, timeout=None):
        """Takes the next event (blocking), after the bookkeeping due before its handler: the application
        state, the launch reason, a background task's expiration handler. None once the channel has closed (or
        on timeout)."""
        try:
            event = self._events.get(timeout=timeout)
        except queue.Empty:
            return None
        if event is None:
            self._events.put(None)  # stay closed for later callers
            return None
        handler = None
        name = event.name
        if name == "didFinishLaunching":
            f = event.fields
            self.launch_reason = LaunchReason.from_fields(
                f.get("reason"), f.get("previousReason"), f.get("previousState"), f.get("previousTime")
            )
            if "summary" in f:
                self._state_summary = f["summary"]
            self.application_state = "background" if f.get("state") == "background" else "inactive"
        elif name == "willEnterForeground":
            self.application_state = "inactive"
            self.background_duration = _seconds_or_none(event.fields.get("backgroundFor"))
            self.suspended_duration = _seconds_or_none(event.fields.get("suspendedFor"))
        elif name == "willResignActive":
            self.application_state = "inactive"
        elif name == "didBecomeActive":
            self.application_state = "active"
        elif name == "didEnterBackground":
            self.application_state = "background"
        elif name == "backgroundTaskWillExpire":
            with self._lock:
                handler = self._expiration_handlers.pop(_int_or_none(event.fields.get("task")), None)
        if handler is not None:
            handler()
        return event

    def run(self, delegate=None):
        """Runs the event loop on this thread: calls each event's handler (on ``delegate``, or this object) and
        acknowledges the event when it returns. Returns after willTerminate, or when the daemon hangs up."""
        target = self if delegate is None else delegate
        while True:
            event = self.next_event()
            if event is None:
                return
            name = event.name
            if name == "didFinishLaunching":
                _call(target, "did_finish_launching", self.launch_reason)
            elif name == "memoryWarning":
                _call(target, "did_receive_memory_warning", event.fields.get("level", "warning"))
            elif name in _SIMPLE_HANDLERS:
                _call(target, _SIMPLE_HANDLERS[name])
            elif name != "backgroundTaskWillExpire":  # its expiration handler has run
                _call(target, "did_receive_unknown_event", event)
            event.acknowledge()
            if name == "willTerminate":
                return

    def disconnect(self):
        """Hangs up: ``run`` returns once queued events are handled, and requests fail."""
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # --- Handlers (override) ---

    def did_finish_launching(self, launch_reason):
        pass

    def will_enter_foreground(self):
        pass

    def did_become_active(self):
        pass

    def will_resign_active(self):
        pass

    def did_enter_background(self):
        pass

    def did_receive_memory_warning(self, level):
        pass

    def will_terminate(self):
        pass

    def did_receive_unknown_event(self, event):
        pass

    # --- The channel ---

    def _send(self, word, fields=()):
        """Sends a line that expects no answer; failures go to the error handler."""
        try:
            self._write(format_line(word, fields))
        except JetsamError as error:
            self._report(error)

    def _write(self, text):
        data = (text + "\n").encode("utf-8")
        if len(data) > MAX_LINE:
            raise JetsamError("a %s line would exceed %d bytes" % (text.split(" ", 1)[0], MAX_LINE))
        with self._write_lock:
            if self._closed:
                raise JetsamError("the channel to jetsamd is closed")
            try:
                self._socket.sendall(data)
            except OSError as error:
                raise JetsamError("writing to jetsamd failed: %s" % error) from None

    def _request(self, word, fields=()):
        """Sends a request with a fresh id and waits for its reply's fields; raises JetsamError."""
        with self._lock:
            if self._closed:
                raise JetsamError("the channel to jetsamd is closed")
            request_id = self._next_id
            self._next_id += 1
            slot = [threading.Event(), None]
            self._pending[request_id] = slot
        items = list(fields.items() if isinstance(fields, dict) else fields)
        try:
            self._write(format_line(word, [("id", request_id)] + items))
        except JetsamError:
            with self._lock:
                self._pending.pop(request_id, None)
            raise
        # Waited in short slices, so time spent suspended (SIGSTOP) does not use up the timeout.
        for _ in range(max(1, int(self.reply_timeout / 0.05 + 0.999))):
            if slot[0].wait(0.05):
                break
        else:
            with self._lock:
                if self._pending.pop(request_id, None) is not None:
                    raise JetsamError("jetsamd did not answer %s in time" % word)
            slot[0].wait()
        if isinstance(slot[1], Exception):
            raise slot[1]
        return slot[1]

    def _complete(self, request_id, result):
        with self._lock:
            slot = self._pending.pop(request_id, None)
        if slot is None:
            return False
        slot[1] = result
        slot[0].set()
        return True

    def _read_loop(self):
        framer = _LineFramer()
        while True:
            try:
                chunk = self._socket.recv(4096)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                break
            for line in framer.append(chunk):
                if line is _LineFramer.TOO_LONG:
                    self._report(JetsamError("jetsamd sent a line longer than %d bytes" % MAX_LINE))
                elif line:  # an empty line carries nothing to report: it is skipped
                    self._receive(line)
        with self._write_lock, self._lock:
            self._closed = True
            pending, self._pending = self._pending, {}
            self._socket.close()
        for slot in pending.values():
            slot[1] = JetsamError("the channel to jetsamd is closed")
            slot[0].set()
        self._events.put(None)

    def _receive(self, data):
        text = data.decode("utf-8", errors="replace")
        try:
            word, pairs = split_line(data)
        except LineError as error:
            self._report(JetsamError("jetsamd sent a line that could not be read: %r (%s)" % (text, error)))
            return
        fields = _first_values(pairs)
        if word == "hello":
            self.app_name = fields.get("app", self.app_name)
            self.launch_number = _int_or_none(fields.get("launch")) or self.launch_number
        elif word == "event":
            event_id = _int_or_none(fields.get("id"))
            if event_id is None or "name" not in fields:
                self._report(JetsamError("jetsamd sent an event without id or name: %r" % text))
                return
            names = [value for key, value in pairs if key == "name"]
            if len(names) > 1:
                fields.setdefault("taskName", names[1])
            self._events.put(Event(event_id, fields["name"], fields, self._send_ack))
        elif word == "reply":
            request_id = _int_or_none(fields.get("id"))
            if request_id is not None:
                self._complete(request_id, fields)
        elif word == "error":
            error = DaemonError(fields.get("code", ""), fields.get("message", ""))
            request_id = _int_or_none(fields.get("id"))
            if request_id is None or not self._complete(request_id, error):
                self._report(error)
        else:
            self._report(JetsamError("jetsamd sent an unknown line: %r" % text))

    def _send_ack(self, event_id):
        self._send("ack", {"event": event_id})

    def _report(self, error):
        if self.error_handler is not None:
            self.error_handler(error)
        else:
            print("jetsam: %s" % error, file=sys.stderr, flush=True)


_SIMPLE_HANDLERS = {
    "willEnterForeground": "will_enter_foreground",
    "didBecomeActive": "did_become_active",
    "willResignActive": "will_resign_active",
    "didEnterBackground": "did_enter_background",
    "willTerminate": "will_terminate",
}


def _call(target, method, *args):
    handler = getattr(target, method, None)
    if handler is not None:
        handler(*args)


def _int_or_none(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _seconds_or_none(text):
    """Decimal seconds from the wire (``12.045``), or None when absent or unreadable."""
    if text is None or not text or any(c not in "0123456789." for c in text) or text.count(".") > 1 or text == ".":
        return None
    return float(text)


def _safe_fields(text):
    try:
        return parse_fields(text)
    except ValueError:
        return []


def _decode_leniently(text):
    try:
        return decode_value(text)
    except ValueError:
        return text
