#!/usr/bin/env python3
"""An app that holds network sockets across a suspension, and reports what it finds of them when cued.

    socket_holder.py SERVER_PORT MARK_DIRECTORY

It connects over TCP to 127.0.0.1:SERVER_PORT (the test's server), listens on [::1] (any free port), holds a UDP
socket connected to 127.0.0.1:SERVER_PORT and a Unix socket pair, then writes MARK_DIRECTORY/ready with its
listener's port. Once MARK_DIRECTORY/probe exists (the test's cue, after the suspension and the return) it uses
each: sends "ping" on the connection, accepts one connection on the listener (the test made one, if it could),
sends on the UDP socket, and echoes across the Unix pair; it writes what each gave (`ok` or the error's name) to
MARK_DIRECTORY/report as JSON. It speaks no app protocol: it is what jetsamd sees of any program with sockets.
"""

import errno
import json
import os
import socket
import sys
import time


def mark(directory, name, text):
    # Written whole and renamed, so that a poller never sees a partial file.
    path = os.path.join(directory, name)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def outcome(action):
    try:
        action()
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno)) if error.errno else type(error).__name__


port, marks = int(sys.argv[1]), sys.argv[2]
connection = socket.create_connection(("127.0.0.1", port))
listener = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
listener.bind(("::1", 0))
listener.listen(4)
datagrams = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
datagrams.connect(("127.0.0.1", port))
ours, theirs = socket.socketpair()
mark(marks, "ready", str(listener.getsockname()[1]))
while not os.path.exists(os.path.join(marks, "probe")):
    time.sleep(0.01)



def echo_across_the_pair():
    ours.sendall(b"x")
    if theirs.recv(1) != b"x":
        raise OSError(errno.EIO, "the pair lost a byte")


listener.settimeout(5)
report = {
    "connection": outcome(lambda: connection.sendall(b"ping\n")),
    "listener": outcome(lambda: listener.accept()[0].close()),
    "udp": outcome(lambda: datagrams.send(b"ping")),
    "unix": outcome(echo_across_the_pair),
}
mark(marks, "report", json.dumps(report))
while True:
    time.sleep(3600)
