// Bundles each app into one ES module, apps/<app>/dist/main.js, for Node 20. Workspace
// libraries (@tidemark/*) are bundled in; npm packages stay external and load from
// node_modules at run time, so native and optional dependencies keep working.
// Usage: node scripts/build.mjs [--outdir DIR]   (npm run build type-checks first)
// With --outdir (relative to the repository) each bundle goes to DIR/<app>/main.js instead;
// the tests use it to run the bundles without touching apps/*/dist.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const apps = ['reconciler', 'dashboard'];
const { values: options } = parseArgs({ options: { outdir: { type: 'string' } } });
const outfileOf = (app) => (options.outdir ? `${options.outdir}/${app}/main.js` : `apps/${app}/dist/main.js`);

/** externalNpmPackages marks every bare import external except the workspace's own @tidemark/* libraries. */
const externalNpmPackages = {
  name: 'external-npm-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@tidemark/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

for (const app of apps) {
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
    plugins: [externalNpmPackages],
    banner: { js: '#!/usr/bin/env node' },
  });
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  console.log(`built ${outfileOf(app)} (${Math.round(bytes / 1024)} KiB with its source map)`);
}
