// The production server (`npm start`): Next.js answers every request, as under `next start`, except those for the
// machine-facing route handlers (the JSON API, the OAuth endpoints, the alert receiver). The direct lane
// (lib/http/direct-lane.mjs) calls those handlers itself, found through the framework's own route manifest: the
// framework's per-request routing costs more CPU than most of their work. The answers are the same; the handlers
// still serve `next dev`, and DIRECT_DISPATCH=off sends everything through the framework.
//
//   node server.mjs [-p <port>] [-H <hostname>] [--keepAliveTimeout <ms>]     (the options of `next start`)
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

function parseOptions() {
  try {
    return parseArgs({
      options: {
        port: { type: "string", short: "p" },
        hostname: { type: "string", short: "H" },
        keepAliveTimeout: { type: "string" },
      },
    }).values;
  } catch (error) {
    console.error(`${error.message}\nUsage: node server.mjs [-p <port>] [-H <hostname>] [--keepAliveTimeout <ms>]`);
    process.exit(2);
  }
}
const options = parseOptions();
const port = Number(options.port ?? process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Invalid port: ${options.port ?? process.env.PORT}`);
  process.exit(2);
}
process.env.NODE_ENV ??= "production";

// Imported after NODE_ENV is set: Next.js reads it as it loads.
const [{ default: next }, { securityHeaders }, { directLane }, { frameworkLaneMetrics }, { peerAddressHeader, operatorSocketHeader, operatorSecretVariable, operatorSocketFile, stopServiceKey }, { countRequest }] =
  await Promise.all([
    import("next"),
    import("./next.config.mjs"),
    import("./lib/http/direct-lane.mjs"),
    import("./lib/http/framework-lane-metrics.mjs"),
    import("./lib/http/lane-keys.mjs"),
    import("./lib/http/request-load.mjs"),
  ]);
const app = next({ dev: false, hostname: options.hostname ?? "localhost", port });
const handle = app.getRequestHandler();
// Next.js keeps the process alive after an uncaught error; a server that cannot start must stop.
const stop = (error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
};
await app.prepare().catch(stop);

if (!["on", "off", undefined].includes(process.env.DIRECT_DISPATCH)) {
  console.error(`Invalid DIRECT_DISPATCH: ${process.env.DIRECT_DISPATCH} (on or off)`);
  process.exit(2);
}
// The framework adds next.config.mjs's headers to what it answers; the lane is given them to add.
const distDir = path.resolve(".next");
const takenDirectly = process.env.DIRECT_DISPATCH === "off" ? () => false : directLane({ distDir, commonHeaders: securityHeaders });
// The protocol wrappers count their own requests, on either lane; this counts everything else the framework answers.
const handleCounted = frameworkLaneMetrics({ manifest: JSON.parse(readFileSync(path.join(distDir, "server", "app-paths-manifest.json"), "utf8")) });

const server = createServer((request, response) => {
  // Background work gives way while requests are waiting (lib/http/request-load.mjs).
  countRequest(response);
  // Only the operator socket's requests carry this header; a client's own is dropped before anything reads it.
  delete request.headers[operatorSocketHeader];
  if (takenDirectly(request, response)) return;
  // Rate limits count per client address, which the application reads from this header (lib/http/client-address.ts):
  // whatever a client sent under it is replaced by the socket's peer. The direct lane does the same for its requests.
  request.headers[peerAddressHeader] = request.socket.remoteAddress ?? "";
  handleCounted(request, response, handle);
});
if (options.keepAliveTimeout) {
  const keepAliveTimeout = Number(options.keepAliveTimeout);
  if (!Number.isInteger(keepAliveTimeout) || keepAliveTimeout < 0) {
    console.error(`Invalid keep-alive timeout: ${options.keepAliveTimeout}`);
    process.exit(2);
  }
  server.keepAliveTimeout = keepAliveTimeout;
}
server.on("error", stop);
server.listen(port, options.hostname, () => console.log(`Listening on http://${options.hostname ?? "localhost"}:${port}`));

// The operator socket: `npm run admin` reaches the server through it, as the account running the server (the file is
// that account's alone), to act with an administrator's rights when no administrator can sign in. Its requests go to
// the framework marked with this process's secret, and only to the operator's routes.
const operatorSecret = randomBytes(32).toString("hex");
process.env[operatorSecretVariable] = operatorSecret;
const dataDir = process.env.DATA_DIR || "./.data";
const operatorSocketPath = path.join(dataDir, operatorSocketFile);
mkdirSync(dataDir, { recursive: true });
// A socket file left by a server that stopped without closing it would make listening fail.
rmSync(operatorSocketPath, { force: true });
const operatorServer = createServer((request, response) => {
  if (!request.url?.startsWith("/-/operator/")) {
    response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("404 Not Found");
    return;
  }
  request.headers[operatorSocketHeader] = operatorSecret;
  request.headers[peerAddressHeader] = "";
  void handle(request, response);
});
operatorServer.on("error", stop);
operatorServer.listen(operatorSocketPath, () => chmodSync(operatorSocketPath, 0o600));

// A stop (SIGTERM, as `docker stop` sends, or Ctrl-C): no new connection is taken, the requests under way are answered,
// then the application stops its background work and closes the database, and the process exits with the signal's
// code. Whatever is still running after the grace period is cut off, within the 10 s a container manager waits before
// it kills; a second signal ends the process at once.
const stopGraceMs = 8_000;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    const exitCode = signal === "SIGINT" ? 130 : 143;
    if (stopping) process.exit(exitCode);
    stopping = true;
    setTimeout(() => {
      console.error(`Still busy after ${stopGraceMs / 1000} s: stopped without waiting any longer`);
      process.exit(exitCode);
    }, stopGraceMs).unref();
    operatorServer.close();
    const requestsAnswered = new Promise((resolve) => server.close(resolve));
    // Keep-alive connections would otherwise hold the server open until their clients close them.
    server.closeIdleConnections();
    requestsAnswered
      .then(() => globalThis[stopServiceKey]?.())
      .then(
        () => console.log("Stopped"),
        (error) => console.error(`Stopping failed: ${error instanceof Error ? error.message : error}`),
      )
      .finally(() => process.exit(exitCode));
  });
}
