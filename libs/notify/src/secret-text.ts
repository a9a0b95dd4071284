import { inspect } from 'node:util';

/**
 * SecretText holds a credential (a webhook URL, an HMAC key) so that printing, logging or
 * serialising it shows `[redacted]`; only `reveal()` gives the value, at the moment of use.
 */
export class SecretText {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}
