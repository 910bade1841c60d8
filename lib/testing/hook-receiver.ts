import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The sender's port: requests that share one are on one connection. */
  remotePort: number | undefined;
}

/**
 * An HTTP server on 127.0.0.1 that records each webhook request and answers with the next status of `statuses`
 * (the last one repeating; 200 by default), for tests of webhook deliveries.
 */
export async function startHookReceiver(options: { statuses?: number[]; delayMs?: number } = {}) {
  const received: ReceivedHook[] = [];
  const statuses = [...(options.statuses ?? [200])];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text.
      }
      received.push({ path: request.url ?? "/", headers: request.headers, body, remotePort: request.socket.remotePort });
      const status = statuses.length > 1 ? statuses.shift()! : statuses[0]!;
      setTimeout(() => {
        response.writeHead(status, { "Content-Type": "application/json", "X-Receiver": "test" });
        response.end(JSON.stringify({ received: received.length }));
        for (const wake of waiters.splice(0)) wake();
      }, options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Resolves once `count` requests have come in (or rejects after `timeoutMs`). */
    async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedHook[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
