#!/usr/bin/env bash
# Runs every benchmark in bench/ (C, Python, Node, PHP, Java) and writes
# docs/benchmarks.md from what this run measured: the date, the load, the
# machine and this command at the top, the summary table from the lines the
# benchmarks print as "result<TAB>target<TAB>figure<TAB>verdict", then each
# benchmark's own output. Nothing in the doc is typed by hand.
#
#   bash scripts/setup.sh          # once: SWIG, Node, Python, Java, PHP
#   bash scripts/bench.sh          # a few minutes; QUICK=1 for a short run
#
# Builds go under ${BUILD_ROOT:-build} (bench/ for the C release build, and
# the bindings where the test steps put them). Benchmarks are never tests:
# no test step runs this. A benchmark that fails is reported as failed in
# the doc, and the script exits non-zero.
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="${BUILD_ROOT:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
out="$build/bench-output"
rm -rf "$out"
mkdir -p "$out"
quick="${QUICK:-0}"
command="bash scripts/bench.sh"
[ "$quick" = 1 ] && command="QUICK=1 $command"

# Arguments of the C programs that take some (every other bench/bench_*.c
# runs with its own defaults); QUICK=1 makes every run short.
declare -A c_args
if [ "$quick" = 1 ]; then
  c_args=([bench_gate]="50 5" [bench_sender]="200000 100 5" [bench_queue]="1000000" [bench_policy]="100"
          [bench_queue_expiry]="5" [bench_probes]="20000 5")
  py_args=(--calls 20000 --rounds 5) node_env=(CALLS=100000 ROUNDS=5) php_args=(20000 5) java_args=(1000000 5)
else
  c_args=([bench_gate]="200 11" [bench_sender]="500000 100 11" [bench_queue]="10000000" [bench_policy]="300"
          [bench_queue_expiry]="9" [bench_probes]="100000 9")
  py_args=(--calls 100000 --rounds 21) node_env=(CALLS=1000000 ROUNDS=21) php_args=(200000 9) java_args=(10000000 9)
fi

started="$(date -u '+%Y-%m-%d %H:%M UTC')"
uptime > "$out/uptime-start"
failed=()

# run NAME COMMAND...: the output to $out/NAME.txt (stderr too), its
# command line to $out/NAME.cmd; a failure is recorded, not fatal.
run() {
  local name="$1"
  shift
  echo "== $name: $*"
  local line="$*"
  printf '%s\n' "${line//$root\//}" > "$out/$name.cmd"
  "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    failed+=("$name")
    echo "FAILED (exit $rc)" >> "$out/$name.txt"
  fi
  tail -n 3 "$out/$name.txt"
}

# build NAME COMMAND...: a build step; its log goes to $out/build-NAME.log.
build_step() {
  local name="$1"
  shift
  if ! "$@" > "$out/build-$name.log" 2>&1; then
    failed+=("build-$name")
    echo "build of $name failed: $out/build-$name.log"
    tail -n 20 "$out/build-$name.log"
    return 1
  fi
}

# ---- C: release build of the core, every bench/bench_*.c and the memory test
c="$build/bench"
: > "$out/c-benches"
if build_step c cmake -S . -B "$c" -DCMAKE_BUILD_TYPE=Release -DRESPITE_BUILD_TESTS=ON -DRESPITE_BUILD_BENCH=ON &&
   build_step c-core cmake --build "$c" -j2 --target respite test_gate_memory; then
  run memory "$c/tests/test_gate_memory"
  for src in bench/bench_*.c; do
    name="$(basename "$src" .c)"
    echo "$name" >> "$out/c-benches"
    if build_step "$name" cmake --build "$c" -j2 --target "$name"; then
      # shellcheck disable=SC2086 # the arguments are words
      run "$name" "$c/bench/$name" ${c_args[$name]:-}
    fi
  done
fi

# ---- Python: the binding in the test step's venv, the peers from bench/python/requirements.txt
venv="$build/python-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
if build_step python-binding "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
     --config-settings=build-dir="$build/python-build" ./bindings/python &&
   build_step python-peers "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r bench/python/requirements.txt; then
  run python "$venv/bin/python" bench/python/bench_protected_call.py "${py_args[@]}"
fi

# ---- Node: the addon built as the test step builds it, the peers from bench/node/package.json
export RESPITE_NODE_BUILD_DIR="$build/node"
if build_step node-setup bash scripts/setup.d/node.sh &&
   build_step node-binding bash -c 'cd bindings/node && npm install --no-audit --no-fund --no-package-lock' &&
   build_step node-peers bash -c 'cd bench/node && npm install --no-audit --no-fund --no-package-lock'; then
  run node env "${node_env[@]}" node bench/node/bench.js
fi

# ---- PHP: the extension as the test step builds it
if build_step php cmake -S bindings/php -B "$build/php" -DCMAKE_BUILD_TYPE=Release &&
   build_step php-make cmake --build "$build/php" -j2; then
  run php php -d extension="$build/php/respite.so" bench/php/bench_protected_call.php "${php_args[@]}"
fi

# ---- Java: the binding's jar (installed to ~/.m2 as the test step does,
# for bench/java's build), and first on the class path, so this checkout's
# binding is the one measured: on the default JDK (17: Unsafe), and, when a
# JDK 24+ is there (bindings/java/jdk24.sh), on it too (the multi-release
# jar's FFM classes).
jdk24="$(bash bindings/java/jdk24.sh)"
if build_step java-binding mvn -B -q -f bindings/java install -DskipTests ${jdk24:+"-Drespite.jdk24=$jdk24"} &&
   build_step java-bench mvn -B -q -f bench/java package; then
  run java java -cp bindings/java/target/respite-0.1.0.jar:bench/java/target/benchmarks.jar \
    org.respite.bench.PairedRounds "${java_args[@]}"
  if [ -n "$jdk24" ]; then
    run java-ffm "$jdk24/bin/java" --enable-native-access=ALL-UNNAMED \
      -cp bindings/java/target/respite-0.1.0.jar:bench/java/target/benchmarks.jar \
      org.respite.bench.PairedRounds "${java_args[@]}"
  else
    echo "bash bindings/java/jdk24.sh" > "$out/java-ffm.cmd"
    echo "no JDK 24 or later on this machine: not measured" > "$out/java-ffm.txt"
  fi
  run java-memory java -Xms512m -Xmx512m -XX:+AlwaysPreTouch \
    -cp bindings/java/target/respite-0.1.0.jar:bench/java/target/benchmarks.jar org.respite.bench.MemoryPerBreaker
fi

uptime > "$out/uptime-end"
printf '%s\n' "${failed[@]}" > "$out/failed"

python3 - "$out" "$started" "$command" <<'EOF'
import os
import platform
import re
import subprocess
import sys

out, started, command = sys.argv[1:4]


def read(name):
    path = os.path.join(out, name)
    return open(path, encoding="utf-8", errors="replace").read().rstrip("\n") if os.path.exists(path) else None


def load(name):
    text = read(name) or ""
    m = re.search(r"load average: ([\d.]+), ([\d.]+), ([\d.]+)", text)
    return f"{m.group(1)} / {m.group(2)} / {m.group(3)}" if m else "unknown"


cpu = "unknown"
for line in open("/proc/cpuinfo", encoding="utf-8"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
failed = [f for f in (read("failed") or "").split("\n") if f]

USAGE = "<!-- not run: a benchmark's usage (scripts/bench.sh runs it) -->\n```sh\n"

def leading_comment(path):
    """A C file's first comment as Markdown: its paragraphs, and the lines
    indented by two or more spaces that start a paragraph (usage lines) as
    a fenced block marked not to run."""
    m = re.match(r"\s*/\*(.*?)\*/", open(path, encoding="utf-8").read(), re.S)
    if not m:
        return ""
    lines = [re.sub(r"^\s*\* ?", "", l) for l in m.group(1).strip().split("\n")]
    md, para = [], []
    for line in lines + [""]:
        # indented after a blank line (or more code): a usage line
        if line.startswith("  ") and line.strip() and not para:
            if para:
                md.append(" ".join(para))
                para = []
            # fenced and marked for tools/doctest: usage, not a program
            if md and md[-1].startswith(USAGE):
                md[-1] = md[-1][: -len("\n```")] + "\n" + line.strip() + "\n```"
            else:
                md.append(USAGE + line.strip() + "\n```")
        elif line.strip():
            if para and re.match(r"(\d+\.|-) ", line):  # a list item starts a line of its own
                md.append(" ".join(para))
                para = []
            para.append(line.strip())
        elif para:
            md.append(" ".join(para))
            para = []
    return "\n\n".join(md)


c_benches = [n for n in (read("c-benches") or "").split("\n") if n]
sections = [
    ("memory", "Memory per gate (C)",
     "A default gate's native bytes, counted through the allocator (`tests/unit/test_gate_memory.c` wraps "
     "every allocation function the core calls): what `respite_gate_new(NULL)` allocates, what a thread's "
     "first call adds (its 128-byte stripe of counters, allocated on first use) and that freeing the gate "
     "gives every byte back."),
] + [(name, f"`{name}` (C)", leading_comment(f"bench/{name}.c")) for name in c_benches] + [
    ("python", "Python",
     "A protected no-op through respite's Python API next to purgatory, circuitbreaker and pybreaker "
     "(and tenacity for retries), in paired rounds; per round, respite's overhead over the bare call is "
     "divided by the smallest overhead of the other breakers in that round. First, before any timing, the resident memory per breaker (the table above)."),
    ("node", "Node",
     "A protected no-op `async` call awaited in a loop through respite, cockatiel and opossum, in paired "
     "rounds; per round, the overhead above a bare `await` divided by cockatiel's. \"client attached\" is a "
     "gate a `Client` also uses. First, before any timing, the resident memory per breaker (the table above)."),
    ("php", "PHP",
     "`Gate::call($fn)` next to a 20-line pure-PHP breaker (in the benchmark) and the bare call, in paired "
     "rounds; per round, `Gate::call`'s overhead divided by the pure-PHP breaker's. First, before any timing, the resident memory per breaker (the table above)."),
    ("java", "Java",
     "A protected no-op through respite's `Gate` next to resilience4j 2.2's `CircuitBreaker` "
     "(decorated, and by hand), in paired rounds after a JIT warm-up; per round, respite's overhead "
     "divided by the smaller of resilience4j's two."),
    ("java-ffm", "Java on JDK 24+",
     "The same on the newest JDK 24 or later found (bindings/java/jdk24.sh), where the multi-release "
     "jar reads the gate's words through FFM instead of Unsafe."),
    ("java-memory", "Java: memory per breaker",
     "Breakers made and kept until they hold 16 MB, in a JVM with a fixed, pre-touched heap: the used "
     "heap after a GC, plus the growth of resident memory (native memory; the heap does not move it)."),
]

results, memory = [], []
for name, _, _ in sections:
    for line in (read(f"{name}.txt") or "").split("\n"):
        parts = line.split("\t")
        if parts[0] == "result" and len(parts) == 4:
            results.append(parts[1:])
        elif parts[0] == "memory" and len(parts) == 4:
            memory.append(parts[1:])

memory_line = next((l for l in (read("memory.txt") or "").split("\n") if l.startswith("default gate:")), None)

doc = []
doc.append("# Benchmarks\n")
doc.append(f"Measured on {started} by `{command}`, which ran every benchmark below and wrote this file "
           "(do not edit it: run the script again). The machine: "
           f"{nproc} CPUs ({cpu}), {platform.system()} {platform.release()}; load average "
           f"(1 / 5 / 15 min) {load('uptime-start')} at the start and {load('uptime-end')} at the end. "
           "Other work shares this machine, so absolute times vary from run to run: the figures to read "
           "are the ratios, each measured side by side in one process in paired rounds (every round runs "
           "both sides, the order rotating), given as the median and the range of the per-round ratios.\n")
if failed:
    doc.append(f"**Failed in this run:** {', '.join(failed)} (their sections say what happened).\n")
doc.append("## Targets (issue 16)\n")
doc.append("| target | measured | verdict |")
doc.append("|---|---|---|")
if memory_line:
    made = int(memory_line[len('default gate: '):].split()[0])
    verdict = "met" if made <= 4096 else "**NOT met**"
    doc.append(f"| C: native bytes per default gate <= 4 KB (compact events, counter stripes on first use) | "
               f"{memory_line[len('default gate: '):]} | {verdict} |")
for target, figure, verdict in results:
    doc.append(f"| {target} | {figure} | {'**' + verdict + '**' if verdict.lower().startswith('not') else verdict} |")
doc.append("")
doc.append("## Memory per breaker, every language\n")
doc.append("C: the bytes the core allocates for a default gate (counted through the allocator, before any "
           "thread uses it; each thread that does adds one 128-byte stripe). Python, Node, PHP, Java: the "
           "growth of the process's resident memory per breaker, breakers made and kept until it grew by "
           "16 MB (Java: used heap after a GC plus resident growth under a pre-touched heap); memory "
           "allocated but never written (the gate's event ring is zeroed by calloc) is not resident, so "
           "these figures can be below C's.\n")
doc.append("| language | breaker | bytes per breaker |")
doc.append("|---|---|---|")
if memory_line:
    m = re.match(r"default gate: (\d+) bytes", memory_line)
    if m:
        doc.append(f"| C | respite default gate (`respite_gate_new(NULL)`) | {int(m.group(1)):,} |")
for language, label, value in memory:
    doc.append(f"| {language} | {label} | {int(value):,} |")
doc.append("")
for name, title, method in sections:
    doc.append(f"## {title}\n")
    doc.append(method + "\n")
    cmd = read(f"{name}.cmd")
    text = read(f"{name}.txt")
    if cmd is None:
        doc.append("Not run: its build failed (see the failed list above).\n")
        continue
    # Marked for tools/doctest: a benchmark and its output are not docs to run.
    doc.append("<!-- not run: runs a benchmark (scripts/bench.sh runs them all) -->")
    doc.append(f"```sh\n{cmd}\n```\n")
    doc.append("<!-- not run: a benchmark's output (scripts/bench.sh writes it) -->")
    doc.append("```")
    doc.append(text if text else "(no output)")
    doc.append("```\n")
open("docs/benchmarks.md", "w", encoding="utf-8").write("\n".join(doc))
print("wrote docs/benchmarks.md")
EOF

if [ "${#failed[@]}" -gt 0 ]; then
  echo "failed: ${failed[*]}"
  exit 1
fi
