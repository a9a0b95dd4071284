import { TerminalError } from '@tidemark/contracts';

/**
 * OciSourceError is an artifact that will not become right by asking again: too large, a link or
 * `..` in its layer, a digest that does not match, an unsigned artifact when signatures are
 * required. The source keeps its last revision; the next poll asks again only if the tag moves.
 */
export class OciSourceError extends TerminalError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'OciSourceError';
  }
}
