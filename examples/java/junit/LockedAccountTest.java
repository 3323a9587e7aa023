package mfasim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MfaSim.class)
class LockedAccountTest {
  static MfaSim.Claimed me;

  @BeforeAll static void claim() throws Exception { me = MfaSim.claimApiUser(); }
  @BeforeEach void freshWorld() throws Exception { me.loadScenario("default"); }
  @AfterAll static void release() throws Exception { me.release(); }

  @Test void aLockedAccountIsRefused() throws Exception {
    me.loadScenario("locked-account");
    assertEquals(-2006, me.newChallenge("locked@example.com").code());
    assertTrue(me.journal().contains("\"code\":-2006"));
  }

  @Test void nothingAnotherClassSentIsInThisOnesJournal() throws Exception {
    me.newChallenge("alice@example.com");
    String journal = me.journal();
    assertEquals(1, journal.split("\"seq\":").length - 1, journal);
    assertTrue(journal.contains("\"apiUser\":\"" + me.apiUser + "\""));
  }
}
