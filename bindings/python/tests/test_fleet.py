"""The fleet gate (spec section 11) against a real redis-server: hosts
are separate processes (fleet_host.py) with distinct host ids; this
process is a third host that never fails."""
import logging
import subprocess
import sys
import time
from pathlib import Path

import pytest

import respite
from redis_server import RedisServer

REFRESH = 0.1
HOST = str(Path(__file__).with_name("fleet_host.py"))


@pytest.fixture
def redis():
    server = RedisServer()
    yield server
    server.kill()


def fleet_gate(redis, host_id, name="billing"):
    return respite.Gate(name=name, failures_to_enter_recovery=3, failures_window_seconds=10, recovery_seconds=5,
                        fleet={"fleet_url": redis.url, "fleet_host_id": host_id, "fleet_quorum": 2,
                               "fleet_refresh_seconds": REFRESH})


def wait_for(predicate, seconds=5.0):
    until = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < until, "timed out"
        time.sleep(0.01)


class Host:
    """A host process whose gate has opened once started (its opening's time in ``opened``)."""

    def __init__(self, redis, host_id, name="billing"):
        self.proc = subprocess.Popen([sys.executable, HOST, redis.url, name, host_id],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line, f"host {host_id} exited: {self.proc.wait()}"
        self.opened = float(line)

    def stop(self):
        self.proc.stdin.close()
        assert self.proc.wait(timeout=10) == 0


def test_quorum_of_two_pauses_a_host_that_never_failed(redis, caplog):
    caplog.set_level(logging.INFO, logger="respite")
    calls = []
    with fleet_gate(redis, "host-c") as gate:
        wait_for(lambda: gate.fleet_view().connected)
        one = Host(redis, "host-a")
        try:
            time.sleep(5 * REFRESH)  # one host's opening alone pauses no other host
            for _ in range(5):
                gate.call(calls.append, 1)
            assert len(calls) == 5 and gate.state() == "closed"
            assert not [e for e in gate.events() if e.type == "fleet_paused"]
            view = gate.fleet_view()
            assert (view.paused, view.hosts_opened, view.host_id) == (False, 1, "host-c")

            two = Host(redis, "host-b")
            try:
                until = two.opened + 2
                while time.time() < until:
                    try:
                        gate.call(calls.append, 1)
                    except respite.TemporarilyUnavailableError as err:
                        refused, refusal = time.time(), err
                        break
                    time.sleep(0.002)
                else:
                    pytest.fail("the fleet's pause never reached this host")
                print(f"refused {(refused - two.opened) * 1e3:.1f} ms after the second host's gate opened")
                assert refused - two.opened <= REFRESH + 0.1
                assert 4 < refusal.retry_after <= 5 + 4 * REFRESH + 0.1
                paused = [e for e in gate.events() if e.type == "fleet_paused"]
                assert [e.count for e in paused] == [2] and 4 < paused[0].pause <= 5
                assert "fleet paused: 2 hosts' gates opened within 10s" in caplog.text
                view = gate.fleet_view()
                assert (view.paused, view.hosts_opened, view.epoch) == (True, 2, 1)
                assert 4 < view.pause_left <= 5
                count = len(calls)  # a refused call never runs: no network call
                with pytest.raises(respite.TemporarilyUnavailableError):
                    gate.call(calls.append, 1)
                assert len(calls) == count
            finally:
                two.stop()
        finally:
            one.stop()


def test_redis_killed_calls_go_on_locally_then_the_host_rejoins(redis, caplog):
    caplog.set_level(logging.INFO, logger="respite")
    with fleet_gate(redis, "host-c") as gate:
        wait_for(lambda: gate.fleet_view().connected)
        redis.kill()
        until = time.monotonic() + 3
        slowest = 0.0
        while not [e for e in gate.events() if e.type == "fleet_store_lost"]:
            assert time.monotonic() < until, "no fleet_store_lost event"
            started = time.perf_counter()
            gate.report("success", permit=gate.acquire())  # admitted by the local gate
            slowest = max(slowest, time.perf_counter() - started)
            time.sleep(0.01)
        assert slowest < REFRESH  # no call waited on Redis (a wait lasts fleet_refresh_seconds)
        view = gate.fleet_view()
        assert not view.connected and view.failed_exchanges >= 1
        assert "billing: fleet store unreachable or slow: this host decides on its own gate" in caplog.text
        # Alone, the local gate keeps its own rules: three failures open it.
        for _ in range(3):
            gate.report("server_error", permit=gate.acquire())
        with pytest.raises(respite.TemporarilyUnavailableError):
            gate.acquire()

        again = RedisServer(redis.port)  # Redis answers again (empty): the host rejoins the fleet
        try:
            seen = []
            wait_for(lambda: seen.extend(gate.events()) or "fleet_rejoined" in [e.type for e in seen])
            assert "billing: fleet store answers again: this host rejoined the fleet" in caplog.text
            assert gate.fleet_view().connected
        finally:
            again.kill()


def test_closed_fleet_gate_is_the_cores_closed_error(redis):
    gate = fleet_gate(redis, "host-c")
    gate.report("success", permit=gate.acquire())
    gate.close()
    assert gate.closed
    with pytest.raises(respite.ClosedError):
        gate.acquire()
    with pytest.raises(respite.ClosedError):
        gate.fleet_view()
    gate.close()  # twice is no error
    assert respite.Gate().fleet_view() is None  # not a fleet gate


def test_bad_fleet_settings_are_the_cores_errors(redis):
    with pytest.raises(respite.InvalidSettingError) as bad_url:
        respite.Gate(name="billing", fleet={"fleet_url": "http://127.0.0.1:6379"})
    assert bad_url.value.setting == "fleet_url"
    assert "fleet_url must be redis://host:port or redis://host:port/db" in str(bad_url.value)
    with pytest.raises(respite.InvalidSettingError) as unnamed:
        respite.Gate(fleet={"fleet_url": redis.url})
    assert unnamed.value.setting == "name"
    assert "name must not be empty for a fleet gate" in str(unnamed.value)


def test_settings_include_the_fleets(redis):
    with fleet_gate(redis, "host-c") as gate:
        assert gate.name == "billing"
        assert gate.settings["fleet_quorum"] == 2
        assert gate.settings["fleet_url"] == redis.url
        assert gate.settings["recovery_seconds"] == 5
