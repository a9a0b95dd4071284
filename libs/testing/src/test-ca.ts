import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** IssuedCertificate is a key and a certificate the test CA signed, as files. */
export interface IssuedCertificate {
  certFile: string;
  keyFile: string;
}

/** TestCa is a throw-away certificate authority made at test time (no key is ever committed). */
export interface TestCa {
  /** The CA's certificate: what a client trusts, and Redis's tls-ca-cert-file. */
  caFile: string;
  /** issue signs a certificate for `names` (DNS names or IP addresses, all in subjectAltName). */
  issue(name: string, names: readonly string[]): Promise<IssuedCertificate>;
  /** remove deletes the CA's folder and every file issued. */
  remove(): Promise<void>;
}

/** makeTestCa creates a CA with openssl (an EC P-256 key, valid one day) in a temporary folder. */
export async function makeTestCa(commonName = 'Tidemark test CA'): Promise<TestCa> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-ca-'));
  const caFile = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca.key');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', `/CN=${commonName}`, '-keyout', caKey, '-out', caFile]);
  let serial = 0;
  return {
    caFile,
    async issue(name, names) {
      serial += 1;
      const base = join(dir, `${serial}-${name.replace(/[^A-Za-z0-9.-]/g, '_')}`);
      const extensions = `${base}.ext`;
      const altNames = names.map((entry) => (/^[\d.]+$|:/.test(entry) ? `IP:${entry}` : `DNS:${entry}`)).join(',');
      await writeFile(extensions, `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth,clientAuth\n`);
      await run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${base}.key`, '-out', `${base}.csr`]);
      await run('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', caFile, '-CAkey', caKey, '-set_serial', String(serial + 1000), '-days', '1', '-extfile', extensions, '-out', `${base}.pem`]);
      return { certFile: `${base}.pem`, keyFile: `${base}.key` };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
