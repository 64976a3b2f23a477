"""Several Python threads sharing one gate."""
import threading
import time

import respite


def test_threads_share_one_gate_and_every_call_is_counted():
    g = respite.Gate(failures_to_enter_recovery=1000, failures_window_seconds=1000)
    per_thread = 5000
    barrier = threading.Barrier(4)

    def worker(n):
        barrier.wait()
        for i in range(per_thread):
            if i % 2:
                g.call(int)
            else:
                with g.attempt() as call:
                    call.set_status(404 if i % 10 == 0 else 200)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = g.stats()
    assert stats.admitted == 4 * per_thread
    assert stats.reported == 4 * per_thread
    assert stats.counted_failures == 0 and g.state() == "closed"


def test_failures_from_many_threads_trip_the_gate_once():
    g = respite.Gate(failures_to_enter_recovery=50, recovery_seconds=600)
    barrier = threading.Barrier(4)
    refused = []

    def worker():
        barrier.wait()
        for _ in range(100):
            try:
                with g.attempt():
                    raise ConnectionResetError()
            except ConnectionResetError:
                pass
            except respite.TemporarilyUnavailableError as exc:
                refused.append(exc.retry_after)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = g.stats()
    assert stats.trips == 1
    assert stats.admitted + stats.refused == 400
    assert len(refused) == stats.refused > 0
    assert all(0 < r <= 600 for r in refused)
    assert [e.type for e in g.events()] == ["recovery_started"]


def test_closing_a_queue_wakes_a_thread_blocked_in_wait():
    queue = respite.Queue()
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(queue.wait(1, timeout=30.0)))
    waiter.start()
    while not waiter.is_alive():
        pass
    time.sleep(0.1)  # let it block in the core
    started = time.monotonic()
    queue.close()
    waiter.join(5.0)
    assert not waiter.is_alive() and time.monotonic() - started < 1.0
    assert woke == [True]  # shut down, as wait() says
    assert queue.closed
