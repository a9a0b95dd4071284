import { TerminalError } from '@tidemark/contracts';

/**
 * RedisTlsError: Redis refused our TLS handshake or we refused its certificate (a wrong CA, a
 * certificate for another name, no client certificate where one is required). Retrying cannot
 * help, so it is terminal: the process stops at start-up and says what to check.
 */
export class RedisTlsError extends TerminalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RedisTls', message, options);
    this.name = 'RedisTlsError';
  }
}
