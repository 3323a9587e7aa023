<?php
/**
 * A test class run as a parallel worker: it claims an API user of its own on the simulator the runner started
 * (`MFA_SIM_URL`), loads a scenario for it before each test, and releases it at the end. Workers never see each
 * other's scenarios, challenges or journal; their requests count together towards the run's coverage.
 */

declare(strict_types=1);

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../MfaSim.php';

abstract class WorkerTestCase extends TestCase
{
    protected static ClaimedApiUser $me;

    public static function setUpBeforeClass(): void
    {
        $url = getenv('MFA_SIM_URL') ?: throw new RuntimeException('MFA_SIM_URL is not set: run these with php parallel.php');
        static::$me = (new MfaSimControl($url))->claimApiUser();
    }

    protected function setUp(): void
    {
        // This worker's API user only: its world starts afresh; the run goes on.
        static::$me->loadScenario('default');
    }

    public static function tearDownAfterClass(): void
    {
        // The journal of this API user holds its own requests (of its last test) and no other worker's.
        $journal = static::$me->journal();
        self::assertNotEmpty($journal);
        foreach ($journal as $entry) {
            self::assertSame(static::$me->apiUser, $entry['apiUser']);
        }
        self::assertTrue(static::$me->release());
    }
}
