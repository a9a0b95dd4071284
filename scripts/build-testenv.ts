// Builds the rig's Go programs when their sources changed, printing progress: the control plane
// (test/kube-testenv: kube-apiserver, etcd, kubectl), its controllers for full control planes
// (kube-controller-manager, kube-scheduler, KWOK), Helm's renderer for the deploy checks
// (test/helm-render), the pinned renderers Tidemark runs for Kustomize, Helm and SOPS units
// (tools/*, into tools/bin), and the pinned Gitea the Git-host tests run against (test/gitea).
import { buildGitea, buildKubeControllers, buildKubeTestenv, buildRenderTools } from '@tidemark/testing';
import { buildComposeCheck, buildHelmRender } from '../test/deploy/render';

process.stderr.write(`kube-testenv: ${await buildKubeTestenv()}\n`);
process.stderr.write(`kube-controllers: ${await buildKubeControllers()}\n`);
process.stderr.write(`helm-render: ${await buildHelmRender()}\n`);
process.stderr.write(`compose-check: ${await buildComposeCheck()}\n`);
process.stderr.write(`render tools: ${await buildRenderTools()}\n`);
process.stderr.write(`gitea: ${await buildGitea()}\n`);
