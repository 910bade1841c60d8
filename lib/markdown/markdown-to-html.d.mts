export const maxMarkdownNesting: number;
/** Markdown written by a person, as HTML that is safe to put into a page as it is. Synchronous: only render threads call it. */
export function markdownToHtml(source: string): string;
