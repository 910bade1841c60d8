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
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
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
});

export type Env = z.infer<typeof envSchema>;

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
  return parsed.data;
}

export const env = loadEnv();
