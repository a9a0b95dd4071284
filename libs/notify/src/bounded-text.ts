/**
 * boundedText cuts text to `limit` characters (an ellipsis marks the cut) after removing what
 * could be a credential in it: the user and password of any URL. Messages come from conditions
 * and records that are redacted already; this keeps a token in a Git URL out of a chat room even
 * if some writer forgot.
 */
export function boundedText(text: string, limit: number): string {
  const scrubbed = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
  return scrubbed.length <= limit ? scrubbed : `${scrubbed.slice(0, Math.max(0, limit - 1))}…`;
}
