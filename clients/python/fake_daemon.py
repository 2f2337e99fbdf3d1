"""The daemon's end of a socketpair, driven line by line from a test (test support, not part of the client)."""

import socket


class FakeDaemon:
    def __init__(self):
        self.sock, self.app_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._buffer = b""

    def app_fd(self):
        """Detaches the app's end and returns its descriptor (the client owns it from then on)."""
        return self.app_sock.detach()

    def send(self, line):
        self.sock.sendall((line + "\n").encode())

    def read_line(self, timeout=5.0):
        """The next line the app wrote, or None on timeout or end-of-file."""
        self.sock.settimeout(timeout)
        while b"\n" not in self._buffer:
            try:
                chunk = self.sock.recv(4096)
            except (socket.timeout, OSError):
                return None
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def close(self):
        self.sock.close()
