// The platform's reference: a plain node:http server answering a small JSON body, with the keep-alive timeout the
// service is benchmarked with. What it does per request is the floor under every route of the service.
import { createServer } from "node:http";

const port = Number(process.argv[2]);
const body = JSON.stringify({ status: "ok" });

const server = createServer((_request, response) => {
  response.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  response.end(body);
});
server.keepAliveTimeout = 70_000;
server.listen(port, () => process.stdout.write(`${JSON.stringify({ ready: true })}\n`));
