/**
 * redactUrl returns a URL safe to log or show: credentials, query and fragment are removed,
 * because tokens end up in any of them. Text that is not a URL is replaced entirely.
 */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    const redacted = url.username || url.password ? '***@' : '';
    return `${url.protocol}//${redacted}${url.host}${url.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
