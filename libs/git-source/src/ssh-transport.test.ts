import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import ssh2, { type Connection, type ServerChannel } from 'ssh2';
import { GitStore } from './git-store';
import { defaultGitSizeLimits } from './pack-size-guard';
import type { SourceAuth } from './source-spec';
import { sshTransport } from './ssh-transport';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const knownHosts = '[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';
let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  sockets.splice(0).forEach((socket) => socket.destroy());
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** listen starts a loopback TCP server that treats each connection with `serve`, and returns its port. */
async function listen(serve: (socket: Socket) => void): Promise<number> {
  server = createServer((socket) => {
    sockets.push(socket);
    serve(socket);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** refusalOf is the error a request fails with; one that succeeds fails the test. */
async function refusalOf(request: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await request;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('the request succeeded; it should have been refused');
}

/** startSshServer starts a real ssh2 server that accepts any key and hands each exec channel to `onExec`. */
async function startSshServer(onExec: (channel: ServerChannel, connection: Connection) => void): Promise<{ port: number; knownHosts: string }> {
  const hostKey = ssh2.utils.parseKey(privateKey);
  if (hostKey instanceof Error || Array.isArray(hostKey)) throw new Error('host key');
  const fake = new ssh2.Server({ hostKeys: [privateKey] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (context) => context.accept());
    client.on('ready', () => client.on('session', (accept) => accept().once('exec', (acceptExec) => {
      const channel = acceptExec();
      channel.on('error', () => undefined);
      onExec(channel, client);
    })));
  });
  server = fake as unknown as Server;
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const port = (fake.address() as { port: number }).port;
  return { port, knownHosts: `[127.0.0.1]:${port} ${hostKey.type} ${hostKey.getPublicSSH().toString('base64')}` };
}

function listRefs(port: number, auth: SourceAuth | undefined, readyTimeoutMs = 5_000) {
  const transport = sshTransport({ user: 'git', host: '127.0.0.1', port, path: '/srv/repo.git' }, {
    source: 'apps', url: `ssh://git@127.0.0.1:${port}/srv/repo.git`, credentials: async () => auth, readyTimeoutMs, maxAdvertisementBytes: 1024 * 1024,
  });
  return transport.http.request({ url: `${transport.url}/info/refs?service=git-upload-pack`, method: 'GET', headers: {} });
}

describe('sshTransport against hostile or broken servers', () => {
  it('gives up on a server that never finishes the handshake', async () => {
    const port = await listen(() => undefined);
    await expect(listRefs(port, { sshPrivateKey: privateKey, knownHosts }, 300)).rejects.toMatchObject({ code: 'GitTimeout', message: expect.stringContaining(`Source apps (ssh://git@127.0.0.1:${port}/srv/repo.git): the SSH handshake with [127.0.0.1]:${port} did not finish in time`) });
  });

  it('refuses a server that is not an SSH server without quoting what it sent', async () => {
    const port = await listen((socket) => socket.end('HTTP/1.1 400 Bad Request secret-looking-text\r\n\r\n'));
    const refusal = await refusalOf(listRefs(port, { sshPrivateKey: privateKey, knownHosts }));
    expect(refusal).toMatchObject({ code: 'GitFetchFailed', message: expect.stringContaining(`could not connect to [127.0.0.1]:${port} over SSH`) });
    expect(refusal.message).not.toContain('secret-looking-text');
  });

  it('cuts off a ref advertisement over the limit (a real SSH server that lists refs without end)', async () => {
    const { port, knownHosts: pinned } = await startSshServer((channel) => {
      const line = `${'0'.repeat(40)} refs/heads/${'b'.repeat(40)}\n`;
      const packet = Buffer.from(`${(line.length + 4).toString(16).padStart(4, '0')}${line}`.repeat(1_000));
      const pump = () => {
        while (channel.writable && channel.write(packet));
        if (channel.writable) channel.once('drain', pump);
      };
      pump();
    });
    await expect(listRefs(port, { sshPrivateKey: privateKey, knownHosts: pinned })).rejects.toMatchObject({ code: 'SourceTooLarge', message: expect.stringContaining("the server's list of refs is more than 1 MiB") });
  });

  it('ends a listing that never comes at the request deadline, as over HTTP', async () => {
    let sessionClosed = false;
    const { port, knownHosts: pinned } = await startSshServer((_channel, connection) => connection.on('close', () => (sessionClosed = true)));
    const url = `ssh://git@127.0.0.1:${port}/srv/repo.git`;
    const transport = sshTransport({ user: 'git', host: '127.0.0.1', port, path: '/srv/repo.git' }, { source: 'apps', url, credentials: async () => ({ sshPrivateKey: privateKey, knownHosts: pinned }) });
    const store = new GitStore('/nonexistent', url, {}, { source: 'apps', limits: defaultGitSizeLimits }, { requestTimeoutMs: 500, transport });
    await expect(store.listRefs()).rejects.toMatchObject({ code: 'GitTimeout' });
    // The connection is ended too, not left to the server.
    await expect.poll(() => sessionClosed, { timeout: 3_000 }).toBe(true);
  });

  it('needs a deploy key and known_hosts, and a private key, naming neither value', async () => {
    await expect(listRefs(1, undefined)).rejects.toMatchObject({ code: 'SshCredentialsMissing' });
    await expect(listRefs(1, { token: 'a-token' })).rejects.toMatchObject({ code: 'SshCredentialsMissing' });
    const refusal = await refusalOf(listRefs(1, { sshPrivateKey: publicKey, knownHosts }));
    expect(refusal).toMatchObject({ code: 'SshKeyInvalid' });
    expect(refusal.message).not.toContain('BEGIN');
  });
});
