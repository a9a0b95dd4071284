import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGoProgram } from './go-build';

const toolsDir = resolve(fileURLToPath(import.meta.url), '../../../../tools');

/** renderToolsDir is where scripts/setup puts the pinned renderers (kustomize, helm, sops, age-keygen). */
export const renderToolsDir = join(toolsDir, 'bin');

interface RenderTool {
  /** The Go module under tools/ that pins the tool. */
  module: string;
  /** The binary's name in tools/bin. */
  name: string;
  /** The main package, named by a `tool` directive of the module. */
  package: string;
  note: string;
}

const renderTools: RenderTool[] = [
  { module: 'kustomize', name: 'kustomize', package: 'sigs.k8s.io/kustomize/kustomize/v5', note: 'kustomize v5 from the Go module proxy; a few minutes the first time' },
  { module: 'helm', name: 'helm', package: 'helm.sh/helm/v3/cmd/helm', note: 'helm v3 from the Go module proxy; a few minutes the first time' },
  { module: 'sops', name: 'sops', package: 'github.com/getsops/sops/v3/cmd/sops', note: 'sops v3 and its cloud key services from the Go module proxy; 5-10 minutes the first time' },
  { module: 'sops', name: 'age-keygen', package: 'filippo.io/age/cmd/age-keygen', note: 'age-keygen, to make the tests\' age keys; seconds' },
];

/**
 * buildRenderTools builds the pinned renderers into tools/bin when their go.mod changed, one after
 * the other (two cores), and returns the folder. The reconciler's Dockerfile builds the same modules.
 */
export async function buildRenderTools(log?: (line: string) => void): Promise<string> {
  for (const tool of renderTools) {
    await buildGoProgram({
      dir: join(toolsDir, tool.module),
      binary: join(renderToolsDir, tool.name),
      label: tool.name,
      firstBuildNote: tool.note,
      package: tool.package,
    }, log);
  }
  return renderToolsDir;
}
