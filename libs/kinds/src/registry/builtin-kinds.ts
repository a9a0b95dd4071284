import { configWatcherPlugin } from '../configwatcher/configwatcher-plugin';
import { webAppPlugin } from '../webapp/webapp-plugin';
import type { RegisteredKind } from './kind-registry';

/**
 * builtinKinds is the single registration point of the kinds Tidemark ships. Each kind lives
 * in its own folder and exports its plugin; adding one is a new folder plus one entry here.
 */
export const builtinKinds: readonly RegisteredKind[] = [configWatcherPlugin, webAppPlugin];
