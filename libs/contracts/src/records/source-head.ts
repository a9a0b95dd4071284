import { jsonRecordOf, textOf } from './record-fields';

/**
 * SourceHead is the message published on `RecordKeys.sourceHeads` when a source may have moved: a
 * push's webhook arrived (no revision yet), or a poll found a new head (its revision). An agent
 * takes it as a hint to fetch the source's ref ahead of its jobs; it applies nothing because of it
 * (docs/agents.md), so a forged one costs at most a fetch.
 */
export interface SourceHead {
  source: string;
  revision?: string;
}

/** Longest message read off the channel: a source name and a commit id fit many times over. */
const maxMessageLength = 1024;
const revisionPattern = /^[0-9a-f]{40}$/;

/** sourceHeadMessage is the channel's text for a SourceHead. */
export function sourceHeadMessage(head: SourceHead): string {
  return JSON.stringify(head);
}

/** parseSourceHead reads a message off the channel; undefined for anything else (oversized, no source, a revision that is no commit id). */
export function parseSourceHead(message: string): SourceHead | undefined {
  if (message.length > maxMessageLength) return undefined;
  const value = jsonRecordOf(message);
  const source = textOf(value?.source, 253);
  if (!value || !source) return undefined;
  if (value.revision === undefined) return { source };
  return typeof value.revision === 'string' && revisionPattern.test(value.revision) ? { source, revision: value.revision } : undefined;
}
