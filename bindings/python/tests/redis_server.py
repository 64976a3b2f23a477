"""A redis-server of the test's own on 127.0.0.1 (a free port, no
persistence, a temporary directory), for the fleet gate's tests."""
import shutil
import socket
import subprocess
import tempfile
import time

import pytest


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, port=None):
        """On ``port`` (a free one when None): a Redis that comes back after a kill."""
        program = shutil.which("redis-server")
        if program is None:
            pytest.fail("the fleet tests need redis-server (scripts/setup.sh installs it)")
        self.port = free_port() if port is None else port
        self.url = f"redis://127.0.0.1:{self.port}"
        self._dir = tempfile.TemporaryDirectory()
        self._proc = subprocess.Popen([program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                       "--appendonly", "no", "--dir", self._dir.name],
                                      stdout=subprocess.DEVNULL)
        until = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self._proc.poll() is not None or time.monotonic() > until:
                    self.kill()
                    pytest.fail(f"redis-server did not start on port {self.port}")
                time.sleep(0.01)

    def kill(self):
        """Stops it at once (SIGKILL), as a crash would."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._dir.cleanup()
