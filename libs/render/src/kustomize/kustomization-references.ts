import { parse } from 'yaml';
import { RenderFailure } from '../render-failure';
import { messageOf } from '@tidemark/contracts';

// Fields whose entries may name another kustomization folder (a base or component) anywhere in the repository.
const folderFields = ['resources', 'bases', 'components', 'generators', 'transformers', 'validators'] as const;
const remote = /^(https?:\/\/|ssh:\/\/|git@|git::|github\.com\/|gitlab\.com\/|bitbucket\.org\/)|\?ref=|\/\/$|^[a-z0-9.-]+\.[a-z]{2,}\/[^/]+\/[^/]+/i;

/** KustomizationReference is one entry that names a file or folder, with the field it came from. */
export interface KustomizationReference {
  field: string;
  value: string;
}

/** looksRemote tells whether a kustomization entry names something to download (a URL or a Git repository). */
export function looksRemote(value: string): boolean {
  return remote.test(value);
}

/**
 * kustomizationReferences reads the entries of a kustomization file that may name other
 * folders. Inline objects (transformer configs written in place) are skipped; they name none.
 */
export function kustomizationReferences(text: string, path: string): KustomizationReference[] {
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 10 });
  } catch (error) {
    throw new RenderFailure('RenderFailed', `${path}: ${messageOf(error)}`, path);
  }
  if (document === null || document === undefined) return [];
  if (typeof document !== 'object' || Array.isArray(document)) throw new RenderFailure('RenderFailed', `${path}: a kustomization must be a mapping`, path);
  const references: KustomizationReference[] = [];
  for (const field of folderFields) {
    const entries = (document as Record<string, unknown>)[field];
    if (entries === undefined || entries === null) continue;
    if (!Array.isArray(entries)) throw new RenderFailure('RenderFailed', `${path}: ${field} must be a list`, path);
    for (const entry of entries) {
      if (typeof entry === 'string') references.push({ field, value: entry });
    }
  }
  return references;
}

/**
 * kustomizationKind returns a kustomization's `kind` (Kustomization, Component), or undefined when
 * it names none or cannot be read; a file that does not parse fails later, where it is rendered.
 */
export function kustomizationKind(text: string): string | undefined {
  const match = /^kind:[ \t]*["']?([A-Za-z]+)["']?[ \t]*(#.*)?$/m.exec(text);
  return match?.[1];
}
