import "server-only";
import { BlockList, isIP } from "node:net";
import { z } from "zod";

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /**
   * Where each process LISTENs for the notifications that invalidate its cached token checks, when DATABASE_URL goes
   * through a pooler that cannot keep a LISTEN (PgBouncer in transaction mode): the same database, reached directly.
   */
  DATABASE_LISTEN_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /**
   * Few connections on purpose: when every connection is busy the driver pipelines the next queries on them, and one
   * socket write and read then carry several queries, which costs the server less CPU than a round trip of their own.
   * Each connection is also a PostgreSQL process competing for the same cores: on two cores, 3 connections answered
   * alerts 10–15 % faster than 4, with a lower p99, and nothing slower (README, Benchmarks).
   * At least 2: the retention job holds one connection for its lock while it deletes through another.
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(3),
  DATA_DIR: z.string().min(1).default("./.data"),
  EXTERNAL_URL: z
    .url({ protocol: /^https?$/ })
    // The server's own address unless told otherwise, so links and redirects work on whatever PORT it listens on.
    .default(`http://localhost:${process.env.PORT || 3000}`)
    .transform((url) => url.replace(/\/+$/, "")),
  INITIAL_ROOT_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  INITIAL_ROOT_TOKEN: z.string().min(20, "must be at least 20 characters").optional(),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SIGNUP_ENABLED: booleanFlag.default(true),
  /**
   * GitLab's `email_confirmation_setting`. `soft` by default, as GitLab: people can use a new account at once (for
   * three days after the link was sent) while `email_verified` stays false until they prove they own the address.
   */
  EMAIL_CONFIRMATION: z.enum(["off", "soft", "hard"]).default("soft"),
  /**
   * Where mail goes, in nodemailer's URL form (`smtps://user:password@host:465`). Unset: messages are written to the
   * log instead, so an instance without a mail server still works (its operator reads the links there).
   */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/]/, "must be an smtp:// or smtps:// URL")
    .optional(),
  /** The sender of every message; defaults to `gitlab@<host of EXTERNAL_URL>`, GitLab's own default sender form. */
  MAIL_FROM: z.string().trim().min(3).optional(),
  SIGN_IN_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  SIGN_IN_LOCK_MINUTES: z.coerce.number().int().min(1).default(10),
  /**
   * Addresses of the reverse proxies in front of the service (comma-separated IPs or CIDR ranges). A request from one
   * of them is attributed to the address its `X-Forwarded-For` names; any other request to the address it came from.
   * The default trusts loopback and private networks, as Rails (and so GitLab) does, where proxies usually live;
   * `none` trusts no proxy.
   */
  TRUSTED_PROXIES: z
    .string()
    .default("127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7")
    .transform((value, context) => parseAddressRanges(value, context)),
  /**
   * Addresses that may read `/-/metrics` (comma-separated IPs or CIDR ranges): GitLab's `monitoring_whitelist`, whose
   * default is loopback only. Anyone else is answered 404, as GitLab answers them.
   */
  MONITORING_ALLOWLIST: z
    .string()
    .default("127.0.0.0/8,::1/128")
    .transform((value, context) => parseAddressRanges(value, context)),
  // Rate limits, GitLab's (Rack::Attack and its application limits) with GitLab self-managed's defaults: a number of
  // requests per period in seconds; 0 turns one off. What protects against guessing is on; the request-volume limits
  // are off, as GitLab ships them, so that an ordinary script is never made to wait.
  /** Failed sign-ins (web form or password grant) per client address: GitLab's protected-paths limit. */
  THROTTLE_FAILED_SIGN_INS_PER_IP: z.coerce.number().int().min(0).default(10),
  THROTTLE_FAILED_SIGN_INS_PERIOD_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Sign-ups, password reset requests and confirmation resends per client address: GitLab's protected paths. */
  THROTTLE_PROTECTED_PATHS_PER_IP: z.coerce.number().int().min(0).default(10),
  THROTTLE_PROTECTED_PATHS_PERIOD_SECONDS: z.coerce.number().int().min(1).default(60),
  /**
   * Messages mailed to one address (confirmation and reset links), so nobody can flood someone's inbox through us:
   * GitLab's limit on verification mails to one user (`email_verification_code_send`, 10 an hour).
   */
  THROTTLE_MAILS_PER_RECIPIENT: z.coerce.number().int().min(0).default(10),
  THROTTLE_MAILS_PER_RECIPIENT_PERIOD_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** Wrong device-flow user codes per signed-in user and per client address (RFC 8628 §5.1: codes are short). */
  THROTTLE_DEVICE_CODE_ATTEMPTS: z.coerce.number().int().min(0).default(10),
  THROTTLE_DEVICE_CODE_PERIOD_SECONDS: z.coerce.number().int().min(1).default(60),
  /**
   * Requests sent by hand, a minute at a time: hook tests per hook and user, hook resends and integration tests per
   * project and user (GitLab's `web_hook_test`, `web_hook_event_resend` and `project_testing_integration`, 5 each), so
   * nobody turns a receiver's URL into a pump.
   */
  THROTTLE_WEB_HOOK_TESTS: z.coerce.number().int().min(0).default(5),
  THROTTLE_WEB_HOOK_RESENDS: z.coerce.number().int().min(0).default(5),
  THROTTLE_INTEGRATION_TESTS: z.coerce.number().int().min(0).default(5),
  /**
   * Requests to `/oauth/token` per client (per address for requests that name none). Off, as on GitLab, which took
   * `/oauth/token` off its protected paths because a limit there stopped ordinary OAuth use; the password grant's
   * guesses are counted by the failed sign-in limits whatever this says.
   */
  THROTTLE_OAUTH_TOKEN_PER_CLIENT: z.coerce.number().int().min(0).default(0),
  THROTTLE_OAUTH_TOKEN_PERIOD_SECONDS: z.coerce.number().int().min(1).default(60),
  /**
   * Dynamic client registrations (`POST /oauth/register`) per client address: GitLab's `oauth_dynamic_registration`
   * application limit, 5 an hour. On, unlike the request-volume limits: each registration is a stored application.
   */
  THROTTLE_OAUTH_DYNAMIC_REGISTRATION_PER_IP: z.coerce.number().int().min(0).default(5),
  THROTTLE_OAUTH_DYNAMIC_REGISTRATION_PERIOD_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** API requests without valid credentials per client address: off, as on GitLab; GitLab's value when on is 3600. */
  THROTTLE_UNAUTHENTICATED_API_PER_IP: z.coerce.number().int().min(0).default(0),
  THROTTLE_UNAUTHENTICATED_API_PERIOD_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** API requests per authenticated user: off, as on GitLab; GitLab's value when on is 7200. */
  THROTTLE_AUTHENTICATED_API_PER_USER: z.coerce.number().int().min(0).default(0),
  THROTTLE_AUTHENTICATED_API_PERIOD_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** `POST /oauth/register`: off answers 404, as GitLab does without its `oauth_dynamic_client_registration` flag. */
  OAUTH_DYNAMIC_CLIENT_REGISTRATION: booleanFlag.default(true),
  /**
   * Client ID metadata documents may be fetched over plain http and from loopback, private and link-local addresses.
   * Off in production: a client_id URL is chosen by whoever sends the authorization request, so fetching it must not
   * reach inside the network this service runs in. For tests and development, where clients run on this machine.
   */
  OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES: booleanFlag.default(false),
  /**
   * Holds every `/api/v4` answer to its route's declared response and answers 500 naming the mismatch (the e2e
   * servers set it); off, nothing is checked.
   */
  API_RESPONSE_CHECK: booleanFlag.default(false),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Where the bare git repositories live (one `<project id>.git` each); defaults to `${DATA_DIR}/repositories`. */
  REPOSITORIES_DIR: z.string().min(1).optional(),
  /**
   * GitLab's "Maximum push size", in MiB: larger pushes are refused (413) as they stream in, and git is told the same
   * limit. 2048 because GitHub refuses pushes over 2 GiB, so any repository that can be pushed there can be pushed
   * here, first push of its whole history included, while one push can no longer fill the disk unnoticed. (GitLab
   * leaves it unlimited by default.)
   */
  GIT_MAX_PUSH_SIZE_MB: z.coerce.number().int().min(1).max(1024 * 1024).default(2048),
  /**
   * Threads that turn Markdown into HTML, off the thread that answers requests. Two: on two cores one document that
   * runs to its time limit still leaves a thread for everyone else's, and the request thread a core of its own.
   */
  MARKDOWN_RENDER_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * How long one document may take to render before its thread is stopped and the text is shown as written, with a
   * notice. GitLab stops its Markdown filters after 2 s; prose renders at about 1 MB a second, while hundreds of KB of
   * tables or lists can take longer.
   */
  MARKDOWN_RENDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).default(730),
  EVENTS_PRUNE_INTERVAL_MINUTES: z.coerce.number().int().min(0).default(60),
});

/** A list of addresses and CIDR ranges as a `BlockList` to test addresses against; an invalid entry is a setting error. */
function parseAddressRanges(value: string, context: z.RefinementCtx): BlockList {
  const ranges = new BlockList();
  if (value.trim() === "none") return ranges;
  for (const entry of value.split(",").map((item) => item.trim()).filter((item) => item !== "")) {
    const [address, prefix] = entry.split("/") as [string, string | undefined];
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) {
      context.addIssue({ code: "custom", message: `"${entry}" is not an IP address or CIDR range` });
      continue;
    }
    ranges.addSubnet(address, bits, family === 6 ? "ipv6" : "ipv4");
  }
  return ranges;
}

export type Env = Omit<z.infer<typeof envSchema>, "REPOSITORIES_DIR" | "MAIL_FROM"> & { REPOSITORIES_DIR: string; MAIL_FROM: string };

function loadEnv(): Env {
  // Empty strings count as unset, so `FOO=` in a shell or compose file falls back to the default.
  const raw = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ""));
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  // next-auth reads its own variable; derive it from the one URL operators configure.
  process.env.NEXTAUTH_URL ??= parsed.data.EXTERNAL_URL;
  return {
    ...parsed.data,
    REPOSITORIES_DIR: parsed.data.REPOSITORIES_DIR ?? `${parsed.data.DATA_DIR.replace(/\/+$/, "")}/repositories`,
    MAIL_FROM: parsed.data.MAIL_FROM ?? `gitlab@${new URL(parsed.data.EXTERNAL_URL).hostname}`,
  };
}

/**
 * The environment child processes (git) start with: only what they need to find programs and read text, never the
 * service's own settings or secrets.
 */
export function childProcessEnv(extra: Record<string, string>): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const name of ["PATH", "LANG", "LC_ALL", "TZ"]) {
    const value = process.env[name];
    if (value) inherited[name] = value;
  }
  return { ...inherited, ...extra };
}

export const env = loadEnv();
