#!/usr/bin/env python3
"""A minimal jetsamd app in Python: follows its lifecycle, acknowledges each event (by returning from its
handler), saves its state at didEnterBackground, restores it after an exit, and prints one line per event.

usage: example_app.py [STATE_DIR]     (default: the working directory)
"""

import hashlib
import json
import os
import sys
import threading

import jetsam_client


class ExampleApp(jetsam_client.JetsamApp):
    """Its state is how many events it has handled, over all its launches."""

    def __init__(self, state_dir, **kwargs):
        super().__init__(**kwargs)
        self.state_path = os.path.join(state_dir, "example-app.state.json")
        self.state = {"events": 0}

    def say(self, line):
        self.state["events"] += 1
        print(line, flush=True)

    def did_finish_launching(self, launch_reason):
        if launch_reason.is_after_exit:
            try:
                with open(self.state_path, "rb") as file:
                    self.state = json.load(file)
            except (OSError, ValueError):
                self.state = {"events": 0}
            self.report_state_digest(digest(self.state), "restored")
            self.say(
                "didFinishLaunching afterExit previousReason=%s summary=%s restored events=%d"
                % (launch_reason.previous_reason, self.state_summary, self.state["events"])
            )
        else:
            self.say("didFinishLaunching fresh")

    def will_enter_foreground(self):
        self.say("willEnterForeground")

    def did_become_active(self):
        self.say("didBecomeActive")

    def will_resign_active(self):
        self.say("willResignActive")

    def did_enter_background(self):
        self.say("didEnterBackground")
        self.save()
        # A little work in the background, under a background task that ends itself.
        task = self.begin_background_task("flush", expiration_handler=lambda: self.end_background_task(task))
        threading.Timer(0.2, self.end_background_task, args=[task]).start()

    def did_receive_memory_warning(self, level):
        self.say("memoryWarning level=%s" % level)

    def will_terminate(self):
        self.say("willTerminate")
        self.save()

    def did_receive_unknown_event(self, event):
        self.say("%s (unknown event)" % event.name)

    def save(self):
        self.signpost("save", "begin")  # labs draw the save on their timelines
        data = json.dumps(self.state, sort_keys=True).encode()
        temporary = self.state_path + ".tmp"
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, self.state_path)  # atomic: a kill mid-save leaves the previous state
        self.report_state_digest(digest(self.state), "saved")
        self.state_summary = "events=%d" % self.state["events"]
        self.signpost("save", "end")


def digest(state):
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]


def main():
    state_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    try:
        app = ExampleApp(state_dir)
    except jetsam_client.JetsamError as error:
        print("example_app: %s" % error, file=sys.stderr)
        return 69
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
