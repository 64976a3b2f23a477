"""E15: a NUL byte inside text never cuts it silently: the core refuses it."""
import pytest

import respite


def refused(what, shown):
    return f"{what} must be text without NUL bytes (got '{shown}')"


def test_a_nul_in_a_settings_value_or_name_is_refused():
    with pytest.raises(respite.InvalidArgumentError) as info:
        respite.Gate(recovery_seconds="5\x00junk")
    assert str(info.value) == refused("value", "5?junk")
    with pytest.raises(respite.InvalidArgumentError) as info:
        respite.Gate(**{"probes\x00junk": 1})
    assert str(info.value) == refused("name", "probes?junk")
    with pytest.raises(respite.InvalidArgumentError):
        respite.Settings("gate\x00", probes=1)
    assert respite.Gate(recovery_seconds="5").settings["recovery_seconds"] == 5.0  # without a NUL, as before


def test_a_nul_in_a_header_is_refused_and_drops_nothing(server):
    with respite.Client() as client:
        with pytest.raises(respite.InvalidArgumentError) as info:
            client.get(server.url, headers={"X-Trace": "a\x00b", "Authorization": "secret"})
        assert str(info.value) == refused("headers", "X-Trace: a?b?Authorization: secret")
        with pytest.raises(respite.InvalidArgumentError):
            client.get(server.url + "\x00/elsewhere")
    assert server.requests() == 0
    with respite.Sender(server.url) as sender:
        with pytest.raises(respite.InvalidArgumentError) as info:
            sender.add_header("Authorization", "secret\x00junk")
        assert str(info.value) == refused("value", "secret?junk")


def test_a_nul_in_a_policy_document_is_its_syntax_error():
    document = '{"name": "p", "maximum_capacity": 1, "error_handlers": [{"on": "any_error", "strategy": "discard"}]}'
    assert respite.Policy.from_json(document).name == "p"
    with pytest.raises(respite.InvalidPolicyError):
        respite.Policy.from_json(document + "\x00garbage")
