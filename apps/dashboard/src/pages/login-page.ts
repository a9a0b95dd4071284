import { html, type SafeHtml } from './html';

/** loginPage asks for an access token; a valid one turns into a session cookie. */
export function loginPage(next: string, failed: boolean): SafeHtml {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Tidemark</title><link rel="stylesheet" href="/assets/app.css"></head>
<body><form class="login" method="post" action="/login"><h1>Tidemark</h1>
${failed ? html`<p class="error" id="login-error">That token is not valid.</p>` : ''}
<label for="name">Token name (optional: failed tries are then counted for this name only)</label><input id="name" name="name" type="text" autocomplete="username" maxlength="64">
<label for="token">Access token</label><input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="next" value="${next}"><button type="submit">Sign in</button></form></body></html>`;
}
