import { readFileSync, statSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';

/**
 * RedisTls is how Tidemark speaks TLS to Redis (a `rediss://` URL, or TLS to every Sentinel and
 * Cluster node). The files are read once at start-up by the app's config; this holds their
 * contents, and their paths for error messages.
 */
export interface RedisTls {
  /** PEM of the CA(s) that signed the server certificates. @defaultValue Node's trusted CAs */
  ca?: string;
  /** Where `ca` was read from, named when a certificate is refused. */
  caFile?: string;
  /** PEM client certificate, for a Redis with `tls-auth-clients yes`. @defaultValue none */
  cert?: string;
  /** PEM key of `cert`; required with it. */
  key?: string;
  /** The name every server certificate must carry. @defaultValue the host connected to (the URL's, a node's) */
  serverName?: string;
}

/**
 * tlsConnectionOptions are Node's TLS options for one connection: the server certificate is always
 * verified (rejectUnauthorized), against `serverName` when set, else against the host dialled.
 */
export function tlsConnectionOptions(tls: RedisTls): ConnectionOptions {
  return {
    rejectUnauthorized: true,
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
    ...(tls.serverName ? { servername: tls.serverName } : {}),
  };
}

const wrongCa = /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_GET_ISSUER_CERT|CERT_SIGNATURE_FAILURE)$/;

/** tlsFailures, first match wins: what the error's code (or the server's alert) means, and what to check. */
const tlsFailures: readonly { code?: RegExp; text?: RegExp; advice: (detail: string, caFile: string) => string }[] = [
  { code: wrongCa, advice: (detail, caFile) => `the server's certificate is not signed by a CA in ${caFile} (${detail}). Check that the CA file holds the CA that signed Redis's tls-cert-file.` },
  { code: /^ERR_TLS_CERT_ALTNAME_INVALID$/, advice: (detail) => `the server's certificate does not carry the name connected to (${detail}). Check the host in the URL or node list, or set the TLS server name to a name in the certificate.` },
  { code: /CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/, advice: (detail) => `the server's certificate is not valid now (${detail}). Check its validity dates and the clocks.` },
  { text: /certificate required|ALERT_CERTIFICATE_REQUIRED|handshake failure|HANDSHAKE_FAILURE|peer did not return a certificate/i, advice: (detail) => `the server refused the TLS handshake (${detail}): it requires a client certificate signed by its tls-ca-cert-file. Check that a client certificate and key are set and signed by that CA.` },
  { text: /unknown ca|ALERT_UNKNOWN_CA|bad certificate|ALERT_BAD_CERTIFICATE/i, advice: (detail) => `the server refused our client certificate (${detail}). Check that it is signed by the CA in Redis's tls-ca-cert-file.` },
  { text: /^ERR_SSL|^ERR_TLS|wrong version number|WRONG_VERSION_NUMBER/i, advice: (detail) => `the TLS handshake failed (${detail}). Check that this port serves TLS (tls-port, not port) and that the URL is rediss://.` },
];

/**
 * tlsFailureAdvice says, for a TLS error from Node or from the server's alert, what is wrong and
 * what to check; undefined when the error is not about TLS.
 */
export function tlsFailureAdvice(error: unknown, tls: RedisTls | undefined): string | undefined {
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  const caFile = tls?.caFile ? `the CA file ${tls.caFile}` : "Node's trusted CAs (no CA file is set)";
  const failure = tlsFailures.find((rule) => (rule.code ? rule.code.test(code) : rule.text!.test(`${code} ${message}`)));
  if (!failure) return undefined;
  const detail = code === 'ERR_TLS_CERT_ALTNAME_INVALID' || !code ? message : code;
  return failure.advice(detail, caFile);
}

/** RedisTlsFiles are the TLS settings as configured: paths, read once by loadRedisTls. */
export interface RedisTlsFiles {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  serverName?: string;
}

/** maxPemBytes bounds each TLS file: a CA bundle of every public CA is some 200 KiB. */
const maxPemBytes = 1024 * 1024;

/**
 * loadRedisTls reads the configured files at start-up; `where` names each setting in an error
 * (`where('caFile')`). A certificate without its key, or a key without its certificate, is refused.
 */
export function loadRedisTls(files: RedisTlsFiles, where: (setting: keyof RedisTlsFiles) => string): RedisTls {
  if (Boolean(files.certFile) !== Boolean(files.keyFile)) {
    const missing = files.certFile ? 'keyFile' : 'certFile';
    throw new InvalidQueueOptionsError(`${where(missing)}: a client certificate needs both a certificate and its key; set ${where(missing)} too.`);
  }
  const read = (setting: 'caFile' | 'certFile' | 'keyFile', label: string): string | undefined => {
    const file = files[setting];
    if (!file) return undefined;
    let text: string;
    try {
      if (statSync(file).size > maxPemBytes) throw new InvalidQueueOptionsError(`${where(setting)}: ${file} is larger than ${maxPemBytes / 1024 / 1024} MiB; give the PEM file itself.`);
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if (error instanceof InvalidQueueOptionsError) throw error;
      throw new InvalidQueueOptionsError(`${where(setting)}: ${file} cannot be read: ${(error as Error).message}`);
    }
    if (!text.includes('-----BEGIN ')) throw new InvalidQueueOptionsError(`${where(setting)}: ${file} holds no PEM ${label}.`);
    return text;
  };
  const ca = read('caFile', 'certificate');
  const cert = read('certFile', 'certificate');
  const key = read('keyFile', 'key');
  return {
    ...(ca ? { ca, caFile: files.caFile } : {}),
    ...(cert && key ? { cert, key } : {}),
    ...(files.serverName ? { serverName: files.serverName } : {}),
  };
}

/**
 * withRedisTls puts the configured TLS on an endpoint: a `rediss://` URL always speaks TLS (Node's
 * trusted CAs when no CA file is set), Sentinel and Cluster do when `files` is given. TLS settings
 * beside a plain `redis://` URL are a mistake (they would be ignored), said with `where('url')`.
 */
export function withRedisTls<Endpoint extends object & { tls?: RedisTls }>(endpoint: Endpoint, files: RedisTlsFiles | undefined, where: (setting: keyof RedisTlsFiles | 'url') => string): Endpoint {
  // Generic over the endpoint (a RedisEndpoint) so this file need not import redis-endpoint.ts, which imports it.
  if ('url' in endpoint && typeof endpoint.url === 'string') {
    const secure = /^rediss:\/\//i.test(endpoint.url);
    if (!secure && files) throw new InvalidQueueOptionsError(`${where('url')}: TLS settings are given but the URL is not rediss://; use rediss://host:port to speak TLS.`);
    return secure ? { ...endpoint, tls: loadRedisTls(files ?? {}, where) } : endpoint;
  }
  return files ? { ...endpoint, tls: loadRedisTls(files, where) } : endpoint;
}
