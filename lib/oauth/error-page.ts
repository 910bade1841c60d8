import "server-only";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The page shown when a request cannot be sent back to the client safely (unknown client, unregistered redirect URI,
 * forged form): an explanation for the person, never a redirect.
 */
export function oauthErrorPage(error: string, description: string, status = 400): Response {
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorization error</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f1f1f}
pre{white-space:pre-wrap;background:#f5f5f5;padding:1rem;border-radius:6px}</style></head>
<body><main><h1>An error has occurred</h1><p>The application sent an authorization request that cannot be completed.</p>
<pre>${escapeHtml(error)}: ${escapeHtml(description)}</pre><p><a href="/">Go to the home page</a></p></main></body></html>`;
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
}
