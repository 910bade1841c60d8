import "server-only";
import pino from "pino";
import { env } from "@/lib/env";

const globalForLogger = globalThis as unknown as { logger?: pino.Logger };

// Secrets can reach a log line only through these fields; pino blanks them wherever they appear.
const redactedPaths = [
  "password",
  "token",
  "secret",
  "authorization",
  "*.password",
  "*.token",
  "*.secret",
  "*.authorization",
  "headers.authorization",
  'headers["private-token"]',
];

export const logger: pino.Logger =
  globalForLogger.logger ??
  (globalForLogger.logger = pino({
    level: env.NODE_ENV === "test" ? "silent" : env.LOG_LEVEL,
    base: undefined,
    redact: { paths: redactedPaths, censor: "[redacted]" },
  }));
