// The conversion webhook in a process of its own (bench only): `--webhook process` runs it here,
// so its work is counted apart from the bench's (its CPU read from /proc) and shares no event loop
// with the pipeline. Run as a script it starts Tidemark's webhook on loopback and prints one JSON
// line, { port, caBundle }, then serves until its stdin closes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { conversionPath, type CrdConversion } from '@tidemark/conversion';
import { stopProcess } from '@tidemark/testing';

export interface ConversionWebhookProcess {
  pid: number;
  conversion(): CrdConversion;
  stop(): Promise<void>;
}

/** startConversionWebhookProcess runs this file with tsx and waits for its address. */
export async function startConversionWebhookProcess(): Promise<ConversionWebhookProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the conversion webhook process exited with ${code} before it listened`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const { port, caBundle } = JSON.parse(line) as { port: number; caBundle: string };
  return {
    pid: child.pid!,
    conversion: () => ({ clientConfig: { url: `https://127.0.0.1:${port}${conversionPath}` }, caBundle }),
    stop: () => stopProcess(child),
  };
}

if (process.argv.includes('--serve')) {
  const { startTestConversionWebhook } = await import('../../test/support/conversion-webhook');
  const running = await startTestConversionWebhook();
  const conversion = running.conversion();
  process.stdout.write(`${JSON.stringify({ port: Number(new URL('url' in conversion.clientConfig ? conversion.clientConfig.url : '').port), caBundle: conversion.caBundle })}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => void running.stop().then(() => process.exit(0)));
}
