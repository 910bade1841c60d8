import { spawnSync } from "node:child_process";
import { test } from "@playwright/test";

/**
 * python-gitlab, the client many GitLab users script with, as Debian ships it (`apt-get install python3-gitlab`,
 * version 3.12): tests drive the service through its own methods and compare what it returns.
 */
const python = process.env.PYTHON_GITLAB_PYTHON ?? "/usr/bin/python3";

function pythonGitlabVersion(): string | null {
  const probe = spawnSync(python, ["-c", "import gitlab; print(gitlab.__version__)"], { encoding: "utf8" });
  return probe.status === 0 ? probe.stdout.trim() : null;
}

const version = pythonGitlabVersion();

/** Skips the calling test, saying why, where python-gitlab is not installed. */
export function requirePythonGitlab(): void {
  test.skip(
    version === null,
    `python-gitlab is not importable by ${python}: install Debian's python3-gitlab (apt-get install -y python3-gitlab) or set PYTHON_GITLAB_PYTHON`,
  );
}

/**
 * Runs `script` with `gl`, a `gitlab.Gitlab` client for `baseURL` authenticated by `token` (or anonymous), and `out`, a
 * dict the script fills; answers `out` as the script left it (through JSON). `args` reach the script as `args`. A
 * script that raises fails the test with python's traceback.
 */
export function runPythonGitlab(
  script: string,
  options: { baseURL: string; token?: string; args?: Record<string, unknown> },
): Record<string, unknown> {
  const program = [
    "import json, os, sys",
    "import gitlab",
    "args = json.loads(os.environ['SCRIPT_ARGS'])",
    "token = os.environ.get('GITLAB_TOKEN') or None",
    "gl = gitlab.Gitlab(os.environ['GITLAB_URL'], private_token=token)",
    "out = {}",
    script,
    "sys.stdout.write('\\n' + json.dumps(out, default=str))",
  ].join("\n");
  const run = spawnSync(python, ["-c", program], {
    encoding: "utf8",
    // Only what the script needs: nothing of the test run's own environment reaches it.
    env: {
      NODE_ENV: "test",
      PATH: process.env.PATH ?? "",
      GITLAB_URL: options.baseURL,
      GITLAB_TOKEN: options.token ?? "",
      SCRIPT_ARGS: JSON.stringify(options.args ?? {}),
    },
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`python-gitlab script failed (${run.status ?? run.signal}):\n${run.stderr}\n${run.stdout}`);
  const lines = run.stdout.trimEnd().split("\n");
  return JSON.parse(lines.at(-1)!) as Record<string, unknown>;
}
