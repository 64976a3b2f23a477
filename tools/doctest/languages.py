"""How a block of each language becomes a program and runs: the files it
writes into the block's directory and the commands run there, in order.

Every command must exit 0 within the block's time. What each language
needs from the build (the test venv, the jar, the addon, the extension, the
core's libraries, the command) is found under the build root; a language
whose build is missing fails its blocks with a line saying what to build."""
import functools
import json
import os
import re
import subprocess
from dataclasses import dataclass
from typing import Callable, Dict, List, Tuple

Command = List[str]


@dataclass
class Toolchain:
    root: str    # the checkout
    build: str   # the build root (BUILD_ROOT, default <root>/build)

    def need(self, path: str, built_by: str) -> str:
        if not os.path.exists(path):
            raise MissingBuild(f"{path} is missing (built by {built_by})")
        return path

    @property
    def python(self) -> str:
        return self.need(os.path.join(self.build, "python-venv", "bin", "python"), "scripts/test.d/40-python.sh")

    @property
    def jar(self) -> str:
        return self.need(os.path.join(self.root, "bindings", "java", "target", "respite-0.1.0.jar"),
                         "scripts/test.d/50-java.sh")

    @functools.cached_property
    def java_classpath(self) -> str:
        """The jar, then every dependency of bindings/java, optional and test
        ones too (what an example may import beside respite: a metrics
        library, ...), as Maven resolves them."""
        out = os.path.join(self.build, "doctest-java-classpath.txt")
        subprocess.run(["mvn", "-B", "-q", "-f", os.path.join(self.root, "bindings", "java"),
                        "dependency:build-classpath", "-Dmdep.outputFile=" + out, "-Dmdep.includeScope=test"],
                       check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        with open(out, encoding="utf-8") as f:
            return self.jar + os.pathsep + f.read().strip()

    @property
    def node_package(self) -> str:
        package = os.path.join(self.root, "bindings", "node")
        self.need(os.path.join(package, "native", "respite_native.node"), "scripts/test.d/60-node.sh")
        return package

    @property
    def php_extension(self) -> str:
        return self.need(os.path.join(self.build, "php", "respite.so"), "scripts/test.d/70-php.sh")

    @property
    def release(self) -> str:
        return self.need(os.path.join(self.build, "release", "core", "librespite.so"), "scripts/test.d/10-core.sh")

    @property
    def cli(self) -> str:
        return self.need(os.path.join(self.build, "release", "cli", "respite"), "scripts/test.d/10-core.sh")


class MissingBuild(Exception):
    pass


# A program: files to write (name -> text) and the commands to run.
Program = Tuple[Dict[str, str], List[Command]]


def python(text: str, tools: Toolchain, workdir: str) -> Program:
    return {"block.py": text}, [[tools.python, "block.py"]]


def java(text: str, tools: Toolchain, workdir: str) -> Program:
    # A complete program: a top-level class with main, run from source
    # (java's single-file launcher runs the first class of the file).
    if not re.search(r"^(public\s+)?(final\s+)?(class|record)\s+\w+", text, re.M):
        raise NotAProgram("a java block runs as a single-file program: it needs a top-level class with main")
    return {"Block.java": text}, [["java", "-cp", tools.java_classpath, "Block.java"]]


def javascript(text: str, tools: Toolchain, workdir: str) -> Program:
    _link_node_package(tools, workdir)
    # import/export at the start of a line: an ES module, else CommonJS.
    name = "block.mjs" if re.search(r"^(import|export)\s", text, re.M) else "block.js"
    return {name: text}, [["node", name]]


def typescript(text: str, tools: Toolchain, workdir: str) -> Program:
    package = _link_node_package(tools, workdir)
    tsc = os.path.join(package, "node_modules", ".bin", "tsc")
    config = {"compilerOptions": {"strict": True, "target": "es2022", "module": "commonjs",
                                  "moduleResolution": "node", "esModuleInterop": True, "outDir": "out",
                                  "skipLibCheck": True,
                                  "typeRoots": [os.path.join(package, "node_modules", "@types")],
                                  "types": ["node"]},
              "files": ["block.ts"]}
    return ({"block.ts": text, "tsconfig.json": json.dumps(config)},
            [[tools.need(tsc, "npm install in bindings/node (a devDependency)"), "-p", "tsconfig.json"],
             ["node", os.path.join("out", "block.js")]])


def php(text: str, tools: Toolchain, workdir: str) -> Program:
    if not text.lstrip().startswith("<?php"):
        raise NotAProgram("a php block runs as a script: it starts with <?php")
    # Composer's autoloader path, as a user's project has it, loading the checkout's classes.
    autoload = os.path.join(tools.root, "bindings", "php", "autoload.php")
    shim = f"<?php\nrequire {autoload!r};\n"
    # And the binding's Composer packages (a PSR-18 client, Guzzle), when installed.
    dependencies = os.path.join(tools.root, "bindings", "php", "vendor", "autoload.php")
    if os.path.exists(dependencies):
        shim += f"require {dependencies!r};\n"
    return ({"block.php": text, "vendor/autoload.php": shim},
            [["php", "-d", "extension=" + tools.php_extension, "block.php"]])


def c(text: str, tools: Toolchain, workdir: str) -> Program:
    core = os.path.dirname(tools.release)
    libs = [core, os.path.join(core, "src", "http"), os.path.join(core, "src", "fleet")]
    link = []
    for lib in libs:
        link += ["-L" + lib, "-Wl,-rpath," + lib]
    return {"block.c": text}, [
        ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(tools.root, "core", "include"),
         "block.c", "-o", "block", *link, "-lrespite_fleet", "-lrespite_http", "-lrespite", "-lm"],
        ["./block"]]


def shell(text: str, tools: Toolchain, workdir: str) -> Program:
    # The respite command is on PATH (run.py puts the build's cli/ first).
    tools.cli
    return {"block.sh": text}, [["bash", "-euo", "pipefail", "block.sh"]]


def console(text: str, tools: Toolchain, workdir: str) -> Program:
    # A session: the lines after "$ " run (a trailing "\" continues one);
    # what the session shows as their output is not compared.
    commands, pending = [], ""
    for line in text.splitlines():
        if pending:
            pending += "\n" + line
        elif line.startswith("$ "):
            pending = line[2:]
        else:
            continue
        if not pending.endswith("\\"):
            commands.append(pending)
            pending = ""
    if pending or not commands:
        raise NotAProgram("a console block is a session: commands after \"$ \"")
    return shell("\n".join(commands) + "\n", tools, workdir)


def json_block(text: str, tools: Toolchain, workdir: str) -> Program:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise NotAProgram(f"not JSON: {error}")
    if isinstance(document, dict) and "error_handlers" in document:
        # A delivery policy: the core's validator says whether it is one.
        return {"policy.json": text}, [[tools.cli, "check-policy", "policy.json"]]
    return {}, []


def xml(text: str, tools: Toolchain, workdir: str) -> Program:
    import xml.etree.ElementTree as ElementTree
    try:
        ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise NotAProgram(f"not well-formed XML: {error}")
    return {}, []


class NotAProgram(Exception):
    pass


def _link_node_package(tools: Toolchain, workdir: str) -> str:
    # require('respite') / import 'respite' find the checkout's package, as after
    # npm install; the package's own dependencies (a metrics client, ...) too,
    # for require and import alike (import ignores NODE_PATH).
    package = tools.node_package
    modules = os.path.join(workdir, "node_modules")
    os.makedirs(modules, exist_ok=True)
    links = {"respite": package}
    installed = os.path.join(package, "node_modules")
    if os.path.isdir(installed):
        for name in os.listdir(installed):
            if not name.startswith("."):
                links.setdefault(name, os.path.join(installed, name))
    for name, target in links.items():
        if not os.path.lexists(os.path.join(modules, name)):
            os.symlink(target, os.path.join(modules, name))
    return package


LANGUAGES: Dict[str, Callable[[str, Toolchain, str], Program]] = {
    "python": python, "py": python,
    "java": java,
    "js": javascript, "javascript": javascript,
    "ts": typescript, "typescript": typescript,
    "php": php,
    "c": c,
    "sh": shell, "bash": shell,
    "console": console,
    "json": json_block,
    "xml": xml,
}
