import type { RolloutRecord } from '@tidemark/contracts';
import type { CommitStatusState } from './commit-status';

/** WaveStatus is one wave of a rollout as a commit status: the wave, its state, and a line such as "canary: Ready". */
export interface WaveStatus {
  wave: string;
  state: CommitStatusState;
  description: string;
}

/**
 * waveStatuses reads a rollout record as one commit status per wave, for the revision it rolls
 * out: a passed wave is success ("canary: Ready on 1 cluster"); the current one is pending while
 * it applies, soaks or waits for an operator ("prod: waiting for soak until 14:05:00 UTC"), and
 * failure when its gate halted the rollout, naming the cluster and the reason; a later wave is
 * pending until reached, and error ("not reached") once the rollout halted or was aborted before it.
 */
export function waveStatuses(record: RolloutRecord): WaveStatus[] {
  return record.waves.map((wave, index) => ({ wave: wave.name, ...waveState(record, index) }));
}

function waveState(record: RolloutRecord, index: number): Omit<WaveStatus, 'wave'> {
  const wave = record.waves[index]!;
  const say = (state: CommitStatusState, text: string) => ({ state, description: `${wave.name}: ${text}` });
  const size = `${wave.clusters.length} cluster${wave.clusters.length === 1 ? '' : 's'}`;
  if (record.phase === 'aborted') return say('error', `aborted${record.lastAction ? ` by ${record.lastAction.by}` : ''}${record.previous ? `; its clusters return to ${record.previous.slice(0, 7)}` : ''}`);
  if (wave.clusters.length === 0) return say('success', 'no clusters');
  if (record.phase === 'complete' || index < record.wave) return say('success', `Ready on ${size}`);
  if (index > record.wave) {
    if (record.phase === 'halted') return say('error', `not reached: the rollout halted in wave ${record.waves[record.wave]?.name ?? record.wave}`);
    return say('pending', `waiting for wave ${record.waves[index - 1]!.name}`);
  }
  return currentWave(record, wave.clusters, say, size);
}

function currentWave(record: RolloutRecord, clusters: readonly string[], say: (state: CommitStatusState, text: string) => Omit<WaveStatus, 'wave'>, size: string): Omit<WaveStatus, 'wave'> {
  if (record.phase === 'halted') {
    const halt = record.halt;
    return say('failure', halt ? `halted on ${halt.cluster}${halt.objectKey ? ` ${halt.objectKey}` : ''}: ${halt.reason}` : 'halted');
  }
  const paused = record.paused ? `paused${record.lastAction?.action === 'pause' ? ` by ${record.lastAction.by}` : ''}; ` : '';
  if (record.phase === 'waiting-approval') return say('pending', `${paused}waiting for an operator's approval`);
  if (record.phase === 'soaking') return say('pending', `${paused}Ready on ${size}, waiting for soak${record.soakUntil ? ` until ${record.soakUntil.slice(11, 19)} UTC` : ''}`);
  const ready = clusters.filter((cluster) => record.cells[cluster]?.state === 'ready').length;
  return say('pending', `${paused}applying: ${ready} of ${size} Ready`);
}
