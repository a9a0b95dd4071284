// Builds test/kube-testenv when its sources changed, printing progress (see libs/testing).
import { buildKubeTestenv } from '@tidemark/testing';

const binary = await buildKubeTestenv();
process.stderr.write(`kube-testenv: ${binary}\n`);
