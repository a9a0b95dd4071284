import { RenderFailure, type RenderFailureCode } from '../render-failure';
import { messageOf } from '@tidemark/contracts';

/** ChartCredentials are a chart repository's basic-auth username and password. */
export interface ChartCredentials {
  readonly username: string;
  readonly password: string;
}

/** BoundedGet is one GET of a chart repository file. */
export interface BoundedGet {
  url: URL;
  /** Sent only to this origin (the repository's), as Helm does without --pass-credentials. */
  credentials?: { readonly origin: string; readonly value: ChartCredentials };
  /** Where the credentials come from, for messages (never their value). */
  credentialsFrom?: string;
  maxBytes: number;
  /** The code of the failure when the body passes maxBytes. */
  tooLarge: RenderFailureCode;
  timeoutMs: number;
  /** What the messages call the download, e.g. 'charts/web/Chart.yaml: dependency "podinfo" 6.5.0'. */
  what: string;
}

const maxRedirects = 5;

/**
 * getBounded GETs a file and hands its body to `sink` chunk by chunk, failing as soon as a
 * Content-Length or the bytes read pass `maxBytes`. Redirects are followed by hand (at most
 * five, https or loopback http only), and credentials go only to the repository's own origin.
 * A redirect may leave the origin (GitHub release assets live on another host) only for an https
 * host name: never plain http, loopback or a private, link-local address the URL did not name.
 * Messages name the URL without credentials, the status and where credentials come from.
 */
export async function getBounded(get: BoundedGet, sink: (chunk: Uint8Array) => void | Promise<void>): Promise<void> {
  let url = get.url;
  for (let hop = 0; hop <= maxRedirects; hop += 1) {
    checkScheme(url, get.what);
    const sendsCredentials = get.credentials !== undefined && url.origin === get.credentials.origin;
    const response = await request(url, sendsCredentials ? get.credentials?.value : undefined, get);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = redirectTarget(new URL(location, url), get);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new RenderFailure('ChartRepositoryFailed', `${get.what}: ${shown(url)} answered ${response.status} ${response.statusText}${statusAdvice(response.status, sendsCredentials, get)}`);
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > get.maxBytes) {
      await response.body?.cancel();
      throw tooLarge(get, url);
    }
    await readBody(response, get, url, sink);
    return;
  }
  throw new RenderFailure('ChartRepositoryFailed', `${get.what}: more than ${maxRedirects} redirects from ${shown(get.url)}`);
}

async function request(url: URL, credentials: ChartCredentials | undefined, get: BoundedGet): Promise<Response> {
  const headers: Record<string, string> = { 'user-agent': 'tidemark' };
  if (credentials) headers.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  try {
    return await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(get.timeoutMs) });
  } catch (error) {
    throw new RenderFailure('ChartRepositoryFailed', `${get.what}: ${shown(url)} could not be reached: ${causeOf(error)}`);
  }
}

async function readBody(response: Response, get: BoundedGet, url: URL, sink: (chunk: Uint8Array) => void | Promise<void>): Promise<void> {
  if (!response.body) return;
  let bytes = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.byteLength;
      if (bytes > get.maxBytes) throw tooLarge(get, url);
      await sink(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (error instanceof RenderFailure) throw error;
    throw new RenderFailure('ChartRepositoryFailed', `${get.what}: reading ${shown(url)} failed: ${causeOf(error)}`);
  }
}

/**
 * redirectTarget is where a redirect may lead: anywhere within the first URL's origin; elsewhere
 * only an https URL whose host is not a loopback, private or link-local address, so a hostile
 * repository cannot turn Tidemark's request towards the reconciler's own network.
 */
export function redirectTarget(target: URL, get: BoundedGet): URL {
  if (target.origin === get.url.origin) return target;
  if (target.protocol !== 'https:' || isLoopback(target.hostname) || isInternalAddress(target.hostname)) {
    throw new RenderFailure('ChartRepositoryFailed', `${get.what}: ${shown(get.url)} redirected to ${target.protocol}//${target.host}, which is refused: a redirect leaves the repository's origin only for https to a public host`);
  }
  return target;
}

// IPv4 ranges no redirect may reach: [first octet, lowest second octet, highest second octet].
const internalV4: ReadonlyArray<readonly [number, number, number]> = [
  [0, 0, 255], [10, 0, 255], [127, 0, 255], [169, 254, 254], [172, 16, 31], [192, 168, 168], [100, 64, 127],
];
// IPv6: unspecified, loopback, unique-local (fc00::/7), link-local (fe80::/10), IPv4-mapped.
const internalV6 = /^(::1?|f[cd][0-9a-f]*:.*|fe[89ab][0-9a-f]*:.*|::ffff:.*)$/;

/** isInternalAddress says whether a host is an IP literal of a private, link-local, unspecified or unique-local range. */
function isInternalAddress(host: string): boolean {
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (v4) return internalV4.some(([first, low, high]) => Number(v4[1]) === first && Number(v4[2]) >= low && Number(v4[2]) <= high);
  return host.startsWith('[') && internalV6.test(host.slice(1, -1).toLowerCase());
}

/** checkScheme allows https, and plain http only to loopback hosts (the test rig, a local mirror). */
export function checkScheme(url: URL, what: string): void {
  if (url.username || url.password) throw new RenderFailure('ChartRepositoryFailed', `${what}: ${url.protocol}//${url.host} carries credentials in the URL, which is refused; give the repository a secretRef`);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return;
  throw new RenderFailure('ChartRepositoryFailed', `${what}: ${shown(url)} is refused: chart repositories are reached over https (plain http only on loopback)`);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function statusAdvice(status: number, sentCredentials: boolean, get: BoundedGet): string {
  if (status !== 401 && status !== 403) return '';
  if (sentCredentials) return `; the credentials from ${get.credentialsFrom ?? 'its secretRef'} were refused`;
  return get.credentials
    ? ' (credentials go only to the repository\'s own origin)'
    : '; the repository needs credentials: give it a secretRef (a Secret with username and password) in render.chartRepositories';
}

function tooLarge(get: BoundedGet, url: URL): RenderFailure {
  return new RenderFailure(get.tooLarge, `${get.what}: ${shown(url)} is larger than ${get.maxBytes} bytes and is refused`);
}

/** shown is a URL fit for a message: no credentials, query or fragment. */
export function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const inner = cause instanceof Error ? cause : error;
  if (inner instanceof Error && inner.name === 'TimeoutError') return 'timed out';
  return messageOf(inner);
}
