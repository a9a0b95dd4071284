// Artifacts for the OCI source suites: layers made with tar-stream (Flux's format is a tar.gz of the
// files at its root; the hostile ones hold what `tar` itself would refuse to write), pushed by the real
// oras CLI, and cosign key signatures made with node:crypto in cosign's own format.
import { createHash, sign, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack, type Header } from 'tar-stream';
import type { TestOciRegistry } from '@tidemark/testing';

/** TarHeader is the part of a tar header a test names; tar-stream fills in the rest. */
export type TarHeader = Partial<Header> & { name: string };

export const fluxContent = 'application/vnd.cncf.flux.content.v1.tar+gzip';
export const fluxConfig = 'application/vnd.cncf.flux.config.v1+json';

/** tarOf packs entries into a tar; an entry with `data` is a file, else its header says what it is. */
export async function tarOf(entries: ReadonlyArray<{ header: TarHeader; data?: Buffer | string }>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (chunk: unknown) => {
    chunks.push(chunk as Buffer);
  });
  const done = new Promise<void>((resolve, reject) => { tar.on('end', resolve); tar.on('error', reject); });
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => tar.entry(entry.header as Header, entry.data ?? '', (error) => (error ? reject(error) : resolve())));
  }
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** fluxLayer is what `flux push artifact` stores: a tar.gz of the files at its root. */
export async function fluxLayer(files: Record<string, string>): Promise<Buffer> {
  return gzipSync(await tarOf(Object.entries(files).map(([name, data]) => ({ header: { name, type: 'file', mode: 0o644 }, data }))));
}

/** pushLayer pushes one layer with oras as `repository:tag` and returns the manifest digest oras printed. */
export async function pushLayer(registry: TestOciRegistry, repository: string, tag: string, layer: Buffer, mediaType = fluxContent): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-oci-push-'));
  try {
    await writeFile(join(dir, 'artifact.tgz'), layer);
    const output = await registry.oras(['push', `${registry.host}/${repository}:${tag}`, `artifact.tgz:${mediaType}`, '--artifact-type', fluxConfig], { cwd: dir });
    const digest = /Digest: (sha256:[0-9a-f]{64})/.exec(output)?.[1];
    if (!digest) throw new Error(`oras push printed no digest: ${output}`);
    return digest;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * signArtifact stores a cosign key signature of `digest` as `cosign sign --key` does: a manifest
 * tagged sha256-<hex>.sig whose simple-signing layer is the payload naming the digest, annotated with
 * the base64 ECDSA signature over it. (cosign itself is not built here; the format is cosign's.)
 */
export async function signArtifact(registry: TestOciRegistry, repository: string, digest: string, key: KeyObject, options: { signedDigest?: string } = {}): Promise<void> {
  const payload = JSON.stringify({
    critical: { identity: { 'docker-reference': `${registry.host}/${repository}` }, image: { 'docker-manifest-digest': options.signedDigest ?? digest }, type: 'cosign container image signature' },
    optional: null,
  });
  const signature = sign('sha256', Buffer.from(payload), key).toString('base64');
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-oci-sign-'));
  try {
    await writeFile(join(dir, 'payload.json'), payload);
    await writeFile(join(dir, 'annotations.json'), JSON.stringify({ 'payload.json': { 'dev.cosignproject.cosign/signature': signature } }));
    await registry.oras(['push', `${registry.host}/${repository}:${digest.replace(':', '-')}.sig`, 'payload.json:application/vnd.dev.cosign.simplesigning.v1+json', '--annotation-file', 'annotations.json'], { cwd: dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function sha256Of(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
