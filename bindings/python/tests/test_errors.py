"""The exception hierarchy comes from the core's status table, and every
exception is built from the core's respite_error fields (status, message,
setting, retry_after), unchanged: the raw module raises the same."""
import math

import pytest

import respite
from respite import respite_swig as raw


def raw_error(fn, *args):
    """What the raw module raises for a call the core refuses."""
    with pytest.raises(respite.RespiteError) as info:
        fn(*args)
    return info.value


def same_error(a, b):
    assert type(a) is type(b) and str(a) == str(b) and a.status == b.status
    assert getattr(a, "setting", None) == getattr(b, "setting", None)


def test_every_status_has_a_class_named_after_it():
    names = [raw.respite_status_name(i) for i in range(raw.respite_status_count())]
    assert names[0] == "ok"
    for code, name in enumerate(names[1:], start=1):
        cls = respite.ERRORS_BY_STATUS[name]
        assert cls.__name__ == "".join(p.capitalize() for p in name.split("_")) + "Error"
        assert issubclass(cls, respite.RespiteError)
        assert cls.status == name and cls.code == code
        assert getattr(respite, cls.__name__) is cls
    assert set(respite.ERRORS_BY_STATUS) == set(names[1:])


def test_named_classes_are_the_generated_ones():
    assert respite.ERRORS_BY_STATUS["invalid_setting"] is respite.InvalidSettingError
    assert respite.ERRORS_BY_STATUS["temporarily_unavailable"] is respite.TemporarilyUnavailableError
    assert respite.ERRORS_BY_STATUS["invalid_policy"] is respite.InvalidPolicyError
    assert respite.ERRORS_BY_STATUS["closed"] is respite.ClosedError
    assert issubclass(respite.InvalidSettingError, ValueError)


@pytest.mark.parametrize("name,value", [
    ("failures_to_enter_recovery", 0), ("failures_to_enter_recovery", 1001), ("failures_to_enter_recovery", 2.5),
    ("failures_window_seconds", 0.0), ("recovery_multiplier", 0.5), ("jitter", 1.5), ("probes", -1),
    ("recovery_seconds", 86400.5), ("max_recovery_seconds", float("nan")),
])
def test_invalid_setting_message_is_the_cores(name, value):
    settings = raw.respite_settings_new("gate")
    try:
        setter = raw.respite_settings_set_integer if isinstance(value, int) else raw.respite_settings_set_number
        expected = raw_error(setter, settings, name, value)
    finally:
        raw.respite_settings_free(settings)
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Gate(**{name: value})
    same_error(info.value, expected)
    assert info.value.setting == name
    assert str(info.value).startswith(name + " ")


def test_integer_setting_message_names_range():
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Gate(failures_to_enter_recovery=0)
    assert str(info.value) == "failures_to_enter_recovery must be an integer from 1 to 1000 (got 0)"


def test_unknown_setting_and_profile():
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Gate(failures=3)
    assert info.value.setting == "failures"
    assert "failures_to_enter_recovery" in str(info.value)  # says what is accepted
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Gate(profile="fast")
    same_error(info.value, raw_error(raw.respite_settings_new, "fast"))


def test_the_setting_is_the_cores_field_not_read_from_the_message():
    # "probes" is a real setting; the unknown key is the whole "probes:x"
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Gate(**{"probes:x": 1})
    assert info.value.setting == "probes:x" and info.value.code == 2
    assert str(info.value).startswith("probes:x is not a gate setting (accepted: ")


def test_rules_between_settings_are_checked():
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Gate(recovery_seconds=100, recovery_multiplier=2, max_recovery_seconds=50)
    assert "max_recovery_seconds" in str(info.value)


def test_wrong_python_type_is_a_type_error():
    with pytest.raises(TypeError):
        respite.Gate(failures_to_enter_recovery=object())


def test_bool_for_a_number_setting_is_rejected_by_the_core():
    with pytest.raises(respite.InvalidSettingError):
        respite.Gate(jitter=True)


def test_refusal_message_and_retry_after(gate):
    for t in (0.0, 1.0, 2.0):
        gate.report("transport", now=t)
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        gate.acquire(now=14.0)
    assert info.value.retry_after == pytest.approx(48.0)
    assert str(info.value) == raw.respite_refusal_message(48.0)
    assert str(info.value) == ("sending requests to the service is temporarily restricted due to recent "
                               "failures; recovery resumes in 48.0s")
    # admit answers a refusal in one call: the raw module raises it with retry_after
    raw_refusal = raw_error(raw.respite_gate_admit, gate._own.ptr, 14.0)
    same_error(raw_refusal, info.value)
    assert raw_refusal.retry_after == info.value.retry_after


def test_recover_never_refusal_is_infinite():
    g = respite.Gate(failures_to_enter_recovery=1, recover_never=True)
    g.report("server_error", now=1.0)
    with pytest.raises(respite.TemporarilyUnavailableError) as info:
        g.acquire(now=1e6)
    assert math.isinf(info.value.retry_after)
    assert str(info.value) == raw.respite_refusal_message(math.inf)


def test_invalid_time_and_outcome():
    g = respite.Gate()
    with pytest.raises(respite.InvalidTimeError) as info:
        g.acquire(now=-1.0)
    assert "now" in str(info.value)
    with pytest.raises(respite.InvalidArgumentError) as info:
        g.report("fine")
    same_error(info.value, raw_error(raw.respite_outcome_from_name, "fine"))
    with pytest.raises(respite.InvalidArgumentError):
        respite.classify(700)


def test_settings_table_shows_exclusive_bounds():
    (row,) = [i for i in respite.settings_table("gate") if i.name == "failures_window_seconds"]
    assert (row.min, row.min_exclusive, row.max_exclusive) == (0.0, True, False)
    with pytest.raises(respite.InvalidSettingError) as info:
        respite.Gate(failures_window_seconds=row.min)  # the bound itself is excluded
    assert info.value.setting == "failures_window_seconds"
    assert respite.Gate(failures_window_seconds=row.max).settings["failures_window_seconds"] == row.max


def test_a_setting_reads_as_its_type_and_an_unknown_one_is_the_cores_error():
    gate = respite.Settings("gate", probes=3, honour_retry_after=False, name="billing")
    values = [gate.get(name) for name in ("probes", "failures_window_seconds", "honour_retry_after", "name")]
    assert values == [3, 100.0, False, "billing"]
    assert [type(v) for v in values] == [int, float, bool, str]
    assert respite.Settings("backoff").get("jitter") == "none"
    assert gate.to_dict()["probes"] == 3
    with pytest.raises(respite.InvalidSettingError) as info:
        gate.get("colour")
    assert info.value.setting == "colour"
