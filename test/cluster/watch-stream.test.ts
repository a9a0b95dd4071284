// A watch reconnects many times under one AbortSignal (each stream ends after its timeout, each
// failure backs off): no stream may leave a listener on that signal, or a long-running reconciler
// keeps every finished request alive.
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ClusterConnection } from '@tidemark/cluster';

let connection: ClusterConnection;

beforeAll(() => {
  connection = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig') });
});
afterAll(() => connection.close());

describe('watch streams', () => {
  it('leave no abort listener on the watch signal once a stream has ended', async () => {
    const controller = new AbortController();
    for (let round = 0; round < 3; round += 1) {
      const response = await connection.client.stream('/api/v1/namespaces/default/configmaps', { watch: 1, timeoutSeconds: 1 }, controller.signal);
      expect(response.statusCode).toBe(200);
      await new Promise<void>((resolve) => { response.on('end', resolve); response.resume(); });
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
