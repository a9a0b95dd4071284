import { Type } from '@sinclair/typebox';
import { StateCountsBody } from './schemas';

export const SessionBody = Type.Object({
  name: Type.String(),
  role: Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]),
  groups: Type.Optional(Type.Array(Type.String(), { description: 'A single sign-on user\'s groups, as they were at sign-in.' })),
  via: Type.Union([Type.Literal('bearer'), Type.Literal('session')]),
  csrf: Type.Optional(Type.String({ description: 'Send it as X-CSRF-Token on actions made with the session cookie.' })),
});

const Durations = Type.Object({ count: Type.Integer(), p50: Type.Number(), p99: Type.Number(), max: Type.Number(), mean: Type.Number() });

export const FailureBody = Type.Object({
  objectKey: Type.String(), revision: Type.String(), failures: Type.Integer(), code: Type.String(),
  message: Type.String(), terminal: Type.Boolean(), category: Type.Optional(Type.String()), at: Type.String(),
});

export const QueueFiguresBody = Type.Object({
  cluster: Type.String(),
  queueName: Type.String(),
  paused: Type.Boolean(),
  depth: Type.Object({ waiting: Type.Integer(), active: Type.Integer(), delayed: Type.Integer(), prioritized: Type.Integer(), failed: Type.Integer() }),
  waitMs: Durations,
  processingMs: Durations,
  failures: Type.Array(FailureBody),
  failingObjects: Type.Integer(),
  failedRuns: Type.Integer({ description: 'Runs that ended in an error since the queue began counting (a counter).' }),
});

export const QueueBody = Type.Object({
  figures: Type.Array(QueueFiguresBody),
  error: Type.Optional(Type.String({ description: 'Why the figures could not be read (Redis down).' })),
});

const HealthBody = Type.Object({
  state: Type.Union([Type.Literal('Available'), Type.Literal('Unavailable'), Type.Literal('Unknown')]),
  since: Type.String(), lastCheck: Type.String(), latencyMs: Type.Optional(Type.Number()),
  message: Type.Optional(Type.String()), queuePaused: Type.Boolean(),
});

const FreezeBody = Type.Object({ cluster: Type.String(), by: Type.String(), reason: Type.String(), since: Type.String() }, { description: 'An operator froze the cluster: nothing is written to it until it is unfrozen.' });

const AgentBody = Type.Object({
  heartbeat: Type.Optional(Type.Object({ version: Type.String(), serverVersion: Type.Optional(Type.String()), lastSeen: Type.String(), ttlMs: Type.Number() })),
}, { description: 'An agent inside the cluster serves it (the hub never connects to it); its heartbeat when one lives.' });
const ClusterRowBody = Type.Object({ name: Type.String(), counts: StateCountsBody, health: HealthBody, queue: Type.Optional(QueueFiguresBody), freeze: Type.Optional(FreezeBody), agent: Type.Optional(AgentBody) });

export const ClusterBody = Type.Object({ row: ClusterRowBody, queueError: Type.Optional(Type.String()) });

export const ClustersBody = Type.Object({ clusters: Type.Array(ClusterRowBody), queueError: Type.Optional(Type.String()) });

const ProblemBody = Type.Object({ path: Type.String(), line: Type.Optional(Type.Integer()), code: Type.String(), message: Type.String() });

export const SourceBody = Type.Object({
  name: Type.String(),
  revision: Type.Optional(Type.String()),
  fetchedAt: Type.Optional(Type.String()),
  polledAt: Type.Optional(Type.String()),
  durationMs: Type.Optional(Type.Number()),
  objects: Type.Integer({ description: 'Git objects of the source with a status record on some cluster, each counted once.' }),
  byCluster: Type.Record(Type.String(), StateCountsBody, { description: 'The source\'s records per cluster, by state.' }),
  units: Type.Array(Type.Object({ renderer: Type.String(), folder: Type.String(), objects: Type.Integer(), byCluster: Type.Record(Type.String(), StateCountsBody) }), { description: 'Render units (Kustomize, Helm, …) with their objects per cluster.' }),
  fetchedObjects: Type.Optional(Type.Number({ description: 'Git objects (commits, trees, blobs) received by the last fetch; 0 when the ref had not moved.' })),
  changes: Type.Optional(Type.Number()),
  sourceErrors: Type.Optional(Type.Number()),
  state: Type.Optional(Type.String()),
  suspended: Type.Optional(Type.Boolean({ description: 'An operator suspended polling (POST /api/sources/{source}/suspend).' })),
  error: Type.Optional(Type.String()),
  errorAt: Type.Optional(Type.String()),
  leader: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String({ description: 'What the source follows, e.g. "branch main".' })),
  declaredObjects: Type.Optional(Type.Integer({ description: 'Kubernetes objects the source declares at its revision.' })),
  commitMessage: Type.Optional(Type.String({ description: 'Subject line of the commit at the revision.' })),
  commitAuthor: Type.Optional(Type.String()),
  commitTime: Type.Optional(Type.String()),
  problems: Type.Optional(Type.Array(ProblemBody, { description: 'The first problems in the source at its revision, with file and line.' })),
  sourceWarnings: Type.Optional(Type.Integer({ description: 'Parser and renderer warnings at the revision; they hold nothing back.' })),
  warnings: Type.Optional(Type.Array(ProblemBody, { description: 'The first parser and renderer warnings, with file and line.' })),
});

export const OverviewBody = Type.Object({
  counts: StateCountsBody,
  sources: Type.Array(SourceBody),
  clusters: Type.Array(ClusterRowBody),
  queueError: Type.Optional(Type.String()),
});
