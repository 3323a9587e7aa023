package mfasim;

import java.io.BufferedReader;
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
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@code npx mfa-sim} for the whole JUnit 5 run, shared by every test class, however many run in parallel:
 * {@code @ExtendWith(MfaSim.class)} starts it once (in the root store) and stops it after the last test. Its exit
 * status judges the whole run ({@code --require-coverage}): one that is not 0 fails the run, naming why.
 * Each test class claims an API user of its own ({@link #claimApiUser()}).
 */
public final class MfaSim implements BeforeAllCallback {
  /** Every code the test classes together must meet. */
  static final String REQUIRED = "2025,2028,-2006,-4036,15000";
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static volatile Running running;

  @Override
  public void beforeAll(ExtensionContext context) {
    running = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class);
  }

  /** An API user of this test class's own: its own id, secret and scenario; its requests count towards the run. */
  public static Claimed claimApiUser() throws Exception {
    String answer = control("POST", "api-users", null);
    return new Claimed(field(answer, "apiUser"), field(answer, "secret"));
  }

  static String control(String method, String path, String json) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(running.url + "/__sim/" + path)).timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json");
    b.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() >= 400) throw new IllegalStateException("control API " + method + " " + path + ": " + r.statusCode() + " " + r.body());
    return r.body();
  }

  static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
    if (!m.find()) throw new IllegalStateException("no " + name + " in " + json);
    return m.group(1);
  }

  /** One test class's API user: sign as it, load scenarios for it, read its journal, release it. */
  public static final class Claimed {
    public final String apiUser;
    private final String secret;

    Claimed(String apiUser, String secret) {
      this.apiUser = apiUser;
      this.secret = secret;
    }

    /** For this API user only: its rules, challenges, replay memory and journal start afresh. */
    public void loadScenario(String name) throws Exception {
      control("PUT", "bindings/" + apiUser, "{\"name\":\"" + name + "\"}");
    }

    public String journal() throws Exception {
      return control("GET", "journal?apiUser=" + apiUser, null);
    }

    public void release() throws Exception {
      control("DELETE", "api-users/" + apiUser, null);
    }

    /**
     * This API user's clock as JSON ({@code now}, {@code iso}, {@code frozen}, {@code offsetMs}): its own once it moves
     * it, else the simulator's. Moving it moves no other test class's.
     */
    public String clock() throws Exception {
      return control("GET", "api-users/" + apiUser + "/clock", null);
    }

    /** Moves this API user's clock by {@code by} (90s, 10m, -1h); answers once every expiry and scripted answer due is done. */
    public String advance(String by) throws Exception {
      return control("POST", "api-users/" + apiUser + "/clock/advance", "{\"by\":\"" + by + "\"}");
    }

    /** Stops this API user's clock where it stands. */
    public String freeze() throws Exception {
      return control("POST", "api-users/" + apiUser + "/clock/freeze", "{}");
    }

    /** Lets this API user's clock run again. */
    public String unfreeze() throws Exception {
      return control("POST", "api-users/" + apiUser + "/clock/unfreeze", "{}");
    }

    public Answer time(long clockOffsetMs) throws Exception {
      return send("GET", "/v1/svc/time", null, clockOffsetMs);
    }

    public Answer newChallenge(String user) throws Exception {
      return post("challenge", 150, "{\"svcUser\":\"" + user + "\",\"challengeType\":\"UserKeyAndPattern\",\"enableQRcode\":false}");
    }

    public Answer status(String user, String challengeId) throws Exception {
      return post("status", 171, "{\"svcUser\":\"" + user + "\",\"challengeId\":\"" + challengeId + "\"}");
    }

    public Answer cancel(String user, String challengeId) throws Exception {
      return post("challenge", 151, "{\"svcUser\":\"" + user + "\",\"challengeId\":\"" + challengeId + "\",\"status\":\"CANCEL\"}");
    }

    Answer post(String endpoint, int type, String body) throws Exception {
      String envelope = "{\"id\":\"junit-" + java.util.UUID.randomUUID().toString().substring(0, 18) + "\",\"utctime\":\"" + System.currentTimeMillis() + "\",\"apiUser\":\"" + apiUser + "\",\"type\":" + type + ",\"body\":" + body + "}";
      return send("POST", "/v1/svc/" + endpoint, envelope, 0);
    }

    /** Signed as docs/signing.md describes, with this client's clock moved by {@code clockOffsetMs}. */
    Answer send(String method, String path, String body, long clockOffsetMs) throws Exception {
      String time = String.valueOf(System.currentTimeMillis() + clockOffsetMs);
      String nonce = UUID.randomUUID().toString();
      Mac mac = Mac.getInstance("HmacSHA512");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA512"));
      String signature = HexFormat.of().formatHex(mac.doFinal(("x-svc-utctime: " + time + "\nx-svc-cnonce: " + nonce).getBytes(StandardCharsets.UTF_8)));
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(running.url + path)).timeout(Duration.ofSeconds(10))
          .header("Content-Type", "application/json")
          .header("Authorization", "svc-hmac: apiuser=" + apiUser + ",signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature=" + signature)
          .header("x-svc-apiuser", apiUser).header("x-svc-utctime", time).header("x-svc-cnonce", nonce);
      b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
      HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    }
  }

  /** An answer: its HTTP status and body; {@code code()} reads the envelope's code. */
  public record Answer(int status, String body) {
    /** The challenge id of a new challenge's answer (its message is JSON text holding challengeId). */
    public String challengeId() {
      Matcher m = Pattern.compile("challengeId\\\\\":\\\\\"([^\\\\\"]+)").matcher(body);
      return m.find() ? m.group(1) : null;
    }

    public int code() {
      Matcher m = Pattern.compile("\"code\":(-?\\d+)").matcher(body);
      return m.find() ? Integer.parseInt(m.group(1)) : Integer.MIN_VALUE;
    }
  }

  /** The simulator process: closed by JUnit after the last test of the run, when its exit status is checked. */
  static final class Running implements ExtensionContext.Store.CloseableResource {
    final Process npx;
    final String url;
    final long pid;
    final StringBuilder output = new StringBuilder();

    private Running(Process npx, String url, long pid) {
      this.npx = npx;
      this.url = url;
      this.pid = pid;
    }

    static Running start() {
      try {
        // --no: never download (mfa-sim is a devDependency of this project); `--` ends npx's own options.
        Process npx = new ProcessBuilder("npx", "--no", "--", "mfa-sim", "--port", "0", "--require-coverage", REQUIRED).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(npx.getInputStream(), StandardCharsets.UTF_8));
        String url = null;
        long pid = 0;
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
        Running running = new Running(npx, url, pid);
        // Keep reading its log (never blocking it on a full pipe), and keep what it says for the verdict.
        Thread drain = new Thread(() -> out.lines().forEach(l -> {
          synchronized (running.output) {
            running.output.append(l).append('\n');
          }
        }));
        drain.setDaemon(true);
        drain.start();
        return running;
      } catch (Exception e) {
        throw new IllegalStateException("cannot start mfa-sim", e);
      }
    }

    /** SIGTERM to the simulator itself (under npx it is a grandchild); a status other than 0 fails the run. */
    @Override
    public void close() throws Exception {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
      if (!npx.waitFor(10, TimeUnit.SECONDS)) throw new IllegalStateException("mfa-sim did not stop");
      Thread.sleep(100); // the last lines of its output
      if (npx.exitValue() != 0) {
        synchronized (output) {
          String verdict = output.toString().lines().filter(l -> l.startsWith("mfa-sim: ") || l.startsWith("  ")).reduce("", (a, l) -> a + l + "\n");
          throw new AssertionError("mfa-sim exited with status " + npx.exitValue() + ":\n" + verdict);
        }
      }
    }
  }
}
