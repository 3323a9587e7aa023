// A simulator for the growth table: startSimulator() in a process of its own with a world of the size asked for
// (API users, rules that never match, accounts with some globs), printing its URL. argv[2] is that size as JSON.
import { startSimulator } from '../dist/index.js';

const spec = JSON.parse(process.argv[2]);
// The first 64 API users are the benchmark's own (the load signs as them), then as many more as asked.
const apiUsers = Array.from({ length: spec.users }, (_, i) =>
  i < 64
    ? { id: `90000${String(i).padStart(4, '0')}`, secret: `bench-secret-${i}` }
    : { id: String(800_000_000 + i), secret: `bench-secret-${i}` },
);
// Rules on a header no request sends: each is looked at and passed by every request.
const rules = Array.from({ length: spec.rules }, (_, i) => ({
  when: { headers: { [`x-bench-rule-${i}`]: 'never' } },
  respond: { code: -5000 },
}));
// Accounts: one in a hundred is a glob; none matches the load's user, so every glob is tried.
const accounts = {};
for (let i = 0; i < spec.accounts; i++)
  accounts[i % 100 === 0 ? `*@glob-${i}.example` : `user-${i}@accounts.example`] =
    i % 100 === 0 ? 'disabled' : 'locked';
const sim = await startSimulator({ name: 'growth', apiUsers, rules, accounts, port: 0 });
process.stdout.write(`mfa-sim listening on ${sim.url}\n`);
process.on('SIGTERM', () => sim.close(0).then(() => process.exit(0)));
