import { Type, type Static } from '@sinclair/typebox';
import { SourceName } from './source-name';

/** previewQueueName is the BullMQ queue of preview jobs: one for all clusters (a preview spans them). */
export const previewQueueName = 'preview';

/**
 * PreviewJob asks for a preview of one ref of a source: names only, never an object body or a
 * credential. The worker resolves the ref to a commit in Git; `revision`, when a webhook names
 * the commit, must be what the ref points at by then or the preview says it moved.
 */
export const PreviewJob = Type.Object(
  {
    source: SourceName,
    /** A branch name (refs/heads/ may be omitted) or a 40-hex commit id. */
    ref: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\u0000-\\u001f\\u007f ~^:?*\\[\\\\]+$' }),
    revision: Type.Optional(Type.String({ pattern: '^[0-9a-f]{40}$' })),
    trigger: Type.Union([Type.Literal('request'), Type.Literal('webhook')]),
    pullRequest: Type.Optional(Type.Object({
      number: Type.Integer({ minimum: 1 }),
      url: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2048 })),
      title: Type.Optional(Type.String({ maxLength: 512 })),
    }, { additionalProperties: false })),
    requestedAt: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z$', maxLength: 40 }),
  },
  { additionalProperties: false },
);
export type PreviewJob = Static<typeof PreviewJob>;
