import { Value } from '@sinclair/typebox/value';
import { TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import type { RegisteredKind } from './kind-registry';

/** CustomResource is a CR whose spec fits its kind's spec type (still `unknown` to the pipeline). */
export type CustomResource = KubernetesManifest & { spec: unknown };

/**
 * parseCustomResource is the typed boundary between a CR read as `unknown` and a kind plugin:
 * it reads the spec (through specOf for a kind served in several versions), checks it against
 * the plugin's spec type and returns the object with that spec, which
 * is what the plugin's functions take. A spec that does not fit is a terminal failure naming the
 * file (`where`), the object and the field.
 */
export function parseCustomResource(plugin: RegisteredKind, object: KubernetesManifest, where: string): CustomResource {
  // A kind served in several versions reads one spec shape whatever version the object uses.
  const spec: unknown = plugin.specOf ? plugin.specOf(object) : object.spec ?? {};
  if (plugin.specType && !Value.Check(plugin.specType, spec)) {
    const first = Value.Errors(plugin.specType, spec).First();
    const field = `spec${(first?.path ?? '').replace(/\//g, '.')}`;
    throw new TerminalError('SpecInvalid', `${where}: ${object.kind} ${object.metadata.name}: ${field} ${first?.message ?? 'does not fit the kind'}. Fix it in Git; it is not retried until its spec changes.`);
  }
  return { ...object, spec };
}
