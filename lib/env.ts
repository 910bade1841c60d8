import "server-only";
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
    .default("http://localhost:3000")
    .transform((url) => url.replace(/\/+$/, "")),
  INITIAL_ROOT_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  INITIAL_ROOT_TOKEN: z.string().min(20, "must be at least 20 characters").optional(),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SIGNUP_ENABLED: booleanFlag.default(true),
  SIGN_IN_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  SIGN_IN_LOCK_MINUTES: z.coerce.number().int().min(1).default(10),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Where the bare git repositories live (one `<project id>.git` each); defaults to `${DATA_DIR}/repositories`. */
  REPOSITORIES_DIR: z.string().min(1).optional(),
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).default(730),
  EVENTS_PRUNE_INTERVAL_MINUTES: z.coerce.number().int().min(0).default(60),
});

export type Env = Omit<z.infer<typeof envSchema>, "REPOSITORIES_DIR"> & { REPOSITORIES_DIR: string };

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
  return { ...parsed.data, REPOSITORIES_DIR: parsed.data.REPOSITORIES_DIR ?? `${parsed.data.DATA_DIR.replace(/\/+$/, "")}/repositories` };
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
