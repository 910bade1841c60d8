// `npm run admin -- <command> …`: what the person who runs the server can do when no administrator can sign in, as
// GitLab's `gitlab-rake gitlab:password:reset` and `gitea admin user …`. It talks to the running server through the
// operator socket in its data directory (DATA_DIR, default ./.data), which only the account running the server can
// open, so it works on either database while the server runs (the embedded database is the server's alone).
import { request } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { operatorSocketFile } from "../http/lane-keys.mjs";

const usage = `Usage: npm run admin -- <command> [arguments]

  reset-password <username or email> [--password-stdin]
      Sets a new password (a generated one, shown once, unless --password-stdin reads it from standard input) and ends
      every browser session of the account.
  unlock <username or email>      Forgets the failed sign-ins that locked the account.
  confirm <username or email>     Confirms the account's email address.
  block <username or email>       Blocks the account: no sign-in, no token, every session ended.
  unblock <username or email>     Unblocks it.
  create-admin <username> <email> [--name <name>] [--password-stdin]
      Creates a confirmed administrator (with a generated password, shown once, unless --password-stdin).

Runs against the server started with the same DATA_DIR (now: ${process.env.DATA_DIR || "./.data"}).`;

function fail(message, code = 2) {
  console.error(message);
  process.exit(code);
}

function parse() {
  try {
    return parseArgs({ allowPositionals: true, options: { "password-stdin": { type: "boolean" }, name: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    return fail(`${error.message}\n\n${usage}`);
  }
}

/** Standard input up to its end, without the one line break a shell or `echo` adds. */
async function readStandardInput() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

async function argumentsOf(command, positionals, values) {
  const takesOneUser = ["reset-password", "unlock", "confirm", "block", "unblock"];
  if (takesOneUser.includes(command)) {
    if (positionals.length !== 1) fail(`${command} takes one username or email address.\n\n${usage}`);
    const args = { user: positionals[0] };
    if (command === "reset-password" && values["password-stdin"]) args.password = await readStandardInput();
    return args;
  }
  if (command === "create-admin") {
    if (positionals.length !== 2) fail(`create-admin takes a username and an email address.\n\n${usage}`);
    const args = { username: positionals[0], email: positionals[1] };
    if (values.name !== undefined) args.name = values.name;
    if (values["password-stdin"]) args.password = await readStandardInput();
    return args;
  }
  return fail(`Unknown command: ${command}\n\n${usage}`);
}

/** POSTs the command to the server's operator socket; resolves its status and parsed answer. */
function send(socketPath, command, args) {
  const body = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { socketPath, path: `/-/operator/${command}`, method: "POST", headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          try {
            resolve({ status: response.statusCode ?? 0, answer: JSON.parse(text) });
          } catch {
            resolve({ status: response.statusCode ?? 0, answer: { message: text } });
          }
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** The REST API's error bodies as one line: `{"message": …}`, `{"message": {field: [problems]}}` or `{"error": …}`. */
function errorText(answer) {
  const { message, error } = answer ?? {};
  if (typeof message === "string") return message;
  if (message && typeof message === "object") {
    return Object.entries(message)
      .map(([field, problems]) => `${field} ${[problems].flat().join(", ")}`)
      .join("; ");
  }
  if (typeof error === "string") return error;
  return JSON.stringify(answer);
}

const { positionals, values } = parse();
if (values.help || positionals.length === 0) fail(usage, values.help ? 0 : 2);
const [command, ...rest] = positionals;
const args = await argumentsOf(command, rest, values);
const dataDir = process.env.DATA_DIR || "./.data";
const socketPath = path.join(dataDir, operatorSocketFile);
let result;
try {
  result = await send(socketPath, command, args);
} catch (error) {
  if (error.code === "ENOENT" || error.code === "ECONNREFUSED") {
    fail(`No server is running with DATA_DIR=${dataDir} (nothing answers at ${socketPath}). Start it with npm start, then run this again.`, 1);
  }
  if (error.code === "EACCES") fail(`${socketPath} belongs to another account: run this as the account that runs the server.`, 1);
  fail(`Could not reach the server at ${socketPath}: ${error.message}`, 1);
}
if (result.status < 200 || result.status >= 300) fail(errorText(result.answer), 1);
console.log(result.answer.message);
if (result.answer.password) console.log(`Password (shown once, not stored anywhere readable): ${result.answer.password}`);
