import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { maxSourceNameLength } from '@tidemark/contracts';

// Response schemas double as an allow-list: fastify serialises only the fields named here.

export const ErrorBody = Type.Object({
  code: Type.String({ description: 'Stable machine-readable code, e.g. Unauthenticated.' }),
  message: Type.String(),
}, { $id: 'ErrorBody' });
export type ErrorBody = Static<typeof ErrorBody>;

const errorRef = Type.Ref('ErrorBody');

/** errors returns the error responses a route declares, one per status. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorRef]));
}

export const ConditionBody = Type.Object({
  type: Type.String(),
  status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
  observedGeneration: Type.Integer(),
  reason: Type.String(),
  message: Type.String(),
  lastTransitionTime: Type.String(),
});

const InventoryBody = Type.Object({ apiVersion: Type.String(), kind: Type.String(), namespace: Type.String(), name: Type.String() });

const DriftBody = Type.Object({
  object: Type.Optional(Type.String({ description: 'The drifted object, `Kind namespace/name` (owned objects of a CR drift too).' })),
  path: Type.String({ description: 'JSON pointer of the field.' }),
  desired: Type.Unknown(),
  live: Type.Unknown(),
  manager: Type.String({ description: 'Field manager that wrote the live value.' }),
  detectedAt: Type.String(),
});

const HealthLiteral = Type.Union(['Ready', 'Progressing', 'Failed', 'Unknown'].map((value) => Type.Literal(value)));

const AppliedResourceBody = Type.Object({
  apiVersion: Type.String(), kind: Type.String(), namespace: Type.String(), name: Type.String(), uid: Type.Optional(Type.String()),
  action: Type.String({ description: 'What the last apply did: created, configured, unchanged, skipped.' }), health: HealthLiteral, message: Type.Optional(Type.String()),
});

/** TreeNodeBody is the resource tree: the Git object, what it applied, and their ReplicaSets and Pods. */
export const TreeNodeBody = Type.Recursive((node) => Type.Object({
  id: Type.String(), kind: Type.String(), namespace: Type.String(), name: Type.String(), health: HealthLiteral,
  sync: Type.String({ description: 'Synced, Drifted, Created, Configured, Skipped, or Live (made by a controller, not by Tidemark).' }),
  message: Type.Optional(Type.String()), children: Type.Array(node),
}), { $id: 'TreeNode' });

export const ObjectStatusBody = Type.Object({
  cluster: Type.String(),
  objectKey: Type.String(),
  source: Type.String(),
  path: Type.Optional(Type.String()),
  line: Type.Optional(Type.Integer()),
  apiVersion: Type.String(),
  kind: Type.String(),
  namespace: Type.String(),
  name: Type.String(),
  generation: Type.Optional(Type.Integer()),
  observedGeneration: Type.Optional(Type.Integer()),
  lastAppliedRevision: Type.Optional(Type.String()),
  lastAttemptedRevision: Type.Optional(Type.String()),
  conditions: Type.Array(ConditionBody),
  inventory: Type.Array(InventoryBody),
  kindStatus: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  drift: Type.Optional(Type.Array(DriftBody)),
  warnings: Type.Optional(Type.Array(Type.String())),
  failure: Type.Optional(Type.Object({ category: Type.String(), code: Type.String(), detail: Type.Optional(Type.String()) })),
  resources: Type.Optional(Type.Array(AppliedResourceBody, { description: 'What the last successful run applied, with health.' })),
  suspended: Type.Optional(Type.Boolean()),
  updatedAt: Type.String(),
});

export const ReconcileRecordBody = Type.Object({
  revision: Type.String(),
  startedAt: Type.String(),
  durationMs: Type.Number(),
  result: Type.String(),
  stage: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  changes: Type.Optional(Type.Object({ created: Type.Integer(), configured: Type.Integer(), unchanged: Type.Integer(), deleted: Type.Integer() })),
  repeats: Type.Optional(Type.Integer({ description: 'Runs in a row that ended like this one and changed nothing (absent: 1).' })),
  lastAt: Type.Optional(Type.String({ description: 'When the last of the repeats started.' })),
  traceId: Type.Optional(Type.String({ description: 'The W3C trace id of the run (its last repeat), when tracing recorded it.' })),
});

export const CellBody = Type.Object({
  state: Type.Union(['Stalled', 'Failed', 'Waiting', 'Reconciling', 'Ready', 'Unknown'].map((state) => Type.Literal(state))),
  drifted: Type.Boolean(),
  suspended: Type.Boolean(),
  generation: Type.Optional(Type.Integer()),
  observedGeneration: Type.Optional(Type.Integer()),
  reason: Type.Optional(Type.String()),
  updatedAt: Type.String(),
});

export const StateCountsBody = Type.Object({
  total: Type.Integer(), Ready: Type.Integer(), Reconciling: Type.Integer(), Waiting: Type.Integer(), Stalled: Type.Integer(),
  Failed: Type.Integer(), Unknown: Type.Integer(), Drifted: Type.Integer(), Suspended: Type.Integer(),
});

export const ObjectKeyParams = Type.Object({
  cluster: Type.String({ minLength: 1, maxLength: 63 }),
  group: Type.String({ minLength: 1, maxLength: 253, description: "API group, 'core' for the core group." }),
  kind: Type.String({ minLength: 1, maxLength: 63 }),
  namespace: Type.String({ minLength: 1, maxLength: 63, description: "'_' for cluster-scoped objects." }),
  name: Type.String({ minLength: 1, maxLength: 253 }),
});
export type ObjectKeyParams = Static<typeof ObjectKeyParams>;

export const ConditionFilterSchema = Type.Union(['Ready', 'Reconciling', 'Waiting', 'Stalled', 'Failed', 'Drifted', 'Suspended', 'Unknown'].map((value) => Type.Literal(value)));

export const ObjectsQuery = Type.Object({
  kind: Type.Optional(Type.String({ maxLength: 63 })),
  namespace: Type.Optional(Type.String({ maxLength: 63 })),
  cluster: Type.Optional(Type.String({ maxLength: 63 })),
  source: Type.Optional(Type.String({ maxLength: maxSourceNameLength, description: 'Only objects declared by this Git source.' })),
  condition: Type.Optional(Type.Union([ConditionFilterSchema, Type.Literal('')])),
  q: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
}, { additionalProperties: false });
export type ObjectsQuery = Static<typeof ObjectsQuery>;

export const ActionResult = Type.Object({
  action: Type.String(),
  cluster: Type.String(),
  objectKey: Type.Optional(Type.String()),
  /** What the queue did: queued, merged, stalled; or how many were retried. */
  queue: Type.Optional(Type.String()),
  retried: Type.Optional(Type.Integer()),
  suspended: Type.Optional(Type.Boolean()),
});
export type ActionResult = Static<typeof ActionResult>;

/** SourceActionResult is what a source action did: fetch asks for a poll, suspend and resume set the flag. */
export const SourceActionResult = Type.Object({
  action: Type.String(),
  source: Type.String(),
  suspended: Type.Optional(Type.Boolean()),
});
export type SourceActionResult = Static<typeof SourceActionResult>;
