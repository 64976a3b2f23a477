"""Issue 14 item 16: bad input of a Python type no scenario can carry is
refused, never converted silently (the conformance scenarios under
settings/bad-input and gate/bad-input hold the rest equal across languages)."""
import pytest

import respite


@pytest.mark.parametrize("status", [503.5, "503", 503.0])
def test_a_status_that_is_not_an_int_is_refused_not_truncated(status):
    with pytest.raises(TypeError):
        respite.classify(status)
    gate = respite.Gate()
    with pytest.raises(TypeError):
        gate.report_status(status, now=1.0)
    assert gate.stats().reported == 0


def test_a_status_beyond_c_int_is_refused_not_wrapped():
    with pytest.raises(OverflowError):
        respite.classify(2**70)


def test_none_is_no_text_to_the_core_not_the_default():
    with pytest.raises(respite.InvalidSettingError) as caught:
        respite.Gate(recovery_seconds=None)
    assert caught.value.setting == "recovery_seconds"
    assert str(caught.value).endswith("(got nothing (NULL))")


def test_profile_empty_and_of_another_component_are_the_cores_errors():
    with pytest.raises(respite.InvalidSettingError) as empty:
        respite.Gate(profile="")
    assert empty.value.setting == "component" and str(empty.value).endswith("(got '')")
    with pytest.raises(respite.InvalidSettingError) as other:
        respite.Gate(profile="backoff")
    assert str(other.value) == "settings must be gate settings (got backoff settings)"


def test_a_disposition_number_is_the_cores_to_word_never_minus_one():
    queue = respite.Queue()
    try:
        queue.enqueue(b"e1", now=1.0)
        batch = queue.take(now=1.0)
        with pytest.raises(respite.InvalidArgumentError) as caught:
            batch.settle(0, 99)
        assert str(caught.value).endswith("(got 99)")
        assert batch.settle(0, "delivered") == "delivered"
        batch.close()
    finally:
        queue.close()


@pytest.mark.parametrize("permit, error", [(1.5, TypeError), (2**70, OverflowError)])
def test_a_permit_that_is_not_an_int64_is_refused_not_truncated(permit, error):
    gate = respite.Gate()
    try:
        with pytest.raises(error):
            gate.report("success", permit=permit, now=1.0)
        assert gate.stats().reported == 0
    finally:
        gate.close()


def test_an_outcome_number_gets_the_cores_numeric_message():
    gate = respite.Gate()
    try:
        with pytest.raises(respite.InvalidArgumentError) as caught:
            gate.report(9, now=1.0)
        assert str(caught.value).endswith("(got 9)") and "respite_outcome from 0 to 5" in str(caught.value)
    finally:
        gate.close()
