import { html, type SafeHtml } from './html';

/** LoginPageOptions: where to go after sign-in, whether a token just failed, and single sign-on. */
export interface LoginPageOptions {
  next: string;
  failed: boolean;
  /** When set, the page offers single sign-on through the OpenID provider first. */
  signOn?: boolean;
}

/**
 * loginPage asks for an access token (a valid one turns into a session cookie), or offers single
 * sign-on: a link, not a form, since the provider is another origin and the CSP's form-action
 * would stop a form's redirect there.
 */
export function loginPage({ next, failed, signOn = false }: LoginPageOptions): SafeHtml {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Tidemark</title><link rel="stylesheet" href="/assets/app.css"></head>
<body>${signOn ? html`<div class="login" id="sign-on"><h1>Tidemark</h1><a class="button" id="sign-on-button" href="/auth/oidc/login?next=${encodeURIComponent(next)}">Sign in with your identity provider</a></div>` : ''}
<form class="login" method="post" action="/login">${signOn ? html`<h2>Or with an access token</h2>` : html`<h1>Tidemark</h1>`}
${failed ? html`<p class="error" id="login-error">That token is not valid.</p>` : ''}
<label for="name">Token name (optional: failed tries are then counted for this name only)</label><input id="name" name="name" type="text" autocomplete="username" maxlength="64">
<label for="token">Access token</label><input id="token" name="token" type="password" autocomplete="current-password" required ${signOn ? '' : html`autofocus`}>
<input type="hidden" name="next" value="${next}"><button type="submit">Sign in</button></form></body></html>`;
}

/** signOnRefusedPage says why single sign-on did not let someone in, and offers to try again. */
export function signOnRefusedPage(reason: string): SafeHtml {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not signed in · Tidemark</title><link rel="stylesheet" href="/assets/app.css"></head>
<body><main class="login"><h1>You are not signed in</h1><p class="error" id="sign-on-refused">${reason}</p>
<p>Ask whoever runs this dashboard to map one of your groups to a role, or sign in as someone else.</p>
<p><a href="/login">Back to sign-in</a></p></main></body></html>`;
}
