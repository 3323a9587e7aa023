package mfasim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MfaSim.class)
class ChallengeTest {
  static MfaSim.Claimed me;

  @BeforeAll static void claim() throws Exception { me = MfaSim.claimApiUser(); }
  @BeforeEach void freshWorld() throws Exception { me.loadScenario("default"); }
  @AfterAll static void release() throws Exception { me.release(); }

  @Test void aChallengeIsCreatedThenCancelled() throws Exception {
    MfaSim.Answer created = me.newChallenge("bob@example.com");
    assertEquals(2025, created.code());
    String challengeId = MfaSim.field(created.body().replace("\\\"", "\""), "challengeId");
    assertEquals(2028, me.cancel("bob@example.com", challengeId).code());
  }

  @Test void aRuleThatRefusesEveryChallengeReachesThisClassAlone() throws Exception {
    MfaSim.control("PUT", "bindings/" + me.apiUser, "{\"scenario\":{\"name\":\"all-refused\",\"rules\":[{\"when\":{\"endpoint\":\"challenge\"},\"respond\":{\"code\":-2038}}]}}");
    assertEquals(-2038, me.newChallenge("carol@example.com").code());
  }
}
