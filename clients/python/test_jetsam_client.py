"""Unit tests of jetsam_client: the line encoding, and the client against a fake daemon over a socketpair."""

import datetime
import math
import os
import threading
import unittest

import jetsam_client as jc
from fake_daemon import FakeDaemon


class EncodingTests(unittest.TestCase):
    def test_encodes_every_byte_outside_the_unreserved_set_as_uppercase_hex(self):
        cases = {
            "page=3 of 10": "page%3D3%20of%2010",
            "plain-text_1.2~x": "plain-text_1.2~x",
            "a:b/c+d,e@f": "a:b/c+d,e@f",
            "line\nbreak": "line%0Abreak",
            "100%": "100%25",
            "café": "caf%C3%A9",
            "": "",
        }
        for value, encoded in cases.items():
            with self.subTest(value=value):
                self.assertEqual(jc.encode_value(value), encoded)
                self.assertEqual(jc.decode_value(encoded), value)

    def test_round_trips(self):
        for value in ["", " ", "=", "a b=c\nd", "%", "%%41", "😀 emoji", "\\x41", "x y" * 500]:
            with self.subTest(value=value):
                encoded = jc.encode_value(value)
                self.assertFalse(set(encoded) & {" ", "=", "\n"})
                self.assertEqual(jc.decode_value(encoded), value)

    def test_decodes_lowercase_hex_and_keeps_unencoded_bytes(self):
        self.assertEqual(jc.decode_value("page%3d3"), "page=3")
        self.assertEqual(jc.decode_value("a*b"), "a*b")

    def test_rejects_a_percent_without_two_hex_digits(self):
        for encoded in ["%", "%4", "%G1", "abc%2", "%zz"]:
            with self.subTest(encoded=encoded), self.assertRaises(ValueError):
                jc.decode_value(encoded)

    def test_formats_lines(self):
        self.assertEqual(jc.format_line("hello", {"version": 1}), "hello version=1")
        self.assertEqual(jc.format_line("stateSummary", {"value": "page=3"}), "stateSummary value=page%3D3")
        self.assertEqual(jc.format_line("backgroundTimeRemaining", [("id", 2)]), "backgroundTimeRemaining id=2")
        self.assertEqual(jc.format_line("x"), "x")

    def test_parses_lines(self):
        word, fields = jc.parse_line(
            "event id=1 name=didFinishLaunching reason=afterExit previousReason=memoryPressure "
            "previousState=suspended previousTime=2026-11-29T14:35:35.447Z summary=page%3D3 state=foreground"
        )
        self.assertEqual(word, "event")
        self.assertEqual(fields["summary"], "page=3")
        self.assertEqual(fields["previousTime"], "2026-11-29T14:35:35.447Z")
        self.assertEqual(len(fields), 8)

    def test_line_round_trips(self):
        fields = {"code": "badLine", "message": "a line\nwith %, = and spaces", "id": "4"}
        self.assertEqual(jc.parse_line(jc.format_line("error", fields)), ("error", fields))

    def test_tolerates_runs_of_spaces_and_keeps_the_first_of_a_repeated_key(self):
        self.assertEqual(jc.parse_line("reply  id=2 seconds=1.5 "), ("reply", {"id": "2", "seconds": "1.5"}))
        self.assertEqual(jc.parse_line("event id=5 name=a name=b")[1]["name"], "a")

    def test_rejects_malformed_lines(self):
        for text in ["", "   ", "ack id", "ack =3", "stateSummary value=%G"]:
            with self.subTest(text=text), self.assertRaises(ValueError):
                jc.parse_line(text)


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


if __name__ == "__main__":
    unittest.main()
