import { longerThan, maxNameLength, requiredTextProblem, tooLong } from "@/lib/text-rules";

/** GitLab's project path rules; the path is the last URL segment of the project ({base}/:namespace/:path). */
const projectPathPattern = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

export function projectPathProblem(path: string): string | undefined {
  if (path === "") return "can't be blank";
  if (longerThan(path, maxNameLength)) return tooLong(maxNameLength);
  if (!projectPathPattern.test(path)) {
    return "can contain only letters, digits, '_', '-' and '.', and cannot start with '-' or '.'";
  }
  if (path.endsWith(".")) return "cannot end with '.'";
  if (/\.(git|atom)$/i.test(path)) return "cannot end in '.git' or '.atom'";
  if (path === "-") return "is reserved";
  return undefined;
}

export function projectNameProblem(name: string): string | undefined {
  const lengthIssue = requiredTextProblem(name, maxNameLength);
  if (lengthIssue) return lengthIssue;
  if (!/^[\p{L}\p{N}_]/u.test(name)) return "must start with a letter, digit or '_'";
  if (!/^[\p{L}\p{N}\p{Emoji_Presentation}_.+\- ]+$/u.test(name)) {
    return "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces";
  }
  return undefined;
}

/** The path GitLab derives from a name: "My Project" → "my-project". */
export function pathFromName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .normalize("NFKD")
    // Accents decompose into combining marks; drop them so "Crème" becomes "creme", not "cre-me".
    .replace(/\p{M}+/gu, "")
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .replace(/-{2,}/g, "-");
}
