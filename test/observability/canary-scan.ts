// Finds canary tokens in text as they would leak: raw, URL-encoded, or base64 (standard and
// URL-safe) at any of the three byte alignments, so a canary inside a larger encoded blob
// (a Basic auth header, a Secret's data) is found too.
import type { Redis } from 'ioredis';

/** encodings lists the strings that betray a canary. */
export function encodings(canary: string): string[] {
  const forms = new Set([canary, encodeURIComponent(canary)]);
  for (let pad = 0; pad < 3; pad += 1) {
    const encoded = Buffer.from(`${'x'.repeat(pad)}${canary}`).toString('base64');
    // Drop the characters that mix in the padding bytes or the unknown bytes after the canary.
    const core = encoded.slice(Math.ceil((pad * 4) / 3), encoded.length - 4);
    forms.add(core);
    forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms].filter((form) => form.length >= 8);
}

/** findCanaries returns "<canary name> as <form> in <where>" for every hit. */
export function findCanaries(text: string, canaries: Record<string, string>, where: string): string[] {
  const hits: string[] = [];
  for (const [name, canary] of Object.entries(canaries)) {
    for (const form of encodings(canary)) if (text.includes(form)) hits.push(`${name} as ${form === canary ? 'raw' : form} in ${where}`);
  }
  return hits;
}

/** dumpRedis reads every key of a Redis, of every type, as text: the key name and its values. */
export async function dumpRedis(redis: Redis): Promise<Map<string, string>> {
  const dump = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 500);
    cursor = next;
    for (const key of keys) dump.set(key, `${key}\n${await readKey(redis, key)}`);
  } while (cursor !== '0');
  return dump;
}

async function readKey(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  switch (type) {
    case 'string': return (await redis.getBuffer(key))?.toString('latin1') ?? '';
    case 'hash': return JSON.stringify(await redis.hgetall(key));
    case 'list': return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set': return JSON.stringify(await redis.smembers(key));
    case 'zset': return JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES'));
    case 'stream': return JSON.stringify(await redis.xrange(key, '-', '+'));
    case 'none': return '';
    default: throw new Error(`key ${key} has type ${type}, which the scan cannot read`);
  }
}
