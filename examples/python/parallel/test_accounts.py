def test_a_locked_account_is_refused(me):
    me.load_scenario("locked-account")
    status, answer = me.new_challenge("locked@example.com")
    assert (status, answer["code"]) == (400, -2006)
    [entry] = me.journal(code=-2006)
    assert entry["user"] == "locked@example.com"


def test_a_rule_that_refuses_every_challenge_reaches_this_worker_alone(me):
    me.load_scenario({"name": "all-refused", "rules": [{"when": {"endpoint": "challenge"}, "respond": {"code": -2038}}]})
    status, answer = me.new_challenge("alice@example.com")
    assert (status, answer["code"]) == (400, -2038)
