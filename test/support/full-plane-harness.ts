// A pipeline harness on a full control plane of its own (controllers, scheduler, KWOK nodes), with
// Tidemark's built-in CRDs installed behind a test conversion webhook and one namespace in Git.
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { installBuiltinCrds } from '@tidemark/conversion';
import { startPipelineHarness, type PipelineHarness } from './pipeline-harness';
import { startTestConversionWebhook, type TestConversionWebhook } from './conversion-webhook';

export interface FullPlaneHarness {
  plane: ControlPlane;
  harness: PipelineHarness;
  stop(): Promise<void>;
}

/** startFullPlaneHarness starts the plane named `name` and writes Namespace `namespace` to the harness's repository. */
export async function startFullPlaneHarness(name: string, redisUrl: string, namespace: string): Promise<FullPlaneHarness> {
  const plane = await startControlPlane({ name, controllers: true });
  let harness: PipelineHarness | undefined;
  let conversion: TestConversionWebhook | undefined;
  try {
    harness = await startPipelineHarness(plane.kubeconfig, redisUrl);
    conversion = await startTestConversionWebhook(harness.kinds);
    await installBuiltinCrds(harness.connection, harness.kinds, conversion.conversion());
    await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  } catch (error) {
    // A half-started rig stops what it started, so a failed beforeAll leaves no processes behind.
    await harness?.stop();
    await plane.stop();
    await conversion?.stop();
    throw error;
  }
  const started = { harness, conversion };
  return {
    plane, harness: started.harness,
    async stop() {
      await started.harness.stop();
      await plane.stop();
      await started.conversion.stop();
    },
  };
}
