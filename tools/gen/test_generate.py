#!/usr/bin/env python3
"""Tests of the generator (ctest gen_generator, label gen):

    RESPITE_TABLES=build/release/tools/gen/respite_tables python3 tools/gen/test_generate.py

A status or setting added to the core's tables reaches all four languages,
--check names every file that drifted, and the Python files behave.
"""
from __future__ import annotations

import copy
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import generate  # noqa: E402
from tables import HEADER, Tables, load  # noqa: E402

PROGRAM = os.environ.get("RESPITE_TABLES", "")


def core_tables() -> Tables:
    return load(program=PROGRAM)


def with_changes(change) -> Tables:
    raw = copy.deepcopy(core_tables().raw)
    change(raw)
    return Tables(raw)


def python_module(text: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(text, name, "exec"), module.__dict__)  # noqa: S102 - our own generated code
    return module


class GeneratorTest(unittest.TestCase):
    def setUp(self) -> None:
        if not PROGRAM:
            self.fail("set RESPITE_TABLES to the built respite_tables program")
        self.outputs = generate.render(core_tables())

    def file(self, directory_start: str, name: str) -> str:
        for directory, files in self.outputs.items():
            if directory.startswith(directory_start) and name in files:
                return files[name]
        self.fail(f"{directory_start}: no {name}")

    def test_every_file_says_it_is_generated(self) -> None:
        for directory, files in self.outputs.items():
            for name, text in files.items():
                self.assertIn(HEADER, "\n".join(text.splitlines()[:2]), f"{directory}/{name}")

    def test_a_new_status_reaches_every_language(self) -> None:
        def add(raw):
            raw["statuses"].append({"code": 12, "name": "shared_gone", "description": "the shared state is gone"})
        outputs = generate.render(with_changes(add))
        python = outputs[generate.emit_python.DIRECTORY]["errors.py"]
        self.assertIn("class SharedGoneError(RespiteError):", python)
        java = outputs[generate.emit_java.DIRECTORY]
        self.assertIn("org/respite/SharedGoneException.java", java)
        self.assertIn("case 12 -> new SharedGoneException(message);", java["org/respite/RespiteException.java"])
        self.assertIn("class SharedGoneError extends RespiteError", outputs[generate.emit_node.DIRECTORY]["errors.js"])
        php = outputs[generate.emit_php.DIRECTORY]
        self.assertIn("SharedGoneException.php", php)
        self.assertIn("12 => new SharedGoneException($message),", php["RespiteException.php"])

    def test_a_new_setting_reaches_every_language(self) -> None:
        def add(raw):
            raw["settings"].append({
                "component": "gate", "name": "half_open_share", "type": "number", "default": 0.25,
                "min": 0, "max": 1, "min_exclusive": True, "max_exclusive": False, "choices": None,
                "accepted": "a number greater than 0 and at most 1", "doc": "share of calls let through"})
        outputs = generate.render(with_changes(add))
        java = outputs[generate.emit_java.DIRECTORY]["org/respite/GateSettings.java"]
        self.assertIn("default B halfOpenShare(double value) {", java)
        self.assertIn('return gateSetting("half_open_share", value);', java)
        self.assertIn("Accepted: a number greater than 0 and at most 1. Default: 0.25.", java)
        self.assertIn("halfOpenShare?: number;", outputs[generate.emit_node.DIRECTORY]["tables.d.ts"])
        self.assertIn("'name' => 'half_open_share',", outputs[generate.emit_php.DIRECTORY]["Tables.php"])
        tables = python_module(outputs[generate.emit_python.DIRECTORY]["tables.py"], "tables")
        row = next(r for r in tables.SETTINGS if r.name == "half_open_share")
        self.assertEqual((row.min, row.max, row.min_exclusive, row.max_exclusive), (0.0, 1.0, True, False))

    def test_python_exceptions_carry_the_fields(self) -> None:
        errors = python_module(self.file("bindings/python", "errors.py"), "errors")
        err = errors.error_from_fields(2, "probes:x is not a setting of gate", setting="probes:x")
        self.assertIsInstance(err, errors.InvalidSettingError)
        self.assertIsInstance(err, ValueError)
        self.assertEqual((err.setting, err.status, str(err)), ("probes:x", "invalid_setting",
                                                                "probes:x is not a setting of gate"))
        refusal = errors.error_from_fields(4, "refused", retry_after=float("inf"))
        self.assertEqual(refusal.retry_after, float("inf"))
        self.assertIsInstance(errors.error_from_fields(9, "out of memory"), MemoryError)
        # a field the binding attaches (ATTACHED_FIELDS): none until the retry helper sets it
        self.assertIsNone(errors.error_from_fields(10, "the call failed after 3 attempts").result)
        self.assertIn("getResult()", self.file("bindings/java", "org/respite/TransportException.java"))
        self.assertIn("function getResult()", self.file("bindings/php", "TransportException.php"))
        unknown = errors.error_from_fields(99, "from a newer core")
        self.assertIs(type(unknown), errors.RespiteError)
        self.assertEqual(unknown.code, 99)

    def test_min_exclusive_is_kept(self) -> None:
        tables = python_module(self.file("bindings/python", "tables.py"), "tables")
        window = next(r for r in tables.SETTINGS if r.name == "failures_window_seconds")
        self.assertTrue(window.min_exclusive)
        self.assertIn("minExclusive: true", next(line for line in self.file("bindings/node", "tables.js").splitlines()
                                                  if '"failures_window_seconds"' in line))

    def test_check_names_every_file_that_drifted(self) -> None:
        with tempfile.TemporaryDirectory() as fresh, tempfile.TemporaryDirectory() as committed:
            generate.write(self.outputs, fresh)
            generate.write(self.outputs, committed)
            self.assertEqual(generate.compare(list(self.outputs), fresh, committed), [])
            node = os.path.join(committed, generate.emit_node.DIRECTORY)
            with open(os.path.join(node, "tables.js"), "a", encoding="utf-8") as f:
                f.write("// edited by hand\n")
            os.remove(os.path.join(node, "errors.js"))
            with open(os.path.join(node, "old.js"), "w", encoding="utf-8") as f:
                f.write("")
            problems = generate.compare(list(self.outputs), fresh, committed)
            self.assertEqual(len(problems), 3, problems)
            self.assertTrue(problems[0].startswith("bindings/node/generated/errors.js: missing"))
            self.assertTrue(problems[1].startswith("bindings/node/generated/old.js: not generated any more"))
            self.assertTrue(problems[2].startswith("bindings/node/generated/tables.js: differs"))
            self.assertIn("-// edited by hand", problems[2])

    def test_write_deletes_files_no_longer_generated(self) -> None:
        with tempfile.TemporaryDirectory() as root:
            generate.write(self.outputs, root)
            stale = os.path.join(root, generate.emit_php.DIRECTORY, "GoneException.php")
            with open(stale, "w", encoding="utf-8") as f:
                f.write("<?php\n")
            generate.write(self.outputs, root)
            self.assertFalse(os.path.exists(stale))


if __name__ == "__main__":
    unittest.main()
