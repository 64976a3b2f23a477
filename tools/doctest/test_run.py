"""The docs runner's own rules: a marked block is listed with its reason and
not run, an unmarked block that fails fails the run (named by file, line
and language), an unknown or missing info string fails, service URLs reach
the fault server. Runs after the build (scripts/test.d/80-docs.sh)."""
import contextlib
import io
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402
from blocks import extract  # noqa: E402
from services import rewrite  # noqa: E402

BUILD = os.environ.get("BUILD_ROOT", "build")


FILES = tempfile.TemporaryDirectory(prefix="doctest-test-")


def tearDownModule():
    FILES.cleanup()


def markdown(text: str) -> str:
    f = tempfile.NamedTemporaryFile("w", suffix=".md", dir=FILES.name, delete=False, encoding="utf-8")
    f.write(textwrap.dedent(text))
    f.close()
    return f.name


def run_on(path: str, timeout: float = 30):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run.main([path, "--build", BUILD, "--timeout", str(timeout)])
    return status, out.getvalue()


class Extraction(unittest.TestCase):
    def test_marks_languages_and_lines(self):
        path = markdown("""\
            # t

            <!-- not run: a fragment -->
            ```python
            x = y
            ```

            - a list item:

              ```js
              console.log(1)
              ```

                  indented
            """)
        blocks = extract(path)
        self.assertEqual([(b.line, b.lang, b.not_run, b.indented) for b in blocks],
                         [(4, "python", "a fragment", False), (10, "js", None, False), (14, "", None, True)])
        self.assertEqual(blocks[1].text, "console.log(1)\n")

    def test_only_the_line_just_before_marks(self):
        blocks = extract(markdown("<!-- not run: far -->\n\n```python\npass\n```\n"))
        self.assertIsNone(blocks[0].not_run)

    def test_service_urls_are_rewritten_with_their_paths(self):
        self.assertEqual(rewrite('get("https://api.example.com/503?retry_after=1") https://example.com:8443/x '
                                 "https://example.community/ https://example.org/", "http://127.0.0.1:9"),
                         'get("http://127.0.0.1:9/503?retry_after=1") http://127.0.0.1:9/x '
                         "https://example.community/ https://example.org/")


class Running(unittest.TestCase):
    def test_a_marked_block_is_reported_and_not_run(self):
        status, out = run_on(markdown("""\
            <!-- not run: needs a database -->
            ```python
            raise SystemExit(3)
            ```

            ```python
            print("ran")
            ```
            """))
        self.assertEqual(status, 0, out)
        self.assertIn(":2 python: not run: needs a database", out)
        self.assertIn("1 ran, 1 not run (marked), 0 failed", out)

    def test_a_failing_block_fails_the_run_with_its_place_and_output(self):
        path = markdown("""\
            text

            ```python
            print("before")
            raise SystemExit("the reason")
            ```
            """)
        status, out = run_on(path)
        self.assertEqual(status, 1)
        self.assertIn(f"FAIL {path}:3 python", out)
        self.assertIn("| the reason", out)
        self.assertIn(f"failed: {path}:3 (python)", out)

    def test_unknown_or_missing_info_strings_fail(self):
        status, out = run_on(markdown("```cobol\nDISPLAY 'X'.\n```\n\n```\nplain\n```\n\n    indented\n"))
        self.assertEqual(status, 1)
        self.assertIn("unknown info string 'cobol'", out)
        self.assertIn("a block without an info string", out)
        self.assertIn("an indented code block", out)
        self.assertIn("0 ran, 0 not run (marked), 3 failed", out)

    def test_service_urls_reach_the_fault_server_with_faults_by_path(self):
        status, out = run_on(markdown("""\
            ```python
            import urllib.error, urllib.request
            assert urllib.request.urlopen("https://api.example.com/v1/things").status == 200
            try:
                urllib.request.urlopen("https://api.example.com/503")
            except urllib.error.HTTPError as e:
                assert e.code == 503
            else:
                raise AssertionError("no 503")
            ```
            """))
        self.assertEqual(status, 0, out)

    def test_each_block_has_its_own_directory_and_tmp(self):
        status, out = run_on(markdown("""\
            ```python
            import os
            open("/tmp/respite-doc-probe", "x").write("mine")
            assert os.path.exists("block.py")
            ```

            ```sh
            test ! -e /tmp/respite-doc-probe
            respite --help >/dev/null
            ```
            """))
        self.assertEqual(status, 0, out)
        self.assertFalse(os.path.exists("/tmp/respite-doc-probe"))

    def test_a_console_session_runs_its_commands_not_its_output(self):
        status, out = run_on(markdown("""\
            ```console
            $ echo '{"name": "p", "maximum_capacity": 5, "error_handlers": [{"on": "any_error", "strategy": "discard"}]}' \\
                > p.json
            $ respite check-policy p.json
            whatever the session showed
            ```

            ```console
            $ respite check-policy missing.json
            ```
            """))
        self.assertEqual(status, 1)
        self.assertIn("1 ran, 0 not run (marked), 1 failed", out)
        self.assertIn("exit status 2", out)

    def test_a_block_that_hangs_is_stopped(self):
        path = markdown("```python\nimport time\ntime.sleep(60)\n```\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = run.main([path, "--build", BUILD, "--timeout", "1"])
        self.assertEqual(status, 1)
        self.assertIn("did not end within 1s", out.getvalue())

    def test_typescript_is_type_checked_then_run(self):
        status, out = run_on(markdown("""\
            ```ts
            import { Gate } from 'respite';
            const gate: Gate = new Gate({ failuresToEnterRecovery: 2 });
            console.log(gate.state());
            ```
            """), timeout=120)
        self.assertEqual(status, 0, out)
        status, out = run_on(markdown("""\
            ```ts
            import { Gate } from 'respite';
            new Gate({ failureToEnterRecovery: 2 });
            ```
            """), timeout=120)
        self.assertEqual(status, 1)
        self.assertIn("failureToEnterRecovery", out)

    def test_blocks_see_the_bindings_own_dependencies(self):
        # What an example imports beside respite resolves as in the binding's tests.
        status, out = run_on(markdown("""\
            ```js
            import addon from 'node-addon-api';
            import { Gate } from 'respite';
            if (!addon.include || !new Gate()) process.exit(1);
            ```

            ```java
            import org.junit.jupiter.api.Assertions;
            import org.respite.Gate;

            public class Deps {
                public static void main(String[] args) {
                    try (Gate gate = Gate.builder().build()) {
                        Assertions.assertEquals("CLOSED", gate.state().toString());
                    }
                }
            }
            ```
            """), timeout=120)
        self.assertEqual(status, 0, out)

    def test_json_policies_are_checked_by_the_core(self):
        status, out = run_on(markdown('```json\n{"name": "p", "maximum_capacity": 0, "error_handlers": []}\n```\n'))
        self.assertEqual(status, 1)
        self.assertIn("maximum_capacity", out)
        status, out = run_on(markdown('```json\n{"not": "a policy"}\n```\n'))
        self.assertEqual(status, 0, out)


if __name__ == "__main__":
    unittest.main()
