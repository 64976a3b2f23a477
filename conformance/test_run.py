"""Tests of the driver's own checks (conformance/run): what it hands runners
and what it finds in their results without them. Run by
scripts/test.d/90-conformance.sh: python3 conformance/test_run.py"""
import importlib.machinery
import importlib.util
import os
import tempfile
import unittest

_loader = importlib.machinery.SourceFileLoader("driver", os.path.join(os.path.dirname(__file__), "run"))
_spec = importlib.util.spec_from_loader("driver", _loader)
driver = importlib.util.module_from_spec(_spec)
_loader.exec_module(driver)

QUEUE = {"accepted": 3, "delivered": 1, "dropped_capacity": 0, "expired": 0, "retries_exhausted": 0,
         "discarded": 1, "pending": 1, "in_flight": 0}


def normalise(scenario):
    problems = []
    return driver.normalise(scenario, problems), problems


class Normalise(unittest.TestCase):
    def test_times_carry_over_and_specials_get_one_spelling(self):
        out, _ = normalise({"id": "g", "component": "gate", "comment": "x", "steps": [
            {"check": {}}, {"at": 2.5, "check": {}, "expect": {}}, {"state": {}}, {"at": "-inf", "state": {}}]})
        self.assertEqual([s["at"] for s in out["steps"]], [0.0, 2.5, 2.5, "-Infinity"])
        self.assertEqual(out["steps"][1], {"at": 2.5, "repeat": 1, "check": {}})
        self.assertNotIn("comment", out)

    def test_settings_numbers_and_arguments_are_completed(self):
        out, _ = normalise({"id": "b", "component": "backoff", "settings": {"multiplier": {"number": "nan"}},
                            "steps": [{"repeat": 3, "next": {"attempt": 2, "outcome": {"status": 503}}},
                                      {"retries_on": "server_error"}]})
        self.assertEqual(out["settings"], {"multiplier": {"number": "NaN"}})
        self.assertEqual(out["steps"][0], {"at": 0.0, "repeat": 3, "next": {
            "sequence": 0, "retry_after": 0, "attempt": 2, "status": 503, "usable": True}})
        self.assertEqual(out["steps"][1]["retries_on"], {"outcome": "server_error"})

    def test_delivery_gets_one_endpoint_form_event_lists_and_a_stats_step_after_each(self):
        out, _ = normalise({"id": "d", "component": "delivery", "policy": "@default",
                            "endpoint": {"by_event": {"e2": [400]}},
                            "steps": [{"enqueue": {"count": 2, "prefix": "x"}}, {"at": 1, "send": {}}]})
        self.assertEqual(out["endpoint"], {"sequence": [], "by_event": {"e2": [400]}, "otherwise": 200})
        self.assertEqual([next(k for k in s if k not in ("at", "repeat")) for s in out["steps"]],
                         ["enqueue", "stats", "send", "stats"])
        self.assertEqual(out["steps"][0]["enqueue"], ["x1", "x2"])
        self.assertEqual(out["steps"][3]["at"], 1)
        plain, _ = normalise({"id": "d", "component": "delivery", "endpoint": [503], "steps": [{"send": {}}]})
        self.assertEqual(plain["endpoint"], {"sequence": [503], "by_event": {}, "otherwise": None})

    def test_a_permit_no_check_remembered_is_a_problem(self):
        _, problems = normalise({"id": "g", "component": "gate", "steps": [
            {"check": {"as": "p1"}}, {"record": {"outcome": "success", "permit": "p1"}},
            {"record": {"outcome": "success", "permit": "p2"}}, {"record": {"outcome": "success", "permit": 7}}]})
        self.assertEqual(len(problems), 1)
        self.assertIn("'p2'", problems[0])


class Results(unittest.TestCase):
    DELIVERY = {"id": "d", "component": "delivery", "steps": [{"enqueue": "a"}, {"send": {}}]}

    def test_d9_is_checked_on_the_figures_after_every_step(self):
        result = {"id": "d", "steps": [{"accepted": 1}, {"queue": QUEUE, "balanced": True},
                                       {"events": ["a"]}, {"queue": dict(QUEUE, pending=2), "balanced": True}]}
        kept, reasons = driver.split_probes(self.DELIVERY, result)
        self.assertEqual(kept["steps"], [{"accepted": 1}, {"events": ["a"]}])
        self.assertEqual(len(reasons), 1)
        self.assertTrue(reasons[0].startswith("step 1: D9: accepted 3 != "), reasons[0])

    def test_a_step_without_figures_fails_d9(self):
        result = {"id": "d", "steps": [{"accepted": 1}, {"error": {"status": "runner"}}, {}, {"queue": QUEUE}]}
        _, reasons = driver.split_probes(self.DELIVERY, result)
        self.assertEqual(len(reasons), 1)
        self.assertIn("step 0: D9: no queue figures", reasons[0])

    def test_expected_set_up_errors(self):
        scenario = {"id": "g", "component": "gate", "steps": [],
                    "expect_error": {"status": "invalid_setting", "setting": "max_recovery_seconds"}}
        error = {"status": "invalid_setting", "setting": "max_recovery_seconds", "message": "m"}
        self.assertEqual(driver.check_against_expected(scenario, {"id": "g", "error": error}), [])
        self.assertTrue(driver.check_against_expected(scenario, {"id": "g", "error": dict(error, setting="x")}))
        self.assertTrue(driver.check_against_expected(scenario, {"id": "g", "steps": []}))
        unexpected = {"id": "g", "component": "gate", "steps": [{"check": {}}]}
        self.assertTrue(driver.check_against_expected(unexpected, {"id": "g", "error": error}))


GATE = {"id": "g", "component": "gate", "settings": {"failures_to_enter_recovery": 1},
        "steps": [{"at": 1, "record": "server_error"}, {"repeat": 2, "events": {}}, {"stats": {}}]}
EVENT = {"type": "recovery_started", "at": 1.0, "line": "recovery started: 1 failure within 100s"}


def shared_line(line):
    """What a shared run's events step shows when the driver named the slot."""
    return dict(EVENT, line=f"{driver.SLOT_NAME}: {EVENT['line']}")


class Modes(unittest.TestCase):
    def test_shared_mode_opens_two_handles_alternates_them_and_reads_events_on_both(self):
        out = driver.mode_scenario(normalise(GATE)[0], "shared", "/tmp/x/1.shared")
        self.assertEqual(out["id"], "g [shared]")
        self.assertEqual(out["handles"], 2)
        self.assertEqual(out["settings"], {"failures_to_enter_recovery": 1, "shared_path": "/tmp/x/1.shared",
                                           "name": driver.SLOT_NAME})
        self.assertEqual([(driver.step_action(s), s["handle"], s["repeat"]) for s in out["steps"]],
                         [("record", 0, 1), ("events", 1, 2), ("events", 0, 2), ("stats", 0, 1)])

    def test_a_scenario_that_names_its_gate_keeps_the_name_as_the_slot(self):
        named = dict(GATE, settings={"name": "billing"})
        out = driver.mode_scenario(normalise(named)[0], "shared", "p")
        self.assertEqual(out["settings"], {"name": "billing", "shared_path": "p"})

    def test_durable_mode_only_puts_the_queue_in_a_file(self):
        delivery = {"id": "d", "component": "delivery", "policy": "@default", "queue": {"overflow": "reject"},
                    "steps": [{"enqueue": "a"}]}
        line, _ = normalise(delivery)
        out = driver.mode_scenario(line, "durable", "/tmp/x/2.durable")
        self.assertEqual(out["queue"], {"overflow": "reject", "queue_path": "/tmp/x/2.durable"})
        self.assertEqual(out["steps"], line["steps"])
        self.assertNotIn("handles", out)

    def test_which_scenarios_run_in_which_mode(self):
        left_out = next(iter(driver.NOT_IN_MODE["shared"]))
        scenarios = {"a": dict(GATE, id="a"), "b": dict(GATE, id="b", expect_error={"status": "x"}),
                     "c": {"id": "c", "component": "delivery"}, left_out: dict(GATE, id=left_out),
                     "e": {"id": "e", "component": "backoff"}}
        runs = driver.plan_runs(scenarios, sorted(scenarios), ["shared", "durable"])
        self.assertEqual([key for key, _, _ in runs], ["a", "a [shared]", "b", "c", "c [durable]", "e", left_out])
        self.assertEqual([key for key, _, _ in driver.plan_runs(scenarios, ["a"], [])], ["a"])

    def test_the_list_of_left_out_scenarios_must_name_scenarios_of_the_mode(self):
        problems = []
        scenarios = {sid: {"component": "gate"} for sid in driver.NOT_IN_MODE["shared"]}
        driver.check_mode_exceptions(scenarios, problems)
        self.assertEqual(problems, [])
        driver.check_mode_exceptions({}, problems)
        self.assertEqual(len(problems), len(driver.NOT_IN_MODE["shared"]))

    def test_modes_are_on_when_the_core_has_their_setting(self):
        with tempfile.NamedTemporaryFile("w", suffix=".h") as table:
            table.write("    X(C, c, SHARED_PATH, shared_path, PATH, \"\", \"a file\")  \\\n")
            table.flush()
            self.assertEqual(driver.available_modes(table.name), ["shared"])
        self.assertEqual(driver.available_modes("/nonexistent"), [])

    def test_the_core_has_every_modes_setting(self):
        # Modes run when the core has their setting: a renamed setting must
        # not turn a mode off without a word.
        self.assertEqual(driver.available_modes(), list(driver.MODES))

    def run_shared(self, steps, normal_steps):
        scenario = GATE
        _, normal = driver.check_run(scenario, None, {"id": "g", "steps": normal_steps}, None)
        return driver.check_run(scenario, "shared", {"id": "g [shared]", "steps": steps}, normal)

    NORMAL = [{"outcome": "server_error"}, {"events": []}, {"stats": {"trips": 1}}]

    def test_a_shared_run_identical_to_the_normal_run_passes_without_the_slot_name(self):
        normal = [{"outcome": "server_error"}, {"events": [EVENT]}, {"stats": {"trips": 1}}]
        reasons, kept = self.run_shared([{"outcome": "server_error"}, {"events": [shared_line(EVENT)]},
                                         {"events": [shared_line(EVENT)]}, {"stats": {"trips": 1}}], normal)
        self.assertEqual(reasons, [])
        self.assertEqual(kept["steps"], normal)

    def test_a_shared_run_that_differs_from_the_normal_run_fails(self):
        reasons, _ = self.run_shared([{"outcome": "server_error"}, {"events": []}, {"events": []},
                                      {"stats": {"trips": 2}}], self.NORMAL)
        self.assertEqual(len(reasons), 1)
        self.assertTrue(reasons[0].startswith("differs from the normal run: /2/stats/trips"), reasons[0])

    def test_a_shared_run_that_prints_more_than_the_normal_run_fails(self):
        reasons, _ = self.run_shared([{"outcome": "server_error"}, {"events": []}, {"events": []},
                                      {"stats": {"trips": 1, "extra": 0}}], self.NORMAL)
        self.assertEqual(len(reasons), 1)
        self.assertIn("differs from the normal run", reasons[0])

    def test_handles_that_saw_different_events_fail(self):
        reasons, _ = self.run_shared([{"outcome": "server_error"}, {"events": []}, {"events": [shared_line(EVENT)]},
                                      {"stats": {"trips": 1}}], self.NORMAL)
        self.assertEqual(len(reasons), 1)
        self.assertTrue(reasons[0].startswith("step 1 (events): the other handle saw"), reasons[0])

    def test_a_line_without_the_slot_name_is_left_as_it_is_and_differs(self):
        normal = [{"outcome": "server_error"}, {"events": [EVENT]}, {"stats": {"trips": 1}}]
        reasons, _ = self.run_shared([{"outcome": "server_error"}, {"events": [EVENT]}, {"events": [EVENT]},
                                      {"stats": {"trips": 1}}], normal)
        self.assertEqual(reasons, [])  # the same line: nothing was taken off
        reasons, _ = self.run_shared([{"outcome": "server_error"}, {"events": [dict(EVENT, line="x: y")]},
                                      {"events": [dict(EVENT, line="x: y")]}, {"stats": {"trips": 1}}], normal)
        self.assertIn("differs from the normal run", reasons[0])

    def test_a_shared_run_with_a_missing_step_fails(self):
        reasons, _ = self.run_shared([{"outcome": "server_error"}, {"events": []}, {"stats": {"trips": 1}}],
                                     self.NORMAL)
        self.assertTrue(reasons and "step observations" in reasons[0], reasons)


if __name__ == "__main__":
    unittest.main()
