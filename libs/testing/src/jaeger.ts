import { spawn, type ChildProcess } from 'node:child_process';
import { resolve, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';
import { buildGoProgram } from './go-build';
import { RigError, stopProcess } from './process';

const jaegerDir = resolve(fileURLToPath(import.meta.url), '../../../../test/jaeger');

/** jaegerBinary is where the pinned Jaeger all-in-one is built (test/jaeger, github.com/jaegertracing/jaeger v1.75.0). */
export const jaegerBinary = join(jaegerDir, 'bin', 'jaeger-all-in-one');

/** buildJaeger builds the pinned Jaeger all-in-one (collector, in-memory storage, query API) when its go.mod changed. */
export function buildJaeger(log?: (line: string) => void): Promise<string> {
  return buildGoProgram({
    dir: jaegerDir,
    binary: jaegerBinary,
    label: 'jaeger',
    firstBuildNote: 'Jaeger v1.75.0 all-in-one from the Go module proxy; about 1,400 packages, 49 minutes the first time on two cores at load 25, seconds later',
    package: 'github.com/jaegertracing/jaeger/cmd/all-in-one',
  }, log);
}

/** JaegerSpan is a span as Jaeger's query API returns it (the fields the tests read). */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  /** Microseconds since the epoch. */
  startTime: number;
  duration: number;
  tags: { key: string; type: string; value: unknown }[];
  processID: string;
}

/** JaegerTrace is one trace: its spans and the processes (service name, resource tags) they came from. */
export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: { key: string; value: unknown }[] }>;
}

/** TestJaeger is a real Jaeger on loopback, spans kept in memory. */
export interface TestJaeger {
  /** The OTLP/HTTP traces URL: http://127.0.0.1:PORT/v1/traces. */
  otlpTracesUrl: string;
  /** The query API and UI: http://127.0.0.1:PORT. */
  queryUrl: string;
  /** trace reads one trace by id; undefined while Jaeger has none of its spans. */
  trace(traceId: string): Promise<JaegerTrace | undefined>;
  /** traces lists the newest traces of a service (at most `limit`). */
  traces(service: string, limit?: number): Promise<JaegerTrace[]>;
  stop(): Promise<void>;
}

/**
 * startJaeger starts the pinned Jaeger all-in-one with every listener on a free loopback port
 * (OTLP over HTTP and gRPC, the query API, the admin port and the legacy collector ports) and
 * in-memory storage, ready when its admin health check answers.
 */
export async function startJaeger(options: { binary?: string } = {}): Promise<TestJaeger> {
  const binary = options.binary ?? jaegerBinary;
  const ports: number[] = [];
  // One at a time, and each unlike the ones before: seven listeners must not be handed one port twice.
  while (ports.length < 7) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const [otlpHttp, otlpGrpc, query, queryGrpc, admin, collectorHttp, collectorGrpc] = ports as [number, number, number, number, number, number, number];
  const at = (port: number) => `127.0.0.1:${port}`;
  const args = [
    `--collector.otlp.enabled=true`,
    `--collector.otlp.http.host-port=${at(otlpHttp)}`,
    `--collector.otlp.grpc.host-port=${at(otlpGrpc)}`,
    `--query.http-server.host-port=${at(query)}`,
    `--query.grpc-server.host-port=${at(queryGrpc)}`,
    `--admin.http.host-port=${at(admin)}`,
    `--collector.http-server.host-port=${at(collectorHttp)}`,
    `--collector.grpc-server.host-port=${at(collectorGrpc)}`,
  ];
  const child: ChildProcess = spawn(binary, args, { env: { PATH: process.env.PATH ?? '', SPAN_STORAGE_TYPE: 'memory' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => { tail = `${tail}${chunk.toString()}`.slice(-3000); };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const spawned = new Promise<void>((done, fail) => {
    child.once('spawn', () => done());
    child.once('error', (error) => fail(new RigError(`Jaeger is not built at ${binary} (${error.message}). Run scripts/build-testenv test-only, which builds test/jaeger.`)));
  });
  await spawned;
  const queryUrl = `http://${at(query)}`;
  try {
    await waitForHealth(`http://${at(admin)}/`, child, () => tail);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  const getJson = async (path: string): Promise<unknown> => {
    const response = await fetch(`${queryUrl}${path}`, { signal: AbortSignal.timeout(10_000) });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new RigError(`Jaeger ${path} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
    return response.json();
  };
  return {
    otlpTracesUrl: `http://${at(otlpHttp)}/v1/traces`,
    queryUrl,
    trace: async (traceId) => ((await getJson(`/api/traces/${traceId}`)) as { data?: JaegerTrace[] } | undefined)?.data?.[0],
    traces: async (service, limit = 20) => ((await getJson(`/api/traces?service=${encodeURIComponent(service)}&limit=${limit}&lookback=1h`)) as { data?: JaegerTrace[] } | undefined)?.data ?? [],
    stop: () => stopProcess(child),
  };
}

async function waitForHealth(url: string, child: ChildProcess, tail: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new RigError(`jaeger-all-in-one exited with code ${child.exitCode} before it was ready: ${tail()}`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(async (response) => response.ok && (await response.text()).includes('Server available'), () => false);
    if (ok) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new RigError(`jaeger-all-in-one did not answer ${url} within 120 s: ${tail()}`);
}
