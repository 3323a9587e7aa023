"""Tests of a client's error paths against mfa-sim, with unittest (pytest runs them as they are).

    npm install                      # installs mfa-sim beside the tests, as package.json lists it
    python3 -m unittest -v test_mfa

A scenario is loaded before each test, and the simulator runs with --require-coverage: it judges the whole run, so
it exits 0 only when the tests together met every required code.
"""
import unittest
import urllib.error

from mfa_sim import Simulator

# Every code these tests together must meet; one never met makes the simulator exit 3 at the end.
REQUIRED = [2025, -2006, -4036, -5000]


class MfaSimTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Simulator(secret="python-secret", args=("--require-coverage", ",".join(map(str, REQUIRED))))

    @classmethod
    def tearDownClass(cls):
        status = cls.sim.stop()
        if status != 0:
            raise AssertionError(f"mfa-sim exited with {status}:\n{cls.sim.output}")

    def setUp(self):
        # A scenario per test: the world (challenges, journal, replay memory, clock) starts afresh; the run goes on.
        self.sim.load_scenario("default")

    def test_a_new_challenge_is_accepted(self):
        status, answer = self.sim.new_challenge("user@example.com")
        self.assertEqual((status, answer["code"]), (202, 2025))
        self.assertIn("challengeId", answer["message"])

    def test_a_locked_account_is_refused(self):
        self.sim.load_scenario("locked-account")
        status, answer = self.sim.new_challenge("locked@example.com")
        self.assertEqual((status, answer["code"]), (400, -2006))
        # The journal shows what the client sent.
        [entry] = self.sim.journal(code=-2006)
        self.assertEqual(entry["user"], "locked@example.com")
        self.assertIn("x-svc-cnonce", entry["request"]["headers"])

    def test_a_server_clock_ahead_is_a_drift_error(self):
        self.sim.load_scenario("clock-ahead")
        status, answer = self.sim.time()
        self.assertEqual((status, answer["code"]), (400, -4036))

    def test_a_flaky_network_resets_then_fails_then_works(self):
        self.sim.load_scenario("flaky-network")
        with self.assertRaises((ConnectionError, urllib.error.URLError)):
            self.sim.new_challenge("user@example.com")
        status, page = self.sim.new_challenge("user@example.com")
        self.assertEqual(status, 503)
        self.assertIn("503", page)
        status, answer = self.sim.new_challenge("user@example.com")
        self.assertEqual((status, answer["code"]), (202, 2025))

    def test_a_rule_forces_any_code(self):
        self.sim.load_scenario({"name": "down", "rules": [{"when": {"endpoint": "time"}, "respond": {"code": -5000}}]})
        status, answer = self.sim.time()
        self.assertEqual((status, answer["code"]), (500, -5000))


    def test_the_gate_names_a_code_never_met(self):
        # The verdict the simulator would give if it stopped now, asked for one more code than the tests meet. It runs
        # after the tests above (unittest's order is by name, pytest's by place), so only that one is missing.
        verdict = self.sim.verdict(require=REQUIRED + [-4035])
        self.assertEqual((verdict["status"], verdict["unmet"]), (3, [-4035]))
        self.assertEqual(verdict["lines"][0], "coverage: 1 of 5 required codes were never answered: -4035")

    def test_a_simulator_stopped_before_a_required_code_was_met_exits_3(self):
        other = Simulator(secret="another-secret", args=("--require-coverage", "-4035"))
        self.assertEqual(other.stop(), 3)
        self.assertIn("1 of 1 required codes were never answered: -4035", other.output)


if __name__ == "__main__":
    unittest.main()
