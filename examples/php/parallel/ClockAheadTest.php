<?php

declare(strict_types=1);

require_once __DIR__ . '/WorkerTestCase.php';

final class ClockAheadTest extends WorkerTestCase
{
    public function testTheTimeIsAnswered(): void
    {
        [$status, $answer] = self::$me->time();
        $this->assertSame([200, 15000], [$status, $answer['code']]);
    }

    public function testAServerClockAheadIsADriftError(): void
    {
        self::$me->loadScenario('clock-ahead');
        [$status, $answer] = self::$me->time();
        $this->assertSame([400, -4036], [$status, $answer['code']]);
    }
}
