import { describe, expect, it } from 'vitest';
import { ReconcilerMetrics } from './metrics/reconciler-metrics';
import { reportRenderSandbox } from './render-sandbox-report';

function capture() {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    log: {
      warn: (_: object, message: string) => lines.push({ level: 'warn', message }),
      info: (_: object, message: string) => lines.push({ level: 'info', message }),
    } as never,
  };
}

describe('reportRenderSandbox', () => {
  it('warns loudly and exports tidemark_render_sandbox_isolated 0 when renderers cannot be isolated', async () => {
    const metrics = new ReconcilerMetrics();
    const { lines, log } = capture();
    expect(reportRenderSandbox(log, metrics, { network: false, credentials: false })).toBe(false);
    expect(lines).toEqual([{ level: 'warn', message: expect.stringMatching(/^RENDER SANDBOX NOT ISOLATED: .*seccomp profile .*deploy\/seccomp\/tidemark-render\.json/) }]);
    expect(await metrics.render()).toMatch(/^tidemark_render_sandbox_isolated 0$/m);
  });

  it('exports 1 and does not warn when they run in namespaces of their own', async () => {
    const metrics = new ReconcilerMetrics();
    const { lines, log } = capture();
    expect(reportRenderSandbox(log, metrics, { network: true, credentials: true })).toBe(true);
    expect(lines.map((line) => line.level)).toEqual(['info']);
    expect(await metrics.render()).toMatch(/^tidemark_render_sandbox_isolated 1$/m);
  });

  it('warns when renderers have no network but could read the pod\'s credentials', async () => {
    const metrics = new ReconcilerMetrics();
    const { lines, log } = capture();
    expect(reportRenderSandbox(log, metrics, { network: true, credentials: false })).toBe(true);
    expect(lines).toEqual([{ level: 'warn', message: expect.stringMatching(/^RENDER SANDBOX PARTLY ISOLATED: .*ServiceAccount token/) }]);
    expect(await metrics.render()).toMatch(/^tidemark_render_sandbox_isolated 1$/m);
  });
});
