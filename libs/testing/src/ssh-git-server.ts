import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { RigError, run, stopProcess } from './process';
import { waitForPort } from './redis';
import { WorkingCopy } from './working-copy';

const sshd = '/usr/sbin/sshd';

/** SshKeyPair is a key made by ssh-keygen: the private key file's text, its public line, and the file. */
export interface SshKeyPair {
  readonly privateKey: string;
  readonly publicKey: string;
  readonly path: string;
  readonly passphrase?: string;
}

export type SshKeyType = 'ed25519' | 'rsa' | 'ecdsa';

/**
 * SshGitServer is a real OpenSSH sshd on loopback serving bare repositories through git-shell:
 * every authorized key may run only git-upload-pack and git-receive-pack.
 */
export interface SshGitServer {
  readonly port: number;
  readonly root: string;
  /** knownHosts is the known_hosts line that pins this server's host key. */
  readonly knownHosts: string;
  /** createRepository makes a bare repository and returns its ssh:// URL. */
  createRepository(name: string): Promise<string>;
  /** pathOf is the repository's folder on the server. */
  pathOf(name: string): string;
  /** urlFor is the ssh:// URL of any bare repository on this machine, e.g. one the HTTP Git server serves too. */
  urlFor(path: string): string;
  /** generateKey makes a key pair in the server's folder (not yet authorized). */
  generateKey(type: SshKeyType, passphrase?: string): Promise<SshKeyPair>;
  /** authorize lets a key in; revoke takes it out again (sshd reads authorized_keys at each login). */
  authorize(key: SshKeyPair): Promise<void>;
  revoke(key: SshKeyPair): Promise<void>;
  /** workingCopy clones over SSH with the server's own pusher key, for tests to commit and `git push`. */
  workingCopy(name: string): Promise<WorkingCopy>;
  stop(): Promise<void>;
}

/** startSshGitServer starts sshd on a free loopback port with its own host key, config and authorized_keys. */
export async function startSshGitServer(): Promise<SshGitServer> {
  if (!existsSync(sshd)) throw new RigError('sshd is not installed. Run `apt-get install -y openssh-server` (scripts/setup does it).');
  const root = await mkdtemp(join(tmpdir(), 'tidemark-sshgit-'));
  await mkdir(join(root, 'repos'));
  const user = userInfo().username;
  // sshd running as root checks its privilege separation folder first.
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'tidemark-test-host', '-f', join(root, 'host_ed25519')]);
  const port = await freePort();
  await writeFile(join(root, 'authorized_keys'), '', { mode: 0o600 });
  await writeFile(join(root, 'sshd_config'), sshdConfig(root, port, user));
  const hostPublic = (await readFile(join(root, 'host_ed25519.pub'), 'utf8')).trim().split(/\s+/);
  const knownHosts = `[127.0.0.1]:${port} ${hostPublic[0]} ${hostPublic[1]}\n`;
  await writeFile(join(root, 'known_hosts'), knownHosts);
  const child = spawn(sshd, ['-D', '-e', '-f', join(root, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  await waitForPort(port, 10_000, child as ChildProcess).catch((error: unknown) => {
    throw new RigError(`sshd did not start: ${log.trim()}`, { cause: error });
  });
  const authorized = new Set<string>();
  const writeAuthorized = () => writeFile(join(root, 'authorized_keys'), [...authorized].map((line) => `${gitShellOnly} ${line}\n`).join(''));
  let keys = 0;
  const generateKey = async (type: SshKeyType, passphrase?: string): Promise<SshKeyPair> => {
    keys += 1;
    const path = join(root, `key-${keys}-${type}`);
    await run('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', passphrase ?? '', '-C', `tidemark-test-${keys}`, '-f', path]);
    return { privateKey: await readFile(path, 'utf8'), publicKey: (await readFile(`${path}.pub`, 'utf8')).trim(), path, ...(passphrase ? { passphrase } : {}) };
  };
  const pusher = await generateKey('ed25519');
  authorized.add(pusher.publicKey);
  await writeAuthorized();
  const sshCommand = `ssh -i ${pusher.path} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=${join(root, 'known_hosts')}`;
  const pathOf = (name: string) => join(root, 'repos', `${name}.git`);
  const urlFor = (path: string) => `ssh://${user}@127.0.0.1:${port}${path}`;
  const urlOf = (name: string) => urlFor(pathOf(name));
  const copies: WorkingCopy[] = [];
  return {
    port,
    root,
    knownHosts,
    async createRepository(name) {
      await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', pathOf(name)]);
      return urlOf(name);
    },
    pathOf,
    urlFor,
    generateKey,
    async authorize(key) {
      authorized.add(key.publicKey);
      await writeAuthorized();
    },
    async revoke(key) {
      authorized.delete(key.publicKey);
      await writeAuthorized();
    },
    async workingCopy(name) {
      const copy = await WorkingCopy.clone(urlOf(name), { sshCommand });
      copies.push(copy);
      return copy;
    },
    async stop() {
      await stopProcess(child);
      await Promise.all(copies.map((copy) => copy.remove()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

// Each key may run only what git-shell allows (upload-pack, receive-pack), whatever it asks.
const gitShellOnly = 'command="git-shell -c \\"$SSH_ORIGINAL_COMMAND\\"",no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty';

function sshdConfig(root: string, port: number, user: string): string {
  return [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(root, 'host_ed25519')}`,
    `PidFile ${join(root, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(root, 'authorized_keys')}`,
    `AllowUsers ${user}`,
    'PermitRootLogin prohibit-password',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    // The temporary folder is world-writable; the rig's keys are throwaway.
    'StrictModes no',
    'LogLevel ERROR',
    '',
  ].join('\n');
}
