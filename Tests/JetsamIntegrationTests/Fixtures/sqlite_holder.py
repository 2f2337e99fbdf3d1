#!/usr/bin/env python3
"""An app that sits inside `BEGIN EXCLUSIVE` on a SQLite database, as a buggy app that is suspended mid-write.

    sqlite_holder.py DATABASE MARK_DIRECTORY [commit-on-cue]

It creates the table `t`, begins an exclusive transaction, inserts a row and writes MARK_DIRECTORY/locked; with
commit-on-cue it commits once MARK_DIRECTORY/commit exists (the test's cue) and writes MARK_DIRECTORY/committed.
Then it idles. It speaks no app protocol: it is what jetsamd sees of any program holding a lock.
"""

import os
import sqlite3
import sys
import time


def mark(directory, name):
    # Written whole and renamed, so that a poller never sees a partial file.
    path = os.path.join(directory, name)
    with open(path + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(path + ".tmp", path)


database, marks = sys.argv[1], sys.argv[2]
commit_on_cue = len(sys.argv) > 3 and sys.argv[3] == "commit-on-cue"
connection = sqlite3.connect(database, isolation_level=None)
connection.execute("CREATE TABLE IF NOT EXISTS t (x)")
connection.execute("BEGIN EXCLUSIVE")
connection.execute("INSERT INTO t VALUES (1)")
mark(marks, "locked")
if commit_on_cue:
    while not os.path.exists(os.path.join(marks, "commit")):
        time.sleep(0.01)
    connection.execute("COMMIT")
    mark(marks, "committed")
while True:
    time.sleep(3600)
