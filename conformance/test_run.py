"""Tests of the driver's own checks (conformance/run): what it hands runners
and what it finds in their results without them. Run by
scripts/test.d/90-conformance.sh: python3 conformance/test_run.py"""
import importlib.machinery
import importlib.util
import os
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


if __name__ == "__main__":
    unittest.main()
