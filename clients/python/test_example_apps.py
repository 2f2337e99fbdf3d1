"""Runs the Python and bash example apps against a fake daemon through a whole lifecycle, twice: a fresh launch
that saves at didEnterBackground, then a launch after an exit that restores what was saved."""

import os
import subprocess
import sys
import tempfile
import unittest

import jetsam_client as jc
from fake_daemon import FakeDaemon

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = {
    "python": [sys.executable, os.path.join(HERE, "example_app.py")],
    "bash": ["bash", os.path.join(HERE, "..", "bash", "example-app.sh")],
}


class ExampleAppTests(unittest.TestCase):
    def launch(self, command, state_dir, environ):
        daemon = FakeDaemon()
        fd = daemon.app_sock.fileno()
        env = dict(os.environ, JETSAM_FD=str(fd), JETSAM_PROTOCOL="1", JETSAM_APP="example", **environ)
        process = subprocess.Popen(
            command + [state_dir], env=env, pass_fds=[fd], stdout=subprocess.PIPE, text=True
        )
        daemon.app_sock.close()
        return daemon, process

    def handle(self, daemon, event_id, name, extra=""):
        daemon.send(("event id=%d name=%s %s" % (event_id, name, extra)).strip())

    def lines_until_ack(self, daemon, event_id):
        lines = []
        while True:
            line = daemon.read_line()
            self.assertIsNotNone(line, "no ack for event %d; got %r" % (event_id, lines))
            if line == "ack event=%d" % event_id:
                return lines
            lines.append(line)

    def reply_to_requests(self, daemon, lines):
        for line in lines:
            word, fields = jc.parse_line(line)
            if word == "beginBackgroundTask":
                daemon.send("reply id=%s task=1" % fields["id"])

    def test_a_lifecycle_with_save_and_restore(self):
        for kind, command in APPS.items():
            with self.subTest(app=kind), tempfile.TemporaryDirectory() as state_dir:
                daemon, process = self.launch(command, state_dir, {"JETSAM_LAUNCH": "1", "JETSAM_LAUNCH_REASON": "fresh"})
                self.assertEqual(daemon.read_line(), "hello version=1")
                daemon.send("hello version=1 app=example launch=1")
                self.handle(daemon, 1, "didFinishLaunching", "reason=fresh state=foreground")
                self.assertEqual(self.lines_until_ack(daemon, 1), [])
                self.handle(daemon, 2, "didBecomeActive")
                self.lines_until_ack(daemon, 2)
                self.handle(daemon, 3, "memoryWarning", "level=warning")
                self.handle(daemon, 4, "willResignActive")
                self.lines_until_ack(daemon, 4)
                self.handle(daemon, 5, "didEnterBackground")
                said = []
                while True:  # the Python app asks for a background task before acking
                    line = daemon.read_line()
                    self.assertIsNotNone(line)
                    said.append(line)
                    self.reply_to_requests(daemon, [line])
                    if line == "ack event=5":
                        break
                saved = [line for line in said if line.startswith("stateDigest phase=saved")]
                self.assertEqual(len(saved), 1, said)
                # Both apps bracket their save with signposts.
                self.assertEqual([line for line in said if line.startswith("signpost")],
                                 ["signpost name=save phase=begin", "signpost name=save phase=end"])
                self.assertTrue(any(line.startswith("stateSummary value=events%3D") for line in said), said)
                daemon.close()  # as a jetsam kill while suspended: no more words
                process.kill()
                first_output, _ = process.communicate(timeout=5)
                self.assertIn("didFinishLaunching fresh", first_output)
                self.assertIn("memoryWarning level=warning", first_output)

                summary = next(line for line in said if line.startswith("stateSummary")).split("value=")[1]
                daemon, process = self.launch(
                    command,
                    state_dir,
                    {
                        "JETSAM_LAUNCH": "2",
                        "JETSAM_LAUNCH_REASON": "afterExit",
                        "JETSAM_PREVIOUS_EXIT": "reason=memoryPressure state=suspended time=2026-11-29T14:35:35.447Z",
                        "JETSAM_STATE_SUMMARY": summary,
                    },
                )
                self.assertEqual(daemon.read_line(), "hello version=1")
                self.handle(
                    daemon,
                    1,
                    "didFinishLaunching",
                    "reason=afterExit previousReason=memoryPressure previousState=suspended "
                    "previousTime=2026-11-29T14:35:35.447Z summary=%s state=background" % summary,
                )
                restored = self.lines_until_ack(daemon, 1)
                self.assertEqual(
                    restored, [saved[0].replace("phase=saved", "phase=restored")], "the restored digest matches"
                )
                self.handle(daemon, 2, "willTerminate")
                said = self.lines_until_ack(daemon, 2)
                self.assertEqual(
                    [line.split(" ")[0] for line in said], ["signpost", "stateDigest", "stateSummary", "signpost"], said
                )
                self.assertEqual((said[0], said[-1]), ("signpost name=save phase=begin", "signpost name=save phase=end"))
                output, _ = process.communicate(timeout=5)
                self.assertEqual(process.returncode, 0, "the app exits after willTerminate")
                self.assertIn("didFinishLaunching afterExit previousReason=memoryPressure", output)
                self.assertIn("summary=events=", output)
                daemon.close()

    def test_not_launched_by_jetsam(self):
        for kind, command in APPS.items():
            with self.subTest(app=kind):
                env = {k: v for k, v in os.environ.items() if k != "JETSAM_FD"}
                result = subprocess.run(command, env=env, capture_output=True, text=True)
                self.assertEqual(result.returncode, 69)
                self.assertIn("JETSAM_FD is not set", result.stderr)


if __name__ == "__main__":
    unittest.main()
