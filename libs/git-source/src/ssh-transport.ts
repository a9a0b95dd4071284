import { once } from 'node:events';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { TerminalError, TransientError } from '@tidemark/contracts';
import { sourceTooLarge } from './pack-size-guard';
import type { ParsedKey } from 'ssh2';
import type { SourceAuth } from './source-spec';
import { openUploadPack, readDeployKey, type SshKeyCredentials, type UploadPackSession } from './ssh-session';
import type { SshTarget } from './ssh-url';

/** GitTransport carries the smart protocol some other way than HTTP: isomorphic-git is given `url` and `http`. */
export interface GitTransport {
  readonly url: string;
  readonly http: HttpClient;
}

export interface SshTransportOptions {
  /** The source's name, for messages. */
  source: string;
  /** The source's URL as written (it holds no secret), for messages. */
  url: string;
  /** The current credentials, asked for at every connection (a rotated deploy key is used at once). */
  credentials: () => Promise<SourceAuth | undefined>;
  /** Bytes the server's ref advertisement may hold. @defaultValue 16 MiB */
  maxAdvertisementBytes?: number;
  /** Time the TCP connection and SSH handshake may take. @defaultValue 30000 */
  readyTimeoutMs?: number;
  /** How long a ref listing's session waits for the fetch that may follow it. @defaultValue 2000 */
  keepForFetchMs?: number;
}

// isomorphic-git speaks only HTTP: it is given this URL, which never resolves (.invalid), and
// every request it makes goes to the SSH client below, never to a network.
const pseudoUrl = 'https://git-over-ssh.invalid/repository';
const flushPacket = Buffer.from('0000');
const serviceAnnouncement = Buffer.from('001e# service=git-upload-pack\n0000');

/**
 * sshTransport runs the Git smart protocol over SSH for isomorphic-git. isomorphic-git asks as
 * over HTTP (GET info/refs, then POST git-upload-pack); each request opens an SSH connection
 * that runs `git-upload-pack '<path>'` (or reuses the listing's, see ParkedSession). For the
 * GET, the ref advertisement upload-pack sends first is framed as smart HTTP frames it
 * ("# service=git-upload-pack"). For the POST, the advertisement is read and dropped, the request body
 * (wants, haves, done) is written, and the pack is streamed back: upload-pack answers a body that
 * ends with "done" exactly as its stateless HTTP mode does. The GitStore wraps this client in
 * the same deadline, advertisement cap and pack size guard as its HTTP client.
 */
export function sshTransport(target: SshTarget, options: SshTransportOptions): GitTransport {
  const maxAdvertisementBytes = options.maxAdvertisementBytes ?? 16 * 1024 * 1024;
  const describe = `Source ${options.source} (${options.url})`;
  const context = { describe, readyTimeoutMs: options.readyTimeoutMs ?? 30_000 };
  const keys = new DeployKeys(describe);
  const parked = new ParkedSession(options.keepForFetchMs ?? 2_000);
  const open = async (request: GitHttpRequest): Promise<OpenSession> => {
    const credentials = sshCredentialsOf(await options.credentials(), describe);
    const session = await openUploadPack(target, { key: keys.read(credentials), knownHosts: credentials.knownHosts }, { ...context, ...(request.signal ? { signal: request.signal } : {}) });
    // A server that sends its refs slowly is cut off at the request's deadline.
    const detach = closeOnAbort(session, request.signal);
    try {
      const reader = session.channel[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      const { advertisement, rest } = await readAdvertisement(reader, session, maxAdvertisementBytes, { describe, source: options.source });
      return { session, reader, advertisement, rest };
    } catch (error) {
      session.close();
      throw error;
    } finally {
      detach();
    }
  };
  return {
    url: pseudoUrl,
    http: {
      async request(request: GitHttpRequest): Promise<GitHttpResponse> {
        if (isDiscovery(request)) {
          const opened = await open(request);
          parked.keep(opened);
          return answer(request, 'application/x-git-upload-pack-advertisement', replay([serviceAnnouncement, opened.advertisement]));
        }
        if (!isUploadPack(request)) {
          throw new TerminalError('GitRequestInvalid', `${describe}: Git over SSH serves only fetches (asked for ${request.method ?? 'GET'} ${new URL(request.url).pathname}).`);
        }
        const opened = parked.take() ?? (await open(request));
        const detach = closeOnAbort(opened.session, request.signal);
        try {
          await writeBody(opened.session, request.body);
          return answer(request, 'application/x-git-upload-pack-result', streamed(opened, detach));
        } catch (error) {
          detach();
          opened.session.close();
          throw error;
        }
      },
    },
  };
}

/** OpenSession is upload-pack that has sent its refs and waits for the wants. */
interface OpenSession {
  readonly session: UploadPackSession;
  readonly reader: AsyncIterator<Buffer>;
  readonly advertisement: Buffer;
  readonly rest: Buffer;
}

/**
 * ParkedSession keeps the session of the last ref listing open for a moment: a poll that finds a
 * new commit fetches it right away, and the fetch then sends its wants to the upload-pack that
 * listed the refs, as git itself does over SSH, instead of a second connection and handshake.
 * Unused, the session is ended with a flush (no wants) when the moment passes.
 */
class ParkedSession {
  private parked: { opened: OpenSession; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly keepMs: number) {}

  keep(opened: OpenSession): void {
    this.end(this.take());
    const timer = setTimeout(() => {
      if (this.parked?.opened === opened) this.end(this.take());
    }, this.keepMs);
    timer.unref();
    this.parked = { opened, timer };
  }

  /** take hands over the parked session if it is still open. */
  take(): OpenSession | undefined {
    const parked = this.parked;
    this.parked = undefined;
    if (!parked) return undefined;
    clearTimeout(parked.timer);
    const { channel } = parked.opened.session;
    if (!channel.destroyed && channel.writable) return parked.opened;
    parked.opened.session.close();
    return undefined;
  }

  private end(opened: OpenSession | undefined): void {
    if (!opened) return;
    opened.session.channel.end(flushPacket);
    opened.session.close();
  }
}

function closeOnAbort(session: UploadPackSession, signal: AbortSignal | undefined): () => void {
  if (!signal) return () => undefined;
  const close = () => session.close();
  if (signal.aborted) close();
  signal.addEventListener('abort', close, { once: true });
  return () => signal.removeEventListener('abort', close);
}

/** sshCredentialsOf checks that the source has a deploy key and known_hosts; messages name the fields, never values. */
function sshCredentialsOf(auth: SourceAuth | undefined, describe: string): SshKeyCredentials {
  if (!auth || !('sshPrivateKey' in auth)) {
    throw new TerminalError('SshCredentialsMissing', `${describe}: an SSH source needs a deploy key and known_hosts (a Source's Secret: keys identity and known_hosts, passphrase in password; a config file: auth.sshPrivateKey and auth.knownHosts).`);
  }
  return auth;
}

/** DeployKeys keeps the last deploy key read, so it is parsed (and its passphrase's key derived) once per rotation. */
class DeployKeys {
  private last: { text: string; passphrase: string | undefined; key: ParsedKey } | undefined;

  constructor(private readonly describe: string) {}

  read(credentials: SshKeyCredentials): ParsedKey {
    const { sshPrivateKey: text, passphrase } = credentials;
    if (this.last?.text !== text || this.last.passphrase !== passphrase) {
      this.last = { text, passphrase, key: readDeployKey(credentials, this.describe) };
    }
    return this.last.key;
  }
}

/**
 * readAdvertisement reads pkt-lines up to the flush that ends upload-pack's ref advertisement,
 * within `maxBytes`; what follows (nothing, from a server waiting for our wants) is `rest`.
 */
async function readAdvertisement(reader: AsyncIterator<Buffer>, session: UploadPackSession, maxBytes: number, { describe, source }: { describe: string; source: string }): Promise<{ advertisement: Buffer; rest: Buffer }> {
  let buffered = Buffer.alloc(0);
  let offset = 0;
  for (;;) {
    while (buffered.length - offset >= 4) {
      const header = buffered.toString('latin1', offset, offset + 4);
      const length = /^[0-9a-f]{4}$/i.test(header) ? Number.parseInt(header, 16) : -1;
      if (length === 0) return { advertisement: buffered.subarray(0, offset + 4), rest: buffered.subarray(offset + 4) };
      if (length < 4) throw new TransientError('GitFetchFailed', `${describe}: the server did not answer with a Git ref advertisement.`);
      if (buffered.length - offset < length) break;
      offset += length;
    }
    const step = await reader.next();
    if (step.done) {
      const code = await session.exitCode;
      throw new TransientError('GitFetchFailed', `${describe}: the server ended git-upload-pack before listing its refs${code === undefined ? '' : ` (exit status ${code})`}. Check the repository path and that the deploy key may read it.`);
    }
    buffered = Buffer.concat([buffered, step.value]);
    if (buffered.length > maxBytes) throw sourceTooLarge(source, `the server's list of refs is more than ${Math.round(maxBytes / (1024 * 1024))} MiB`);
  }
}

async function writeBody(session: UploadPackSession, body: GitHttpRequest['body'] | Uint8Array[] | undefined): Promise<void> {
  for await (const chunk of (body ?? []) as AsyncIterable<Uint8Array>) {
    if (!session.channel.write(chunk)) await once(session.channel, 'drain');
  }
  // Nothing more comes: upload-pack that still waits for input ends instead of hanging.
  session.channel.end();
}

async function* streamed({ rest, reader, session }: OpenSession, detach: () => void): AsyncIterableIterator<Uint8Array> {
  try {
    if (rest.length > 0) yield rest;
    for (;;) {
      const step = await reader.next();
      if (step.done) return;
      yield step.value;
    }
  } finally {
    detach();
    session.close();
  }
}

async function* replay(chunks: readonly Buffer[]): AsyncIterableIterator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

function answer(request: GitHttpRequest, contentType: string, body: AsyncIterableIterator<Uint8Array>): GitHttpResponse {
  return { url: request.url, method: request.method ?? 'GET', statusCode: 200, statusMessage: 'OK', headers: { 'content-type': contentType }, body };
}

function isDiscovery(request: GitHttpRequest): boolean {
  return (request.method ?? 'GET').toUpperCase() === 'GET' && request.url === `${pseudoUrl}/info/refs?service=git-upload-pack`;
}

function isUploadPack(request: GitHttpRequest): boolean {
  return (request.method ?? 'GET').toUpperCase() === 'POST' && request.url === `${pseudoUrl}/git-upload-pack`;
}
