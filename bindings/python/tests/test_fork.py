"""fork() in Python (issue 21 item 5): what a child forked after a client, an
engine or a sender was made gets. A client works there on connections of its
own (C11: gunicorn --preload); an engine on a memory queue is plain memory
and works on the child's copy; the sender is the parent's: S15
(test_http_sender.py). In a program of its own: a forked pytest would run on."""
import json
import subprocess
import sys

FORK_PROGRAM = r"""
import json, os, sys, time, warnings
import respite
warnings.simplefilter("ignore", DeprecationWarning)  # fork() of a process with threads
url = sys.argv[1]
gate = respite.Gate(failures_to_enter_recovery=1, recovery_seconds=60)
client = respite.Client(gate=gate, timeout_seconds=2)
client.get(url).close()  # a pooled connection the child must not use
queue = respite.Queue(respite.Policy.default())
engine = respite.Engine(queue, respite.Gate(), min_entries_per_message=1, max_entries_per_message=1)
queue.enqueue("before")
pid = os.fork()
if pid == 0:
    seen = {"client": client.get(url).status}
    queue.enqueue("child")
    action = engine.next()
    batch = engine.take()
    seen["engine"] = [action, [p.decode() for p in batch.payloads]]
    engine.settle(batch, status=200)
    seen["pending"] = queue.pending
    client.close()  # frees the child's connections only
    print(json.dumps(seen), flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
answer = client.get(url)
print(json.dumps({"child exit": status, "client": answer.status, "pending": queue.pending}))
"""


def test_a_client_and_an_engine_made_before_fork_work_in_the_child(server):
    run = subprocess.run([sys.executable, "-c", FORK_PROGRAM, server.url], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    child, parent = (json.loads(line) for line in run.stdout.splitlines())
    assert child == {"client": 200, "engine": ["send", ["before"]], "pending": 1}
    assert parent == {"child exit": 0, "client": 200, "pending": 1}
    assert server.stats()["requests"] == 3  # the parent's two and the child's one
