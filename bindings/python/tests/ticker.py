"""A thread that records when it runs: if a call held the GIL, no stamp
could fall strictly inside the call's interval."""
import threading
import time


class Ticker:
    def __init__(self, pause=0.001):
        """``pause``: seconds between stamps (0: stamp as often as it can)."""
        self.stamps = []
        self.pause = pause
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        clock, stamps, pause = time.perf_counter, self.stamps, self.pause
        while not self.stop.is_set():
            stamps.append(clock())
            if pause:
                time.sleep(pause)

    def __enter__(self):
        self.thread.start()
        while not self.stamps:
            time.sleep(0.001)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def within(self, start, end):
        return sum(1 for t in self.stamps if start < t < end)
