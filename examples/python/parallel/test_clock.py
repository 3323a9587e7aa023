import time


def test_a_client_clock_behind_is_a_drift_error(me):
    status, answer = me.time(utctime=int(time.time() * 1000) - 600_000)
    assert (status, answer["code"]) == (400, -4036)


def test_the_journal_holds_this_test_only(me):
    status, answer = me.time()
    assert (status, answer["code"]) == (200, 15000)
    assert [e["code"] for e in me.journal()] == [15000]
