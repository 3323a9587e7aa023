import json
import time


def test_a_client_clock_behind_is_a_drift_error(me):
    status, answer = me.time(utctime=int(time.time() * 1000) - 600_000)
    assert (status, answer["code"]) == (400, -4036)


def test_the_journal_holds_this_test_only(me):
    status, answer = me.time()
    assert (status, answer["code"]) == (200, 15000)
    assert [e["code"] for e in me.journal()] == [15000]


def test_a_scripted_person_answers_on_this_workers_own_clock(me):
    # approve@ (any domain) is a person who approves 1 s after the challenge is made; no control call needed.
    status, answer = me.new_challenge("approve@example.com")
    assert (status, answer["code"]) == (202, 2025)
    challenge_id = json.loads(answer["message"])["challengeId"]
    assert me.status("approve@example.com", challenge_id)[1]["code"] == -3091  # still waiting
    me.advance("2s")  # this worker's clock only; the other workers' time does not move
    status, answer = me.status("approve@example.com", challenge_id)
    assert (status, answer["code"]) == (200, 3080)
