// mfa-sim as the memory part runs it: startSimulator() (the built package) in a process started with --expose-gc,
// which reports its memory after a full collection on the IPC message "memory".
//   node --expose-gc bench/sim-server.mjs '<API users as JSON: [{"id","secret"}]>'
import { startSimulator } from '../dist/index.js';

const sim = await startSimulator({ name: 'bench', apiUsers: JSON.parse(process.argv[2]), port: 0 });
console.log(`mfa-sim listening on ${sim.url}`);
process.on('message', () => {
  globalThis.gc();
  const { rss, heapUsed } = process.memoryUsage();
  process.send({ rss, heap: heapUsed });
});
process.on('SIGTERM', () => sim.close(0).then(() => process.exit(0)));
