"""Issue 14 item 4: the create/close and check loops stay flat in resident
memory (shortened from 1M to 200k; a handle close() did not free, or a
leaking struct read, would add hundreds of MB)."""
import respite

ITERATIONS = 200_000
BOUND_KB = 16 * 1024


def resident_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def growth_kb(loop) -> int:
    loop(ITERATIONS // 10)  # warm-up: the allocators' arenas and caches settle
    before = resident_kb()
    loop(ITERATIONS)
    return resident_kb() - before


def test_gates_created_and_closed_stay_flat():
    def loop(n):
        for _ in range(n):
            with respite.Gate() as g:
                g.acquire()

    grown = growth_kb(loop)
    assert grown < BOUND_KB, f"{ITERATIONS} gates created and closed grew RSS by {grown} kB"


def test_checks_and_reports_stay_flat():
    with respite.Gate() as g:
        def loop(n):
            for _ in range(n):
                g.report(permit=g.acquire())
                g.check()
                g.stats()

        grown = growth_kb(loop)
    assert grown < BOUND_KB, f"{ITERATIONS} acquire/report/check/stats grew RSS by {grown} kB"
