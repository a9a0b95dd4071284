import { Type, type Static } from '@sinclair/typebox';
import { compileSyncWindow, SyncWindowError, type SyncWindow } from '@tidemark/placement';

const LabelSelectorInput = Type.Object({
  matchLabels: Type.Optional(Type.Record(Type.String({ maxLength: 317 }), Type.String({ maxLength: 63 }))),
  matchExpressions: Type.Optional(Type.Array(Type.Object({
    key: Type.String({ minLength: 1, maxLength: 317 }),
    operator: Type.String({ minLength: 1, maxLength: 16 }),
    values: Type.Optional(Type.Array(Type.String({ maxLength: 63 }), { maxItems: 100 })),
  }, { additionalProperties: false }), { maxItems: 20 })),
}, { additionalProperties: false });

/**
 * SyncWindowsInput is tidemark.yaml's `syncWindows`: allow and deny windows, each a five-field
 * cron start, a duration and an IANA zone, for the clusters (by name or selector) and sources it
 * names. They live in the operator's file on purpose: a tenant who can write a Source object or a
 * repository must not be able to open a cluster the operator closed.
 */
export const SyncWindowsInput = Type.Array(Type.Object({
  name: Type.Optional(Type.String({ maxLength: 63 })),
  kind: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  schedule: Type.String({ maxLength: 200 }),
  duration: Type.String({ maxLength: 32 }),
  timeZone: Type.Optional(Type.String({ maxLength: 64 })),
  clusters: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 1000 })),
  clusterSelector: Type.Optional(LabelSelectorInput),
  sources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 1000 })),
  manualSync: Type.Optional(Type.Boolean()),
}, { additionalProperties: false }), { maxItems: 200 });

/** syncWindowsConfig compiles every window once, at load; a mistake names the file, the window and the field. */
export function syncWindowsConfig(input: Static<typeof SyncWindowsInput> | undefined, where: (field: string) => string, invalid: (message: string) => Error): readonly SyncWindow[] {
  return (input ?? []).map((window, index) => {
    try {
      return compileSyncWindow(window, where(`syncWindows[${index}]`));
    } catch (error) {
      if (error instanceof SyncWindowError) throw invalid(error.message);
      throw error;
    }
  });
}
