// Bundles each app into one ES module, apps/<app>/dist/main.js, for Node 20. Workspace
// libraries (@tidemark/*) are bundled in; npm packages stay external and load from the top-level
// node_modules at run time, so native and optional dependencies keep working. Two exceptions keep
// the image (which ships only the top-level production node_modules) working:
// - a package a workspace holds its own copy of (libs/x/node_modules/y, another version than the
//   hoisted one) is bundled from that copy, so the version the library asked for runs; so is one a
//   bundled package holds (node_modules/p/node_modules/y);
// - an external package that is missing at the top level, or there only as a dev dependency
//   (gone after `npm prune --omit=dev`), fails the build with its name.
// - a package in bundledPackages is bundled too (its own dependencies stay external): loaded from
//   node_modules as hundreds of separate ES modules it costs far more memory than as bundled code.
// Usage: node scripts/build.mjs [--outdir DIR]   (npm run build type-checks first)
// With --outdir (relative to the repository) each bundle goes to DIR/<app>/main.js instead;
// the tests use it to run the bundles without touching apps/*/dist.
import { build } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const apps = ['reconciler', 'dashboard', 'cli'];
const { values: options } = parseArgs({ options: { outdir: { type: 'string' } } });
const outfileOf = (app) => (options.outdir ? `${options.outdir}/${app}/main.js` : `apps/${app}/dist/main.js`);

/**
 * bundledPackages are npm packages bundled into the apps. @kubernetes/client-node's entry loads
 * about 830 modules (every generated API class): importing it from node_modules takes a bare node
 * from 41 to 109 MiB RSS, while the same KubeConfig bundled by esbuild takes it to 67 MiB.
 */
const bundledPackages = new Set(['@kubernetes/client-node']);

const lockedPackages = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;

/** packageName is the npm package of a bare import: 'a/b' -> 'a', '@s/a/b' -> '@s/a'. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** workspaceOf is the workspace folder (apps/x or libs/x) a file belongs to, if any. */
function workspaceOf(file) {
  return /^(apps|libs)\/[^/]+/.exec(relative(root, file))?.[0];
}

/**
 * bundledPackageOf is the bundledPackages entry a file lies in (its nested node_modules included):
 * a copy such a package holds of its own (client-node 2's js-yaml 5, where the top level has
 * eslint's js-yaml 4) is bundled with it, since the top-level copy is another version.
 */
function bundledPackageOf(file) {
  const path = relative(root, file).split('/');
  if (path[0] !== 'node_modules') return undefined;
  const name = path[1]?.startsWith('@') ? `${path[1]}/${path[2]}` : path[1];
  return bundledPackages.has(name) ? name : undefined;
}

/** externalNpmPackages marks bare imports external (recording them) except @tidemark/* and workspace-local copies. */
function externalNpmPackages(externals) {
  return {
    name: 'external-npm-packages',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@tidemark/')) return undefined;
        const name = packageName(args.path);
        if (bundledPackages.has(name)) return undefined;
        if (args.path.startsWith('node:') || builtinModules.includes(name)) return { path: args.path, external: true };
        const workspace = workspaceOf(args.importer);
        if (workspace && existsSync(join(root, workspace, 'node_modules', name))) return undefined;
        const bundled = bundledPackageOf(args.importer);
        if (bundled && existsSync(join(root, 'node_modules', bundled, 'node_modules', name))) return undefined;
        externals.add(name);
        return { path: args.path, external: true };
      });
    },
  };
}

/** checkExternals fails when a production image would not have an external package. */
function checkExternals(app, externals) {
  for (const name of externals) {
    const locked = lockedPackages[`node_modules/${name}`];
    if (!locked) throw new Error(`apps/${app}: imports ${name}, which is not installed at the top level of node_modules; add it to the importing workspace's dependencies`);
    if (locked.dev) throw new Error(`apps/${app}: imports ${name}, which is only a dev dependency at the top level and is pruned from the image; add it to the importing workspace's dependencies`);
  }
}

for (const app of apps) {
  const externals = new Set();
  const result = await build({
    absWorkingDir: root,
    entryPoints: [`apps/${app}/src/main.ts`],
    outfile: outfileOf(app),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [externalNpmPackages(externals)],
    // A bundled CommonJS package (the CLI's own commander) calls require('node:events'); an ES module
    // has no require, so the bundle gets one.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as tidemarkCreateRequire } from 'node:module';\nconst require = tidemarkCreateRequire(import.meta.url);" },
  });
  checkExternals(app, externals);
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  console.log(`built ${outfileOf(app)} (${Math.round(bytes / 1024)} KiB with its source map)`);
}

// The conversion webhook's worker thread (conversionWebhook.thread) loads its own module beside the
// reconciler's main.js (libs/conversion/src/webhook-thread.ts finds it there).
{
  const externals = new Set();
  const outfile = outfileOf('reconciler').replace(/main\.js$/, 'conversion-webhook-thread.js');
  await build({
    absWorkingDir: root, entryPoints: ['libs/conversion/src/webhook-thread-main.ts'], outfile, bundle: true, platform: 'node', target: 'node20',
    format: 'esm', sourcemap: 'linked', legalComments: 'none', logLevel: 'warning', plugins: [externalNpmPackages(externals)],
    banner: { js: "import { createRequire as tidemarkCreateRequire } from 'node:module';\nconst require = tidemarkCreateRequire(import.meta.url);" },
  });
  checkExternals('reconciler', externals);
  console.log(`built ${outfile}`);
}
