import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';
import { buildGoProgram } from './go-build';
import { RigError, run, stopProcess } from './process';
import { waitForPort } from './redis';
import { makeTestCa, type TestCa } from './test-ca';

const ociDir = resolve(fileURLToPath(import.meta.url), '../../../../test/oci-registry');

/** registryBinary is the CNCF distribution registry (test/oci-registry, github.com/distribution/distribution/v3 v3.1.2). */
export const registryBinary = join(ociDir, 'bin', 'registry');
/** orasBinary is the oras CLI (oras.land/oras v1.3.6), the real client that pushes artifacts in the tests. */
export const orasBinary = join(ociDir, 'bin', 'oras');
const htpasswdBinary = join(ociDir, 'bin', 'htpasswd');

/** buildOciRegistry builds the pinned registry, oras and the htpasswd helper when test/oci-registry changed. */
export async function buildOciRegistry(log?: (line: string) => void): Promise<string> {
  const note = 'from the Go module proxy; a few minutes the first time on two cores, seconds later';
  await buildGoProgram({ dir: ociDir, binary: registryBinary, label: 'oci-registry', firstBuildNote: `distribution v3.1.2 ${note}`, package: 'github.com/distribution/distribution/v3/cmd/registry' }, log);
  await buildGoProgram({ dir: ociDir, binary: orasBinary, label: 'oras', firstBuildNote: `oras v1.3.6 ${note}`, package: 'oras.land/oras/cmd/oras' }, log);
  await buildGoProgram({ dir: ociDir, binary: htpasswdBinary, label: 'htpasswd', firstBuildNote: 'a bcrypt htpasswd line maker, seconds', package: './htpasswd' }, log);
  return ociDir;
}

export interface StartOciRegistryOptions {
  /** The CA that signs the registry's certificate. @defaultValue a new one, removed at stop */
  ca?: TestCa;
  /** A storage folder another registry uses too (a second front on the same blobs). @defaultValue its own */
  storageDir?: string;
  /** Blob downloads answer 307 to this base URL (distribution's redirect storage middleware), as registries on S3 or a CDN do. */
  redirectBlobsTo?: string;
  /**
   * The registry token flow instead of htpasswd: clients are sent to `realm` for a JWT, which the
   * registry checks against the keys in `jwksFile` (a JSON Web Key Set). @defaultValue htpasswd auth
   */
  tokenAuth?: { realm: string; service: string; issuer: string; jwksFile: string };
  /** The login oras and `registryConfig` use (and htpasswd holds). @defaultValue a new random one */
  user?: { username: string; password: string };
}

/** TestOciRegistry is a real distribution registry on loopback over TLS with htpasswd (bcrypt) auth, or the token flow. */
export interface TestOciRegistry {
  /** 127.0.0.1:PORT, as oras and helm name it. */
  host: string;
  /** https://127.0.0.1:PORT */
  origin: string;
  /** The CA's certificate file, and its PEM text (what a source's oci.certificateAuthority holds). */
  caFile: string;
  caPem: string;
  ca: TestCa;
  storageDir: string;
  /** The one user of the registry's htpasswd file (with tokenAuth, whatever the token service accepts). */
  user: { username: string; password: string };
  /** oci://127.0.0.1:PORT/<repository> */
  url(repository: string): string;
  /** oras runs the oras CLI logged in as the user, trusting the test CA; it returns stdout. */
  oras(args: string[], options?: { cwd?: string }): Promise<string>;
  /** registryConfig is a Docker-style config.json with the user's login, for `helm --registry-config`. */
  registryConfig: string;
  stop(): Promise<void>;
}

/**
 * startOciRegistry starts the pinned registry on a free loopback port: TLS with a certificate the
 * test CA signed for 127.0.0.1 and localhost, htpasswd auth with one bcrypt user made at start,
 * filesystem storage in a temporary folder. Ready when its TLS port answers /v2/ with 401.
 */
export async function startOciRegistry(options: StartOciRegistryOptions = {}): Promise<TestOciRegistry> {
  await run(registryBinary, ['--version']).catch((error: unknown) => {
    throw new RigError(`the OCI registry is not built at ${registryBinary} (${error instanceof Error ? error.message.slice(0, 200) : String(error)}). Run scripts/build-testenv.ts test-only, which builds test/oci-registry.`);
  });
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-oci-'));
  const ownCa = options.ca === undefined;
  const ca = options.ca ?? (await makeTestCa('Tidemark OCI test CA'));
  const certificate = await ca.issue('registry', ['127.0.0.1', 'localhost']);
  const port = await freePort();
  const user = options.user ?? { username: 'tidemark', password: randomBytes(12).toString('hex') };
  const htpasswd = await run(htpasswdBinary, [user.username], { input: `${user.password}\n` });
  await writeFile(join(dir, 'htpasswd'), htpasswd);
  const storageDir = options.storageDir ?? join(dir, 'data');
  const middleware = options.redirectBlobsTo ? `middleware:\n  storage:\n    - name: redirect\n      options:\n        baseurl: ${options.redirectBlobsTo}\n` : '';
  await writeFile(join(dir, 'config.yml'), [
    'version: 0.1',
    'log:\n  level: warn\n  accesslog:\n    disabled: true',
    `storage:\n  filesystem:\n    rootdirectory: ${storageDir}\n  delete:\n    enabled: true`,
    `http:\n  addr: 127.0.0.1:${port}\n  secret: ${randomBytes(16).toString('hex')}\n  tls:\n    certificate: ${certificate.certFile}\n    key: ${certificate.keyFile}`,
    options.tokenAuth
      ? `auth:\n  token:\n    realm: ${options.tokenAuth.realm}\n    service: ${options.tokenAuth.service}\n    issuer: ${options.tokenAuth.issuer}\n    jwks: ${options.tokenAuth.jwksFile}`
      : `auth:\n  htpasswd:\n    realm: tidemark-test\n    path: ${join(dir, 'htpasswd')}`,
    middleware,
  ].join('\n'));
  const child: ChildProcess = spawn(registryBinary, ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OTEL_TRACES_EXPORTER: 'none' } });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  await waitForPort(port, 20_000, child).catch(async (error: unknown) => {
    await stopProcess(child);
    throw new RigError(`the OCI registry did not start: ${log.trim()}`, { cause: error });
  });
  const host = `127.0.0.1:${port}`;
  const registryConfig = join(dir, 'config.json');
  await writeFile(registryConfig, JSON.stringify({ auths: { [host]: { auth: Buffer.from(`${user.username}:${user.password}`).toString('base64') } } }));
  return {
    host,
    origin: `https://${host}`,
    caFile: ca.caFile,
    caPem: await readFile(ca.caFile, 'utf8'),
    ca,
    storageDir,
    user,
    registryConfig,
    url: (repository) => `oci://${host}/${repository}`,
    oras: (args, runOptions = {}) => run(orasBinary, [...args, '--ca-file', ca.caFile, '--registry-config', registryConfig], { ...(runOptions.cwd ? { cwd: runOptions.cwd } : {}) }),
    async stop() {
      await stopProcess(child);
      await rm(dir, { recursive: true, force: true });
      if (ownCa) await ca.remove();
    },
  };
}
