"""Tests of a client's error paths against mfa-sim, with unittest (pytest runs them as they are).

    npm install                      # installs mfa-sim beside the tests, as package.json lists it
    python3 -m unittest -v test_mfa
"""
import unittest
import urllib.error

from mfa_sim import Simulator


class MfaSimTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Simulator(secret="python-secret")

    @classmethod
    def tearDownClass(cls):
        status = cls.sim.stop()
        if status != 0:
            raise AssertionError(f"mfa-sim exited with {status}")

    def setUp(self):
        # A scenario per test: the world (challenges, journal, replay memory, clock) starts afresh.
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


if __name__ == "__main__":
    unittest.main()
