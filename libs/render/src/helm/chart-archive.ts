import { createReadStream } from 'node:fs';
import { tarEntryOf, TarWalkError, walkTar, type TarEntry } from '@tidemark/contracts';
import type { Header } from 'tar-stream';
import { RenderFailure } from '../render-failure';

/** ArchiveLimits bound what a chart archive may hold once inflated. */
export interface ArchiveLimits {
  /** All bytes of the inflated tar stream (headers included). */
  maxUnpackedBytes: number;
  /** Most entries. @defaultValue 5_000 */
  maxEntries: number;
}

/**
 * inspectChartArchive reads a downloaded chart archive (.tgz) as a stream, without writing
 * anything out, through the bounded walk every archive gets (walkTar: it stops as soon as the
 * inflated bytes pass the limit, and refuses links, devices, absolute paths and `..`). Every entry
 * must also lie under `<chart>/`. It resolves when the archive holds `<chart>/Chart.yaml` and
 * nothing else is wrong. `what` names the chart in messages.
 */
export async function inspectChartArchive(file: string, chart: string, limits: ArchiveLimits, what: string): Promise<void> {
  let sawChartYaml = false;
  try {
    await walkTar(createReadStream(file), { gzip: true, inside: 'the chart folder', maxInflatedBytes: limits.maxUnpackedBytes, maxEntries: limits.maxEntries }, {
      refuse: (entry) => {
        if (entry.type === 'file' && entry.path === `${chart}/Chart.yaml`) sawChartYaml = true;
        return outsideChart(entry, chart);
      },
    });
  } catch (error) {
    if (!(error instanceof TarWalkError)) throw error;
    throw new RenderFailure(error.kind === 'tooLarge' ? 'ChartTooLarge' : 'ChartArchiveRefused', error.describe(what, 'archive'));
  }
  if (!sawChartYaml) throw new RenderFailure('ChartArchiveRefused', `${what}: the archive has no ${chart}/Chart.yaml`);
}

/** entryRefusal says why one tar entry may not be in a chart archive, or undefined when it may. */
export function entryRefusal(header: Pick<Header, 'name' | 'type'>, chart: string): string | undefined {
  const entry = tarEntryOf(header, 'the chart folder');
  return 'refusal' in entry ? entry.refusal : outsideChart(entry, chart);
}

function outsideChart(entry: TarEntry, chart: string): string | undefined {
  if (entry.path === chart || entry.path.startsWith(`${chart}/`)) return undefined;
  return `entry ${JSON.stringify(entry.path.slice(0, 120))} is not inside the chart folder "${chart}/"`;
}
