"""Fixtures for the Peer-to-Peer tests.

- ``p2p_kernels``: every kernel piece the scenario tests call, compiled (or loaded from
  numba's cache) once per session with the types the tests use, so no single test pays
  for a compile. Use it with ``pytestmark = pytest.mark.usefixtures("p2p_kernels")``.
"""
import pytest
from p2p_state import warm_up


@pytest.fixture(scope="session")
def p2p_kernels():
    warm_up()
