import { fork } from 'node:child_process';
import { createConnection, createServer, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** DelayingProxy forwards TCP to a loopback port, holding every chunk back for a while. */
export interface DelayingProxy {
  port: number;
  /** setDelay changes the delay for chunks from now on. */
  setDelay(ms: number): void;
  stop(): Promise<void>;
}

/**
 * startDelayingProxy stands for a slow network between Tidemark and a cluster: TLS passes
 * through untouched (the certificate's 127.0.0.1 SAN still matches), each chunk arrives late.
 */
export async function startDelayingProxy(targetPort: number, delayMs: number): Promise<DelayingProxy> {
  let delay = delayMs;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ port: targetPort, host: '127.0.0.1' });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    const forward = (from: Socket, to: Socket) => from.on('data', (chunk: Buffer) => setTimeout(() => { if (!to.destroyed) to.write(chunk); }, delay));
    forward(client, upstream);
    forward(upstream, client);
    client.on('end', () => setTimeout(() => upstream.end(), delay));
    upstream.on('end', () => setTimeout(() => client.end(), delay));
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  return {
    port,
    setDelay: (ms) => { delay = ms; },
    stop: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/**
 * startDelayingProxyProcess is startDelayingProxy in a child process: the proxy's per-chunk
 * timers then cost the process under test nothing, as a real slow network would not.
 */
export async function startDelayingProxyProcess(targetPort: number, delayMs: number): Promise<DelayingProxy> {
  const main = fileURLToPath(new URL('./delaying-proxy-main.ts', import.meta.url));
  const child = fork(main, [String(targetPort), String(delayMs)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(Number(line)));
    child.once('exit', (code) => reject(new Error(`the delaying proxy exited with code ${code} before it listened`)));
  });
  return {
    port,
    setDelay: (ms) => { child.send({ delayMs: ms }); },
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.disconnect();
    }),
  };
}
