// A Git post-receive hook that announces each pushed branch to a Tidemark webhook, signed as GitHub
// signs its push events (X-Hub-Signature-256: an HMAC-SHA256 of the body with the webhook secret).
// scripts/local-stack.ts installs it in the local Git server's sample repository, so a push is live at
// once instead of at the next poll. Plain JavaScript, so it starts in milliseconds without tsx.
//
//   node git-push-hook.mjs WEBHOOK_URL SECRET_FILE     (the pushed refs on stdin, as Git gives them)
/* global fetch, AbortSignal */
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [url, secretFile] = process.argv.slice(2);
if (!url || !secretFile) {
  process.stderr.write('tidemark: git-push-hook needs the webhook URL and the secret file\n');
  process.exit(0);
}
const secret = readFileSync(secretFile, 'utf8').trim();
const zero = /^0+$/;

let input = '';
for await (const chunk of process.stdin) input += chunk;
for (const line of input.split('\n')) {
  const [before, after, ref] = line.trim().split(' ');
  // Branches only; a deleted branch has nothing to apply.
  if (!ref?.startsWith('refs/heads/') || !after || zero.test(after)) continue;
  const body = JSON.stringify({ ref, before, after });
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
      body,
      // A hook holds up the push, so a reconciler that does not answer is not waited for long.
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    process.stderr.write(`tidemark: announced ${ref} to the reconciler (HTTP ${response.status})\n`);
  } catch (error) {
    // The push stands either way: the source's poll picks it up.
    process.stderr.write(`tidemark: could not announce ${ref} to the reconciler (${error instanceof Error ? error.message : String(error)}); the next poll picks it up\n`);
  }
}
