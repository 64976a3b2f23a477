"""The durable queue (spec section 10): a Queue or Sender with ``queue_path``
keeps its events in an SQLite file that outlives the handle."""
import sqlite3

import pytest

import respite


def event_ids(batch):
    """The batch's event ids (L3)."""
    return [batch.id(i) for i in range(len(batch))]


def test_events_and_figures_outlive_the_handle(tmp_path):
    path = str(tmp_path / "usage.db")
    first = respite.Queue(None, queue_path=path, durability="full")
    for text in ("one", "two", "three"):
        first.enqueue(text)
    assert first.stats().durable == 1
    first.close()  # the events stay in the file (L7)

    second = respite.Queue(None, queue_path=path)
    assert second.pending == 3
    stats = second.stats()
    assert (stats.accepted, stats.pending, stats.in_flight, stats.delivered) == (3, 3, 0, 0)
    assert stats.balanced and stats.durable == 1 and stats.corrupt_set_aside == 0
    batch = second.take(10)
    assert batch.payloads == [b"one", b"two", b"three"]
    assert event_ids(batch) == [1, 2, 3]
    assert second.stats().in_flight == 3
    batch.close()  # unsettled: back to pending, in order, same ids (D4, Q5)

    again = second.take(10)
    assert again.payloads == [b"one", b"two", b"three"] and event_ids(again) == [1, 2, 3]
    assert again.settle_all("delivered") == 3
    again.close()
    second.enqueue("four")
    later = second.take(10)
    assert event_ids(later) == [4]  # ids are never reused, even after the events are gone (L3)
    later.close()
    second.close()

    third = respite.Queue(None, queue_path=path)
    stats = third.stats()
    assert (stats.accepted, stats.delivered, stats.pending) == (4, 3, 1) and stats.balanced
    third.close()


def test_a_file_in_a_missing_directory_is_a_storage_error(tmp_path):
    path = tmp_path / "missing" / "usage.db"
    with pytest.raises(respite.StorageError) as info:
        respite.Queue(None, queue_path=str(path))
    assert str(info.value).startswith(f"queue file '{path}': ")
    assert not path.parent.exists()


def test_a_file_of_a_newer_layout_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "newer.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 7")
    db.execute("CREATE TABLE later (x)")
    db.commit()
    db.close()
    with pytest.raises(respite.StorageError) as info:
        respite.Queue(None, queue_path=str(path))
    assert str(info.value) == (f"queue file '{path}' has layout version 7; "
                               "this respite reads version 2 (update respite)")
    # L4: its contents are left alone (the core has set WAL mode on it by then: its header's bytes 18-19 change)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (7,)
    assert [row[0] for row in db.execute("SELECT name FROM sqlite_schema")] == ["later"]
    db.close()


def requests_with_ids(server):
    """(ids header, events of the body, status) of every request received."""
    return [(record["headers"].get("X-Respite-Ids"), record["body"].split("\n"), record["status"])
            for record in server.stats()["received"]]


def test_a_sender_sends_what_the_file_holds_with_stable_ids(server, tmp_path):
    path = str(tmp_path / "outbox.db")
    producer = respite.Queue(None, queue_path=path)  # e.g. a request of a web app that only enqueues
    for i in range(3):
        producer.enqueue(f"e{i}")
    producer.close()

    # The first send fails and is retried: the same events go again with the same ids.
    server.script("503; healthy")
    policy = respite.Policy.from_dict({"name": "retry", "maximum_capacity": 100, "retry_times": 5,
                                       "error_handlers": [{"on": "server_error", "strategy": "retry"}]})
    with respite.Sender(url=server.url, policy=policy, queue_path=path, ids_header="X-Respite-Ids",
                        min_entries_per_message=1, max_entries_per_message=10,
                        failures_to_enter_recovery=10) as sender:
        sender.enqueue("e3")
        sender.flush(5.0)
        stats = sender.stats()
    assert stats.queue.durable == 1 and stats.accepted == 4 and stats.delivered == 4 and stats.queue.balanced
    received = requests_with_ids(server)
    assert received[0][2] == 503
    for ids, events, _ in received:
        assert ids is not None and len(ids.split(",")) == len(events)
    delivered = {}
    for ids, events, status in received:
        for event_id, event in zip(ids.split(","), events):
            assert delivered.setdefault(event_id, event) == event  # one id, one event, also when sent again
    assert delivered == {"1": "e0", "2": "e1", "3": "e2", "4": "e3"}
    failed_ids = received[0][0].split(",")
    assert set(failed_ids) <= {ids for r in received[1:] for ids in r[0].split(",")}, "resent with the same ids"

    # Everything was delivered and counted in the file.
    after = respite.Queue(None, queue_path=path)
    figures = after.stats()
    assert (figures.accepted, figures.delivered, figures.pending) == (4, 4, 0) and figures.balanced
    after.close()
