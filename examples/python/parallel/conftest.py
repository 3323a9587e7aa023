"""pytest-xdist: one simulator for every worker, started by the controller; each worker claims an API user of its own.

    python3 -m pytest -n 4 parallel          # needs pytest and pytest-xdist (pip, or Debian's python3-pytest-xdist)

The controller starts `npx mfa-sim --require-coverage ...` before the workers and stops it after them: its exit
status (3 when a required code was never answered by any worker) becomes the session's.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from mfa_sim import Control, Simulator  # noqa: E402

# Every code the workers together must meet.
REQUIRED = [2025, 2028, -2006, -4036, 15000]


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return  # a worker: the controller has started the simulator
    config.mfa_sim = Simulator(secret="controller-secret", args=("--require-coverage", ",".join(map(str, REQUIRED))))


def pytest_configure_node(node):
    """xdist: tells each worker where the simulator listens."""
    node.workerinput["mfa_sim_url"] = node.config.mfa_sim.url


def pytest_sessionfinish(session, exitstatus):
    sim = getattr(session.config, "mfa_sim", None)
    if sim is None:
        return
    status = sim.stop()
    if status != 0:
        print(f"\n{sim.output}", file=sys.stderr)
        session.exitstatus = status


@pytest.fixture(scope="session")
def control(request):
    workerinput = getattr(request.config, "workerinput", None)
    return Control(workerinput["mfa_sim_url"] if workerinput else request.config.mfa_sim.url)


@pytest.fixture(scope="session")
def me(control):
    """This worker's own API user, for all its tests; released at the end."""
    claimed = control.claim_api_user()
    yield claimed
    assert all(e["apiUser"] == claimed.api_user for e in claimed.journal())
    assert claimed.release()


@pytest.fixture(autouse=True)
def fresh_scenario(me):
    me.load_scenario("default")  # this worker's API user only: its world starts afresh; the run goes on
