import { expect, test } from "@playwright/test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { createProject, createUser, uniqueName } from "../support/api";
import { signIn } from "../support/browser";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";
import { expectAuthorizedOnProfile, registerApplication } from "../support/oauth-browser";

/**
 * git-credential-oauth, the credential helper that signs git in through the browser, as Debian ships it (0.4.2,
 * `apt-get install git-credential-oauth`), set up for a self-managed GitLab exactly as its README says: an
 * application registered with the redirect URI `http://127.0.0.1`, and the client id, secret, scopes and endpoint
 * paths in git's configuration. It listens on a port the system picks (RFC 8252's loopback redirect) and sends a PKCE
 * verifier of standard base64 (`+`, `/`, `=`), so this passes only when loopback redirect URIs match on any port and
 * verifiers are checked by their transform alone, as GitLab's Doorkeeper does.
 */
const helper = process.env.GIT_CREDENTIAL_OAUTH_PATH ?? "/usr/bin/git-credential-oauth";
const gitProgram = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();

test("git clones a private project with the token git-credential-oauth gets through our sign-in and consent", async ({ page, request, baseURL }) => {
  test.skip(
    !existsSync(helper),
    `git-credential-oauth is not installed at ${helper}: install Debian's git-credential-oauth (apt-get install -y git-credential-oauth) or set GIT_CREDENTIAL_OAUTH_PATH`,
  );
  const user = await createUser(request);
  const project = await createProject(request, user.token, { visibility: "private" });
  const git = new GitSandbox();
  let clone: ReturnType<typeof spawn> | undefined;
  try {
    const work = await pushMain(git, remoteUrl(baseURL!, project.path_with_namespace, { password: user.token }), 2);
    const pushed = await git.ok(["rev-parse", "HEAD"], work);

    await signIn(page, user.username, user.password);
    const app = await registerApplication(page, {
      name: uniqueName("git-credential-oauth"),
      redirectUri: "http://127.0.0.1",
      confidential: true,
      scopes: ["read_repository", "write_repository"],
    });

    // The helper opens the browser with `open` when there is one; here the test is the browser, so the PATH holds
    // only git and the helper, and the helper prints the address for the person to open instead.
    const bin = git.dir("bin");
    mkdirSync(bin);
    symlinkSync(gitProgram, path.join(bin, "git"));
    symlinkSync(helper, path.join(bin, "git-credential-oauth"));
    const environment = git.env({ PATH: bin });
    const remote = remoteUrl(baseURL!, project.path_with_namespace);
    const host = new URL(baseURL!).origin;
    const settings: [string, string][] = [
      ["credential.helper", "oauth"],
      [`credential.${host}.oauthClientId`, app.uid],
      [`credential.${host}.oauthClientSecret`, app.secret],
      [`credential.${host}.oauthScopes`, "read_repository write_repository"],
      [`credential.${host}.oauthAuthURL`, "/oauth/authorize"],
      [`credential.${host}.oauthTokenURL`, "/oauth/token"],
    ];
    for (const [name, value] of settings) expect(spawnSync(gitProgram, ["config", "--global", name, value], { env: environment }).status).toBe(0);

    const child = spawn(gitProgram, ["clone", "--quiet", remote, git.dir("clone")], { cwd: git.root, env: environment });
    clone = child;
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const authorizeUrl = await new Promise<string>((resolve, reject) => {
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const line = stderr.split("\n").find((candidate) => candidate.startsWith(`${baseURL}/oauth/authorize?`));
        if (line) resolve(line.trim());
      });
      void exited.then((code) => reject(new Error(`git clone ended (${code}) before asking to authorize: ${stderr}`)));
    });
    const asked = new URL(authorizeUrl).searchParams;
    expect(Object.fromEntries(asked)).toEqual({
      client_id: app.uid,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: "S256",
      redirect_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      response_type: "code",
      scope: "read_repository write_repository",
      state: expect.any(String),
    });

    await page.goto(authorizeUrl);
    await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
    await page.getByRole("button", { name: `Authorize ${app.name}` }).click();
    await page.waitForURL((url) => url.origin === asked.get("redirect_uri"));
    await expect(page.locator("body")).toHaveText("Success. You may close this page and return to Git.");

    expect(await exited, stderr).toBe(0);
    expect(await git.ok(["rev-parse", "HEAD"], git.dir("clone"))).toBe(pushed);
    expect(await git.ok(["log", "--format=%s"], git.dir("clone"))).toBe("Commit 2\nCommit 1");
    await expectAuthorizedOnProfile(page, app.name, "read_repository, write_repository");
  } finally {
    clone?.kill();
    git.dispose();
  }
});
