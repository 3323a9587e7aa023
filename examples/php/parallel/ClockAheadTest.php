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

    public function testAScriptedPersonAnswersOnThisWorkersOwnClock(): void
    {
        // approve@ (any domain) is a person who approves 1 s after the challenge is made; no control call needed.
        [$status, $answer] = self::$me->newChallenge('approve@example.com');
        $this->assertSame([202, 2025], [$status, $answer['code']]);
        $challengeId = json_decode($answer['message'], true)['challengeId'];
        $this->assertSame(-3091, self::$me->status('approve@example.com', $challengeId)[1]['code']);
        self::$me->advance('2s'); // this worker's clock only; the other workers' time does not move
        [$status, $answer] = self::$me->status('approve@example.com', $challengeId);
        $this->assertSame([200, 3080], [$status, $answer['code']]);
    }
}
