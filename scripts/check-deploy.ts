/**
 * Checks the deployment recipes of deploy/ without running them (no container engine runs where mfa-sim is built),
 * offline (.ci/run):
 *
 * - compose.yaml against the Compose Specification's JSON schema: scripts/compose-spec.json, a copy of
 *   compose-go v2.13.0's schema/compose-spec.json (commit 0670a1c375c19defea19147bd82eb126a7c33b29, Apache-2.0),
 *   the schema Docker Compose itself validates with; then what the recipe promises (below).
 * - kubernetes.yaml: each object against the Kubernetes API's OpenAPI schemas (kubernetes-models: types, formats,
 *   required fields), and against its TypeScript types for fields Kubernetes does not know (a misspelt key, which
 *   those schemas let through, as the API server's strict field validation would not); then what it promises.
 * - The load balancer's configuration with `haproxy -c` (its server names need not resolve: init-addr none).
 *
 * What both recipes promise: Redis, three replicas of the image of the root Dockerfile on it (MFA_SIM_STORE), the
 * control token from outside the file, every container with an image, the health route probed, and one address in
 * front that spreads requests over the replicas.
 *
 *   tsx scripts/check-deploy.ts [folder]     exit 0 when everything passes, 1 listing every problem
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

const REPLICAS = 3;
const HEALTH = '/__sim/health';
const STORE = /^redis:\/\/([a-z0-9.-]+):6379\/0$/;

/** The YAML documents of a file, or the parser's errors (a duplicate key is one). */
function documents(file: string, problems: string[]): Json[] {
  const out: Json[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'), { uniqueKeys: true })) {
    for (const e of doc.errors) problems.push(`${e.message.split('\n')[0]} (YAML)`);
    if (doc.errors.length === 0 && doc.contents !== null) out.push(obj(doc.toJS()));
  }
  return out;
}

/** An environment as a map, whether given as one or as a list of NAME=value. */
function composeEnvironment(v: unknown): Record<string, string> {
  if (Array.isArray(v)) return Object.fromEntries(v.map((e) => String(e).split(/=(.*)/s, 2) as [string, string]));
  return Object.fromEntries(Object.entries(obj(v)).map(([k, e]) => [k, String(e)]));
}

function checkCompose(dir: string, file: string, problems: string[]): void {
  const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'compose-spec.json'), 'utf8')) as Json;
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  const parsed = documents(file, problems);
  if (problems.length) return; // what is not YAML has nothing more to say
  for (const compose of parsed) {
    if (!validate(compose))
      for (const e of validate.errors ?? [])
        problems.push(
          `${e.instancePath || '/'} ${e.message}${e.keyword === 'additionalProperties' ? `: ${String(e.params.additionalProperty)}` : ''} (Compose Specification)`,
        );
    const services = obj(compose.services);
    const names = Object.keys(services);
    const redis = names.filter((n) => /^redis:/.test(String(obj(services[n]).image)));
    if (redis.length === 0) problems.push('no service runs the redis image');
    for (const name of redis)
      if (!isObject(obj(services[name]).healthcheck)) problems.push(`services.${name}: Redis has no healthcheck`);
    const sims = names.filter((n) => 'MFA_SIM_STORE' in composeEnvironment(obj(services[n]).environment));
    if (sims.length === 0) problems.push('no service has MFA_SIM_STORE in its environment');
    for (const [name, raw] of Object.entries(services)) {
      const s = obj(raw);
      const at = `services.${name}`;
      if (s.image === undefined && s.build === undefined) problems.push(`${at}: neither an image nor a build`);
      const dependsOn = obj(
        Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, {}])) : s.depends_on,
      );
      for (const d of Object.keys(dependsOn))
        if (!names.includes(d)) problems.push(`${at}.depends_on: no service ${d}`);
      for (const v of list(s.volumes)) {
        const source = typeof v === 'string' ? v.split(':')[0] : String(obj(v).source);
        if (/^\.{1,2}\//.test(source) && !existsSync(resolve(dir, source)))
          problems.push(`${at}.volumes: ${source} does not exist`);
      }
    }
    for (const name of sims) {
      const s = obj(services[name]);
      const at = `services.${name}`;
      const build = typeof s.build === 'string' ? { context: s.build } : obj(s.build);
      const text = (v: unknown, otherwise: string) => (typeof v === 'string' ? v : otherwise);
      const dockerfile = resolve(dir, text(build.context, '.'), text(build.dockerfile, 'Dockerfile'));
      if (s.build === undefined || dockerfile !== resolve(import.meta.dirname, '..', 'Dockerfile'))
        problems.push(`${at}: not built from the repository's root Dockerfile`);
      if (obj(s.deploy).replicas !== REPLICAS)
        problems.push(`${at}.deploy.replicas: ${JSON.stringify(obj(s.deploy).replicas)}, not ${REPLICAS}`);
      const env = composeEnvironment(s.environment);
      const store = STORE.exec(env.MFA_SIM_STORE ?? '');
      if (!store || !redis.includes(store[1]))
        problems.push(`${at}: MFA_SIM_STORE is not redis://<the Redis service>:6379/0`);
      if (!/^\$\{MFA_SIM_CONTROL_TOKEN[:?}]/.test(env.MFA_SIM_CONTROL_TOKEN ?? ''))
        problems.push(`${at}: MFA_SIM_CONTROL_TOKEN is not taken from the environment`);
      if (!env.MFA_SIM_ALLOWED_HOSTS) problems.push(`${at}: no MFA_SIM_ALLOWED_HOSTS (docs/containers.md)`);
      if (!list(obj(s.healthcheck).test).join(' ').includes(`http://127.0.0.1:8080${HEALTH}`))
        problems.push(`${at}.healthcheck: does not get http://127.0.0.1:8080${HEALTH}`);
      for (const r of redis)
        if (obj(obj(s.depends_on)[r]).condition !== 'service_healthy')
          problems.push(`${at}.depends_on: not on ${r} being service_healthy`);
    }
    const balancers = names.filter((n) => /^(haproxy|nginx):/.test(String(obj(services[n]).image)));
    if (
      !balancers.some((n) => list(obj(services[n]).ports).some((p) => /^(\d+\.\d+\.\d+\.\d+:)?8080:/.test(String(p))))
    )
      problems.push('no load balancer (haproxy or nginx) publishes port 8080');
  }
}

/** The models of the kinds a recipe may hold, by apiVersion and kind. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'apps/v1 StatefulSet': StatefulSet,
  'v1 Service': Service,
  'v1 Secret': Secret,
  'v1 ConfigMap': ConfigMap,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
};

/**
 * The fields of each object that its kind does not have, and values of the wrong type, as TypeScript sees them
 * (kubernetes-models' declarations, an object literal per object: excess properties are errors).
 */
function typeErrors(objects: Json[], names: string[]): string[] {
  const file = join(import.meta.dirname, '__check-deploy__.ts');
  const chunks = objects.map(
    (o, i) =>
      `import type { I${String(o.kind)} as T${i} } from 'kubernetes-models/${String(o.apiVersion)}/${String(o.kind)}';\n` +
      `export const o${i}: T${i} = ${JSON.stringify(o, null, 1)};\n`,
  );
  const source = chunks.join('');
  // The line each object's chunk starts on, to say which object a diagnostic is about.
  const starts = chunks.map((_, i) => chunks.slice(0, i).join('').split('\n').length - 1);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) =>
    resolve(name) === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const index = starts.filter((start) => start <= line).length - 1;
    const what = index < 0 ? 'the file' : names[index];
    return `${what}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')} (Kubernetes types)`;
  });
}

function checkKubernetes(file: string, problems: string[]): void {
  const objects = documents(file, problems);
  if (problems.length) return; // what is not YAML has nothing more to say
  const names = objects.map((o) => `${String(o.kind)} ${String(obj(o.metadata).name)}`);
  const known = objects.filter((o, i) => {
    const Model = MODELS[`${String(o.apiVersion)} ${String(o.kind)}`];
    if (!Model) problems.push(`${names[i]}: not a kind this check knows (${Object.keys(MODELS).join(', ')})`);
    else
      try {
        new Model(o as never).validate();
      } catch (e) {
        problems.push(`${names[i]}: ${(e as Error).message} (Kubernetes OpenAPI schema)`);
      }
    return Model !== undefined;
  });
  problems.push(
    ...typeErrors(
      known,
      names.filter((_, i) => known.includes(objects[i])),
    ),
  );

  const workloads = objects.filter((o) => /^(Deployment|StatefulSet)$/.test(String(o.kind)));
  const services = objects.filter((o) => o.kind === 'Service');
  const labelsOf = (w: Json) => obj(obj(obj(obj(w.spec).template).metadata).labels);
  const containersOf = (w: Json) => list(obj(obj(obj(w.spec).template).spec).containers).map(obj);
  const selects = (service: Json, w: Json) => {
    const selector = Object.entries(obj(obj(service.spec).selector));
    return selector.length > 0 && selector.every(([k, v]) => labelsOf(w)[k] === v);
  };
  const serviceOf = (w: Json) => services.find((s) => selects(s, w));
  for (const w of workloads) {
    const at = `${String(w.kind)} ${String(obj(w.metadata).name)}`;
    const matchLabels = Object.entries(obj(obj(obj(w.spec).selector).matchLabels));
    if (matchLabels.length === 0 || !matchLabels.every(([k, v]) => labelsOf(w)[k] === v))
      problems.push(`${at}: spec.selector does not select its own pods' labels`);
    const pod = obj(obj(obj(w.spec).template).spec);
    for (const c of containersOf(w)) {
      const cat = `${at}, container ${String(c.name)}`;
      if (typeof c.image !== 'string' || c.image === '') problems.push(`${cat}: no image`);
      for (const kind of ['requests', 'limits'])
        for (const resource of ['cpu', 'memory'])
          if (obj(obj(c.resources)[kind])[resource] === undefined)
            problems.push(`${cat}: no resources.${kind}.${resource}`);
      if (obj(c.securityContext).runAsNonRoot !== true && obj(pod.securityContext).runAsNonRoot !== true)
        problems.push(`${cat}: not runAsNonRoot`);
    }
  }
  const redis = workloads.filter((w) => containersOf(w).some((c) => /^redis:/.test(String(c.image))));
  if (redis.length === 0) problems.push('no Deployment or StatefulSet runs the redis image');
  const redisNames = redis.map((w) => String(obj(serviceOf(w)?.metadata).name));
  const sims = workloads.filter((w) =>
    containersOf(w).some((c) => list(c.env).some((e) => obj(e).name === 'MFA_SIM_STORE')),
  );
  if (sims.length === 0) problems.push('no Deployment or StatefulSet has MFA_SIM_STORE in its environment');
  for (const w of sims) {
    const at = `${String(w.kind)} ${String(obj(w.metadata).name)}`;
    if (obj(w.spec).replicas !== REPLICAS)
      problems.push(`${at}: spec.replicas is ${JSON.stringify(obj(w.spec).replicas)}, not ${REPLICAS}`);
    for (const c of containersOf(w)) {
      const cat = `${at}, container ${String(c.name)}`;
      const env = new Map(list(c.env).map((e) => [String(obj(e).name), obj(e)]));
      const store = STORE.exec(String(env.get('MFA_SIM_STORE')?.value));
      if (!store || !redisNames.includes(store[1]))
        problems.push(`${cat}: MFA_SIM_STORE is not redis://<the Redis Service>:6379/0`);
      if (!isObject(obj(env.get('MFA_SIM_CONTROL_TOKEN')?.valueFrom).secretKeyRef))
        problems.push(`${cat}: MFA_SIM_CONTROL_TOKEN is not taken from a Secret`);
      if (!env.has('MFA_SIM_ALLOWED_HOSTS')) problems.push(`${cat}: no MFA_SIM_ALLOWED_HOSTS (docs/containers.md)`);
      const ports = list(c.ports).map(obj);
      for (const probe of ['readinessProbe', 'livenessProbe']) {
        const get = obj(obj(c[probe]).httpGet);
        const port = ports.find((p) => p.name === get.port)?.containerPort ?? get.port;
        if (get.path !== HEALTH || port !== 8080) problems.push(`${cat}: ${probe} does not get ${HEALTH} on port 8080`);
      }
    }
    const service = serviceOf(w);
    if (!service) problems.push(`${at}: no Service selects its pods`);
  }
}

/** The configuration as `haproxy -c` sees it: an error or a warning is a problem. */
function checkHaproxy(file: string, problems: string[]): void {
  let output: string;
  try {
    output = execFileSync('haproxy', ['-c', '-f', file], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    const { code, stdout, stderr } = e as { code?: string; stdout?: string; stderr?: string };
    if (code === 'ENOENT') return void problems.push('haproxy is not installed (apt-get install haproxy)');
    output = `${stdout ?? ''}${stderr ?? ''}`;
    if (!/\[(ALERT|WARNING)\]/.test(output)) problems.push(`${output.trim()} (haproxy -c)`);
  }
  for (const m of output.matchAll(/^\[(ALERT|WARNING)\]\s*(?:\(\d+\)\s*)?:\s*(.*)$/gm))
    problems.push(`${m[2].replace(`${file}:`, 'line ')} (haproxy -c)`);
}

if (process.argv[1] && /check-deploy\.ts$/.test(process.argv[1])) {
  const dir = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'deploy'));
  const failed: string[] = [];
  for (const [name, check] of [
    ['compose.yaml', (f: string, p: string[]) => checkCompose(dir, f, p)],
    ['kubernetes.yaml', checkKubernetes],
    ['haproxy.cfg', checkHaproxy],
  ] as const) {
    const file = join(dir, name);
    const problems: string[] = [];
    if (!existsSync(file)) problems.push('missing');
    else check(file, problems);
    const shown = relative(process.cwd(), file);
    if (problems.length) failed.push(`${shown}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    else process.stdout.write(`${shown}: passes\n`);
  }
  if (failed.length) {
    process.stderr.write(`${failed.join('\n')}\n`);
    process.exit(1);
  }
}
