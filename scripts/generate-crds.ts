// Writes the CRDs of the built-in kinds to deploy/crds, from the TypeScript objects in
// libs/kinds (the source of truth). A unit test in libs/kinds fails when they differ.
// Usage: npx tsx scripts/generate-crds.ts
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { builtinKinds, crdFiles } from '@tidemark/kinds';

const directory = fileURLToPath(new URL('../deploy/crds/', import.meta.url));
await mkdir(directory, { recursive: true });
for (const file of crdFiles(builtinKinds)) {
  await writeFile(new URL(file.fileName, `file://${directory}`), file.content);
  console.log(`wrote deploy/crds/${file.fileName}`);
}
