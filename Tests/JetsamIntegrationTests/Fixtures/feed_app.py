#!/usr/bin/env python3
"""A test app on the Python client that shows a news feed current for VALID_FOR seconds.

It reports the feed's digest as saved, with that validity, at didEnterBackground. On a return to the
foreground after longer than that it fetches again (the next generation) — unless given --stale-on-resume,
the bug of an app that counts on a refresh timer, which did not run while it was suspended. At the
didBecomeActive of a return it reports what it shows. One line per return on standard output.

usage: feed_app.py VALID_FOR [--stale-on-resume]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../clients/python"))
import jetsam_client  # noqa: E402


class FeedApp(jetsam_client.JetsamApp):
    def __init__(self, valid_for, refresh_on_return, **kwargs):
        super().__init__(**kwargs)
        self.valid_for = valid_for
        self.refresh_on_return = refresh_on_return
        self.generation = 1
        self.returning = False

    def digest(self):
        return "feed-%d" % self.generation

    def did_enter_background(self):
        self.report_state_digest(self.digest(), "saved", valid_for=self.valid_for)

    def will_enter_foreground(self):
        self.returning = True
        expired = (self.background_duration or 0) > self.valid_for
        if expired and self.refresh_on_return:
            self.generation += 1
        print("willEnterForeground away=%s suspended=%s expired=%s shows=%s"
              % (self.background_duration, self.suspended_duration, expired, self.digest()), flush=True)

    def did_become_active(self):
        if self.returning:
            self.returning = False
            self.report_state_digest(self.digest(), "resumed")


def main():
    app = FeedApp(float(sys.argv[1]), "--stale-on-resume" not in sys.argv[2:])
    app.run()


if __name__ == "__main__":
    main()
