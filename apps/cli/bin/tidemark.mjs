#!/usr/bin/env node
// The `tidemark` command. A built tree runs the bundle (dist/main.js, made by scripts/build.mjs);
// a checkout runs the TypeScript source through tsx, like the other apps' `npm start`.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/main.js', import.meta.url);
if (existsSync(bundle)) {
  await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/main.ts', import.meta.url).href);
}
