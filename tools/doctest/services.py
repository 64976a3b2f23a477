"""What a block's service URLs reach: one local respite-fault-server for the
whole run, and the rewriting of every `https://<anything>.example.com` in a
block's text to it.

Rewriting the text (rather than resolving the names) works the same for
libcurl, the JDK's HttpClient, fetch/undici and PHP, none of which would
trust a certificate for example.com anyway. The path stays as written, so a
block may ask the fault server for a fault by its path (`/503`, see
tools/fault_server/README.md); every other path is answered by the server's
script, `healthy` (200)."""
import re
import subprocess
import urllib.request

# https://api.example.com, https://collector.example.com:8443, https://example.com
SERVICE_URL = re.compile(r"https?://(?:[A-Za-z0-9-]+\.)*example\.com(?::\d+)?(?![A-Za-z0-9.-])")


def rewrite(text: str, base: str) -> str:
    """text with every service URL's scheme and host replaced by base
    (`http://127.0.0.1:PORT`); the path and query are kept."""
    return SERVICE_URL.sub(base, text)


class FaultServer:
    """respite-fault-server on 127.0.0.1 at a free port, healthy, for the run."""

    def __init__(self, program: str):
        self.proc = subprocess.Popen([program, "--exit-on-eof"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.strip().isdigit():
            self.proc.kill()
            raise RuntimeError(f"{program} did not print its port (got {line!r})")
        self.base = f"http://127.0.0.1:{int(line)}"

    def reset(self) -> None:
        """Back to healthy, counts cleared: each block starts from the same server."""
        request = urllib.request.Request(self.base + "/__control/reset", data=b"", method="POST")
        urllib.request.urlopen(request, timeout=5).read()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
