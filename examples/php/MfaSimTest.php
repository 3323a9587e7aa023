<?php
/**
 * Tests of a client's error paths against mfa-sim, with PHPUnit.
 *
 *     npm install                                    # installs mfa-sim beside the tests, as package.json lists it
 *     phpunit --do-not-cache-result MfaSimTest.php   # PHPUnit 9 or later; php-cli with its curl extension
 *
 * A scenario is loaded before each test, and the simulator runs with --require-coverage: it judges the whole run, so
 * it exits 0 only when the tests together met every required code.
 */

declare(strict_types=1);

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/MfaSim.php';

final class MfaSimTest extends TestCase
{
    /** Every code these tests together must meet; one never met makes the simulator exit 3 at the end. */
    private const REQUIRED = [2025, -2006, -4036, -5000, -4027];

    private static MfaSim $sim;

    public static function setUpBeforeClass(): void
    {
        self::$sim = new MfaSim(secret: 'php-secret', args: ['--require-coverage', implode(',', self::REQUIRED)]);
    }

    public static function tearDownAfterClass(): void
    {
        // Exit status 3 would mean a --require-coverage code was never met.
        self::assertSame(0, self::$sim->stop());
    }

    protected function setUp(): void
    {
        // A scenario per test: the world (challenges, journal, replay memory, clock) starts afresh; the run goes on.
        self::$sim->loadScenario('default');
    }

    public function testANewChallengeIsAccepted(): void
    {
        [$status, $answer] = self::$sim->newChallenge('user@example.com');
        $this->assertSame([202, 2025], [$status, $answer['code']]);
        $this->assertMatchesRegularExpression('/^[0-9a-f-]{36}$/', json_decode($answer['message'], true)['challengeId']);
    }

    public function testALockedAccountIsRefused(): void
    {
        self::$sim->loadScenario('locked-account');
        [$status, $answer] = self::$sim->newChallenge('locked@example.com');
        $this->assertSame([400, -2006], [$status, $answer['code']]);
        // The journal shows what the client sent.
        [$entry] = self::$sim->journal(['code' => -2006]);
        $this->assertSame('locked@example.com', $entry['user']);
        $this->assertArrayHasKey('x-svc-cnonce', $entry['request']['headers']);
    }

    public function testAServerClockAheadIsADriftError(): void
    {
        self::$sim->loadScenario('clock-ahead');
        [$status, $answer] = self::$sim->time();
        $this->assertSame([400, -4036], [$status, $answer['code']]);
    }

    public function testAFlakyNetworkResetsThenFailsThenWorks(): void
    {
        self::$sim->loadScenario('flaky-network');
        try {
            self::$sim->newChallenge('user@example.com');
            $this->fail('the first request was answered');
        } catch (RuntimeException $e) {
            $this->assertStringContainsString('POST /v1/svc/challenge', $e->getMessage());
        }
        [$status, $page] = self::$sim->newChallenge('user@example.com');
        $this->assertSame(503, $status);
        $this->assertStringContainsString('503', $page);
        [$status, $answer] = self::$sim->newChallenge('user@example.com');
        $this->assertSame([202, 2025], [$status, $answer['code']]);
    }

    public function testARuleForcesAnyCode(): void
    {
        self::$sim->loadScenario(['name' => 'down', 'rules' => [['when' => ['endpoint' => 'time'], 'respond' => ['code' => -5000]]]]);
        [$status, $answer] = self::$sim->time();
        $this->assertSame([500, -5000], [$status, $answer['code']]);
    }

    public function testTheClientDoctorNamesAWrongSigning(): void
    {
        // The published Python client's mistake, made in PHP: an HMAC-SHA256 where the HMAC-SHA512 belongs.
        $headers = self::$sim->signedHeaders();
        $toSign = "x-svc-utctime: {$headers['x-svc-utctime']}\nx-svc-cnonce: {$headers['x-svc-cnonce']}";
        $headers['Authorization'] = preg_replace('/signature=\w+$/', 'signature=' . hash_hmac('sha256', $toSign, 'php-secret'), $headers['Authorization']);
        [$status, $answer] = self::$sim->call('challenge', 150, ['svcUser' => 'user@example.com', 'challengeType' => 'UserKeyAndPattern'], $headers);
        $this->assertSame([400, -4027], [$status, $answer['code']]);
        $this->assertStringContainsString('Hint: signed with HMAC-SHA256: sign with HMAC-SHA512', $answer['message']);
    }

    public function testTheGateNamesACodeNeverMet(): void
    {
        // The verdict the simulator would give if it stopped now, asked for one more code than the tests meet. It
        // runs last (PHPUnit runs tests in the order of the class), so only that one is missing.
        $verdict = self::$sim->verdict([...self::REQUIRED, -4035]);
        $this->assertSame([3, [-4035]], [$verdict['status'], $verdict['unmet']]);
    }
}
