"""Long core calls release the GIL: another Python thread runs meanwhile.

A ticker thread records when it runs. If the GIL were held during a core
call, no ticker timestamp could fall strictly inside the call's interval.
"""
import json
import threading
import time

import respite
from ticker import Ticker


def big_policy_text():
    handlers = [{"on": [code], "strategy": "retry"} for code in range(400, 600)]
    text = json.dumps({"name": "big", "maximum_capacity": 1000, "retry_times": 3, "error_handlers": handlers})
    return text + " " * (1_000_000 - len(text))  # close to the parser's 1 MiB limit


def test_policy_validation_releases_the_gil():
    text = big_policy_text()
    inside = 0
    with Ticker(pause=0) as ticker:
        intervals = []
        for _ in range(5):
            start = time.perf_counter()
            policy = respite.Policy.from_json(text)
            intervals.append((start, time.perf_counter()))
            assert policy.handlers[0] == ("400", "retry")
    inside = sum(ticker.within(a, b) for a, b in intervals)
    assert inside > 0, "no other Python thread ran during 5 validations of a 1 MB policy"


def test_waiting_on_a_queue_releases_the_gil():
    queue = respite.Queue()
    with Ticker(pause=0) as ticker:
        start = time.perf_counter()
        assert queue.wait(1, timeout=0.2) is False  # nothing arrives: times out
        end = time.perf_counter()
    assert end - start >= 0.19
    assert ticker.within(start, end) > 100


def test_a_producer_thread_wakes_a_waiting_consumer():
    queue = respite.Queue()
    producer = threading.Timer(0.05, lambda: queue.enqueue(b"event"))
    producer.start()
    start = time.perf_counter()
    assert queue.wait(1, timeout=5.0) is True  # the producer ran while we waited in C
    assert time.perf_counter() - start < 4.0
    producer.join()
    batch = queue.take(1)
    assert batch.payloads == [b"event"]
