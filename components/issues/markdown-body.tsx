import { renderMarkdown } from "@/lib/markdown/render";

/** An issue's description or a comment: its Markdown rendered and sanitized on the server, so no script reaches the page. */
export function MarkdownBody({ source, className }: { source: string; className: string }) {
  return <div className={`markdown ${className}`} dangerouslySetInnerHTML={{ __html: renderMarkdown(source) }} />;
}
