import { SecretText } from './secret-text';

/**
 * CredentialReader reads a credential when it is needed (a Kubernetes Secret, so a rotated
 * webhook URL is used at once). `from` names where it is, for messages: never the value.
 */
export interface CredentialReader {
  readonly from: string;
  read(): Promise<string>;
}

/** Credential is a value read at start (environment, file) or a reader. */
export type Credential = SecretText | CredentialReader;

/** revealCredential gives a credential's value at the moment of use. */
export async function revealCredential(credential: Credential): Promise<string> {
  return credential instanceof SecretText ? credential.reveal() : credential.read();
}

/** credentialOrigin says where a credential comes from, for a message. */
export function credentialOrigin(credential: Credential): string {
  return credential instanceof SecretText ? 'the configured value' : credential.from;
}

/** addressProblem says what is wrong with a receiver's URL, never quoting it: https, or plain http on a loopback host. */
export function addressProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  const loopback = ['localhost', '[::1]'].includes(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return undefined;
  return 'must use https (plain http only on a loopback host)';
}
