import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Cluster, RedisOptions } from 'ioredis';
import { redisConnectionFor, type RedisEndpoint } from './redis-endpoint';
import { loadRedisTls, tlsFailureAdvice, withRedisTls } from './redis-tls';

const dir = mkdtempSync(join(tmpdir(), 'redis-tls-unit-'));
const pem = join(dir, 'ca.pem');
writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
const notPem = join(dir, 'ca.txt');
writeFileSync(notPem, 'hello');
const where = (setting: string) => `redis.tls.${setting}`;

describe('redis TLS settings', () => {
  it('reads the files once, and refuses a certificate without its key, a file that is not PEM or cannot be read', () => {
    expect(loadRedisTls({ caFile: pem, serverName: 'redis.example' }, where)).toEqual({ ca: expect.stringContaining('BEGIN CERTIFICATE'), caFile: pem, serverName: 'redis.example' });
    expect(() => loadRedisTls({ certFile: pem }, where)).toThrow(/redis\.tls\.keyFile: a client certificate needs both/);
    expect(() => loadRedisTls({ caFile: notPem }, where)).toThrow(`redis.tls.caFile: ${notPem} holds no PEM certificate.`);
    expect(() => loadRedisTls({ caFile: join(dir, 'missing.pem') }, where)).toThrow(/redis\.tls\.caFile: .*missing\.pem cannot be read/);
  });

  it('refuses a file larger than 1 MiB before reading it, and a folder given as a file', () => {
    const huge = join(dir, 'huge.pem');
    writeFileSync(huge, `-----BEGIN CERTIFICATE-----\n${'A'.repeat(1024 * 1024)}\n-----END CERTIFICATE-----\n`);
    expect(() => loadRedisTls({ caFile: huge }, where)).toThrow(`redis.tls.caFile: ${huge} is larger than 1 MiB; give the PEM file itself.`);
    expect(() => loadRedisTls({ keyFile: dir, certFile: pem }, where)).toThrow(/redis\.tls\.keyFile: .* cannot be read/);
  });

  it('takes rediss:// spelled in capitals as TLS too', () => {
    expect(withRedisTls<RedisEndpoint>({ url: 'REDISS://r:6380' }, { caFile: pem }, where).tls?.caFile).toBe(pem);
  });

  it('puts TLS on rediss:// always, refuses TLS settings beside redis://, and on Sentinel and Cluster only when set', () => {
    expect(withRedisTls({ url: 'rediss://r:6380' }, undefined, where)).toEqual({ url: 'rediss://r:6380', tls: {} });
    expect(() => withRedisTls({ url: 'redis://r:6379' }, { caFile: pem }, where)).toThrow(/redis\.tls\.url: TLS settings are given but the URL is not rediss:\/\//);
    expect(withRedisTls({ cluster: { nodes: [] } }, undefined, where)).toEqual({ cluster: { nodes: [] } });
    const cluster: RedisEndpoint = { cluster: { nodes: [] } };
    expect(withRedisTls(cluster, { caFile: pem }, where).tls?.caFile).toBe(pem);
  });

  it('gives every connection the same TLS: the URL\'s, the sentinels\' and their data nodes\', each cluster node\'s', () => {
    const tls = { ca: 'CA', caFile: pem, serverName: 'redis.example' };
    const expected = { rejectUnauthorized: true, ca: 'CA', servername: 'redis.example' };
    expect(redisConnectionFor({ url: 'rediss://u:p%40ss@r:6380/2', tls })).toEqual({ host: 'r', port: 6380, username: 'u', password: 'p@ss', db: 2, tls: expected });
    const sentinel = redisConnectionFor({ sentinel: { name: 'main', nodes: [{ host: 's', port: 26379 }] }, tls }) as RedisOptions;
    expect(sentinel).toMatchObject({ enableTLSForSentinelMode: true, sentinelTLS: expected, tls: expected });
    const cluster = redisConnectionFor({ cluster: { nodes: [{ host: 'a', port: 7000 }] }, tls }) as Cluster;
    expect(cluster.options.redisOptions?.tls).toEqual(expected);
    // BullMQ's blocking connection is a duplicate: it keeps the TLS.
    expect(cluster.duplicate().options.redisOptions?.tls).toEqual(expected);
    cluster.disconnect();
  });

  it('says what to check for each refusal, and nothing for an error that is not about TLS', () => {
    const error = (code: string, message = code) => Object.assign(new Error(message), { code });
    expect(tlsFailureAdvice(error('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), { caFile: pem })).toContain(`not signed by a CA in the CA file ${pem}`);
    expect(tlsFailureAdvice(error('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), {})).toMatch(/does not carry the name .*set the TLS server name/);
    expect(tlsFailureAdvice(error('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), {})).toMatch(/requires a client certificate/);
    expect(tlsFailureAdvice(error('ECONNREFUSED'), {})).toBeUndefined();
  });
});
