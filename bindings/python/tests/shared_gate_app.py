"""What test_shared_gate.py runs in every worker process: the one shared
gate "cloud" on RESPITE_TEST_SHARED_PATH, a Client through it to
RESPITE_TEST_URL, and an answer saying what happened in which process.
``app`` is the WSGI application gunicorn serves; ``serve`` is the loop of a
multiprocessing worker."""
import json
import os

import respite

SETTINGS = dict(failures_to_enter_recovery=4, failures_window_seconds=60, recovery_seconds=3)


def open_client(shared_path):
    """A Client through this process's handle on the shared gate."""
    return respite.Client(gate=respite.Gate(name="cloud", shared_path=shared_path, **SETTINGS), timeout_seconds=5)


def call(client, url):
    """One call through the gate: sent (with the status) or refused (with retry_after)."""
    try:
        answer = {"result": "sent", "status": client.get(url).status}
    except respite.TemporarilyUnavailableError as refused:
        answer = {"result": "refused", "retry_after": refused.retry_after}
    answer.update(pid=os.getpid(), state=client.gate.state())
    return answer


def serve(shared_path, url, commands, answers):
    """A multiprocessing worker: one call per "call" command, until None."""
    client = open_client(shared_path)
    while commands.get() is not None:
        answers.put(call(client, url))


_client = None


def app(environ, start_response):
    global _client
    if _client is None:  # once per worker process, after gunicorn's fork
        _client = open_client(os.environ["RESPITE_TEST_SHARED_PATH"])
    body = json.dumps(call(_client, os.environ["RESPITE_TEST_URL"])).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
