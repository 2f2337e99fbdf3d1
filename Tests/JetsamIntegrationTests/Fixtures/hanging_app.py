#!/usr/bin/env python3
"""A test app on the Python client whose handler for the event named by $HANG_IN never returns."""

import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../clients/python"))
import jetsam_client  # noqa: E402


class HangingApp(jetsam_client.JetsamApp):
    def hang_if_asked(self, name):
        if os.environ.get("HANG_IN") == name:
            threading.Event().wait()

    def did_finish_launching(self, launch_reason):
        self.hang_if_asked("didFinishLaunching")

    def will_enter_foreground(self):
        self.hang_if_asked("willEnterForeground")

    def did_become_active(self):
        self.hang_if_asked("didBecomeActive")

    def will_resign_active(self):
        self.hang_if_asked("willResignActive")

    def did_enter_background(self):
        self.hang_if_asked("didEnterBackground")


if __name__ == "__main__":
    HangingApp().run()
