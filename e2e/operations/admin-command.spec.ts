import { expect, test, type APIRequestContext } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { asToken, createUser, rootToken, uniqueName } from "../support/api";
import { serverDataDir, serverLogFile } from "../support/constants";

/** `npm run admin -- …` as an operator runs it on the server's machine, with the server's DATA_DIR. */
function admin(dataDir: string, args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ["lib/operator/admin-command.mjs", ...args], {
    env: { ...process.env, DATA_DIR: dataDir },
    input: input ?? "",
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function shownPassword(stdout: string): string {
  const match = /^Password \(shown once, not stored anywhere readable\): (\S+)$/m.exec(stdout);
  expect(match, stdout).not.toBeNull();
  return match![1]!;
}

async function passwordGrant(request: APIRequestContext, username: string, password: string): Promise<number> {
  return (await request.post("/oauth/token", { form: { grant_type: "password", username, password } })).status();
}

test.describe("the operator's command line", () => {
  test("resets a password, unlocks, blocks, unblocks and confirms accounts on the running server, and creates an administrator", async ({ request }, testInfo) => {
    test.setTimeout(120_000);
    const dataDir = serverDataDir(testInfo.project.name);
    const person = await createUser(request);

    // A generated password, shown once; the old one stops working.
    const reset = admin(dataDir, ["reset-password", person.username]);
    expect(reset.stderr).toBe("");
    expect(reset.status).toBe(0);
    expect(reset.stdout.split("\n")[0]).toBe(`The password of ${person.username} was changed; every browser session of the account has ended.`);
    const generated = shownPassword(reset.stdout);
    expect(generated).toMatch(/^[\w-]{24}$/);
    expect(await passwordGrant(request, person.username, person.password)).toBe(400);
    expect(await passwordGrant(request, person.username, generated)).toBe(200);

    // A chosen one, from standard input, by email address; the rules of a password change hold.
    const chosen = `chosen-${uniqueName("pw")}`;
    const fromInput = admin(dataDir, ["reset-password", person.email, "--password-stdin"], `${chosen}\n`);
    expect(fromInput).toEqual({ status: 0, stdout: `The password of ${person.username} was changed; every browser session of the account has ended.\n`, stderr: "" });
    expect(await passwordGrant(request, person.username, chosen)).toBe(200);
    expect(admin(dataDir, ["reset-password", person.username, "--password-stdin"], "short\n")).toEqual({
      status: 1,
      stdout: "",
      stderr: "password is too short (minimum is 8 characters)\n",
    });

    // Locked by failed sign-ins (five on these servers), then unlocked.
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await passwordGrant(request, person.username, "wrong-password")).toBe(400);
    expect(await passwordGrant(request, person.username, chosen)).toBe(400);
    expect(admin(dataDir, ["unlock", person.username])).toEqual({
      status: 0,
      stdout: `${person.username} can sign in again: the failed attempts that locked the account are forgotten.\n`,
      stderr: "",
    });
    expect(await passwordGrant(request, person.username, chosen)).toBe(200);

    // Blocked and unblocked.
    expect(admin(dataDir, ["block", person.username])).toMatchObject({ status: 0, stdout: `${person.username} is blocked.\n` });
    expect(await passwordGrant(request, person.username, chosen)).toBe(400);
    expect(admin(dataDir, ["block", person.username])).toMatchObject({ status: 0, stdout: `${person.username} was already blocked.\n` });
    expect(admin(dataDir, ["unblock", person.username])).toMatchObject({ status: 0, stdout: `${person.username} is unblocked.\n` });
    expect(await passwordGrant(request, person.username, chosen)).toBe(200);

    // Confirmed.
    const unconfirmed = await createUser(request, { confirmed: false });
    const confirmedAt = async () =>
      ((await (await request.get(`/api/v4/users/${unconfirmed.id}`, { headers: asToken(rootToken) })).json()) as { confirmed_at: string | null }).confirmed_at;
    expect(await confirmedAt()).toBeNull();
    expect(admin(dataDir, ["confirm", unconfirmed.username])).toMatchObject({ status: 0, stdout: `${unconfirmed.username}'s email address is confirmed.\n` });
    expect(await confirmedAt()).toEqual(expect.any(String));

    // A new administrator, who can sign in and act as one at once.
    const username = uniqueName("operator");
    const created = admin(dataDir, ["create-admin", username, `${username}@example.com`, "--name", "Night Operator"]);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout.split("\n")[0]).toBe(`${username} (${username}@example.com) is an administrator and can sign in now.`);
    const token = await request.post("/oauth/token", { form: { grant_type: "password", username, password: shownPassword(created.stdout), scope: "api" } });
    expect(token.status()).toBe(200);
    const me = await request.get("/api/v4/user", { headers: { Authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}` } });
    expect(await me.json()).toMatchObject({ username, name: "Night Operator", is_admin: true });

    // What names nobody, and what is not a command.
    expect(admin(dataDir, ["unlock", "nobody-at-all"])).toEqual({ status: 1, stdout: "", stderr: "404 User Not Found\n" });
    expect(admin(dataDir, ["create-admin", username, `${username}@example.com`])).toEqual({ status: 1, stdout: "", stderr: "Username has already been taken\n" });
    expect(admin(dataDir, ["promote", person.username])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^Unknown command: promote\n/) });
    expect(admin(dataDir, ["block"])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^block takes one username or email address\./) });

    // No password reaches the server's log.
    const log = readFileSync(serverLogFile(testInfo.project.name), "utf8");
    expect(log).toContain('"operator":{"command":"reset-password"');
    for (const secret of [generated, chosen, shownPassword(created.stdout)]) expect(log).not.toContain(secret);
  });

  test("is refused over HTTP whatever a client sends, and says so when no server runs", async ({ request }) => {
    const forged = await request.post("/-/operator/reset-password", {
      headers: { "X-Operator-Socket": "0".repeat(64), "Content-Type": "application/json" },
      data: { user: "root" },
    });
    expect(forged.status()).toBe(404);
    expect(admin(".e2e-data/no-server-here", ["unlock", "root"])).toEqual({
      status: 1,
      stdout: "",
      stderr: "No server is running with DATA_DIR=.e2e-data/no-server-here (nothing answers at .e2e-data/no-server-here/operator.sock). Start it with npm start, then run this again.\n",
    });
  });
});
