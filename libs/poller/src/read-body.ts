import type { IncomingMessage } from 'node:http';

/** BodyError is a refused request body; fastify answers with its statusCode and code. */
export class BodyError extends Error {
  constructor(readonly statusCode: 408 | 413, readonly code: string, message: string) {
    super(message);
    this.name = 'BodyError';
  }
}

/**
 * readBody collects a raw request body, refusing it (413) once it passes `limitBytes` and
 * (408) when it has not fully arrived within `timeoutMs`, so a slow sender cannot hold a
 * connection and a large one cannot fill memory. The raw bytes are what signatures cover.
 */
export function readBody(stream: IncomingMessage, limitBytes: number, timeoutMs: number): Promise<Buffer> {
  const declared = Number(stream.headers['content-length'] ?? 0);
  if (declared > limitBytes) return Promise.reject(tooLarge(limitBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: BodyError) => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.resume();
      reject(error);
    };
    const timer = setTimeout(() => fail(new BodyError(408, 'WebhookBodyTimeout', `the body did not arrive within ${timeoutMs} ms`)), timeoutMs);
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) fail(tooLarge(limitBytes));
      else chunks.push(chunk);
    });
    stream.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    stream.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function tooLarge(limitBytes: number): BodyError {
  return new BodyError(413, 'WebhookBodyTooLarge', `the body is larger than ${limitBytes} bytes`);
}
