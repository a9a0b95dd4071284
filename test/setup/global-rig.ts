import type { TestProject } from 'vitest/node';
import { applyObject, ClusterConnection, waitForEstablished } from '@tidemark/cluster';
import { withConversion } from '@tidemark/conversion';
import { webAppPlugin } from '@tidemark/kinds';
import { startControlPlane, startRedis, type ControlPlane, type TestRedis } from '@tidemark/testing';
import { startTestConversionWebhook, type TestConversionWebhook } from '../support/conversion-webhook';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    kubeconfig: string;
    kubeconfigPath: string;
  }
}

let redis: TestRedis | undefined;
let plane: ControlPlane | undefined;
let conversion: TestConversionWebhook | undefined;

/** The field manager of the shared plane's WebApp CRD: not the reconciler's, so suites leave it be. */
const rigCrdManager = 'tidemark-rig';

/** setup starts the shared rig once per run: one Redis and one control plane. */
export async function setup(project: TestProject): Promise<void> {
  [redis, plane, conversion] = await Promise.all([startRedis(), startControlPlane({ name: 'shared' }), startTestConversionWebhook()]);
  // Suites share this control plane, so one conversion webhook serves them all for the whole run.
  const connection = ClusterConnection.connect({ cluster: 'shared', kubeconfig: plane.kubeconfig }).asManager(rigCrdManager);
  await applyObject(connection, withConversion(webAppPlugin.crd, conversion.conversion()));
  await waitForEstablished(connection, [webAppPlugin.crd.metadata.name]);
  connection.close();
  project.provide('redisUrl', redis.url);
  project.provide('kubeconfig', plane.kubeconfig);
  project.provide('kubeconfigPath', plane.kubeconfigPath);
}

export async function teardown(): Promise<void> {
  await Promise.all([redis?.stop(), plane?.stop()]);
  await conversion?.stop();
}
