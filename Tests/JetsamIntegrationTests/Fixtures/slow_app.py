#!/usr/bin/env python3
"""A test app on the Python client whose handler for the event named by $SLOW_IN takes $SLOW_MS milliseconds."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../clients/python"))
import jetsam_client  # noqa: E402


class SlowApp(jetsam_client.JetsamApp):
    def did_become_active(self):
        if os.environ.get("SLOW_IN") == "didBecomeActive":
            time.sleep(int(os.environ.get("SLOW_MS", "0")) / 1000)


if __name__ == "__main__":
    SlowApp().run()
