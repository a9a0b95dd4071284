import { scrubSecrets } from '@tidemark/render';
import type { FileWarning, ManifestEntry } from './load-manifest-file';
import { isRecord, type Manifest } from './manifest';
import type { FileContent } from './revision-index';

/**
 * renderWarningsOf makes what `renderer` warned about the unit's warnings, once each, without any
 * value of a Secret the unit rendered (a tool may quote a value that a template put into one).
 */
export function renderWarningsOf(renderer: string, warnings: readonly string[], entries: readonly ManifestEntry[]): Pick<FileContent, 'warnings'> {
  if (warnings.length === 0) return {};
  const secrets = entries.flatMap((entry) => [entry.manifest, ...(entry.variants?.values() ?? [])]).flatMap(secretValuesOf);
  const distinct = [...new Set(warnings.map((warning) => scrubSecrets(warning, secrets)))];
  return { warnings: distinct.map((warning): FileWarning => ({ code: 'RenderWarning', reason: `${renderer} warned: ${warning}` })) };
}

/** secretValuesOf lists the values of a rendered Secret, decoded ('data' is base64), to keep them out of messages. */
function secretValuesOf(manifest: Manifest): string[] {
  if (manifest.kind !== 'Secret') return [];
  const values: string[] = [];
  const { data, stringData } = manifest as { data?: unknown; stringData?: unknown };
  for (const value of Object.values(isRecord(data) ? data : {})) if (typeof value === 'string') values.push(Buffer.from(value, 'base64').toString('utf8'), value);
  for (const value of Object.values(isRecord(stringData) ? stringData : {})) if (typeof value === 'string') values.push(value);
  return values;
}
