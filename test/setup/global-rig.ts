import type { TestProject } from 'vitest/node';
import { startControlPlane, startRedis, type ControlPlane, type TestRedis } from '@tidemark/testing';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    kubeconfig: string;
    kubeconfigPath: string;
  }
}

let redis: TestRedis | undefined;
let plane: ControlPlane | undefined;

/** setup starts the shared rig once per run: one Redis and one control plane. */
export async function setup(project: TestProject): Promise<void> {
  [redis, plane] = await Promise.all([startRedis(), startControlPlane({ name: 'shared' })]);
  project.provide('redisUrl', redis.url);
  project.provide('kubeconfig', plane.kubeconfig);
  project.provide('kubeconfigPath', plane.kubeconfigPath);
}

export async function teardown(): Promise<void> {
  await Promise.all([redis?.stop(), plane?.stop()]);
}
