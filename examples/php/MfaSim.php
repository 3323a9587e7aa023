<?php
/**
 * A small helper for PHP tests against mfa-sim: start `npx mfa-sim`, sign requests, drive the control API, and give
 * each parallel worker an API user of its own.
 *
 * - `MfaSim`: `npx mfa-sim` in a process of its own, signing as its default API user.
 * - `MfaSimControl`: the control API of a simulator already running (a worker's view of the one its runner started).
 * - `ClaimedApiUser`: an API user of one worker's own, isolated from the others, with its own scenario and journal.
 *
 * PHP 8.1 or later with its curl extension, nothing else. Copy it into your project's tests; it is the recipe of the
 * package's docs/signing.md (node_modules/mfa-sim/docs/signing.md) in PHP.
 */

declare(strict_types=1);

/** Requests to a simulator, JSON in and out, over curl. */
trait SendsJson
{
    /**
     * One request; returns [HTTP status, the JSON answer, or its text when it is not JSON]. A connection that breaks
     * (a reset, a hang past the timeout) throws a RuntimeException.
     */
    protected function send(string $method, string $path, ?array $body, array $headers): array
    {
        $curl = curl_init($this->url . $path);
        $lines = ['Accept: application/json'];
        foreach ($headers as $name => $value) {
            $lines[] = "{$name}: {$value}";
        }
        if ($body !== null) {
            $lines[] = 'Content-Type: application/json';
            curl_setopt($curl, CURLOPT_POSTFIELDS, json_encode($body, JSON_THROW_ON_ERROR));
        }
        curl_setopt_array($curl, [CURLOPT_CUSTOMREQUEST => $method, CURLOPT_HTTPHEADER => $lines, CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 10]);
        $text = curl_exec($curl);
        if ($text === false) {
            $error = curl_error($curl);
            curl_close($curl);
            throw new RuntimeException("{$method} {$path}: {$error}");
        }
        $status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        curl_close($curl);
        $json = json_decode($text, true);
        return [$status, json_last_error() === JSON_ERROR_NONE ? $json : $text];
    }
}

/** The simulated API, signed as the service requires, as the API user `$apiUser` with its `$secret`. */
trait SignsRequests
{
    /** The four authentication headers: HMAC-SHA512 of the two header lines, keyed with the secret, as hex. */
    public function signedHeaders(?string $utctime = null, ?string $nonce = null): array
    {
        $utctime ??= (string) (int) floor(microtime(true) * 1000);
        $nonce ??= self::uuid4();
        $signature = hash_hmac('sha512', "x-svc-utctime: {$utctime}\nx-svc-cnonce: {$nonce}", $this->secret);
        return [
            'Authorization' => "svc-hmac: apiuser={$this->apiUser},signedheaders=x-svc-utctime;x-svc-cnonce,algorithm=svc-hmac512,signature={$signature}",
            'x-svc-apiuser' => $this->apiUser,
            'x-svc-utctime' => $utctime,
            'x-svc-cnonce' => $nonce,
        ];
    }

    /** POST an envelope to /v1/svc/<path>; returns [HTTP status, the answer envelope]. */
    public function call(string $path, int $type, array $body, array $headers = []): array
    {
        $sign = $this->signedHeaders();
        $envelope = ['id' => 'php-' . bin2hex(random_bytes(10)), 'utctime' => $sign['x-svc-utctime'], 'apiUser' => $this->apiUser, 'type' => $type, 'body' => $body];
        return $this->send('POST', "/v1/svc/{$path}", $envelope, [...$sign, ...$headers]);
    }

    public function newChallenge(string $user, array $headers = []): array
    {
        return $this->call('challenge', 150, ['svcUser' => $user, 'challengeType' => 'UserKeyAndPattern', 'enableQRcode' => false], $headers);
    }

    public function status(string $user, string $challengeId): array
    {
        return $this->call('status', 171, ['svcUser' => $user, 'challengeId' => $challengeId]);
    }

    public function time(): array
    {
        return $this->send('GET', '/v1/svc/time', null, $this->signedHeaders());
    }

    private static function uuid4(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr(ord($bytes[6]) & 0x0f | 0x40);
        $bytes[8] = chr(ord($bytes[8]) & 0x3f | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }
}

/** The control API of a simulator that is running (`/__sim/`, docs/control-api.md). */
class MfaSimControl
{
    use SendsJson;

    public function __construct(public readonly string $url)
    {
    }

    public function control(string $method, string $path, ?array $body = null): mixed
    {
        [$status, $answer] = $this->send($method, "/__sim/{$path}", $body, []);
        if ($status >= 400) {
            throw new RuntimeException("control API {$method} {$path}: {$status} " . json_encode($answer));
        }
        return $answer;
    }

    /** The active scenario for every API user not claimed: the world starts afresh; the run goes on. */
    public function loadScenario(string|array $nameOrScenario): mixed
    {
        return $this->control('POST', 'scenario', self::scenario($nameOrScenario));
    }

    public function journal(array $query = []): array
    {
        return $this->control('GET', 'journal?' . http_build_query($query));
    }

    /** The exit status the simulator would give now for the whole run (0, 3, 4 or 5), with `lines` saying why and `unmet`. */
    public function verdict(array $require = []): array
    {
        return $this->control('GET', 'verdict?' . http_build_query($require === [] ? [] : ['require' => implode(',', $require)]));
    }

    /**
     * An API user of this worker's own: its own id, secret and scenario (default: the active one as it is now); its
     * requests count towards the run's coverage and findings.
     */
    public function claimApiUser(string|array|null $scenario = null): ClaimedApiUser
    {
        return new ClaimedApiUser($this, $this->control('POST', 'api-users', $scenario === null ? null : self::scenario($scenario)));
    }

    /** A scenario as the control API takes it: a name, or the whole scenario. */
    public static function scenario(string|array $nameOrScenario): array
    {
        return is_string($nameOrScenario) ? ['name' => $nameOrScenario] : $nameOrScenario;
    }
}

/** `npx mfa-sim` in a process of its own, listening on a free port of 127.0.0.1, signing as its default API user. */
final class MfaSim extends MfaSimControl
{
    use SignsRequests;

    public readonly int $pid;
    /** @var resource */
    private $process;
    /** @var resource */
    private $output;

    public function __construct(public readonly string $secret, public readonly string $apiUser = '123456789', array $args = [])
    {
        // --no: never download (mfa-sim is a devDependency of this project); `--` ends npx's own options.
        $command = ['npx', '--no', '--', 'mfa-sim', '--port', '0', '--secret', $secret, '--api-user', $apiUser, ...$args];
        $process = proc_open($command, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
        if ($process === false) {
            throw new RuntimeException('cannot start npx mfa-sim');
        }
        fclose($pipes[0]);
        $this->process = $process;
        $this->output = $pipes[1];
        [$url, $this->pid] = $this->waitUntilReady();
        parent::__construct($url);
    }

    /** @return array{string, int} the base URL and the simulator's own PID, from the lines it prints first. */
    private function waitUntilReady(): array
    {
        $url = $pid = null;
        $deadline = microtime(true) + 20;
        while (($url === null || $pid === null) && microtime(true) < $deadline) {
            $read = [$this->output];
            $none = null;
            if (stream_select($read, $none, $none, 1) !== 1) {
                continue;
            }
            $line = fgets($this->output);
            if ($line === false) {
                throw new RuntimeException('mfa-sim exited before it was ready (' . proc_close($this->process) . ')');
            }
            if (preg_match('/^mfa-sim listening on (http:\/\/\S+)$/', rtrim($line), $m)) {
                $url = $m[1];
            }
            if (preg_match('/^  pid (\d+):/', $line, $m)) {
                $pid = (int) $m[1];
            }
        }
        if ($url === null || $pid === null) {
            throw new RuntimeException('mfa-sim was not ready in 20 s');
        }
        return [$url, $pid];
    }

    /** SIGTERM to the simulator itself (under npx it is a grandchild), then its exit status. */
    public function stop(): int
    {
        posix_kill($this->pid, SIGTERM);
        // Read what is left, so that the process is not held on a full pipe, until it closes.
        while (!feof($this->output)) {
            fgets($this->output);
        }
        fclose($this->output);
        return proc_close($this->process);
    }
}

/** One parallel worker's API user: sign with it, load scenarios for it, read its journal, release it. */
final class ClaimedApiUser
{
    use SendsJson;
    use SignsRequests;

    public readonly string $url;
    public readonly string $apiUser;
    public readonly string $secret;

    /** `$claim`: the control API's answer to the claim (`POST /__sim/api-users`). */
    public function __construct(private readonly MfaSimControl $control, array $claim)
    {
        ['url' => $this->url, 'apiUser' => $this->apiUser, 'secret' => $this->secret] = $claim;
    }

    /** For this API user only: its rules, challenges, replay memory and journal start afresh. */
    public function loadScenario(string|array $nameOrScenario): mixed
    {
        return $this->control->control('PUT', "bindings/{$this->apiUser}", MfaSimControl::scenario($nameOrScenario));
    }

    /** This API user's requests since its last scenario load. */
    public function journal(array $query = []): array
    {
        return $this->control->journal(['apiUser' => $this->apiUser, ...$query]);
    }

    /** Whether it was still claimed: it is no longer known, and its challenges and replay memory go. */
    public function release(): bool
    {
        return $this->control->control('DELETE', "api-users/{$this->apiUser}")['released'];
    }

    /**
     * This API user's clock (`now`, `iso`, `frozen`, `offsetMs`): its own once it moves it, else the simulator's.
     * Moving it moves no other worker's.
     */
    public function clock(): array
    {
        return $this->control->control('GET', "api-users/{$this->apiUser}/clock");
    }

    /** Moves this API user's clock by `$by` (90s, 10m, -1h, or ms); answers once everything due is done. */
    public function advance(string|int $by): array
    {
        return $this->control->control('POST', "api-users/{$this->apiUser}/clock/advance", ['by' => $by]);
    }

    /** Stops this API user's clock, at `$at` (ISO 8601 or epoch ms) or where it stands. */
    public function freeze(string|int|null $at = null): array
    {
        return $this->control->control('POST', "api-users/{$this->apiUser}/clock/freeze", $at === null ? null : ['at' => $at]);
    }

    /** Lets this API user's clock run again. */
    public function unfreeze(): array
    {
        return $this->control->control('POST', "api-users/{$this->apiUser}/clock/unfreeze");
    }
}
