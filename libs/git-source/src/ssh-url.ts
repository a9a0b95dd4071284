/** SshTarget is where a repository reached over SSH lives, as git itself reads its URL. */
export interface SshTarget {
  /** The login name. @defaultValue 'git' */
  readonly user: string;
  /** Host name or address, without IPv6 brackets. */
  readonly host: string;
  /** @defaultValue 22 */
  readonly port: number;
  /** The path git-upload-pack is given: absolute for ssh://, as written for scp-like (relative to the login's home). */
  readonly path: string;
}

export type SshUrlParse = { readonly target: SshTarget } | { readonly problem: string } | undefined;

// user@host:path with no "://" (git's "scp-like syntax"); a host may be an [IPv6] literal.
const scpLike = /^(?:([^@/:]+)@)?(\[[0-9A-Fa-f:.]+\]|[^@/:[\]]+):(.*)$/s;
const userPattern = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;
const hostPattern = /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$|^\[[0-9A-Fa-f:.]+\]$/;

/**
 * parseSshUrl reads `ssh://[user@]host[:port]/path` and scp-like `[user@]host:path`. It returns
 * undefined for any other URL (https), a problem for an SSH URL it refuses, or the target. It
 * refuses what git refuses (a host or path that starts with "-" would be read as an option by
 * ssh or git-upload-pack), a password, and control characters.
 */
export function parseSshUrl(text: string): SshUrlParse {
  if (/^(ssh|git\+ssh|ssh\+git):\/\//i.test(text)) return fromSshScheme(text);
  if (text.includes('://')) return undefined;
  const match = scpLike.exec(text);
  if (!match) return undefined;
  const [, user, host, path] = match as unknown as [string, string | undefined, string, string];
  // A single letter before the colon is a Windows drive (C:\repo), which git reads as a path too.
  if (host.length === 1) return undefined;
  return checked({ user: user ?? 'git', host, port: 22, path });
}

function fromSshScheme(text: string): SshUrlParse {
  let url: URL;
  try {
    url = new URL(text.replace(/^(git\+ssh|ssh\+git):/i, 'ssh:'));
  } catch {
    return { problem: 'is not a valid ssh:// URL' };
  }
  if (url.password) return { problem: 'must not contain a password; SSH sources authenticate with a deploy key' };
  if (url.search || url.hash) return { problem: 'must not have a query or fragment' };
  const port = url.port ? Number(url.port) : 22;
  let path = decodeURIComponent(url.pathname);
  // As git does: ssh://host/~user/repo names a path under that user's home.
  if (path.startsWith('/~')) path = path.slice(1);
  return checked({ user: url.username ? decodeURIComponent(url.username) : 'git', host: url.hostname, port, path });
}

function checked(target: SshTarget): SshUrlParse {
  if (!userPattern.test(target.user)) return { problem: `has an invalid user name "${target.user.slice(0, 40)}"` };
  if (!hostPattern.test(target.host)) return { problem: 'has an invalid host name' };
  if (target.path === '' || target.path === '/') return { problem: 'names no repository path' };
  if (target.path.startsWith('-')) return { problem: 'has a path that starts with "-"' };
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(target.path)) return { problem: 'has a control character in its path' };
  return { target: { ...target, host: target.host.replace(/^\[(.*)\]$/, '$1') } };
}

/** knownHostsName is the host as known_hosts names it: "host", or "[host]:port" off port 22. */
export function knownHostsName(target: Pick<SshTarget, 'host' | 'port'>): string {
  return target.port === 22 ? target.host : `[${target.host}]:${target.port}`;
}

/** uploadPackCommand is the command git runs on the server, the path quoted as git quotes it. */
export function uploadPackCommand(target: SshTarget): string {
  return `git-upload-pack '${target.path.replaceAll("'", "'\\''")}'`;
}
