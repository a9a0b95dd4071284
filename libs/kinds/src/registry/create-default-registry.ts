import { builtinKinds } from './builtin-kinds';
import { KindRegistry } from './kind-registry';

/**
 * createDefaultRegistry returns a new registry with the built-in kinds. Each call builds a
 * fresh one, so an app (or a test) can register more kinds without touching a shared global.
 */
export function createDefaultRegistry(): KindRegistry {
  const registry = new KindRegistry();
  for (const plugin of builtinKinds) {
    registry.register(plugin);
  }
  return registry;
}
