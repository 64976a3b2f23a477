import pytest

import respite


@pytest.fixture
def gate():
    g = respite.Gate(failures_to_enter_recovery=3, failures_window_seconds=10, recovery_seconds=60)
    yield g
    g.close()
