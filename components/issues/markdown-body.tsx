/**
 * An issue's description or a comment: the HTML rendered and sanitized on the server when the text was saved (or, for
 * text that did not render, the text as written with a notice), so no script reaches the page.
 */
export function MarkdownBody({ html, className }: { html: string; className: string }) {
  return <div className={`markdown ${className}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
