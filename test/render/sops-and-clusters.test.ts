// SOPS-encrypted Secrets (age keys made here with age-keygen, a PGP key made with gpg, encrypted
// with the real sops) and
// one overlay rendered per cluster with values from each cluster.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitSource, PollResult } from '@tidemark/git-source';
import { run, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { SourceFixture } from '../git-source/source-fixture';
import { newPgpKey, renderTools, rendering, type PgpKey, type Tools } from './render-fixture';

let server: GitServer;
let copy: WorkingCopy;
let source: GitSource;
let poll: PollResult;
let tools: Tools;
let keys: string;
let pgp: PgpKey;
const fixture = new SourceFixture();
const password = 'canary-hunter2-sops-value';

/** newAgeKey writes an age identity file and returns its public recipient. */
async function newAgeKey(path: string): Promise<string> {
  await run(tools.ageKeygen, ['-o', path]);
  return (await run(tools.ageKeygen, ['-y', path])).trim();
}

async function encrypt(recipient: string, plain: string): Promise<string> {
  const file = join(keys, 'plain-secret.yaml');
  await writeFile(file, plain);
  return run(tools.sops, ['--encrypt', '--age', recipient, '--encrypted-regex', '^(data|stringData)$', '--input-type', 'yaml', '--output-type', 'yaml', file], { env: { PATH: process.env.PATH ?? '', HOME: keys } });
}

const secret = (name: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\ntype: Opaque\nstringData:\n  password: ${password}\n`;

beforeAll(async () => {
  tools = await renderTools();
  keys = await mkdtemp(join(tmpdir(), 'tidemark-age-'));
  const ours = await newAgeKey(join(keys, 'tidemark.agekey'));
  const theirs = await newAgeKey(join(keys, 'other.agekey'));
  pgp = await newPgpKey(keys, 'tidemark-pgp');
  server = await startGitServer();
  const url = await server.createRepository('sops');
  copy = await server.workingCopy('sops');
  await copy.write('apps/db/kustomization.yaml', 'resources:\n  - db-secret.enc.yaml\n');
  await copy.write('apps/db/db-secret.enc.yaml', await encrypt(ours, secret('db')));
  await copy.write('apps/pgp/kustomization.yaml', 'resources:\n  - pgp-secret.enc.yaml\n');
  await writeFile(join(keys, 'plain-pgp.yaml'), secret('pgp'));
  await copy.write('apps/pgp/pgp-secret.enc.yaml', await pgp.encrypt(tools.sops, join(keys, 'plain-pgp.yaml')));
  await copy.write('apps/other/kustomization.yaml', 'resources:\n  - other-secret.enc.yaml\n  - cm.yaml\n');
  await copy.write('apps/other/other-secret.enc.yaml', await encrypt(theirs, secret('other')));
  await copy.write('apps/other/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n');
  await copy.write('apps/web/kustomization.yaml', 'resources:\n  - deployment.yaml\n');
  await copy.write('apps/web/deployment.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: "nginx:1.25"}]\n');
  await copy.write('apps/web/tidemark-render.yaml', 'kustomize:\n  images:\n    - name: nginx\n      newTag: "${cluster.variables.nginxTag}"\n  replicas:\n    - name: web\n      count: "${cluster.variables.replicas}"\n');
  await copy.commitAndPush('secrets and a per-cluster overlay');
  source = await fixture.open({ url, path: 'apps' }, {
    rendering: rendering(tools, {
      sops: { ageKeyFile: join(keys, 'tidemark.agekey'), pgpKeyFile: pgp.keyFile },
      clusters: [
        { name: 'eu', labels: { region: 'eu' }, variables: { replicas: '2', nginxTag: '1.26' } },
        { name: 'us', labels: { region: 'us' }, variables: { replicas: '5', nginxTag: '1.27' } },
      ],
    }),
  });
  poll = await source.poll();
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
  await pgp?.stop();
  if (keys) await rm(keys, { recursive: true, force: true });
});

describe('sops', () => {
  it('the file in Git holds no plain value', async () => {
    expect(await readFile(join(copy.dir, 'apps/db/db-secret.enc.yaml'), 'utf8')).not.toContain(password);
  });

  it('decrypts a Secret at render time with the configured age key', async () => {
    const found = await source.readObject(poll.revision, 'core/Secret/_/db');
    expect(found?.object).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, type: 'Opaque', stringData: { password } });
  });

  it('decrypts a Secret encrypted for a PGP key, with the key file alone (no gpg runs at render time)', async () => {
    expect(await readFile(join(copy.dir, 'apps/pgp/pgp-secret.enc.yaml'), 'utf8')).toContain(`fp: ${pgp.fingerprint}`);
    const found = await source.readObject(poll.revision, 'core/Secret/_/pgp');
    expect(found?.object).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pgp' }, type: 'Opaque', stringData: { password } });
  });

  it('names the file when a unit is encrypted and its source has no key', async () => {
    const keyless = await fixture.open({ url: await copy.git('remote', 'get-url', 'origin'), path: 'apps/pgp' }, { rendering: rendering(tools) });
    const [failed] = (await keyless.poll()).errors;
    expect(failed?.code).toBe('DecryptFailed');
    expect(failed?.message).toContain("apps/pgp/pgp-secret.enc.yaml is encrypted with sops, and its source has no sops key of its own, so it is not decrypted (never with another source's key)");
  });

  it('stops only the unit whose file does not decrypt, with a clear error that holds no value', () => {
    const failed = poll.errors.find((error) => error.path === 'apps/other/');
    expect(failed?.code).toBe('DecryptFailed');
    expect(failed?.message).toContain('apps/other/other-secret.enc.yaml could not be decrypted with the keys of source suite');
    expect(poll.errors).toHaveLength(1);
    expect(JSON.stringify(poll.errors)).not.toContain(password);
  });
});

describe('per-cluster values', () => {
  it('renders the same overlay into different Deployments for two clusters', async () => {
    const spec = async (cluster: string) => {
      const found = await source.readObject(poll.revision, 'apps/Deployment/_/web', cluster);
      const object = found?.object as unknown as { spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } };
      return { replicas: object.spec.replicas, image: object.spec.template.spec.containers[0]?.image };
    };
    expect(await spec('eu')).toEqual({ replicas: 2, image: 'nginx:1.26' });
    expect(await spec('us')).toEqual({ replicas: 5, image: 'nginx:1.27' });
  });

  it('names the cluster and the variable when a cluster lacks one', async () => {
    const lonely = await fixture.open({ url: await copy.git('remote', 'get-url', 'origin'), path: 'apps' }, {
      rendering: rendering(tools, { clusters: [{ name: 'lab', labels: {}, variables: { replicas: '1' } }] }),
    });
    const result = await lonely.poll();
    const failed = result.errors.find((error) => error.path === 'apps/web/');
    expect(failed?.code).toBe('RenderConfigInvalid');
    expect(failed?.message).toContain('uses ${cluster.variables.nginxTag}, which cluster lab does not set');
  });
});
