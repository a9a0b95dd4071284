// Builds Tidemark's Go programs when their sources changed, printing progress. Each argument names
// a group, so the run command builds only what running needs:
//   renderers      the pinned renderers Tidemark runs for Kustomize, Helm and SOPS units (tools/*,
//                  into tools/bin): needed to run, also on an existing cluster.
//   control-plane  the local cluster of `scripts/tidemark-local`: kube-apiserver, etcd and kubectl
//                  (test/kube-testenv) and its controllers (kube-controller-manager, kube-scheduler,
//                  KWOK). Not needed with --kubeconfig.
//   test-only      what only the suites use: Helm's renderer for the deploy checks (test/helm-render),
//                  the Compose loader (test/compose-check), the Git-host tests' Gitea (test/gitea), the
//                  OCI source tests' registry, oras and htpasswd helper (test/oci-registry) and the
//                  tracing tests' Jaeger (test/jaeger).
// With no argument, all three.
import { buildGitea, buildJaeger, buildKubeControllers, buildKubeTestenv, buildOciRegistry, buildRenderTools } from '@tidemark/testing';
import { buildComposeCheck, buildHelmRender } from '../test/deploy/render';

const groups: Record<string, [string, () => Promise<string>][]> = {
  'renderers': [['render tools', () => buildRenderTools()]],
  'control-plane': [['kube-testenv', () => buildKubeTestenv()], ['kube-controllers', () => buildKubeControllers()]],
  'test-only': [['helm-render', () => buildHelmRender()], ['compose-check', () => buildComposeCheck()], ['gitea', () => buildGitea()], ['oci-registry', () => buildOciRegistry()], ['jaeger', () => buildJaeger()]],
};

const asked = process.argv.slice(2);
const unknown = asked.filter((group) => !(group in groups));
if (unknown.length > 0) {
  process.stderr.write(`build-testenv: unknown group ${unknown.join(', ')}; the groups are ${Object.keys(groups).join(', ')}\n`);
  process.exit(2);
}
for (const group of asked.length > 0 ? asked : Object.keys(groups)) {
  for (const [label, build] of groups[group]!) process.stderr.write(`${label}: ${await build()}\n`);
}
