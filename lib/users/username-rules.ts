/**
 * Usernames double as namespace paths and so as the first segment of project URLs ({base}/:username/:project);
 * names our own top-level pages use are reserved.
 */
export const reservedUsernames = new Set([
  "-",
  "admin",
  "alert-bot",
  "api",
  "assets",
  "dashboard",
  "explore",
  "favicon.ico",
  "help",
  "oauth",
  "profile",
  "projects",
  "public",
  "robots.txt",
  "search",
  "uploads",
  "users",
  ".well-known",
]);

const usernamePattern = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

/** GitLab's rules: letters, digits, `_ . -`; not starting with a special character; not ending in `.git` or `.atom`. */
export function usernameProblem(username: string): string | undefined {
  if (username.length < 2 || username.length > 255) return "is too short or too long (2 to 255 characters)";
  if (!usernamePattern.test(username)) return "can contain only letters, digits, '_', '-' and '.', and cannot start with '-' or '.'";
  if (username.endsWith(".")) return "cannot end with '.'";
  if (/\.(git|atom)$/i.test(username)) return "cannot end in '.git' or '.atom'";
  if (reservedUsernames.has(username.toLowerCase())) return "is reserved";
  return undefined;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblem(email: string): string | undefined {
  return emailPattern.test(email) && email.length <= 255 ? undefined : "is invalid";
}
