import { describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import { PackSizeGuard } from './pack-size-guard';

const limits = { maxObjectBytes: 1024, maxFetchBytes: 4096, maxRevisionBytes: 2048 };

function varint(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    bytes.push(byte);
  } while (value > 0);
  return bytes;
}

/** objectHeader encodes a pack object's type and (announced) size. */
function objectHeader(type: number, size: number): number[] {
  const bytes = [((type & 7) << 4) | (size & 15)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return bytes;
}

function blob(data: Buffer, announced = data.length): Buffer {
  return Buffer.concat([Buffer.from(objectHeader(3, announced)), deflateSync(data)]);
}

/** refDelta makes a delta that announces `target` bytes from a tiny base: a bomb in a few bytes. */
function refDelta(target: number): Buffer {
  const delta = Buffer.from([...varint(4), ...varint(target), 0x90, 0x10]);
  return Buffer.concat([Buffer.from(objectHeader(7, delta.length)), Buffer.alloc(20, 1), deflateSync(delta)]);
}

function pack(objects: Buffer[]): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects.length, 8);
  return Buffer.concat([header, ...objects, Buffer.alloc(20)]);
}

/** sideBand frames pack bytes the way upload-pack sends them, after a NAK, in small pkt-lines. */
function sideBand(data: Buffer, size = 100): Buffer[] {
  const line = (payload: Buffer) => Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0'), 'latin1'), payload]);
  const chunks = [line(Buffer.from('NAK\n'))];
  for (let offset = 0; offset < data.length; offset += size) chunks.push(line(Buffer.concat([Buffer.from([1]), data.subarray(offset, offset + size)])));
  chunks.push(Buffer.from('0000'));
  return chunks;
}

function feed(chunks: Buffer[], guard = new PackSizeGuard(limits, 'apps')): PackSizeGuard {
  // Split across chunk boundaries on purpose: pkt-lines do not arrive whole.
  const all = Buffer.concat(chunks);
  for (let offset = 0; offset < all.length; offset += 37) guard.observe(all.subarray(offset, offset + 37));
  guard.finish();
  return guard;
}

describe('PackSizeGuard', () => {
  it('lets a pack within the limits through', () => {
    expect(feed(sideBand(pack([blob(Buffer.from('a: b\n')), blob(Buffer.alloc(1000, 7))]))).refused).toBeUndefined();
  });

  it('refuses an object whose header announces more than the limit, before inflating it', () => {
    expect(() => feed(sideBand(pack([blob(Buffer.alloc(10), 256 * 1024 * 1024)])))).toThrow(/Source apps: a blob of 256\.0 MiB was pushed, more than the limit of 1024 bytes per object/);
  });

  it('refuses an object that inflates past what its header announced', () => {
    expect(() => feed(sideBand(pack([blob(Buffer.alloc(900), 10)])))).toThrow(/inflates to more than/);
  });

  it('refuses a delta whose target is larger than the limit, though the delta itself is tiny', () => {
    expect(() => feed(sideBand(pack([blob(Buffer.alloc(4)), refDelta(256 * 1024 * 1024)])))).toThrow(/a delta of 256\.0 MiB/);
  });

  it('refuses a pack whose objects together pass the budget', () => {
    const objects = Array.from({ length: 5 }, (_, index) => blob(Buffer.alloc(1000, index)));
    const guard = new PackSizeGuard(limits, 'apps');
    expect(() => feed(sideBand(pack(objects)), guard)).toThrow(/more than 4096 bytes of objects once inflated/);
    expect(guard.refused?.code).toBe('SourceTooLarge');
  });

  it('cuts a download off once its packed bytes pass the budget', () => {
    const guard = new PackSizeGuard(limits, 'apps');
    const chunks = sideBand(Buffer.alloc(5000, 1));
    expect(() => chunks.forEach((chunk) => guard.observe(chunk))).toThrow(/more than 4096 bytes of packed objects/);
  });
});
