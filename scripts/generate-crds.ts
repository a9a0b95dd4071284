// Writes the CRDs of the built-in kinds to deploy/crds: WebApp, ConfigWatcher and HealthRule from
// libs/kinds, Source from libs/source-objects, Cluster from libs/cluster-objects and Rollout from
// libs/fanout. Each is generated from one TypeBox schema per version (crdSchemaOf and
// customResourceDefinition in libs/contracts). Unit tests in each library, and
// apps/reconciler/src/deploy-crds.test.ts for all of them, fail when they differ.
// Usage: npx tsx scripts/generate-crds.ts
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { builtinKinds, crdFiles, healthRuleCrd, healthRuleCrdHeader } from '@tidemark/kinds';
import { sourceCrd, sourceCrdHeader } from '@tidemark/source-objects';
import { clusterCrd, clusterCrdHeader } from '@tidemark/cluster-objects';
import { rolloutCrd, rolloutCrdHeader } from '@tidemark/fanout';

const directory = fileURLToPath(new URL('../deploy/crds/', import.meta.url));
await mkdir(directory, { recursive: true });
for (const file of crdFiles(builtinKinds)) {
  await writeFile(new URL(file.fileName, `file://${directory}`), file.content);
  console.log(`wrote deploy/crds/${file.fileName}`);
}
// The Source kind's CRD, generated from the TypeBox type config-file sources are parsed with.
const source = sourceCrd();
await writeFile(new URL(`${source.metadata.name}.yaml`, `file://${directory}`), sourceCrdHeader + stringify(source, { lineWidth: 0 }));
console.log(`wrote deploy/crds/${source.metadata.name}.yaml`);
// The HealthRule kind's CRD: read from Git, never applied by Tidemark; for admission checks and editors.
const healthRule = healthRuleCrd();
await writeFile(new URL(`${healthRule.metadata.name}.yaml`, `file://${directory}`), healthRuleCrdHeader + stringify(healthRule, { lineWidth: 0 }));
console.log(`wrote deploy/crds/${healthRule.metadata.name}.yaml`);
// The Cluster kind's CRD: clusters added, relabelled and rotated at runtime.
const cluster = clusterCrd();
await writeFile(new URL(`${cluster.metadata.name}.yaml`, `file://${directory}`), clusterCrdHeader + stringify(cluster, { lineWidth: 0 }));
console.log(`wrote deploy/crds/${cluster.metadata.name}.yaml`);
// The Rollout kind's CRD: read from Git, never applied by Tidemark; for admission checks and editors.
const rollout = rolloutCrd();
await writeFile(new URL(`${rollout.metadata.name}.yaml`, `file://${directory}`), rolloutCrdHeader + stringify(rollout, { lineWidth: 0 }));
console.log(`wrote deploy/crds/${rollout.metadata.name}.yaml`);
