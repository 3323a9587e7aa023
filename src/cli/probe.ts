import { FlagError, OptionsError } from '../contract/errors.js';
import { AFTER, DESCRIPTION, probeService, type ProbeOutput, type ProbeSettings } from '../proxy/probe.js';
import { FLAGS, helpText, parseFlags, type Flag } from './flags.js';

// `mfa-sim probe`: its flags, help and usage; the probe itself is src/proxy/probe.ts.
/** The probe's flags: the command line's, described for what they mean to the probe (same type, bounds, variable). */
const PROBE_FLAGS: Flag[] = Object.entries({
  upstream: 'the base URL of the service to probe',
  upstreamCa: "trust this private CA (a PEM file) for the service's TLS certificate, besides the system's",
  upstreamTimeout: 'ms the service has to answer each step whole (default 10000)',
  apiUser: 'the API user to sign as, 9 digits',
  secret: "that API user's secret",
  ...{ token: '', strict: '', responseStyle: '', help: '' },
}).map(([key, description]) => {
  const flag = FLAGS.find((f) => f.key === key)!;
  return { ...flag, description: description || flag.description };
});

/** `mfa-sim probe ...`: reads its flags and probes the service; resolves to the exit status. */
export async function probeCommand(args: readonly string[], env: NodeJS.ProcessEnv, io: ProbeOutput): Promise<number> {
  const usage = (message: string) => {
    io.err(`mfa-sim probe: ${message}\nRun 'mfa-sim probe --help' for the options.\n`);
    return 2;
  };
  try {
    const o = parseFlags(args, env, PROBE_FLAGS) as Partial<ProbeSettings> & { help?: boolean };
    if (o.help) {
      const line = 'mfa-sim probe --upstream <url> --api-user <id> --secret <secret> [options]';
      io.out(helpText(DESCRIPTION, AFTER, PROBE_FLAGS, line));
      return 0;
    }
    const missing = PROBE_FLAGS.filter((f) => ['upstream', 'apiUser', 'secret'].includes(f.key) && !(f.key in o));
    if (missing.length) return usage(`give ${missing.map((f) => `--${f.name}`).join(', ')}.`);
    return await probeService(o as ProbeSettings, io);
  } catch (e) {
    if (e instanceof FlagError) return usage(e.message);
    if (e instanceof OptionsError) return usage(e.message.replace(/^options: /, ''));
    throw e;
  }
}
