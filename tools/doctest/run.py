#!/usr/bin/env python3
"""Runs every code block of README.md and docs/*.md (or the files given):
each in a fresh temporary directory, with its service URLs pointed at a
local respite-fault-server, within a time limit. A block marked
`<!-- not run: <reason> -->` on the line before its fence is listed with
its reason and not run; any other block runs by its info string
(languages.py), and one whose language is unknown fails.

Exit status: 0 when every unmarked block ran, 1 when one failed, 2 on a
usage error. tools/doctest/README.md has the rules."""
import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blocks import Block, extract  # noqa: E402
from languages import LANGUAGES, MissingBuild, NotAProgram, Toolchain  # noqa: E402
from services import FaultServer, rewrite  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Absolute paths a block may use that are moved into its own directory, so
# runs do not share files (a /dev/shm gate file, a /tmp queue file).
PRIVATE_DIRS = ("/tmp/", "/dev/shm/")


def localise(text: str, workdir: str) -> str:
    for prefix in PRIVATE_DIRS:
        target = os.path.join(workdir, prefix.strip("/")) + "/"
        os.makedirs(target, exist_ok=True)
        text = text.replace(prefix, target)
    return text


def run_block(block: Block, tools: Toolchain, server_base: str, timeout: float, keep: bool,
              shown: list = None) -> str:
    """"" when the block ran, else what went wrong (its output included).
    shown, when given, gets the output of the block's last command."""
    language = LANGUAGES.get(block.lang)
    if language is None:
        kind = "an indented code block" if block.indented else \
            ("a block without an info string" if not block.lang else f"unknown info string '{block.lang}'")
        return (f"{kind}: give it a language the runner knows ({', '.join(sorted(LANGUAGES))}) "
                f"or mark it: <!-- not run: <reason> --> on the line before its fence")
    workdir = tempfile.mkdtemp(prefix="respite-doc-")
    try:
        text = localise(rewrite(block.text, server_base), workdir)
        try:
            files, commands = language(text, tools, workdir)
        except (NotAProgram, MissingBuild) as error:
            return str(error)
        except subprocess.CalledProcessError as error:
            return (f"preparing the block: {' '.join(error.cmd)} exited with {error.returncode}\n"
                    f"{tail(error.output or b'')}")
        for name, content in files.items():
            path = os.path.join(workdir, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
        env = dict(os.environ)
        env["PATH"] = os.path.join(tools.build, "release", "cli") + os.pathsep + env.get("PATH", "")
        env["RESPITE_DOC_SERVICE"] = server_base
        deadline = time.monotonic() + timeout
        for command in commands:
            left = deadline - time.monotonic()
            try:
                # A new session: a timeout kills whatever the block started too.
                proc = subprocess.Popen(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True)
                try:
                    output, _ = proc.communicate(timeout=max(left, 0.1))
                except subprocess.TimeoutExpired:
                    stop_group(proc.pid)
                    output, _ = proc.communicate()
                    return f"did not end within {timeout:g}s: {short(command)}\n{tail(output)}"
                finally:
                    stop_group(proc.pid)   # what the block left running ends with it
            except OSError as error:
                return f"{short(command)}: {error}"
            if proc.returncode != 0:
                return f"exit status {proc.returncode}: {short(command)}\n{tail(output)}"
            if shown is not None and output:
                shown.append(tail(output))
        return ""
    finally:
        if keep:
            print(f"    kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def stop_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def short(command: list) -> str:
    text = " ".join(command)
    return text if len(text) <= 160 else text[:157] + "..."


def tail(output: bytes, lines: int = 30) -> str:
    text = output.decode("utf-8", "replace").rstrip("\n").split("\n")
    shown = text[-lines:]
    prefix = [f"... ({len(text) - lines} lines before)"] if len(text) > lines else []
    return "\n".join("    | " + line for line in prefix + shown)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/*.md)")
    parser.add_argument("--build", default=os.environ.get("BUILD_ROOT", "build"),
                        help="the build root (default: $BUILD_ROOT or build)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per block (default 60)")
    parser.add_argument("--lang", action="append", help="run only blocks of this info string (repeatable)")
    parser.add_argument("--line", type=int, help="run only the block whose fence is on this line")
    parser.add_argument("--list", action="store_true", help="list the blocks, run none")
    parser.add_argument("--keep", action="store_true", help="keep each block's directory")
    parser.add_argument("--show", action="store_true", help="print the output of blocks that ran too")
    args = parser.parse_args(argv)

    os.chdir(ROOT)
    files = args.files or ["README.md"] + sorted(glob.glob("docs/*.md"))
    build = args.build if os.path.isabs(args.build) else os.path.join(ROOT, args.build)
    tools = Toolchain(root=ROOT, build=build)

    blocks = []
    for path in files:
        if not os.path.isfile(path):
            print(f"doctest: {path}: no such file", file=sys.stderr)
            return 2
        blocks += extract(path)
    if args.lang:
        blocks = [b for b in blocks if b.lang in args.lang]
    if args.line:
        blocks = [b for b in blocks if b.line == args.line]
    if args.list:
        for b in blocks:
            print(f"{b.where}\t{b.lang or '-'}\t{'not run: ' + b.not_run if b.not_run else ''}")
        return 0

    server = None
    skipped, failed, passed = [], [], 0
    try:
        for block in blocks:
            if block.not_run:
                skipped.append(block)
                print(f"skip {block.where} {block.lang or '-'}: not run: {block.not_run}")
                continue
            if server is None:
                server = FaultServer(tools.need(os.path.join(build, "release", "tools", "fault_server",
                                                             "respite-fault-server"), "scripts/test.d/10-core.sh"))
            server.reset()
            start = time.monotonic()
            shown = [] if args.show else None
            problem = run_block(block, tools, server.base, args.timeout, args.keep, shown)
            took = time.monotonic() - start
            if problem:
                failed.append(block)
                print(f"FAIL {block.where} {block.lang or '-'} ({took:.1f}s): {problem}")
            else:
                passed += 1
                print(f"ok   {block.where} {block.lang} ({took:.1f}s)")
                for output in shown or []:
                    print(output)
    except MissingBuild as error:
        print(f"doctest: {error}", file=sys.stderr)
        return 1
    finally:
        if server:
            server.stop()

    print(f"doctest: {passed} ran, {len(skipped)} not run (marked), {len(failed)} failed")
    for block in failed:
        print(f"  failed: {block.where} ({block.lang or 'no info string'})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
