// Polls one source once in a process of its own and prints, as one JSON line, what happened
// and the process's peak resident memory: the figure a Git push must not drive past 300 MiB.
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { messageOf } from '@tidemark/contracts';

const [url, cacheDir] = process.argv.slice(2);
const source = new GitSource({ spec: parseSourceSpec({ name: 'attacked', url, ref: { branch: 'main' }, intervalMs: 1000 }, 'poll-once'), cacheDir: cacheDir! });
await source.open();
let outcome: Record<string, unknown>;
try {
  const poll = await source.poll();
  outcome = { ok: true, revision: poll.revision, objects: poll.changes.length, errors: poll.errors.map((error) => error.message) };
} catch (error) {
  outcome = { ok: false, code: (error as { code?: string }).code, message: messageOf(error) };
}
await source.close();
// maxRSS is in KiB.
console.log(JSON.stringify({ ...outcome, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
