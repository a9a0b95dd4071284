import { TerminalError } from '@tidemark/contracts';
import type { KindPlugin } from '../kind-plugin';

/**
 * RegisteredKind is a plugin as the registry stores it. The spec and status types are erased
 * here: the pipeline hands a plugin the CR it matched, and each plugin narrows its own types.
 */
// KindPlugin declares its members as methods, whose parameters TypeScript checks bivariantly,
// so every KindPlugin<Spec, Status> (with a `type` alias for Status) is assignable to this.
export type RegisteredKind = KindPlugin;

/**
 * KindRegistry maps an apiVersion and kind to the plugin that reconciles it. A kind with no
 * plugin is a plain manifest: applied as-is, with health from `healthOf`. Registering is the
 * only way in, so a new kind is new code plus one `register` call (open-closed); see
 * `createDefaultRegistry` for the built-in list.
 */
export class KindRegistry {
  private readonly plugins = new Map<string, RegisteredKind>();

  /** register adds a plugin; registering the same group/version/kind twice is a mistake. */
  register(plugin: RegisteredKind): this {
    const versions = plugin.servedVersions ?? [plugin.version];
    const keys = versions.map((version) => registryKey(`${plugin.group}/${version}`, plugin.kind));
    const taken = versions.find((_version, index) => this.plugins.has(keys[index]!));
    if (taken !== undefined) {
      throw new TerminalError('KindAlreadyRegistered', `Kind ${plugin.kind} (${plugin.group}/${taken}) is registered twice; register each kind once.`);
    }
    for (const key of keys) this.plugins.set(key, plugin);
    return this;
  }

  /** pluginFor returns the plugin of an object's apiVersion and kind, or undefined for a plain manifest. */
  pluginFor(apiVersion: string, kind: string): RegisteredKind | undefined {
    return this.plugins.get(registryKey(apiVersion, kind));
  }

  /** list returns the plugins in registration order (the order CRDs are installed in). */
  list(): RegisteredKind[] {
    return [...new Set(this.plugins.values())];
  }
}

function registryKey(apiVersion: string, kind: string): string {
  return `${apiVersion}|${kind}`;
}
