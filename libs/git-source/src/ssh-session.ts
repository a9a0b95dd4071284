import ssh2, { type ClientChannel, type ParsedKey, type PublicKeyAuthMethod } from 'ssh2';
import { TerminalError, TransientError } from '@tidemark/contracts';
import { fingerprintOf, hostKeyAlgorithms, pinnedKeys, type PinnedHostKeys } from './known-hosts';
import { knownHostsName, uploadPackCommand, type SshTarget } from './ssh-url';

/** SshKeyCredentials are a deploy key, its passphrase if any, and the known_hosts text that pins the server. */
// ssh2 is CommonJS: Node's ESM loader sees only some of its names, so take them from the module object.
const { Client, utils } = ssh2;

export interface SshKeyCredentials {
  readonly sshPrivateKey: string;
  readonly passphrase?: string;
  readonly knownHosts: string;
}

/** UploadPackSession is git-upload-pack running on the server, its stdin and stdout the channel. */
export interface UploadPackSession {
  readonly channel: ClientChannel;
  /** exitCode settles when the command ends: its exit status, or undefined when the channel closed without one. */
  readonly exitCode: Promise<number | undefined>;
  /** close ends the connection (idempotent). */
  close(): void;
}

export interface SessionContext {
  /** "Source NAME (URL)", for messages. */
  readonly describe: string;
  readonly signal?: AbortSignal;
  /** Time the TCP connection and SSH handshake may take. */
  readonly readyTimeoutMs: number;
}

/**
 * openUploadPack connects with the deploy key, checks the server's host key against known_hosts
 * (no trust on first use: an unknown, changed or revoked key is refused with its fingerprint)
 * and runs git-upload-pack on the repository. Errors name the host and fingerprints, never the
 * key, its passphrase or any text the server sent.
 */
export function openUploadPack(target: SshTarget, credentials: { key: ParsedKey; knownHosts: string }, context: SessionContext): Promise<UploadPackSession> {
  const { key } = credentials;
  const host = knownHostsName(target);
  const pinned = pinnedKeys(credentials.knownHosts, host);
  const publicKeyMethod: PublicKeyAuthMethod = { type: 'publickey', username: target.user, key };
  const client = new Client();
  let refusal: Error | undefined;
  return new Promise<UploadPackSession>((resolve, reject) => {
    const close = () => client.end();
    const aborted = () => {
      client.destroy();
      reject(context.signal?.reason);
    };
    if (context.signal?.aborted) return aborted();
    context.signal?.addEventListener('abort', aborted, { once: true });
    client.on('error', (error: Error & { level?: string }) => {
      context.signal?.removeEventListener('abort', aborted);
      reject(refusal ?? connectionError(error, { describe: context.describe, host, key }));
    });
    client.on('ready', () => {
      client.exec(uploadPackCommand(target), (error, channel) => {
        if (error) return reject(new TransientError('GitFetchFailed', `${context.describe}: the server would not run git-upload-pack.`, { cause: error }));
        channel.stderr.resume();
        const exitCode = new Promise<number | undefined>((settle) => {
          channel.on('exit', (code: number | null) => settle(code ?? undefined));
          channel.on('close', () => settle(undefined));
        });
        // The handshake is over: each request that uses the session now watches its own signal.
        context.signal?.removeEventListener('abort', aborted);
        resolve({ channel, exitCode, close });
      });
    });
    client.connect({
      host: target.host,
      port: target.port,
      username: target.user,
      // The key parsed once (a passphrase's key derivation is slow), handed to ssh2 as is.
      authHandler: [publicKeyMethod],
      readyTimeout: context.readyTimeoutMs,
      tryKeyboard: false,
      // Offer only the key types known_hosts pins, as OpenSSH does, so a pinned RSA key is not
      // passed over for an ed25519 key the server also has.
      ...(pinned.accepted.length > 0 ? { algorithms: { serverHostKey: hostKeyAlgorithms(pinned.accepted) as never } } : {}),
      hostVerifier: (hostKey: Buffer) => {
        refusal = hostKeyRefusal(hostKey, pinned, host, context.describe);
        return refusal === undefined;
      },
    });
  });
}

/** readDeployKey reads the private key, so a wrong passphrase or a public key is reported before any connection. */
export function readDeployKey(credentials: SshKeyCredentials, describe: string): ParsedKey {
  const text = credentials.sshPrivateKey.endsWith('\n') ? credentials.sshPrivateKey : `${credentials.sshPrivateKey}\n`;
  const parsed = utils.parseKey(text, credentials.passphrase);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key instanceof Error || !key) {
    // ssh2's reasons are fixed texts; still, only the kind of problem is said.
    const reason = /passphrase|decrypt|encrypted/i.test(key?.message ?? '')
      ? 'it is encrypted and the passphrase is missing or wrong'
      : 'it is not an ed25519, RSA or ECDSA private key in OpenSSH or PEM format';
    throw new TerminalError('SshKeyInvalid', `${describe}: the deploy key cannot be read: ${reason}.`);
  }
  if (!key.isPrivateKey()) throw new TerminalError('SshKeyInvalid', `${describe}: the deploy key is a public key; give the private key.`);
  return key;
}

/** hostKeyRefusal is undefined for a pinned key, else the error that names the host and the fingerprint it showed. */
function hostKeyRefusal(hostKey: Buffer, pinned: PinnedHostKeys, host: string, describe: string): Error | undefined {
  const seen = fingerprintOf(hostKey);
  if (pinned.revoked.some((key) => key.blob.equals(hostKey))) {
    return new TransientError('SshHostKeyRefused', `${describe}: host ${host} showed the host key ${seen}, which known_hosts marks @revoked. Nothing was fetched.`);
  }
  if (pinned.accepted.some((key) => key.blob.equals(hostKey))) return undefined;
  if (pinned.accepted.length === 0) {
    return new TransientError('SshHostKeyRefused', `${describe}: host ${host} is not in known_hosts (it showed the host key ${seen}). Add its key to known_hosts (ssh-keyscan, checked against the host's published fingerprints); keys are never trusted on first use.`);
  }
  const expected = pinned.accepted.map((key) => fingerprintOf(key.blob)).join(', ');
  return new TransientError('SshHostKeyRefused', `${describe}: host ${host} showed the host key ${seen}, which is not the one known_hosts pins (${expected}). It may have been replaced, or the connection intercepted; nothing was fetched.`);
}

function connectionError(error: Error & { level?: string; code?: string }, context: { describe: string; host: string; key: ParsedKey }): Error {
  if (error.level === 'client-authentication') {
    return new TransientError('GitAuthFailed', `${context.describe}: host ${context.host} refused the deploy key ${fingerprintOf(context.key.getPublicSSH())}. Check that it is registered as a deploy key of the repository.`, { cause: error });
  }
  if (error.level === 'client-timeout') {
    return new TransientError('GitTimeout', `${context.describe}: the SSH handshake with ${context.host} did not finish in time.`, { cause: error });
  }
  if (error.level === 'handshake' && /host key/i.test(error.message)) {
    return new TransientError('SshHostKeyRefused', `${context.describe}: host ${context.host} offers none of the host key types that known_hosts pins for it.`, { cause: error });
  }
  const reason = error.code ?? (error.level === 'client-socket' ? 'connection failed' : 'SSH error');
  return new TransientError('GitFetchFailed', `${context.describe}: could not connect to ${context.host} over SSH (${reason}).`, { cause: error });
}
