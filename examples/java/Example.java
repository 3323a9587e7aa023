import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Tests of a client's error paths against mfa-sim, in one source file: the JDK's HttpClient, no build tool.
 *
 * <pre>
 *   npm install          # installs mfa-sim beside the test, as package.json lists it
 *   java Example.java    # JDK 17 or later
 * </pre>
 *
 * A scenario is loaded before each test, and the simulator runs with --require-coverage: it judges the whole run,
 * so it exits 0 only when the tests together met every required code. In a JUnit suite, start the simulator in
 * {@code @BeforeAll}, load a scenario per test in {@code @BeforeEach}, and stop it in {@code @AfterAll}; each test
 * below is one {@code @Test}. For test classes in parallel on one simulator, see junit/MfaSim.java, and the
 * package's docs/python-and-java.md (node_modules/mfa-sim/docs/python-and-java.md).
 */
public class Example {
  static final String SECRET = "java-secret";
  static final String API_USER = "123456789";
  /** Every code these tests together must meet; one never met makes the simulator exit 3 at the end. */
  static final String REQUIRED = "2025,-2006,-4036";
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static Process npx;
  static String url;
  static long pid;

  public static void main(String[] args) throws Exception {
    start();
    int failed = 0;
    String[] tests = {"aNewChallengeIsAccepted", "aLockedAccountIsRefused", "aServerClockAheadIsADriftError", "aFlakyNetworkResetsThenFailsThenWorks", "theGateNamesACodeNeverMet"};
    try {
      for (String test : tests) {
        loadScenario("{\"name\":\"default\"}");
        try {
          Example.class.getDeclaredMethod(test).invoke(null);
          System.out.println("ok   " + test);
        } catch (java.lang.reflect.InvocationTargetException e) {
          failed++;
          System.out.println("FAIL " + test + ": " + e.getCause());
        }
      }
    } finally {
      int status = stop();
      System.out.println("mfa-sim stopped with exit status " + status);
      if (status != 0) failed++;
    }
    System.out.println(failed == 0 ? "all " + tests.length + " tests passed" : failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }

  // ---- The tests.

  static void aNewChallengeIsAccepted() throws Exception {
    Answer a = newChallenge("user@example.com");
    check(a.status() == 202 && a.code() == 2025, a);
  }

  static void aLockedAccountIsRefused() throws Exception {
    loadScenario("{\"name\":\"locked-account\"}");
    Answer a = newChallenge("locked@example.com");
    check(a.status() == 400 && a.code() == -2006, a);
    // The journal shows what the client sent.
    String journal = control("GET", "journal?code=-2006", null);
    check(journal.contains("\"user\":\"locked@example.com\"") && journal.contains("x-svc-cnonce"), journal);
  }

  static void aServerClockAheadIsADriftError() throws Exception {
    loadScenario("{\"name\":\"clock-ahead\"}");
    Answer a = send("GET", "/v1/svc/time", null);
    check(a.status() == 400 && a.code() == -4036, a);
  }

  static void aFlakyNetworkResetsThenFailsThenWorks() throws Exception {
    loadScenario("{\"name\":\"flaky-network\"}");
    try {
      Answer a = newChallenge("user@example.com");
      check(false, "expected the connection to be reset, got " + a);
    } catch (IOException reset) {
      // The first request is cut: a client must retry it with a fresh nonce and time.
    }
    Answer proxy = newChallenge("user@example.com");
    check(proxy.status() == 503 && proxy.body().contains("503"), proxy);
    Answer ok = newChallenge("user@example.com");
    check(ok.status() == 202 && ok.code() == 2025, ok);
  }

  static void theGateNamesACodeNeverMet() throws Exception {
    // The verdict the simulator would give if it stopped now, asked for one more code than the tests meet.
    String verdict = control("GET", "verdict?require=" + REQUIRED + ",-4035", null);
    check(verdict.contains("\"status\":3") && verdict.contains("\"unmet\":[-4035]"), verdict);
  }

  // ---- Signing, as docs/signing.md describes.

  static HttpRequest.Builder signed(HttpRequest.Builder b) throws Exception {
    String time = String.valueOf(System.currentTimeMillis());
    String nonce = UUID.randomUUID().toString();
    Mac mac = Mac.getInstance("HmacSHA512");
    mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA512"));
    String toSign = "x-svc-utctime: " + time + "\nx-svc-cnonce: " + nonce;
    String signature = HexFormat.of().formatHex(mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
    return b.header("Authorization", "svc-hmac: apiuser=" + API_USER + ",signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=" + signature)
        .header("x-svc-apiuser", API_USER)
        .header("x-svc-utctime", time)
        .header("x-svc-cnonce", nonce);
  }

  static Answer newChallenge(String user) throws Exception {
    String envelope = "{\"id\":\"java-" + java.util.UUID.randomUUID().toString().substring(0, 18) + "\",\"utctime\":\"" + System.currentTimeMillis() + "\",\"apiUser\":\"" + API_USER + "\",\"type\":150,"
        + "\"body\":{\"svcUser\":\"" + user + "\",\"challengeType\":\"UserKeyAndPattern\",\"enableQRcode\":false}}";
    return send("POST", "/v1/svc/challenge", envelope);
  }

  static Answer send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b = signed(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json"));
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  /** An answer: its HTTP status and body; {@code code()} reads the envelope's code. */
  record Answer(int status, String body) {
    int code() {
      Matcher m = Pattern.compile("\"code\":(-?\\d+)").matcher(body);
      return m.find() ? Integer.parseInt(m.group(1)) : Integer.MIN_VALUE;
    }
  }

  // ---- The control API.

  static String control(String method, String path, String json) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/__sim/" + path)).timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json");
    b.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() >= 400) throw new IllegalStateException("control API " + method + " " + path + ": " + r.statusCode() + " " + r.body());
    return r.body();
  }

  static void loadScenario(String json) throws Exception {
    control("POST", "scenario", json);
  }

  // ---- Starting and stopping npx mfa-sim.

  static void start() throws Exception {
    // --no: never download (mfa-sim is a devDependency of this project); `--` ends npx's own options.
    npx = new ProcessBuilder("npx", "--no", "--", "mfa-sim", "--port", "0", "--secret", SECRET, "--api-user", API_USER, "--require-coverage", REQUIRED).redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(npx.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while ((url == null || pid == 0) && System.nanoTime() < deadline) {
      String line = out.readLine();
      if (line == null) throw new IllegalStateException("mfa-sim exited before it was ready");
      Matcher listening = Pattern.compile("^mfa-sim listening on (http://\\S+)$").matcher(line);
      if (listening.find()) url = listening.group(1);
      Matcher p = Pattern.compile("^  pid (\\d+):").matcher(line);
      if (p.find()) pid = Long.parseLong(p.group(1));
    }
    if (url == null || pid == 0) throw new IllegalStateException("mfa-sim was not ready in 20 s");
    // Keep reading its log, so that it never blocks on a full pipe.
    Thread drain = new Thread(() -> out.lines().forEach(l -> {}));
    drain.setDaemon(true);
    drain.start();
  }

  /** SIGTERM to the simulator itself (under npx it is a grandchild), then npx's exit status, which is the simulator's. */
  static int stop() throws Exception {
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
    if (!npx.waitFor(10, TimeUnit.SECONDS)) throw new IllegalStateException("mfa-sim did not stop");
    return npx.exitValue();
  }

  static void check(boolean ok, Object what) {
    if (!ok) throw new AssertionError(String.valueOf(what));
  }
}
