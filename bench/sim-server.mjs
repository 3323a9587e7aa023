// The simulator as the soak runs it: startSimulator() in a process started with --expose-gc, so the memory
// it reports (on an IPC message "mem") is measured after a full collection.
import { startSimulator } from '../dist/index.js';

const scenario = process.argv[2];
const sim = await startSimulator({ scenario, port: 0 });
process.send?.({ url: sim.url });
process.on('message', (m) => {
  if (m !== 'mem') return;
  globalThis.gc?.();
  globalThis.gc?.();
  const u = process.memoryUsage();
  const replay = Object.values(sim.simulator.world.replayStats());
  process.send?.({
    rss: u.rss,
    heapUsed: u.heapUsed,
    replayEntries: replay.reduce((a, s) => a + s.entries, 0),
    replayBytes: replay.reduce((a, s) => a + s.bytes, 0),
    journal: sim.simulator.requestJournal.length,
    challenges: sim.simulator.challenges().length,
  });
});
process.on('SIGTERM', () => sim.close(0).then(() => process.exit(0)));
