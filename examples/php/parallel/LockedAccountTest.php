<?php

declare(strict_types=1);

require_once __DIR__ . '/WorkerTestCase.php';

final class LockedAccountTest extends WorkerTestCase
{
    public function testANewChallengeIsAccepted(): void
    {
        [$status, $answer] = self::$me->newChallenge('user@example.com');
        $this->assertSame([202, 2025], [$status, $answer['code']]);
    }

    public function testALockedAccountIsRefused(): void
    {
        // Bound to this worker's API user: the other workers go on under their own scenarios.
        self::$me->loadScenario('locked-account');
        [$status, $answer] = self::$me->newChallenge('locked@example.com');
        $this->assertSame([400, -2006], [$status, $answer['code']]);
        [$entry] = self::$me->journal(['code' => -2006]);
        $this->assertSame('locked@example.com', $entry['user']);
    }
}
