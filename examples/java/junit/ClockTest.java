package mfasim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MfaSim.class)
class ClockTest {
  static MfaSim.Claimed me;

  @BeforeAll static void claim() throws Exception { me = MfaSim.claimApiUser(); }
  @BeforeEach void freshWorld() throws Exception { me.loadScenario("default"); }
  @AfterAll static void release() throws Exception { me.release(); }

  @Test void aClientClockTenMinutesBehindIsADriftError() throws Exception {
    assertEquals(-4036, me.time(-600_000).code());
  }

  @Test void theTimeWithARightClock() throws Exception {
    assertEquals(15000, me.time(0).code());
  }

  @Test void aScriptedPersonAnswersOnThisWorkersOwnClock() throws Exception {
    // approve@ (any domain) is a person who approves 1 s after the challenge is made; no control call needed.
    MfaSim.Answer made = me.newChallenge("approve@example.com");
    assertEquals(2025, made.code());
    String id = made.challengeId();
    assertEquals(-3091, me.status("approve@example.com", id).code());
    me.advance("2s"); // this worker's clock only; the other workers' time does not move
    assertEquals(3080, me.status("approve@example.com", id).code());
  }
}
