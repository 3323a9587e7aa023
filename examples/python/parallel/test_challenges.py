import json


def test_a_challenge_is_created_then_cancelled(me):
    status, answer = me.new_challenge("bob@example.com")
    assert (status, answer["code"]) == (202, 2025)
    challenge_id = json.loads(answer["message"])["challengeId"]
    status, answer = me.cancel("bob@example.com", challenge_id)
    assert (status, answer["code"]) == (202, 2028)


def test_an_approved_challenge(me, control):
    status, answer = me.new_challenge("carol@example.com")
    challenge_id = json.loads(answer["message"])["challengeId"]
    assert control.approve(challenge_id)["state"] == "approved"
