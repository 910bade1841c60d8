import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // The marker package throws outside React's server build; tests import server modules directly.
  "server-only": path.resolve(import.meta.dirname, "lib/testing/server-only-stub.ts"),
};

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["lib/**/*.test.ts"], exclude: ["lib/**/*.int.test.ts"], environment: "node" },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["lib/**/*.int.test.ts"],
          environment: "node",
          // Fresh test databases are copies of one migrated database per engine, made once per run.
          globalSetup: ["lib/testing/database-images.ts"],
          // Each file gets its own databases; argon2 hashing makes some tests take a few hundred ms.
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
