#!/usr/bin/env python3
"""Raw HTTP against jetsamd's metrics listener, for the integration tests. Prints one JSON value.

  http_probe.py requests PORT JSON
      JSON: a list of requests, each a string sent as Latin-1 on its own connection (after which the sending side
      is shut). Prints a list of {"status": N, "body": TEXT}, status 0 when the connection closed unanswered.
  http_probe.py hold PORT N PID -- CMD...
      Holds N connections that send nothing and waits until process PID (jetsamd) holds N more descriptors (it
      accepted them all), scrapes on one more and reads its answer, then runs CMD while they are held, then waits
      for the held ones' answers. Prints {"extra": N, "command": EXIT, "held": [N...], "heldSeconds": S}.
  http_probe.py slow PORT N PID SCRAPES
      Keeps N slow clients connected, each having sent only part of a request head (one the daemon closes is
      replaced at once), and before each of SCRAPES scrapes waits until PID holds N more descriptors than before
      (every slow one accepted). Prints {"scrapes": [STATUS...], "replaced": N}.
"""
import json
import os
import socket
import subprocess
import sys
import time


def read_all(conn):
    data = b""
    while True:
        try:
            chunk = conn.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data


def status_of(data):
    head, _, body = data.partition(b"\r\n\r\n")
    parts = head.split(b" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        return {"status": 0, "body": data.decode("latin-1")}
    return {"status": int(parts[1]), "body": body.decode("latin-1")}


def connect(port):
    conn = socket.create_connection(("127.0.0.1", port), timeout=60)
    return conn


def requests(port, texts):
    results = []
    for text in texts:
        conn = connect(port)
        conn.sendall(text.encode("latin-1"))
        conn.shutdown(socket.SHUT_WR)
        results.append(status_of(read_all(conn)))
        conn.close()
    return results


def descriptors(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def hold(port, count, pid, command):
    before = descriptors(pid)
    held = [connect(port) for _ in range(count)]
    started = time.monotonic()
    # connect() returns once the kernel queued the connection: the one too many is opened only after the daemon
    # accepted every held one (however busy the machine).
    while descriptors(pid) < before + count and time.monotonic() - started < 60:
        time.sleep(0.01)
    extra = connect(port)
    extra.sendall(SCRAPE)
    extra_status = status_of(read_all(extra))["status"]
    extra.close()
    exit_code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    statuses = [status_of(read_all(conn))["status"] for conn in held]
    seconds = time.monotonic() - started
    for conn in held:
        conn.close()
    return {"extra": extra_status, "command": exit_code, "held": statuses, "heldSeconds": seconds}


SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def slow(port, count, pid, scrapes):
    before = descriptors(pid)

    def slow_client():
        conn = connect(port)
        # A head begun and never finished, as a slow or hostile client sends it.
        conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        conn.setblocking(False)
        return conn

    def gone(conn):
        try:
            return conn.recv(65536) == b"" or gone(conn)
        except BlockingIOError:
            return False
        except OSError:
            return True

    held = [slow_client() for _ in range(count)]
    replaced = 0
    statuses = []
    for _ in range(scrapes):
        for index, conn in enumerate(held):
            if gone(conn):
                conn.close()
                held[index] = slow_client()
                replaced += 1
        started = time.monotonic()
        while descriptors(pid) < before + count and time.monotonic() - started < 60:
            time.sleep(0.01)
        scrape = connect(port)
        scrape.sendall(SCRAPE)
        statuses.append(status_of(read_all(scrape))["status"])
        scrape.close()
    for conn in held:
        conn.close()
    return {"scrapes": statuses, "replaced": replaced}


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "requests":
        print(json.dumps(requests(port, json.loads(sys.argv[3]))))
    elif mode == "hold":
        print(json.dumps(hold(port, int(sys.argv[3]), int(sys.argv[4]), sys.argv[6:])))
    elif mode == "slow":
        print(json.dumps(slow(port, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
