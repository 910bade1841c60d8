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
  "groups",
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

/** GitLab's (Devise's) password length: 8 to 128 characters. */
export const passwordLength = { minimum: 8, maximum: 128 } as const;

export function passwordProblem(password: string): string | undefined {
  if (password.length < passwordLength.minimum) return `is too short (minimum is ${passwordLength.minimum} characters)`;
  if (password.length > passwordLength.maximum) return `is too long (maximum is ${passwordLength.maximum} characters)`;
  return undefined;
}

/** The profile fields GitLab's user entity carries, which admins may set. */
export interface ProfileFields {
  bio?: string;
  location?: string;
  organization?: string;
  jobTitle?: string;
  websiteUrl?: string;
}

/** GitLab's lengths for them (UserDetail): the bio 255, the job title 200, the others 500. */
const profileFieldLimits: Record<keyof ProfileFields, [attribute: string, limit: number]> = {
  bio: ["bio", 255],
  location: ["location", 500],
  organization: ["organization", 500],
  jobTitle: ["job_title", 200],
  websiteUrl: ["website_url", 500],
};

/** The profile fields that are too long, as GitLab's validation errors (by attribute). */
export function profileFieldProblems(fields: ProfileFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const [field, [attribute, limit]] of Object.entries(profileFieldLimits) as [keyof ProfileFields, [string, number]][]) {
    if ((fields[field]?.length ?? 0) > limit) errors[attribute] = [`is too long (maximum is ${limit} characters)`];
  }
  return errors;
}
