/** An ILIKE pattern matching values that contain `text` literally (its `%`, `_` and `\` lose their meaning). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
