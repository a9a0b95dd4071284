// Stand-in clusters for benches: one loopback HTTP server that answers, for many clusters at once
// (each under its own path, http://127.0.0.1:<port>/clusters/<name>), the part of the Kubernetes API
// an agent uses: /version, /readyz, discovery (core v1, apps/v1, apiextensions.k8s.io/v1 and every
// CRD applied to it), and get, list, watch (with bookmarks and a replay window), server-side apply
// (dry-run too), create, merge patch and delete of any object. Objects live in memory per cluster;
// an apply stores what was sent (no defaulting, no admission, no field merging between managers, no
// controllers), keeps the resourceVersion when nothing changed, and marks a CRD Established at once.
// It is a stand-in for the API server where 50 real ones cannot run on the rig: a figure measured
// with it says "stand-in", and it prices nothing of the API server's own work.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** StandInClusters is the running server; kubeconfigFor gives the kubeconfig text of one cluster. */
export interface StandInClusters {
  readonly port: number;
  kubeconfigFor(cluster: string): string;
  /** objectsOf lists one cluster's stored objects of a kind (a plural resource name), for a bench's checks. */
  objectsOf(cluster: string, plural: string): readonly StoredObject[];
  /** requests counts the requests each cluster was sent, by verb (apply, dry-run, get, list, watch, create, patch, delete, discovery, other). */
  requests(cluster: string): Readonly<Record<string, number>>;
  /** onChange is told after every stored change (a bench waits on it instead of polling). */
  onChange(listener: (cluster: string, object: StoredObject) => void): () => void;
  stop(): Promise<void>;
}

export interface StoredObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid: string; resourceVersion: string; generation: number; labels?: Record<string, string>; [field: string]: unknown };
  [field: string]: unknown;
}

/** Sent is an object as a client sends it: any fields, metadata unchecked. */
type Sent = { [field: string]: unknown; metadata?: Record<string, unknown> };
interface Resource { group: string; version: string; plural: string; kind: string; namespaced: boolean; status: boolean }
interface Change { version: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; key: string; object: StoredObject }
interface Watcher { prefix: string; response: ServerResponse }

const builtins: readonly Resource[] = [
  { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false, status: true },
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, status: false },
  { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, status: false },
  { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true, status: true },
  { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, status: false },
  { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, status: false },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, status: true },
  { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true, status: true },
  { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true, status: true },
  { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, status: true },
];
/** How many changes a cluster keeps for watches resuming from an older version; older asks get 410 Gone. */
const replayWindow = 5_000;
/** The largest request body read. */
const maxBodyBytes = 4 * 1024 * 1024;

/** ClusterStore is one stand-in cluster: its resources, objects, changes and open watches. */
class ClusterStore {
  readonly resources: Resource[] = builtins.map((resource) => ({ ...resource }));
  readonly objects = new Map<string, StoredObject>();
  readonly changes: Change[] = [];
  readonly watchers = new Set<Watcher>();
  readonly counts: Record<string, number> = {};
  version = 1;

  count(verb: string): void {
    this.counts[verb] = (this.counts[verb] ?? 0) + 1;
  }

  record(type: Change['type'], key: string, object: StoredObject): void {
    const change = { version: Number(object.metadata.resourceVersion), type, key, object };
    this.changes.push(change);
    if (this.changes.length > replayWindow) this.changes.splice(0, this.changes.length - replayWindow);
    for (const watcher of this.watchers) if (key.startsWith(watcher.prefix)) send(watcher.response, change);
  }

  registerCrd(crd: StoredObject): void {
    const spec = crd.spec as { group: string; names: { plural: string; kind: string }; scope: string; versions: { name: string; served?: boolean; subresources?: { status?: unknown } }[] };
    for (const version of spec.versions) {
      if (version.served === false || this.resources.some((known) => known.group === spec.group && known.version === version.name && known.plural === spec.names.plural)) continue;
      this.resources.push({ group: spec.group, version: version.name, plural: spec.names.plural, kind: spec.names.kind, namespaced: spec.scope === 'Namespaced', status: version.subresources?.status !== undefined });
    }
  }
}

/** startStandInClusters serves the clusters named, each with an empty store. */
export async function startStandInClusters(clusters: readonly string[]): Promise<StandInClusters> {
  const stores = new Map(clusters.map((name) => [name, new ClusterStore()]));
  const listeners = new Set<(cluster: string, object: StoredObject) => void>();
  const server: Server = createServer((request, response) => {
    const match = /^\/clusters\/([^/]+)(\/[^?]*)?(\?.*)?$/.exec(request.url ?? '');
    const store = match ? stores.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !store) return answer(response, 404, status(404, 'NotFound', `no stand-in cluster at ${request.url}`));
    const cluster = decodeURIComponent(match[1]!);
    const query = new URLSearchParams(match[3]?.slice(1) ?? '');
    const changed = (object: StoredObject) => {
      for (const listener of listeners) listener(cluster, object);
    };
    readBody(request).then((body) => serve({ store, method: request.method ?? 'GET', path: match[2] ?? '/', query, contentType: request.headers['content-type'], body, response, changed })).catch((error: unknown) => answer(response, 400, status(400, 'BadRequest', error instanceof Error ? error.message : String(error))));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    kubeconfigFor: (cluster) => kubeconfigText(cluster, `http://127.0.0.1:${port}/clusters/${encodeURIComponent(cluster)}`),
    objectsOf: (cluster, plural) => [...(stores.get(cluster)?.objects.entries() ?? [])].filter(([key]) => key.split('/')[2] === plural).map(([, object]) => object),
    requests: (cluster) => ({ ...stores.get(cluster)?.counts }),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      for (const store of stores.values()) for (const watcher of store.watchers) watcher.response.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Call is one request to one cluster's store, read. */
interface Call {
  store: ClusterStore;
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: string;
  response: ServerResponse;
  changed: (object: StoredObject) => void;
}

/** Target is the object or collection a request names. */
interface Target { resource: Resource; namespace?: string; name?: string; subresource?: string; collection: string }

/** serve answers one request to one cluster's store. */
function serve(call: Call): void {
  const { store, path, response } = call;
  if (path === '/version') return answer(response, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-stand-in', platform: 'linux/amd64' });
  if (['/readyz', '/livez', '/healthz'].includes(path)) return answerText(response, 200, 'ok');
  const discovery = discover(store, path);
  if (discovery !== undefined) {
    store.count('discovery');
    return discovery === null ? answer(response, 404, status(404, 'NotFound', `${path} is not served`)) : answer(response, 200, discovery);
  }
  const parsed = parsePath(store, path);
  if (!parsed) {
    store.count('other');
    return answer(response, 404, status(404, 'NotFound', `${call.method} ${path} is not served by the stand-in`));
  }
  const target = { ...parsed, collection: collectionKey(parsed.resource, parsed.namespace) };
  if (target.name === undefined) return serveCollection(call, target);
  return serveObject(call, target, `${target.collection}${target.name}`);
}

/** serveCollection lists, watches or creates. */
function serveCollection(call: Call, target: Target): void {
  const { store, query, response } = call;
  const { resource, collection, namespace } = target;
  if (call.method === 'GET' && (query.get('watch') === '1' || query.get('watch') === 'true')) return watch(store, collection, query, response);
  if (call.method === 'GET') {
    store.count('list');
    const items = [...store.objects.entries()].filter(([key]) => key.startsWith(collection)).map(([, object]) => object).filter((object) => matchesSelector(object, query.get('labelSelector')));
    return answer(response, 200, { apiVersion: apiVersionOf(resource), kind: `${resource.kind}List`, metadata: { resourceVersion: String(store.version) }, items });
  }
  if (call.method !== 'POST') return answer(response, 405, status(405, 'MethodNotAllowed', `${call.method} on a collection`));
  store.count('create');
  const sent = JSON.parse(call.body || '{}') as Sent;
  const generated = `${typeof sent.metadata?.generateName === 'string' ? sent.metadata.generateName : 'object-'}${randomUUID().slice(0, 5)}`;
  const name = typeof sent.metadata?.name === 'string' ? sent.metadata.name : generated;
  if (store.objects.has(`${collection}${name}`)) return answer(response, 409, status(409, 'AlreadyExists', `${resource.plural} "${name}" already exists`));
  const object = { ...sent, metadata: { ...sent.metadata, name, ...(namespace ? { namespace } : {}) } };
  return answer(response, 201, write(call, { key: `${collection}${name}`, live: undefined, next: object, resource }));
}

/** serveObject gets, deletes, applies, patches or replaces one object. */
function serveObject(call: Call, target: Target, key: string): void {
  const { store, method, query, response } = call;
  const { resource, name } = target;
  const live = store.objects.get(key);
  const notFound = () => answer(response, 404, status(404, 'NotFound', `${resource.plural} "${name}" not found`));
  store.count(verbOf(method, call.contentType, query));
  if (method === 'GET') return live ? answer(response, 200, live) : notFound();
  if (method === 'DELETE') return live ? remove(call, key, live) : notFound();
  const sent = JSON.parse(call.body || '{}') as Sent;
  if (method === 'PATCH' && call.contentType === 'application/apply-patch+yaml') return answer(response, live ? 200 : 201, write(call, { key, live, next: applied(call, target, live, sent), resource }));
  if (method !== 'PATCH' && method !== 'PUT') return answer(response, 405, status(405, 'MethodNotAllowed', `${method} ${call.path}`));
  if (!live) return notFound();
  return answer(response, 200, write(call, { key, live, next: (method === 'PUT' ? sent : mergePatch(live, sent)) as Sent, resource }));
}

/** applied is what an apply leaves: the sent object (status kept), or the live one with the sent status on /status. */
function applied(call: Call, target: Target, live: StoredObject | undefined, sent: Sent): Sent {
  const next = target.subresource === 'status' ? { ...(live ?? sent), status: sent.status } : { ...sent, ...(live?.status !== undefined ? { status: live.status } : {}) };
  return withManager(next, call.query.get('fieldManager') ?? 'unknown', target.resource, target.namespace);
}

/** verbOf names a request to one object for the counts. */
function verbOf(method: string, contentType: string | undefined, query: URLSearchParams): string {
  if (method === 'PATCH' && contentType === 'application/apply-patch+yaml') return query.has('dryRun') ? 'dry-run' : 'apply';
  return ({ GET: 'get', DELETE: 'delete', PUT: 'update', PATCH: 'patch' } as Record<string, string>)[method] ?? 'other';
}

/** remove deletes one object (a dry-run deletes nothing). */
function remove(call: Call, key: string, live: StoredObject): void {
  const { store, response } = call;
  if (call.query.has('dryRun')) return answer(response, 200, live);
  store.objects.delete(key);
  const gone = { ...live, metadata: { ...live.metadata, resourceVersion: String((store.version += 1)) } };
  store.record('DELETED', key, gone);
  call.changed(gone);
  return answer(response, 200, gone);
}

/** write stores an object (unless the call is a dry-run): a new version only when its content changed. */
function write(call: Call, change: { key: string; live: StoredObject | undefined; next: Sent; resource: Resource }): StoredObject {
  const { store, query } = call;
  const { key, live, next, resource } = change;
  const dryRun = query.has('dryRun');
  const { resourceVersion: _version, uid: _uid, generation: _generation, creationTimestamp: _created, ...metadata } = (next.metadata ?? {}) as StoredObject['metadata'];
  const content: Sent = { ...next, apiVersion: apiVersionOf(resource), kind: resource.kind };
  if (resource.kind === 'CustomResourceDefinition') content.status = live?.status ?? established(content);
  if (live !== undefined && sameContent(live, content, metadata)) return live;
  const version = dryRun ? live?.metadata.resourceVersion ?? '0' : String((store.version += 1));
  const object: StoredObject = { ...content, apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: { ...metadata, ...serverFields(live, content, version) } };
  if (dryRun) return object;
  store.objects.set(key, object);
  if (resource.kind === 'CustomResourceDefinition') store.registerCrd(object);
  store.record(live ? 'MODIFIED' : 'ADDED', key, object);
  call.changed(object);
  return object;
}

/** serverFields are the metadata the server keeps: uid and creation time from the live object, generation raised when more than status changed. */
function serverFields(live: StoredObject | undefined, content: Sent, resourceVersion: string): Pick<StoredObject['metadata'], 'uid' | 'generation' | 'resourceVersion'> & { creationTimestamp: string } {
  if (!live) return { uid: randomUUID(), creationTimestamp: new Date().toISOString(), generation: 1, resourceVersion };
  const specChanged = JSON.stringify(withoutStatus(live)) !== JSON.stringify(withoutStatus(content));
  return { uid: live.metadata.uid, creationTimestamp: String(live.metadata.creationTimestamp), generation: live.metadata.generation + (specChanged ? 1 : 0), resourceVersion };
}

function apiVersionOf(resource: Resource): string {
  return resource.group ? `${resource.group}/${resource.version}` : 'v1';
}

/** watch streams a collection's changes after the asked version, with a bookmark now and then. */
function watch(store: ClusterStore, prefix: string, query: URLSearchParams, response: ServerResponse): void {
  store.count('watch');
  const since = Number(query.get('resourceVersion') ?? store.version);
  const oldest = store.changes[0]?.version ?? store.version + 1;
  response.writeHead(200, { 'Content-Type': 'application/json' });
  if (since < oldest - 1 && since < store.version) {
    response.end(`${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', `too old resource version: ${since}`) })}\n`);
    return;
  }
  for (const change of store.changes) if (change.version > since && change.key.startsWith(prefix)) send(response, change);
  const watcher = { prefix, response };
  store.watchers.add(watcher);
  const bookmarks = query.get('allowWatchBookmarks') === 'true' ? setInterval(() => {
    response.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Bookmark', metadata: { resourceVersion: String(store.version) } } })}\n`);
  }, 30_000) : undefined;
  const timeout = setTimeout(() => response.end(), Number(query.get('timeoutSeconds') ?? 300) * 1000);
  response.on('close', () => {
    store.watchers.delete(watcher);
    clearInterval(bookmarks);
    clearTimeout(timeout);
  });
}

/** discover answers the discovery paths: undefined when the path is not one, null when it names nothing served. */
function discover(store: ClusterStore, path: string): unknown {
  const groups = [...new Set(store.resources.filter((resource) => resource.group !== '').map((resource) => resource.group))];
  const versionsOf = (group: string) => [...new Set(store.resources.filter((resource) => resource.group === group).map((resource) => resource.version))];
  const groupDocument = (group: string) => {
    const versions = versionsOf(group).map((version) => ({ groupVersion: `${group}/${version}`, version }));
    return { name: group, versions, preferredVersion: versions[0] };
  };
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'] };
  if (path === '/apis') return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(groupDocument) };
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api' && parts.length === 2) return resourceList(store, '', parts[1]!);
  if (parts[0] !== 'apis' || parts.length > 3 || parts.length < 2) return undefined;
  if (parts.length === 2) return groups.includes(parts[1]!) ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(parts[1]!) } : null;
  return resourceList(store, parts[1]!, parts[2]!);
}

function resourceList(store: ClusterStore, group: string, version: string): unknown {
  const served = store.resources.filter((resource) => resource.group === group && resource.version === version);
  if (served.length === 0) return null;
  const resources = served.flatMap((resource) => [
    { name: resource.plural, kind: resource.kind, namespaced: resource.namespaced, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    ...(resource.status ? [{ name: `${resource.plural}/status`, kind: resource.kind, namespaced: resource.namespaced, verbs: ['get', 'patch', 'update'] }] : []),
  ]);
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

/** parsePath reads /api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]] and the /apis/GROUP/VERSION form. */
function parsePath(store: ClusterStore, path: string): { resource: Resource; namespace?: string; name?: string; subresource?: string } | undefined {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [group, version, rest] = parts[0] === 'api' ? ['', parts[1], parts.slice(2)] : parts[0] === 'apis' ? [parts[1], parts[2], parts.slice(3)] : [undefined, undefined, []];
  if (group === undefined || version === undefined) return undefined;
  const find = (plural: string | undefined) => store.resources.find((resource) => resource.group === group && resource.version === version && resource.plural === plural);
  const namespaced = rest[0] === 'namespaces' && rest.length >= 3 ? find(rest[2]) : undefined;
  if (namespaced) return { resource: namespaced, namespace: rest[1], name: rest[3], subresource: rest[4] };
  const resource = find(rest[0]);
  return resource ? { resource, name: rest[1], subresource: rest[2] } : undefined;
}

function collectionKey(resource: Resource, namespace: string | undefined): string {
  return `${resource.group}/${resource.version}/${resource.plural}/${namespace ?? ''}/`;
}

/** withManager sets the namespace and the one managedFields entry an apply by `manager` leaves. */
function withManager(object: Sent, manager: string, resource: Resource, namespace: string | undefined): Sent {
  const { managedFields: _fields, ...metadata } = (object.metadata ?? {}) as StoredObject['metadata'];
  const entry = { manager, operation: 'Apply', apiVersion: apiVersionOf(resource), fieldsType: 'FieldsV1', fieldsV1: fieldsOf(withoutStatus(object)) };
  return { ...object, metadata: { ...metadata, ...(namespace ? { namespace } : {}), managedFields: [entry] } };
}

/** fieldsOf is the FieldsV1 set of an object's fields (maps field by field, lists whole). */
function fieldsOf(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const fields: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
    if (name === 'apiVersion' || name === 'kind') continue;
    fields[`f:${name}`] = fieldsOf(child);
  }
  return fields;
}

function sameContent(live: StoredObject, content: Sent, metadata: Record<string, unknown>): boolean {
  const { resourceVersion: _v, uid: _u, generation: _g, creationTimestamp: _c, ...liveMetadata } = live.metadata;
  return JSON.stringify({ ...live, metadata: liveMetadata }) === JSON.stringify({ ...content, metadata });
}

function withoutStatus(object: Sent): Sent {
  const { status: _status, metadata, ...rest } = object;
  const { managedFields: _fields, resourceVersion: _v, generation: _g, ...meta } = (metadata ?? {}) as StoredObject['metadata'];
  return { ...rest, metadata: meta };
}

function established(crd: Sent): unknown {
  const spec = crd.spec as { names?: unknown; versions?: { name: string; storage?: boolean }[] } | undefined;
  const now = new Date().toISOString();
  return {
    conditions: [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', lastTransitionTime: now, message: 'no conflicts found' },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', lastTransitionTime: now, message: 'the initial names have been accepted' },
    ],
    acceptedNames: spec?.names ?? {},
    storedVersions: (spec?.versions ?? []).filter((version) => version.storage).map((version) => version.name),
  };
}

/** mergePatch applies an RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [name, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete result[name];
    else result[name] = mergePatch(result[name], value);
  }
  return result;
}

/** matchesSelector understands `key`, `key=value` and `key!=value` terms, which is all Tidemark sends. */
function matchesSelector(object: StoredObject, selector: string | null): boolean {
  if (!selector) return true;
  const labels = object.metadata.labels ?? {};
  return selector.split(',').every((term) => {
    const [name, value] = term.split(/!?=+/) as [string, string | undefined];
    if (value === undefined) return term.startsWith('!') ? !(term.slice(1) in labels) : name in labels;
    return term.includes('!=') ? labels[name] !== value : labels[name] === value;
  });
}

function send(response: ServerResponse, change: Change): void {
  response.write(`${JSON.stringify({ type: change.type, object: change.object })}\n`);
}

function status(code: number, reason: string, message: string): unknown {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code };
}

function answer(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function answerText(response: ServerResponse, code: number, text: string): void {
  response.writeHead(code, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(new Error(`request body over ${maxBodyBytes} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function kubeconfigText(cluster: string, server: string): string {
  return [
    'apiVersion: v1', 'kind: Config', `current-context: ${cluster}`,
    'clusters:', `- name: ${cluster}`, '  cluster:', `    server: ${server}`, '    insecure-skip-tls-verify: true',
    'users:', `- name: ${cluster}`, '  user:', '    token: stand-in',
    'contexts:', `- name: ${cluster}`, '  context:', `    cluster: ${cluster}`, `    user: ${cluster}`,
  ].join('\n');
}
