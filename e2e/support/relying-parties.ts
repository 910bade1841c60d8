import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { submitSignIn } from "./browser";

/**
 * Relying parties of other languages run as programs of their own on a loopback port: a python social-auth script
 * (Debian's python3-social-auth-core) and a Rack application with OmniAuth GitLab (Debian's ruby-omniauth-gitlab).
 */
export const python = process.env.PYTHON_GITLAB_PYTHON ?? "/usr/bin/python3";
export const ruby = process.env.RUBY_PATH ?? "/usr/bin/ruby";

/** Whether `program` runs `probe` (an import or require of what the relying party needs) without failing. */
function canRun(program: string, args: string[]): boolean {
  return spawnSync(program, args, { encoding: "utf8", timeout: 30_000 }).status === 0;
}

const socialAuthAvailable = canRun(python, ["-c", "import social_core.backends.gitlab, social_core.backends.open_id_connect"]);
const omniauthAvailable = canRun(ruby, ["-e", 'require "omniauth-gitlab"; require "rack"; require "rack/protection"; require "webrick"']);

/** Skips the calling test, saying why, where python social-auth (with python-jose, for OpenID Connect) is missing. */
export function requireSocialAuth(): void {
  test.skip(
    !socialAuthAvailable,
    `python social-auth is not importable by ${python}: install Debian's python3-social-auth-core and python3-jose ` +
      "(apt-get install -y python3-social-auth-core python3-jose) or set PYTHON_GITLAB_PYTHON",
  );
}

/** Skips the calling test, saying why, where OmniAuth GitLab and its Rack server are missing. */
export function requireOmniAuth(): void {
  test.skip(
    !omniauthAvailable,
    `OmniAuth GitLab cannot be loaded by ${ruby}: install Debian's ruby-omniauth-gitlab, ruby-rack-protection and ruby-webrick ` +
      "(apt-get install -y ruby-omniauth-gitlab ruby-rack-protection ruby-webrick) or set RUBY_PATH",
  );
}

/** A loopback port nothing listens on, for a relying party whose redirect URI must be registered before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface RunningRelyingParty {
  origin: string;
  stop: () => Promise<void>;
}

/**
 * Starts a relying party program on `port` and waits for it to say `listening`. Only what it is given reaches it:
 * nothing of the test run's own environment. Its error output is kept for the failure message.
 */
export async function startRelyingParty(command: string, args: string[], port: number, env: Record<string, string>): Promise<RunningRelyingParty> {
  const child: ChildProcess = spawn(command, args, {
    env: { NODE_ENV: "test", PATH: process.env.PATH ?? "", LANG: "C.UTF-8", RELYING_PARTY_PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    errors = (errors + chunk.toString("utf8")).slice(-20_000);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start within 20 s:\n${errors}`)), 20_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString("utf8").includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}:\n${errors}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      if (errors) await test.info().attach(`${command} stderr`, { body: errors, contentType: "text/plain" });
    },
  };
}

/** A secret for a relying party's own session cookie. */
export function sessionSecret(): string {
  return randomBytes(64).toString("hex");
}

/**
 * What a person does once a relying party has sent their browser to us: signs in (the page says which application
 * asks), reads the consent page and authorizes. Resolves when the browser has left for the relying party.
 */
export async function signInAndAuthorize(page: Page, person: { username: string; password: string }, applicationName: string, scopeTitles: string[]): Promise<void> {
  await expect(page).toHaveURL(/\/users\/sign_in/);
  await expect(page.getByTestId("sign-in-purpose")).toHaveText(`Sign in to continue to ${applicationName}, which is asking to access your account.`);
  // The browser arrives here by redirects from another origin; the form signs in only once its script has loaded
  // (before that, a click submits the bare form and the page starts over without the request it came for).
  await page.waitForLoadState("networkidle");
  await submitSignIn(page, person.username, person.password);
  await expect(page).toHaveURL(/\/oauth\/authorize\/consent\?/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${applicationName} is requesting access to your account`);
  for (const title of scopeTitles) await expect(page.getByText(title, { exact: true })).toBeVisible();
  await page.getByRole("button", { name: `Authorize ${applicationName}` }).click();
}

/** The JSON a relying party's page answers with, once the browser has arrived there. */
export async function pageJson(page: Page, origin: string, path: string): Promise<unknown> {
  await page.waitForURL((url) => url.origin === origin && url.pathname === path);
  const text = await page.locator("body").innerText();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`the relying party answered at ${page.url()}:\n${text}`);
  }
}

// --- Relying parties written in JavaScript, served in the test's own process

/** A web server of the test's own on a loopback port, as a client application (a relying party) runs one. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** What the server's handler threw, so a test can say why a page failed instead of just seeing a 500. */
  failures: unknown[];
  close: () => Promise<void>;
}

/** Serves `handle` on 127.0.0.1 on a port the system picks; a handler that throws answers 500 and is recorded. */
export async function listenOnLoopback(handle: (request: IncomingMessage, response: ServerResponse, origin: string) => Promise<void> | void): Promise<LoopbackServer> {
  const failures: unknown[] = [];
  let origin = "";
  const listener: RequestListener = (request, response) => {
    Promise.resolve()
      .then(() => handle(request, response, origin))
      .catch((error: unknown) => {
        failures.push(error);
        if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
        response.end(`relying party failed: ${String(error)}`);
      });
  };
  const server = createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Serves a fetch-style handler (web `Request` in, `Response` out), the way Auth.js (`@auth/core`'s `Auth`) is mounted
 * by every framework integration: the request as the browser sent it, the answer with each of its cookies.
 */
export function serveFetchHandler(handler: (request: Request) => Promise<Response>): Promise<LoopbackServer> {
  return listenOnLoopback(async (incoming, outgoing, origin) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) for (const item of [value ?? []].flat()) headers.append(name, item);
    const method = incoming.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? undefined : new Uint8Array(await readBody(incoming));
    const response = await handler(new Request(new URL(incoming.url ?? "/", origin), { method, headers, body }));
    const answerHeaders: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") answerHeaders[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) answerHeaders["set-cookie"] = cookies;
    outgoing.writeHead(response.status, answerHeaders);
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
}

/** What a Next.js API route (`pages/api/…`) receives: the request with its query, cookies and parsed body. */
export interface ApiRouteRequest extends IncomingMessage {
  query: Record<string, string | string[]>;
  cookies: Record<string, string>;
  body: unknown;
}

/** And what it answers with: Node's response plus Next.js's `status`, `json` and `send`. */
export interface ApiRouteResponse extends ServerResponse {
  status(code: number): ApiRouteResponse;
  json(body: unknown): void;
  send(body: unknown): void;
}

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (header ?? "").split(";")) {
    const separator = pair.indexOf("=");
    if (separator <= 0) continue;
    const name = pair.slice(0, separator).trim();
    if (!(name in cookies)) cookies[name] = decodeURIComponent(pair.slice(separator + 1).trim());
  }
  return cookies;
}

/**
 * Serves a catch-all Next.js API route (`pages/api/auth/[...nextauth].js`, where next-auth v4's documentation mounts
 * `NextAuth(options)`) under `prefix`: the request and response carry what Next.js's API routes give a handler —
 * `req.query` with the catch-all segments under `param`, `req.cookies`, `req.body` parsed by content type, and
 * `res.status`, `res.json`, `res.send`.
 */
export function serveApiRoute(
  prefix: string,
  param: string,
  handler: (request: ApiRouteRequest, response: ApiRouteResponse) => Promise<unknown>,
): Promise<LoopbackServer> {
  return listenOnLoopback(async (incoming, outgoing, origin) => {
    const url = new URL(incoming.url ?? "/", origin);
    if (!url.pathname.startsWith(`${prefix}/`)) {
      outgoing.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Not found");
      return;
    }
    const request = incoming as ApiRouteRequest;
    request.query = { ...Object.fromEntries(url.searchParams), [param]: url.pathname.slice(prefix.length + 1).split("/").map(decodeURIComponent) };
    request.cookies = parseCookies(incoming.headers.cookie);
    const text = (await readBody(incoming)).toString("utf8");
    const contentType = incoming.headers["content-type"] ?? "";
    request.body = contentType.includes("application/json") ? JSON.parse(text || "null") : contentType.includes("application/x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(text)) : text;
    const response = outgoing as ApiRouteResponse;
    response.status = (code) => {
      response.statusCode = code;
      return response;
    };
    response.json = (body) => {
      response.setHeader("Content-Type", "application/json; charset=utf-8");
      response.end(JSON.stringify(body));
    };
    response.send = (body) => {
      if (body !== null && typeof body === "object" && !Buffer.isBuffer(body)) return response.json(body);
      if (typeof body === "string" && !response.hasHeader("Content-Type")) response.setHeader("Content-Type", "text/html; charset=utf-8");
      response.end(body ?? "");
    };
    await handler(request, response);
  });
}
