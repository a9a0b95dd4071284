import { scrubText } from '@tidemark/contracts';

/**
 * boundedText cuts text to `limit` characters (an ellipsis marks the cut) after removing what
 * could be a credential in it, by the one secret rule (scrubText). Messages come from conditions
 * and records that are redacted already; this keeps a token in a Git URL out of a chat room even
 * if some writer forgot.
 */
export function boundedText(text: string, limit: number): string {
  const scrubbed = scrubText(text);
  return scrubbed.length <= limit ? scrubbed : `${scrubbed.slice(0, Math.max(0, limit - 1))}…`;
}
