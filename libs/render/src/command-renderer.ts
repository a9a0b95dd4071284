import { join } from 'node:path';
import { renderOutputOf, type Renderer, type RenderJob } from './renderer';
import { runSandboxed } from './sandbox';

/** CommandRendererSpec is a renderer given in configuration, like an Argo CD Config Management Plugin. */
export interface CommandRendererSpec {
  /** The renderer's name, shown with its objects. */
  name: string;
  /** File names that make a folder one of its units (e.g. 'main.jsonnet'). */
  markers: readonly string[];
  /** The command and its arguments; the first is an absolute path. It runs in the unit's folder and prints a YAML stream. */
  command: readonly string[];
}

/**
 * commandRenderer makes a renderer of a command: jsonnet, cue or a team's own generator plug
 * in through configuration, with no code change. It runs in the same sandbox as the built-in
 * renderers (clean environment, no network, limits) and reads only its unit's folder.
 */
export function commandRenderer(spec: CommandRendererSpec): Renderer {
  const [command, ...args] = spec.command;
  if (!command?.startsWith('/')) throw new Error(`renderer "${spec.name}": command must start with an absolute path (the sandbox has no PATH)`);
  if (spec.markers.length === 0) throw new Error(`renderer "${spec.name}": give at least one marker file name`);
  return {
    name: spec.name,
    markers: spec.markers,
    ownsNestedUnits: false,
    inputs: () => Promise.resolve([]),
    render: async (job: RenderJob) => renderOutputOf(await runSandboxed({
      command,
      args,
      cwd: join(job.root, job.folder),
      home: job.scratch,
      limits: job.limits,
      label: `${spec.name} ${job.folder}`,
      launcher: job.launcher,
      env: { TIDEMARK_UNIT: job.folder, ...(job.cluster ? { TIDEMARK_CLUSTER: job.cluster.name } : {}) },
    })),
  };
}
