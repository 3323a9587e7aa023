<?php
/**
 * Parallel PHPUnit workers on one simulator: starts `npx mfa-sim --require-coverage ...` once, runs each test class
 * of parallel/ in a phpunit process of its own, all at once (each claims an API user of its own), then stops the
 * simulator. Its exit status is the run's: 3 when a required code was met by no worker.
 *
 *     php parallel.php
 *
 * With paratest instead, start the simulator yourself and hand its URL to the workers:
 * `MFA_SIM_URL=http://127.0.0.1:8080 vendor/bin/paratest parallel`.
 */

declare(strict_types=1);

require_once __DIR__ . '/MfaSim.php';

/** Every code the workers together must meet. */
const REQUIRED = [2025, 15000, -2006, -4036];

$sim = new MfaSim(secret: 'php-runner-secret', args: ['--require-coverage', implode(',', REQUIRED)]);
$workers = [];
foreach (glob(__DIR__ . '/parallel/*Test.php') as $file) {
    $log = tempnam(sys_get_temp_dir(), 'phpunit-');
    $process = proc_open(
        ['phpunit', '--do-not-cache-result', $file],
        [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['redirect', 1]],
        $pipes,
        null,
        [...getenv(), 'MFA_SIM_URL' => $sim->url],
    );
    if ($process === false) {
        throw new RuntimeException("cannot start phpunit for {$file}");
    }
    $workers[basename($file)] = [$process, $log];
}
$failed = 0;
foreach ($workers as $name => [$process, $log]) {
    $status = proc_close($process);
    echo "--- {$name}: phpunit exited {$status}\n", file_get_contents($log);
    unlink($log);
    $failed += $status === 0 ? 0 : 1;
}
// 0, or 3 when a required code was never answered (to any worker).
$status = $sim->stop();
echo "mfa-sim exited {$status}\n";
exit($failed > 0 ? 1 : $status);
