import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { mustCode } from '../contract/codes.js';
import { envelopeJson } from '../contract/response.js';
import { DEFAULT_HOST, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, type StartOptions } from '../simulator/options.js';
import { scenarioOnce } from '../contract/arguments.js';
import { Simulator } from '../simulator/simulator.js';
import { Replicas } from '../simulator/replicas.js';
import { changesOf } from '../simulator/changes.js';
import { ControlError, OptionsError } from '../contract/errors.js';
import { ProxyMode } from '../proxy/proxy.js';
import { answerInternalError, listenerOf, serveApi } from './app.js';

/** A running simulator, as `startSimulator` resolves it: its address, and the control operations as methods. */
export interface RunningSimulator extends SimulatorControl {
  /** Base URL, e.g. `http://127.0.0.1:43817`. */
  url: string;
  port: number;
  host: string;
  /** The identifier token in force. */
  token: string;
  /** The API user to sign with when the scenario lists none (its secret is generated unless given). */
  apiUser: { id: string; secret: string };
  /** The simulator itself: scenarios, clock, journal, challenges, coverage. */
  simulator: Simulator;
  /** The control API's token, when it needs one (listening beyond loopback). */
  controlToken?: string;
  /** Stops listening; in-flight requests get up to `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/** What Node's parser refuses, as the service's transport codes (any other refusal: -400). */
const TRANSPORT_ERRORS: Record<string, number> = { HPE_HEADER_OVERFLOW: -431, ERR_HTTP_REQUEST_TIMEOUT: -408 };

/** Starts a simulator listening on HTTP. Options take the shape of a scenario file (or a path to one). */
export async function startSimulator(options: StartOptions | string = {}): Promise<RunningSimulator> {
  // Read once: the options a caller passed are plain data from here on (arguments.ts).
  const opts: StartOptions = typeof options === 'string' ? { scenario: options } : scenarioOnce(options, 'options');
  const sim = new Simulator(opts);
  // Proxy mode (src/proxy/): the API is forwarded to the operator's upstream instead of answered here.
  const proxy =
    opts.upstream === undefined
      ? undefined
      : new ProxyMode(sim, { ...opts, upstream: opts.upstream }, { serveApi, answerInternalError });
  const serve = listenerOf(sim, proxy && ((req, res) => proxy.serve(req, res)));
  const requestTimeout = opts.requestTimeout ?? REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(opts.headersTimeout ?? HEADERS_TIMEOUT_MS, requestTimeout);
  // Timeouts are checked this often: the default (30 s) would let a slow client hold a connection far past them.
  const connectionsCheckingInterval = Math.max(250, Math.min(headersTimeout, 5000) / 4);
  const limits = { requestTimeout, headersTimeout, connectionsCheckingInterval, requireHostHeader: false };
  const server = createServer(limits, serve);
  // An `Expect` other than 100-continue is ignored and the request judged (Node would answer a bare 417).
  server.on('checkExpectation', serve);
  // An IPv6 address as URLs write it (`[::1]`, as the ready line prints it) is the same address.
  const host = (opts.host ?? DEFAULT_HOST).replace(/^\[([0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)\]$/, '$1');
  if (!isLoopback(host)) sim.secrets.needControlToken();
  if (opts.store !== undefined) {
    // A token each replica made up would let a control call through on one replica in three.
    if (!isLoopback(host) && opts.controlToken === undefined)
      throw new OptionsError([
        { path: ['controlToken'], message: 'is needed with store beyond loopback: give every replica the same one' },
      ]);
    sim.replicas = await Replicas.join(sim, opts.store, replicaOptions(opts), (line) =>
      process.stderr.write(`${line}\n`),
    );
  }
  sim.allowedHosts.add(host);
  answerTransportErrors(server, sim);
  server.listen(opts.port ?? 0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  sim.links.publicUrl ??= url;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    host,
    token: sim.token,
    apiUser: { id: sim.world.defaultApiUser.id, secret: sim.world.defaultApiUser.secret },
    simulator: sim,
    controlToken: sim.secrets.controlToken,
    ...controlMethods(sim),
    close(graceMs = 2000) {
      closing ??= new Promise<void>((resolve, reject) => {
        for (const s of sim.hanging) s.destroy();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        // Proxy mode's requests waiting for the upstream have the same grace, and are recorded once they end.
        const proxied = proxy?.close(graceMs);
        server.close(() => {
          clearTimeout(timer);
          sim.path.dropDelayed();
          sim.world.stop();
          void Promise.all([proxied, sim.replicas?.close()]).then(() => resolve(), reject);
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

/**
 * What replicas sharing a store must agree on, as the store keeps it for the next one to compare: every option that
 * changes what the simulated service answers (secrets as a hash only).
 */
function replicaOptions(opts: StartOptions): string {
  const own = new Set([
    'port',
    'host',
    'headersTimeout',
    'requestTimeout',
    'publicUrl',
    'allowedHosts',
    'scenarioDirs',
    'store',
  ]);
  const kept = Object.entries(opts)
    .filter(([key, value]) => value !== undefined && !own.has(key))
    .map(([key, value]): [string, unknown] =>
      key === 'secret' || key === 'controlToken'
        ? [
            key,
            `sha256:${createHash('sha256')
              .update(String(value as string))
              .digest('hex')
              .slice(0, 16)}`,
          ]
        : [key, value],
    )
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(Object.fromEntries(kept));
}

/** Whether an address is this machine only. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/i.test(host);
}

/** The control operations: Simulator's in-process methods, named as the control API's routes, one per route. */
const CONTROL_METHODS = [
  'loadScenario',
  'bindScenario',
  'unbindScenario',
  'claimApiUser',
  'releaseApiUser',
  'scenarios',
  'reset',
  'newRun',
  'challenges',
  'approve',
  'deny',
  'expire',
  'advance',
  'freeze',
  'unfreeze',
  'journal',
  'clearJournal',
  'coverage',
  'findings',
  'hints',
  'observerFailures',
  'report',
  'verdict',
] as const satisfies readonly (keyof Simulator)[];

/** The control operations of a simulator, as methods of the running one: the same as the `/__sim/` control API. */
export type SimulatorControl = Pick<Simulator, (typeof CONTROL_METHODS)[number]>;

/**
 * The simulator's own methods, bound to it (some are on its prototype). Sharing a store, one that changes the service
 * would change this replica alone: it says what to call instead.
 */
function controlMethods(sim: Simulator): SimulatorControl {
  const changes = changesOf(sim);
  const bound = CONTROL_METHODS.map((name) => {
    const method = (sim[name] as (...args: unknown[]) => unknown).bind(sim);
    if (!sim.replicas || !Object.hasOwn(changes, name)) return [name, method];
    const refuse = () => {
      throw new ControlError(
        409,
        `with a store, ${name} changes every replica through the store: await running.simulator.change('${name}', ...) or call the control API`,
      );
    };
    return [name, refuse];
  });
  return Object.fromEntries(bound) as SimulatorControl;
}

/** Bytes that are not HTTP, a header block over the limit, a request that does not arrive in time. */
function answerTransportErrors(server: Server, sim: Simulator): void {
  const endWith = (socket: Duplex, code: number) => {
    const { http, title } = mustCode(code);
    const style = sim.scenario.responseStyle;
    const body = envelopeJson(style, 'sim-transport', sim.now(), code, title, sim.links.base());
    const head = `HTTP/1.1 ${http} ${title}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}`;
    socket.end(`${head}\r\nConnection: close\r\n\r\n${body}`);
  };
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.bytesWritten)) return void socket.destroy();
    endWith(socket, TRANSPORT_ERRORS[err.code ?? ''] ?? -400);
  });
  // CONNECT (a proxy tunnel) is no method of the service: -405, where Node would drop the connection unanswered.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    endWith(socket, -405);
  });
}
