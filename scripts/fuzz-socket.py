#!/usr/bin/env python3
"""Fuzzes a real jetsamd over its control socket, as a member of the control group would, and reloads it with
mutated configs; reports whether it stayed up, its memory and descriptors, and what it answered.

    scripts/fuzz-socket.py [--requests N] [--clients N] [--hoarders N] [--configs N] [--seed S] [--bin-dir DIR]

Needs root: it starts jetsamd (release build) with its own cgroup, state and runtime directories and the control
group `nogroup`, then sends the requests from children that run as `nobody` (a member, not root; `--clients`
of them at once, each with its own seed, for a long run on several cores), mutating the saved control-request
inputs (Tests/JetsamFuzzingTests/Inputs/control-request) byte-wise and field-wise. Apps the
requests launch run as nobody (the member's own uid); the parent kills them every second as root. Meanwhile the
parent holds `--hoarders` connections that ask for a stream (`watch` every 50 ms, or `exits --follow`) and never
read a byte of it, replacing each one jetsamd drops for leaving too much unread; after the requests, 100 apps make
the samples long until jetsamd has dropped a quarter as many as are held. jetsamd must go on answering, stay within
its output budget, and have its memory back at the end, once they are closed. Then it writes
mutated configs over the daemon's and sends SIGHUP for each (jetsamd keeps the old config on a bad one). It fails
if jetsamd dies, answers a request with anything but one JSON line, or ends with more descriptors or memory than a
bound. `make fuzz` runs it after the libFuzzer targets.
"""

import argparse
import json
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "Tests/JetsamFuzzingTests/Inputs/control-request")
CONFIG_SEEDS = os.path.join(ROOT, "Tests/JetsamFuzzingTests/Inputs/config")
WINDOW = 64  # requests written before their answers are read
PROGRESS_EVERY = 500_000  # requests between progress lines
INTERESTING = [b"0", b"-1", b"1e308", b"-1e308", b"9223372036854775807", b"-9223372036854775808",
               b"18446744073709551616", b"1.5", b"null", b"true", b"[]", b"{}", b'""', b'"\\u0000"',
               b'"' + b"x" * 300 + b'"', b'"../../etc"', b'"a b"', b'"\\ud800"']
WORDS = [b'"verb"', b'"app"', b'"apps"', b'"command"', b'"env"', b'"memoryLimit"', b'"cpuLimit"', b'"band"',
         b'"background"', b'"reason"', b'"since"', b'"follow"', b'"limit"', b'"action"', b'"level"', b'"size"', b'"v"',
         b'"launch"', b'"kill"', b'"suspend"', b'"resume"', b'"ps"', b'"status"', b'"exits"', b'"pressure"',
         b'"allocate"', b'"release"', b'"critical"', b'"memoryPressure"', b'"activate"', b'"terminate"',
         b'"device"', b'"charging"', b'"metrics"', b'"diagnostics"', b'"lockedFiles"', b'"defer"',
         b'"watch"', b'"interval"', b'"format"', b'"prometheus"']


VALUES = [0, -1, 1, 2**31, 2**63 - 1, -2**63, 2**64, 1.5, 1e308, -1e308, 1e-300, None, True, False, "", "x",
          "a" * 70, "../..", "a b", "\u0000", "\ud83d\ude00", "memoryPressure", "critical", "allocate", "set",
          "foreground", "always", "never", "kill", "defer", "ignore", 20, 21, "2026-01-01T00:00:00Z", "yesterday", [], ["a", "b"], ["x"] * 300, {}, {"A": "b"},
          {"A=B": "c"}, ["/bin/true"], ["/nonexistent"], [""]]
KEYS = ["v", "verb", "app", "apps", "command", "env", "memoryLimit", "cpuLimit", "band", "background", "reason",
        "since", "follow", "limit", "action", "level", "size", "acknowledgements", "wait", "charging", "lockedFiles", "interval", "format",
        "unknownKey"]


def mutate_fields(rng, data):
    """Changes a valid request field by field, so that most results are JSON the handlers look into."""
    try:
        request = json.loads(data)
    except ValueError:
        return None
    if not isinstance(request, dict):
        return None
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(KEYS)
        if rng.random() < 0.15:
            request.pop(key, None)
        else:
            request[key] = rng.choice(VALUES)
    request.setdefault("v", 1)
    return json.dumps(request).encode()


def mutate(rng, data, seeds):
    if rng.random() < 0.25:
        fields = mutate_fields(rng, data)
        if fields is not None:
            return fields.replace(b"\n", b" ")
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(8)
        at = rng.randrange(len(data) + 1)
        if choice == 0 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif choice == 1:
            data[at:at] = bytes([rng.randrange(256)])
        elif choice == 2 and data:
            del data[at:at + rng.randint(1, 8)]
        elif choice == 3:
            data[at:at] = rng.choice(INTERESTING)
        elif choice == 4:
            data[at:at] = rng.choice(WORDS)
        elif choice == 5:
            other = rng.choice(seeds)
            start = rng.randrange(len(other))
            data[at:at] = other[start:start + rng.randint(1, 40)]
        elif choice == 6 and data:
            # Replace a number with an extreme one.
            digits = [i for i, b in enumerate(data) if 0x30 <= b <= 0x39]
            if digits:
                i = rng.choice(digits)
                data[i:i + 1] = rng.choice(INTERESTING)
        elif choice == 7:
            data[at:at] = b"[" * rng.randint(1, 200)
    # One request per line: a newline inside would make two.
    return bytes(data).replace(b"\n", b" ")[:70000]


def client(socket_path, requests, seed, report_fd):
    """Runs as nobody: sends `requests` mutated requests in windows, one connection per window."""
    rng = random.Random(seed)
    seeds = [open(os.path.join(SEEDS, name), "rb").read() for name in sorted(os.listdir(SEEDS))]
    sent = answered = 0
    codes = {}
    samples = {}  # code -> the first answer's message with that code
    bad = []
    while sent < requests:
        window = min(WINDOW, requests - sent)
        lines = [mutate(rng, rng.choice(seeds), seeds) for _ in range(window)]
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(30)
        try:
            conn.connect(socket_path)
            conn.sendall(b"".join(line + b"\n" for line in lines))
            buffer = b""
            got = 0
            while got < window:
                chunk = conn.recv(1 << 20)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer and got < window:
                    line, buffer = buffer.split(b"\n", 1)
                    got += 1
                    try:
                        answer = json.loads(line)
                        code = "ok" if answer.get("ok") else answer.get("error", {}).get("code", "?")
                        codes[code] = codes.get(code, 0) + 1
                        if code != "ok" and code not in samples:
                            samples[code] = str(answer.get("error", {}).get("message", ""))[:160]
                    except ValueError:
                        bad.append(line[:200].decode("utf-8", "replace"))
            answered += got
            if got < window:
                codes["connectionClosed"] = codes.get("connectionClosed", 0) + (window - got)
        except OSError as error:
            codes["socketError:" + type(error).__name__] = codes.get("socketError:" + type(error).__name__, 0) + 1
        finally:
            conn.close()
        sent += window
        if sent % PROGRESS_EVERY < window:
            # A long run says how far it got, so that a run cut short still has figures.
            print("fuzz-socket: %d requests sent, %d answered" % (sent, answered), flush=True)
    report = {"sent": sent, "answered": answered, "codes": codes, "samples": samples, "bad": bad[:5]}
    os.write(report_fd, json.dumps(report).encode())


def request(socket_path, payload):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(30)
    conn.connect(socket_path)
    conn.sendall(json.dumps(payload).encode() + b"\n")
    buffer = b""
    while b"\n" not in buffer:
        chunk = conn.recv(1 << 20)
        if not chunk:
            break
        buffer += chunk
    conn.close()
    return json.loads(buffer.split(b"\n", 1)[0])


def open_hoarder(socket_path, index):
    """A client that asks for a stream (a `watch` every 50 ms, or every fourth `exits --follow`) and never reads a
    byte of it."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(30)
    conn.connect(socket_path)
    if index % 4 != 3:
        payload = {"v": 1, "verb": "watch", "interval": 0.05}
    else:
        payload = {"v": 1, "verb": "exits", "follow": True, "limit": 100000}
    conn.sendall(json.dumps(payload).encode() + b"\n")
    return conn


def replace_dropped_hoarders(socket_path, hoarders):
    """Replaces the hoarders jetsamd closed (seen hung up, without reading what it sent); returns how many."""
    poller = select.poll()
    for conn in hoarders:
        poller.register(conn, select.POLLRDHUP)
    hung_up = {fd for fd, events in poller.poll(0) if events & (select.POLLRDHUP | select.POLLHUP)}
    dropped = 0
    for index, conn in enumerate(hoarders):
        if conn.fileno() in hung_up:
            conn.close()
            hoarders[index] = open_hoarder(socket_path, index)
            dropped += 1
    return dropped


def sample(pid):
    """(RSS in KiB, open descriptors) of a live process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
        return rss, len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, StopIteration):
        return None


def reap_apps(socket_path):
    """Kills every running app and lets go of the balloon as root, so that launched apps do not pile up."""
    try:
        request(socket_path, {"v": 1, "verb": "pressure", "action": "release"})
        request(socket_path, {"v": 1, "verb": "pressure", "action": "clear"})
        for app in request(socket_path, {"v": 1, "verb": "ps"}).get("apps", []):
            if app.get("pid"):
                request(socket_path, {"v": 1, "verb": "kill", "app": app["name"]})
    except (OSError, ValueError):
        pass


def remove_cgroups(name):
    """Removes the device cgroup `name` (and its app cgroups) from every hierarchy, killing what is left in them by
    pid: jetsamd does this itself on a clean stop, not when it died."""
    for hierarchy in os.listdir("/sys/fs/cgroup"):
        for top, dirs, _ in os.walk(os.path.join("/sys/fs/cgroup", hierarchy)):
            if os.path.basename(top) != name:
                continue
            dirs[:] = []
            for directory, _, _ in sorted(os.walk(top), key=lambda entry: -len(entry[0])):
                try:
                    for pid in open(os.path.join(directory, "cgroup.procs")).read().split():
                        os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
                for _ in range(50):
                    try:
                        os.rmdir(directory)
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=1, help="request senders at once (the requests are shared)")
    parser.add_argument("--hoarders", type=int, default=64,
                        help="connections that ask for a stream and never read it, held during the requests")
    parser.add_argument("--configs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, ".build/release"))
    args = parser.parse_args()
    for program in ("jetsamd", "jetsam-testapp"):  # the balloon of `pressure allocate` is jetsam-testapp
        if not os.access(os.path.join(args.bin_dir, program), os.X_OK):
            sys.exit("fuzz-socket: %s is not in %s (build it first)" % (program, args.bin_dir))
    if os.geteuid() != 0:
        sys.exit("fuzz-socket: needs root (it starts jetsamd with its own cgroup)")

    directory = tempfile.mkdtemp(prefix="jetsam-fuzz-socket-")
    os.chmod(directory, 0o755)
    config_path = os.path.join(directory, "jetsamd.json5")
    cgroup_name = "jetsam-fuzz-socket-%d" % os.getpid()
    base_config = ('{ stateDirectory: "%s/state", runtimeDirectory: "%s/run", controlGroup: "nogroup", '
                   'device: { cgroupName: "%s", ram: "512M" }, '
                   'defaults: { memoryLimit: "64M", pidsLimit: 16 } }' % (directory, directory, cgroup_name))
    with open(config_path, "w") as f:
        f.write(base_config)
    socket_path = os.path.join(directory, "run/jetsamd.sock")
    # A crash's whole backtrace goes to the log (by default the Swift runtime shows one frame per thread there).
    environment = dict(os.environ, SWIFT_BACKTRACE="enable=yes,interactive=no,threads=crashed,registers=none,"
                       "images=none,limit=100,top=0,preset=full")
    daemon = subprocess.Popen([os.path.join(args.bin_dir, "jetsamd"), "--config", config_path, "--foreground"],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "jetsamd.log"), "w"),
                              env=environment)
    failures = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                request(socket_path, {"v": 1, "verb": "status"})
                break
            except OSError:
                if time.monotonic() > deadline or daemon.poll() is not None:
                    sys.exit("fuzz-socket: jetsamd did not start; see " + directory + "/jetsamd.log")
                time.sleep(0.1)
        start_rss, start_fds = sample(daemon.pid)
        peak_rss, peak_fds = start_rss, start_fds

        # Streams nobody reads, held (as root) while the requests run.
        hoarders = [open_hoarder(socket_path, index) for index in range(args.hoarders)]
        hoarders_dropped = 0

        # Requests, from nobody.
        started = time.monotonic()
        children = {}  # pid: the read end of its report pipe
        for index in range(args.clients):
            share = args.requests // args.clients + (1 if index < args.requests % args.clients else 0)
            read_end, write_end = os.pipe()
            child = os.fork()
            if child == 0:
                os.close(read_end)
                try:
                    nobody = __import__("pwd").getpwnam("nobody")
                    os.setgroups([])
                    os.setresgid(__import__("grp").getgrnam("nogroup").gr_gid, *[nobody.pw_gid] * 2)
                    os.setresuid(nobody.pw_uid, nobody.pw_uid, nobody.pw_uid)
                    client(socket_path, share, args.seed + index, write_end)
                    os._exit(0)
                except BaseException as error:  # the child must never return into the parent's code
                    os.write(write_end, json.dumps({"error": repr(error)}).encode())
                    os._exit(1)
            os.close(write_end)
            children[child] = read_end
        running = set(children)
        last_reap = last_progress = time.monotonic()
        while True:
            for child in list(running):
                if os.waitpid(child, os.WNOHANG)[0]:
                    running.discard(child)
            now = sample(daemon.pid)
            if now is None:
                failures.append("jetsamd died during the request run")
                break
            peak_rss, peak_fds = max(peak_rss, now[0]), max(peak_fds, now[1])
            if not running:
                break
            if time.monotonic() - last_progress > 300:
                print("fuzz-socket: %.0f s: jetsamd alive, RSS %.1f MB (peak %.1f), descriptors %d (peak %d)" % (
                    time.monotonic() - started, now[0] / 1024, peak_rss / 1024, now[1], peak_fds), flush=True)
                last_progress = time.monotonic()
            if time.monotonic() - last_reap > 1:
                reap_apps(socket_path)
                hoarders_dropped += replace_dropped_hoarders(socket_path, hoarders)
                # However much the hoarders leave unread, a client that reads is answered.
                try:
                    request(socket_path, {"v": 1, "verb": "status"})
                except (OSError, ValueError) as error:
                    failures.append("status unanswered while %d streams were not read: %r" % (len(hoarders), error))
                    break
                last_reap = time.monotonic()
            time.sleep(0.2)
        request_seconds = time.monotonic() - started
        hoarders_dropped += replace_dropped_hoarders(socket_path, hoarders)
        report = {"sent": 0, "answered": 0, "codes": {}, "samples": {}, "bad": []}
        for read_end in children.values():
            part = json.loads(os.read(read_end, 1 << 20) or b"{}")
            os.close(read_end)
            if "error" in part:
                report["error"] = part["error"]
            report["sent"] += part.get("sent", 0)
            report["answered"] += part.get("answered", 0)
            report["bad"] += part.get("bad", [])
            for code, count in part.get("codes", {}).items():
                report["codes"][code] = report["codes"].get(code, 0) + count
            for code, message in part.get("samples", {}).items():
                report["samples"].setdefault(code, message)
        if "error" in report:
            failures.append("the client failed: " + report["error"])
        if report.get("bad"):
            failures.append("answers that are not JSON: %s" % report["bad"])
        if report.get("answered", 0) + report.get("codes", {}).get("connectionClosed", 0) < report.get("sent", 0):
            failures.append("requests without an answer")
        reap_apps(socket_path)
        # However short the request run was, the streams are then made to pile up (the requests' forced pressure
        # cleared) until jetsamd has dropped a quarter as many as are held: apps whose memory every watch sample
        # carries make the samples long.
        hoard_apps = ["hoard-%d" % index for index in range(100)] if args.hoarders else []
        for app in hoard_apps:
            request(socket_path, {"v": 1, "verb": "launch", "app": app, "command": ["/bin/sleep", "3600"],
                                  "background": True})
        deadline = time.monotonic() + 180
        wanted_drops = args.hoarders // 4
        while hoarders_dropped < wanted_drops and time.monotonic() < deadline and not failures:
            hoarders_dropped += replace_dropped_hoarders(socket_path, hoarders)
            now = sample(daemon.pid)
            if now is None:
                failures.append("jetsamd died while streams were not read")
                break
            peak_rss, peak_fds = max(peak_rss, now[0]), max(peak_fds, now[1])
            try:
                request(socket_path, {"v": 1, "verb": "status"})
            except (OSError, ValueError) as error:
                failures.append("status unanswered while %d streams were not read: %r" % (len(hoarders), error))
            time.sleep(0.2)
        if hoarders_dropped < wanted_drops and not failures:
            failures.append("jetsamd dropped %d of the streams nobody read in 180 s, not %d: is their output bounded?"
                            % (hoarders_dropped, wanted_drops))
        hoarders_peak_rss = peak_rss
        for conn in hoarders:
            conn.close()
        reap_apps(socket_path)

        # Configs, reloaded with SIGHUP.
        config_seeds = [open(os.path.join(CONFIG_SEEDS, name), "rb").read() for name in sorted(os.listdir(CONFIG_SEEDS))]
        config_seeds.append(base_config.encode())
        rng = random.Random(args.seed)
        started = time.monotonic()
        for index in range(args.configs):
            if daemon.poll() is not None:
                failures.append("jetsamd died after config reload %d" % index)
                break
            with open(config_path, "wb") as f:
                f.write(mutate(rng, rng.choice(config_seeds), config_seeds) if index % 50 else base_config.encode())
            daemon.send_signal(signal.SIGHUP)
            if index % 100 == 0:
                now = sample(daemon.pid)
                if now:
                    peak_rss, peak_fds = max(peak_rss, now[0]), max(peak_fds, now[1])
            # Answered only after the reload: jetsamd handles a pending signal before any peer. Without this wait,
            # SIGHUPs sent while one reload runs would merge and most configs would never be read.
            try:
                request(socket_path, {"v": 1, "verb": "status"})
            except (OSError, ValueError) as error:
                failures.append("status after config reload %d: %r" % (index, error))
                break
        config_seconds = time.monotonic() - started
        with open(config_path, "w") as f:
            f.write(base_config)
        daemon.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        reap_apps(socket_path)
        # A balloon the requests left inflated (or whose process died) holds a pidfd by right: let it go, as the
        # apps went, so that what is left is what leaked.
        for payload in ({"v": 1, "verb": "pressure", "action": "release"}, {"v": 1, "verb": "pressure", "action": "clear"}):
            try:
                request(socket_path, payload)
            except (OSError, ValueError) as error:
                failures.append("%s at the end: %r" % (payload["action"], error))
        # jetsamd trims its heap 2 s after the last activity; an app still on its way out closes its descriptors
        # once its record is written. A leak stays, so wait a little for the count to settle.
        time.sleep(3)
        end = sample(daemon.pid)
        for _ in range(20):
            if end is None or end[1] <= start_fds + 4:
                break
            time.sleep(0.5)
            end = sample(daemon.pid)
        if end is None:
            failures.append("jetsamd is gone at the end")
            end = (0, 0)

        rate = report.get("sent", 0) / request_seconds if request_seconds else 0
        print("fuzz-socket: %d requests as nobody in %.0f s (%.0f/s): %d answered; %s" % (
            report.get("sent", 0), request_seconds, rate, report.get("answered", 0),
            ", ".join("%s %d" % item for item in sorted(report.get("codes", {}).items(), key=lambda i: -i[1]))))
        for code, message in sorted(report["samples"].items()):
            print("fuzz-socket:   e.g. %s: %s" % (code, message))
        print("fuzz-socket: %d streams (watch, exits --follow) never read: %d dropped by jetsamd and replaced; "
              "RSS peak %.1f MB meanwhile" % (args.hoarders, hoarders_dropped, hoarders_peak_rss / 1024))
        print("fuzz-socket: %d mutated configs reloaded (SIGHUP) in %.0f s" % (args.configs, config_seconds))
        print("fuzz-socket: jetsamd RSS %.1f MB at start, %.1f MB peak, %.1f MB at end; descriptors %d, %d, %d" % (
            start_rss / 1024, peak_rss / 1024, end[0] / 1024, start_fds, peak_fds, end[1]))
        # Bounds: no descriptor leak (every app was killed, every connection closed), memory back near the start.
        if end[1] > start_fds + 4:
            kinds = {}
            for fd in os.listdir(f"/proc/{daemon.pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{daemon.pid}/fd/{fd}")
                    # anon_inode:[pidfd] keeps its kind; socket:[1234] and pipe:[1234] are grouped.
                    target = target if target.startswith("anon_inode:") else target.split("[")[0]
                    if target == "anon_inode:[pidfd]":
                        # Which process a leaked pidfd holds on to, and what became of it.
                        info = open(f"/proc/{daemon.pid}/fdinfo/{fd}").read()
                        held = next((line.split()[1] for line in info.splitlines() if line.startswith("Pid:")), "?")
                        try:
                            stat = open(f"/proc/{held}/stat").read()
                            target += " pid %s %s" % (held, stat[stat.index("("):stat.rindex(")") + 3])
                        except (OSError, ValueError):
                            target += " pid %s (gone)" % held
                except OSError:
                    continue
                kinds[target] = kinds.get(target, 0) + 1
            try:
                apps = [a["name"] for a in request(socket_path, {"v": 1, "verb": "ps"}).get("apps", []) if a.get("pid")]
            except (OSError, ValueError):
                apps = "?"
            failures.append("descriptors grew from %d to %d (%s; apps running: %s)" % (start_fds, end[1], kinds, apps))
        # The streams nobody read cost at most the 32 MiB output budget (and the allocator's slack on it); the
        # requests' own work gets the rest of this room.
        if hoarders_peak_rss > start_rss + 128 * 1024:
            failures.append("RSS peaked at %d KiB (from %d) while streams were not read" % (hoarders_peak_rss, start_rss))
        if end[0] > start_rss + 16 * 1024:
            failures.append("RSS grew from %d to %d KiB" % (start_rss, end[0]))
    finally:
        if daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        if daemon.returncode not in (0, None) and not failures:
            failures.append("jetsamd exited with %s" % daemon.returncode)
        remove_cgroups(cgroup_name)
        if failures:
            print("fuzz-socket: jetsamd's log is kept in %s/jetsamd.log" % directory)
        else:
            shutil.rmtree(directory, ignore_errors=True)
    for failure in failures:
        print("fuzz-socket: FAILED: " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
