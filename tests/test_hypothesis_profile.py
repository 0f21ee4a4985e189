"""The property tests' settings do not depend on how fast the machine is (tests/conftest.py)."""

import time

from hypothesis import HealthCheck, given, settings, strategies as st


def test_property_tests_have_no_wall_clock_deadline_nor_speed_health_check():
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


paused = []


@settings(max_examples=2, database=None)
@given(st.integers())
def test_an_example_paused_by_a_loaded_machine_does_not_fail_the_test(n):
    if not paused:  # once, as when another process takes the core: past hypothesis's default 200 ms
        paused.append(n)
        time.sleep(0.3)
