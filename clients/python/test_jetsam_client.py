"""Unit tests of jetsam_client: the line encoding, and the client against a fake daemon over a socketpair."""

import datetime
import json
import math
import os
import threading
import unittest
import unittest.mock

import jetsam_client as jc
from fake_daemon import FakeDaemon

#: The table of lines shared with the Swift module JetsamWire's tests.
WIRE_LINES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Tests/Fixtures/wire-lines.json")


class EncodingTests(unittest.TestCase):
    def test_encodes_every_byte_outside_the_unreserved_set_as_uppercase_hex(self):
        cases = {
            "page=3 of 10": "page%3D3%20of%2010",
            "plain-text_1.2~x": "plain-text_1.2~x",
            "a:b/c+d,e@f": "a:b/c+d,e@f",
            "line\nbreak": "line%0Abreak",
            "crlf\r\n": "crlf%0D%0A",
            "100%": "100%25",
            "café": "caf%C3%A9",
            "": "",
        }
        for value, encoded in cases.items():
            with self.subTest(value=value):
                self.assertEqual(jc.encode_value(value), encoded)
                self.assertEqual(jc.decode_value(encoded), value)

    def test_round_trips(self):
        for value in ["", " ", "=", "a b=c\nd", "%", "%%41", "😀 emoji", "\x41", "\x00", "\x7f", "x y" * 500]:
            with self.subTest(value=value):
                encoded = jc.encode_value(value)
                self.assertTrue(all(0x20 < ord(c) < 0x7F and c != "=" for c in encoded))
                self.assertEqual(jc.decode_value(encoded), value)

    def test_decodes_lowercase_hex_and_keeps_unencoded_printable_bytes(self):
        self.assertEqual(jc.decode_value("page%3d3"), "page=3")
        self.assertEqual(jc.decode_value("a*b=c"), "a*b=c")
        self.assertEqual(jc.decode_value("café"), "café")

    def test_refuses_what_a_line_would_refuse(self):
        for encoded in ["%", "%4", "%G1", "abc%2", "%zz", "a b", "a\rb", "a\tb", "\x7f", "%FF", "%C3"]:
            with self.subTest(encoded=encoded), self.assertRaises(ValueError):
                jc.decode_value(encoded)

    def test_formats_lines(self):
        self.assertEqual(jc.format_line("hello", {"version": 1}), "hello version=1")
        self.assertEqual(jc.format_line("stateSummary", {"value": "page=3"}), "stateSummary value=page%3D3")
        self.assertEqual(jc.format_line("backgroundTimeRemaining", [("id", 2)]), "backgroundTimeRemaining id=2")
        self.assertEqual(jc.format_line("x"), "x")

    def test_line_round_trips(self):
        fields = {"code": "badLine", "message": "a line\nwith %, = and spaces", "id": "4"}
        self.assertEqual(jc.parse_line(jc.format_line("error", fields)), ("error", fields))

    def test_a_repeated_key_keeps_its_first_value_in_the_dict(self):
        self.assertEqual(jc.parse_line("event id=5 name=a name=b")[1]["name"], "a")

    def test_parses_fields_without_a_word(self):
        fields = jc.parse_fields("reason=memoryPressure state=suspended time=2026-11-29T14:35:35.447Z")
        self.assertEqual([key for key, _ in fields], ["reason", "state", "time"])
        with self.assertRaises(jc.LineError) as caught:
            jc.parse_fields("reason=x  state")
        self.assertEqual(str(caught.exception), 'field 2 "state" at column 11: a field is key=value')


class SharedExampleTests(unittest.TestCase):
    """The lines of Tests/Fixtures/wire-lines.json, which the Swift module JetsamWire's tests read too: both
    readers accept and refuse the same lines, with the same messages."""

    @staticmethod
    def examples():
        with open(WIRE_LINES, encoding="utf-8") as table:
            return json.load(table)["lines"]

    def test_reads_each_line_as_the_table_says(self):
        examples = self.examples()
        self.assertTrue(any(e["valid"] for e in examples) and not all(e["valid"] for e in examples))
        for example in examples:
            data = example["line"].encode("utf-8") if "line" in example else bytes.fromhex(example["lineHex"])
            with self.subTest(line=data):
                if example["valid"]:
                    pairs = [tuple(pair) for pair in example["fields"]]
                    self.assertEqual(jc.split_line(data), (example["word"], pairs))
                    if "line" in example:
                        self.assertEqual(jc.split_line(example["line"]), (example["word"], pairs))
                else:
                    with self.assertRaises(jc.LineError) as caught:
                        jc.split_line(data)
                    self.assertEqual(str(caught.exception), example["error"])


class _RecordingText(str):
    """A word or value read from the daemon that notes every string it is compared with, under its key."""

    def __new__(cls, text, key, seen):
        recording = super().__new__(cls, text)
        recording.key, recording.seen = key, seen
        return recording

    def __eq__(self, other):
        self.seen.setdefault(self.key, set()).add(str(other))
        return str.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = str.__hash__


class _RecordingFields(dict):
    """A line's fields that note every key the client looks up; values come back as _RecordingText."""

    def __init__(self, pairs, seen):
        super().__init__(pairs)
        self.seen = seen

    def _note(self, key):
        self.seen.setdefault("keys", set()).add(key)

    def _value(self, key, value):
        return _RecordingText(value, key, self.seen) if isinstance(value, str) else value

    def __getitem__(self, key):
        self._note(key)
        return self._value(key, super().__getitem__(key))

    def get(self, key, default=None):
        self._note(key)
        return self._value(key, super().get(key, default))

    def __contains__(self, key):
        self._note(key)
        return super().__contains__(key)

    def setdefault(self, key, default=None):
        self._note(key)
        return self._value(key, super().setdefault(key, default))


class VocabularyTests(unittest.TestCase):
    """Every word, key, event name and value the client writes or reads is in the vocabulary of
    Tests/Fixtures/wire-lines.json, which the Swift module JetsamWire's tests hold equal to its enums."""

    @classmethod
    def setUpClass(cls):
        with open(WIRE_LINES, encoding="utf-8") as table:
            cls.vocabulary = json.load(table)["vocabulary"]

    def connect(self):
        self.daemon = FakeDaemon()
        self.addCleanup(self.daemon.close)
        app = jc.JetsamApp(fd=self.daemon.app_fd(), environ={}, reply_timeout=5.0)
        app.error_handler = lambda error: None
        self.written = [self.daemon.read_line()]  # hello
        return app

    def answer(self, call, reply):
        """Runs a request on a thread, answers it with ``reply % id`` and returns its result."""
        result = []
        thread = threading.Thread(target=lambda: result.append(call()))
        thread.start()
        line = self.daemon.read_line()
        self.written.append(line)
        self.daemon.send(reply % jc.parse_line(line)[1]["id"])
        thread.join(5)
        return result[0]

    def test_the_lines_the_client_writes(self):
        app = self.connect()
        task = self.answer(lambda: app.begin_background_task("upload"), "reply id=%s task=1")
        self.answer(lambda: app.begin_background_task("index", kind="processing"), "reply id=%s task=2")
        self.answer(lambda: app.background_time_remaining(), "reply id=%s seconds=inf")
        app.end_background_task(task)
        app.state_summary = "page=3"
        app.report_state_digest("9f86d081", "saved", valid_for=10)
        app.signpost("save", "begin")
        self.daemon.send("event id=1 name=didEnterBackground")
        app.next_event(timeout=5).acknowledge()
        self.written += [self.daemon.read_line() for _ in range(5)]
        words = self.vocabulary["appToDaemon"]["words"]
        self.assertEqual(sorted({jc.parse_line(line)[0] for line in self.written}), sorted(words), self.written)
        # The fields that take one of a few values, and the table's list of them.
        values = {
            ("stateDigest", "phase"): "digestPhase",
            ("signpost", "phase"): "signpostPhase",
            ("beginBackgroundTask", "kind"): "backgroundTaskKind",
        }
        checked = set()
        for line in self.written:
            with self.subTest(line=line):
                word, fields = jc.parse_line(line)
                self.assertLessEqual(set(fields), set(self.vocabulary["appToDaemon"]["fields"]))
                for (value_word, key), listed in values.items():
                    if word == value_word and key in fields:
                        self.assertIn(fields[key], self.vocabulary["values"][listed])
                        checked.add(listed)
        self.assertEqual(checked, set(values.values()), "a value of each kind was written")

    def test_the_words_keys_and_events_the_client_reads(self):
        seen = {}
        split_line = jc.split_line

        def recording_split(data):
            word, pairs = split_line(data)
            return _RecordingText(word, "word", seen), pairs

        with unittest.mock.patch.object(jc, "split_line", recording_split), unittest.mock.patch.object(
            jc, "_first_values", lambda pairs: _RecordingFields(reversed(pairs), seen)
        ):
            app = self.connect()
            self.daemon.send("hello version=1 app=notes launch=2")
            self.answer(lambda: app.begin_background_task("upload"), "reply id=%s task=1")
            self.answer(lambda: app.background_time_remaining(), "reply id=%s seconds=29.950")
            self.answer(lambda: app.background_time_remaining(), "error code=badLine message=no id=%s")
            events = self.vocabulary["events"]
            for number, name in enumerate(events, start=1):
                fields = "reason=afterExit previousReason=memoryPressure state=background level=urgent task=1"
                self.daemon.send("event id=%d name=%s %s name=upload" % (number, name, fields))
            loop = threading.Thread(target=app.run, daemon=True)
            loop.start()
            loop.join(5)
        daemon = self.vocabulary["daemonToApp"]
        self.assertLessEqual(seen["word"], set(daemon["words"]))
        self.assertLessEqual(seen["keys"], set(daemon["fields"]))
        self.assertLessEqual(seen["name"], set(events))
        self.assertLessEqual(seen["reason"], set(self.vocabulary["values"]["launchReason"]))
        self.assertLessEqual(seen["state"], set(self.vocabulary["values"]["launchState"]))
        self.assertLessEqual(set(jc._SIMPLE_HANDLERS) | jc._UNACKNOWLEDGED, set(events))

    def test_the_environment_variables_the_client_reads(self):
        self.daemon = FakeDaemon()
        self.addCleanup(self.daemon.close)
        read = set()

        class RecordingEnviron(dict):
            def get(self, key, default=None):
                read.add(key)
                return super().get(key, default)

            def __getitem__(self, key):
                read.add(key)
                return super().__getitem__(key)

            def __contains__(self, key):
                read.add(key)
                return super().__contains__(key)

        environ = RecordingEnviron(JETSAM_FD=str(self.daemon.app_fd()))
        app = jc.JetsamApp(environ=environ, reply_timeout=5.0)
        self.addCleanup(app.disconnect)
        self.assertEqual(self.daemon.read_line(), "hello version=1")
        variables = self.vocabulary["environment"]["app"]
        self.assertLessEqual(read, set(variables))
        # Every variable jetsamd sets for the app but the protocol version and the crash reporter's own.
        self.assertEqual(read, set(variables) - {"JETSAM_PROTOCOL", "JETSAM_CRASH_FD"})

    def test_a_memory_warning_without_a_level_is_one_of_the_tables_levels(self):
        app = self.connect()
        levels = []

        class Delegate:
            def did_receive_memory_warning(self, level):
                levels.append(level)

        self.daemon.send("event id=1 name=memoryWarning")
        self.daemon.send("event id=2 name=willTerminate")
        app.run(Delegate())
        self.assertEqual(len(levels), 1)
        self.assertIn(levels[0], self.vocabulary["values"]["memoryWarningLevel"])


class LineFramerTests(unittest.TestCase):
    def test_joins_lines_split_across_reads(self):
        framer = jc._LineFramer()
        self.assertEqual(framer.append(b"hello vers"), [])
        self.assertEqual(framer.append(b"ion=1\nevent id=1 "), [b"hello version=1"])
        self.assertEqual(framer.append(b"name=didBecomeActive\n\n"), [b"event id=1 name=didBecomeActive", b""])

    def test_a_line_of_exactly_the_limit_including_its_newline_is_kept(self):
        framer = jc._LineFramer(max_bytes=8)
        self.assertEqual(framer.append(b"1234567\n"), [b"1234567"])
        self.assertEqual(framer.append(b"12345678\nok\n"), [jc._LineFramer.TOO_LONG, b"ok"])

    def test_an_overlong_line_is_reported_once_and_dropped_up_to_its_newline(self):
        framer = jc._LineFramer(max_bytes=8)
        self.assertEqual(framer.append(b"0123456"), [])
        self.assertEqual(framer.append(b"789abc"), [jc._LineFramer.TOO_LONG])
        self.assertEqual(framer.append(b"x" * 100), [])
        self.assertEqual(framer.append(b"def\nok\n"), [b"ok"])

    def test_the_protocols_limit_is_4096_bytes_with_the_newline(self):
        framer = jc._LineFramer()
        longest = b"a" * (jc.MAX_LINE - 1)
        self.assertEqual(framer.append(longest[:3000]), [])
        self.assertEqual(framer.append(longest[3000:] + b"\n"), [longest])
        self.assertEqual(framer.append(longest[:3000]), [])
        self.assertEqual(framer.append(longest[3000:] + b"a\n"), [jc._LineFramer.TOO_LONG])


class ClientTests(unittest.TestCase):
    def connect(self, environ=None, reply_timeout=5.0):
        self.daemon = FakeDaemon()
        self.addCleanup(self.daemon.close)
        app = jc.JetsamApp(fd=self.daemon.app_fd(), environ=environ or {}, reply_timeout=reply_timeout)
        self.errors = []
        app.error_handler = self.errors.append
        self.assertEqual(self.daemon.read_line(), "hello version=1")
        return app

    def run_in_background(self, app, delegate=None):
        thread = threading.Thread(target=app.run, args=(delegate,), daemon=True)
        thread.start()
        return thread

    def test_without_jetsam_fd_the_program_was_not_launched_by_jetsam(self):
        with self.assertRaises(jc.NotLaunchedByJetsam) as caught:
            jc.JetsamApp(environ={})
        self.assertIn("not launched by jetsamd", str(caught.exception))

    def test_a_descriptor_that_is_not_a_socket_is_refused(self):
        read_end, write_end = os.pipe()
        self.addCleanup(os.close, write_end)
        self.addCleanup(os.close, read_end)
        with self.assertRaises(jc.JetsamError):
            jc.JetsamApp(fd=read_end, environ={})

    def test_an_event_is_acknowledged_only_after_its_handler_returns(self):
        app = self.connect()
        entered, release = threading.Event(), threading.Event()

        class Delegate:
            def did_enter_background(self):
                entered.set()
                release.wait(5)

        loop = self.run_in_background(app, Delegate())
        self.daemon.send("event id=1 name=didEnterBackground")
        self.assertTrue(entered.wait(5))
        self.assertIsNone(self.daemon.read_line(timeout=0.3))
        release.set()
        self.assertEqual(self.daemon.read_line(), "ack event=1")
        self.assertEqual(app.application_state, "background")
        self.daemon.close()
        loop.join(5)
        self.assertFalse(loop.is_alive())

    def test_a_lifecycle_reaches_the_handlers_in_order(self):
        app = self.connect()
        calls = []

        class Delegate:
            def did_finish_launching(self, reason):
                calls.append(("didFinishLaunching", reason.kind, app.application_state))

            def did_become_active(self):
                calls.append(("didBecomeActive", app.application_state))

            def did_receive_memory_warning(self, level):
                calls.append(("memoryWarning", level))

            def will_terminate(self):
                calls.append(("willTerminate",))

        loop = self.run_in_background(app, Delegate())
        self.daemon.send("event id=1 name=didFinishLaunching reason=fresh state=foreground")
        self.daemon.send("event id=2 name=didBecomeActive")
        self.daemon.send("event id=3 name=memoryWarning level=urgent")
        self.daemon.send("event id=4 name=somethingNew")
        self.daemon.send("event id=5 name=willTerminate")
        self.assertEqual([self.daemon.read_line() for _ in range(4)], ["ack event=%d" % n for n in (1, 2, 4, 5)])
        loop.join(5)
        self.assertFalse(loop.is_alive(), "run() returns after willTerminate")
        self.assertEqual(
            calls,
            [
                ("didFinishLaunching", "fresh", "inactive"),
                ("didBecomeActive", "active"),
                ("memoryWarning", "urgent"),
                ("willTerminate",),
            ],
        )

    def test_background_task_requests_are_matched_to_replies_by_id(self):
        app = self.connect()
        results = {}
        first = threading.Thread(target=lambda: results.update(first=app.begin_background_task("first")))
        first.start()
        word, first_fields = jc.parse_line(self.daemon.read_line())
        self.assertEqual((word, first_fields["name"]), ("beginBackgroundTask", "first"))
        second = threading.Thread(target=lambda: results.update(second=app.begin_background_task("second")))
        second.start()
        _, second_fields = jc.parse_line(self.daemon.read_line())
        self.daemon.send("reply id=%s task=20" % second_fields["id"])
        self.daemon.send("reply id=%s task=10" % first_fields["id"])
        first.join(5)
        second.join(5)
        self.assertEqual(results, {"first": 10, "second": 20})
        app.end_background_task(10)
        self.assertEqual(self.daemon.read_line(), "endBackgroundTask task=10")

    def test_a_processing_task_says_its_kind(self):
        app = self.connect()
        result = []
        thread = threading.Thread(target=lambda: result.append(app.begin_background_task("index", kind="processing")))
        thread.start()
        word, fields = jc.parse_line(self.daemon.read_line())
        self.assertEqual((word, fields["name"], fields["kind"]), ("beginBackgroundTask", "index", "processing"))
        self.daemon.send("reply id=%s task=3" % fields["id"])
        thread.join(5)
        self.assertEqual(result, [3])
        with self.assertRaises(ValueError):
            app.begin_background_task("x", kind="urgent")

    def test_a_refused_or_unanswered_request_gives_an_invalid_task(self):
        app = self.connect(reply_timeout=0.3)
        results = []
        thread = threading.Thread(target=lambda: results.append(app.begin_background_task("x")))
        thread.start()
        _, fields = jc.parse_line(self.daemon.read_line())
        self.daemon.send("error code=missingField message=name id=%s" % fields["id"])
        thread.join(5)
        self.assertEqual(app.begin_background_task("y"), jc.INVALID_TASK)
        self.assertEqual(results, [jc.INVALID_TASK])
        self.assertEqual(self.errors[0].code, "missingField")
        self.assertIn("in time", str(self.errors[1]))

    def test_the_expiration_handler_runs_on_background_task_will_expire(self):
        app = self.connect()
        expired = threading.Event()
        result = []
        thread = threading.Thread(target=lambda: result.append(app.begin_background_task("upload", expired.set)))
        thread.start()
        _, fields = jc.parse_line(self.daemon.read_line())
        self.daemon.send("reply id=%s task=4" % fields["id"])
        thread.join(5)
        loop = self.run_in_background(app)
        self.daemon.send("event id=1 name=backgroundTaskWillExpire task=4 name=upload")
        self.assertTrue(expired.wait(5))
        app.end_background_task(result[0])
        self.assertEqual(self.daemon.read_line(), "endBackgroundTask task=4", "the event itself is not acked")
        self.daemon.close()
        loop.join(5)

    def test_the_expiring_task_is_named_in_the_event(self):
        app = self.connect()
        self.daemon.send("event id=9 name=backgroundTaskWillExpire task=4 name=upload")
        event = app.next_event(timeout=5)
        self.assertEqual((event.name, event.fields["task"], event.fields["taskName"]), ("backgroundTaskWillExpire", "4", "upload"))
        self.assertFalse(event.requires_acknowledgement)

    def test_background_time_remaining_asks_the_daemon(self):
        app = self.connect()
        for answer, expected in [("inf", math.inf), ("29.950", 29.95)]:
            result = []
            thread = threading.Thread(target=lambda: result.append(app.background_time_remaining()))
            thread.start()
            word, fields = jc.parse_line(self.daemon.read_line())
            self.assertEqual(word, "backgroundTimeRemaining")
            self.daemon.send("reply id=%s seconds=%s" % (fields["id"], answer))
            thread.join(5)
            self.assertEqual(result, [expected])

    def test_state_summary_and_digests(self):
        app = self.connect(environ={"JETSAM_STATE_SUMMARY": "count%3D1"})
        self.assertEqual(app.state_summary, "count=1")
        app.state_summary = "page=3 of 10"
        self.assertEqual(self.daemon.read_line(), "stateSummary value=page%3D3%20of%2010")
        self.assertEqual(app.state_summary, "page=3 of 10")
        app.report_state_digest("9f86d081", "saved")
        self.assertEqual(self.daemon.read_line(), "stateDigest phase=saved value=9f86d081")
        app.report_state_digest("9f86d081", "saved", valid_for=1.5)
        self.assertEqual(self.daemon.read_line(), "stateDigest phase=saved value=9f86d081 validFor=1.500")
        app.report_state_digest("9f86d081", "resumed")
        self.assertEqual(self.daemon.read_line(), "stateDigest phase=resumed value=9f86d081")
        app.signpost("save state", "begin")
        self.assertEqual(self.daemon.read_line(), "signpost name=save%20state phase=begin")
        app.signpost("tapped")
        self.assertEqual(self.daemon.read_line(), "signpost name=tapped phase=event")
        for name, phase in (("x", "start"), ("", "event"), ("é" * 65, "event")):
            with self.assertRaises(ValueError, msg=(name, phase)):
                app.signpost(name, phase)
        for phase, valid_for in (("resumed", 1), ("saved", 0), ("saved", -1), ("saved", float("inf")), ("later", None)):
            with self.assertRaises(ValueError, msg=(phase, valid_for)):
                app.report_state_digest("x", phase, valid_for=valid_for)

    def test_a_return_to_the_foreground_tells_how_long_the_app_was_away_and_suspended(self):
        app = self.connect()
        self.assertEqual((app.background_duration, app.suspended_duration), (None, None))
        self.daemon.send("event id=1 name=willEnterForeground backgroundFor=12.045 suspendedFor=11.000")
        event = app.next_event(timeout=5)
        self.assertEqual(event.name, "willEnterForeground")
        self.assertEqual((app.background_duration, app.suspended_duration), (12.045, 11.0))
        self.daemon.send("event id=2 name=willEnterForeground suspendedFor=-1")
        app.next_event(timeout=5)
        self.assertEqual((app.background_duration, app.suspended_duration), (None, None))

    def test_the_launch_reason_comes_from_the_environment_then_from_did_finish_launching(self):
        app = self.connect(
            environ={
                "JETSAM_APP": "notes",
                "JETSAM_LAUNCH": "2",
                "JETSAM_LAUNCH_REASON": "afterExit",
                "JETSAM_PREVIOUS_EXIT": "reason=appWatchdog state=background time=2026-11-29T14:35:35Z",
            }
        )
        utc = datetime.timezone.utc
        self.assertEqual((app.app_name, app.launch_number), ("notes", 2))
        self.assertEqual(
            app.launch_reason,
            jc.LaunchReason("afterExit", "appWatchdog", "background", datetime.datetime(2026, 11, 29, 14, 35, 35, tzinfo=utc)),
        )
        self.daemon.send(
            "event id=1 name=didFinishLaunching reason=afterExit previousReason=memoryPressure "
            "previousState=suspended previousTime=2026-11-29T14:35:35.447Z summary=page%3D3 state=background"
        )
        event = app.next_event(timeout=5)
        self.assertEqual(event.name, "didFinishLaunching")
        self.assertEqual(app.launch_reason.previous_reason, "memoryPressure")
        self.assertEqual(app.launch_reason.time, datetime.datetime(2026, 11, 29, 14, 35, 35, 447000, tzinfo=utc))
        self.assertEqual(app.state_summary, "page=3")
        self.assertEqual(app.application_state, "background")

    def test_unreadable_and_overlong_lines_go_to_the_error_handler_and_the_channel_goes_on(self):
        app = self.connect()
        self.daemon.sock.sendall(b"event id=1 name=didBecomeActive\r\n")
        self.daemon.sock.sendall(b"x" * 3000)
        self.daemon.sock.sendall(b"x" * 3000 + b"\n\n")
        self.daemon.send("event id=2 name=didBecomeActive")
        event = app.next_event(timeout=5)
        self.assertEqual(event.id, 2)
        self.assertEqual(
            [str(error) for error in self.errors],
            [
                "jetsamd sent a line that could not be read: 'event id=1 name=didBecomeActive\\r' "
                '(field 2 "name=didBecomeActive\\r" at column 32: byte 0x0D must be written %0D)',
                "jetsamd sent a line longer than 4096 bytes",
            ],
        )


if __name__ == "__main__":
    unittest.main()
