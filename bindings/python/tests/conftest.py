import pytest

import respite


@pytest.fixture
def gate():
    g = respite.Gate(failures_to_enter_recovery=3, failures_window_seconds=10, recovery_seconds=60)
    yield g
    g.close()


# ------------------------------------------------------------ fault server
# The HTTP tests run against the core's fault-injecting server
# (tools/fault_server): RESPITE_FAULT_SERVER names the program (the test
# step sets it); without it the build tree's usual places are tried.
import json
import os
import subprocess
import urllib.request
from pathlib import Path

_REPO = Path(__file__).resolve().parents[3]


def _fault_server_path():
    given = os.environ.get("RESPITE_FAULT_SERVER")
    if given:
        return given
    for build in (os.environ.get("BUILD_ROOT"), "build"):
        if build:
            path = (_REPO / build / "release/tools/fault_server/respite-fault-server")
            if path.is_file():
                return str(path)
    pytest.fail("the HTTP tests need respite-fault-server: set RESPITE_FAULT_SERVER "
                "(scripts/test.d/40-python.sh does), or build it with scripts/test.d/10-core.sh")


class FaultServer:
    """Drives a running respite-fault-server over its control protocol."""

    def __init__(self, port):
        self.url = f"http://127.0.0.1:{port}/"

    def _control(self, path, body=None):
        request = urllib.request.Request(self.url + "__control/" + path,
                                         data=None if body is None else body.encode(),
                                         method="GET" if body is None else "POST")
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.read()

    def script(self, text):
        self._control("script", text)

    def reset(self):
        self._control("reset", "")

    def stats(self, bodies=True):
        return json.loads(self._control("stats" if bodies else "stats?bodies=0"))

    def requests(self):
        return self.stats(bodies=False)["requests"]


@pytest.fixture(scope="session")
def fault_server_process():
    proc = subprocess.Popen([_fault_server_path(), "--exit-on-eof"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        yield FaultServer(port)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def server(fault_server_process):
    """The fault server, reset to `healthy` with no records."""
    fault_server_process.reset()
    yield fault_server_process
    fault_server_process.reset()  # ends hanging answers
