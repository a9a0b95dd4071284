// Builds the rig's Go programs when their sources changed, printing progress: the control plane
// (test/kube-testenv) and Helm's renderer for the deploy checks (test/helm-render).
import { buildKubeTestenv } from '@tidemark/testing';
import { buildComposeCheck, buildHelmRender } from '../test/deploy/render';

process.stderr.write(`kube-testenv: ${await buildKubeTestenv()}\n`);
process.stderr.write(`helm-render: ${await buildHelmRender()}\n`);
process.stderr.write(`compose-check: ${await buildComposeCheck()}\n`);
