import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** Who the client authenticated as. */
  user: string | undefined;
  from: string;
  to: string[];
  headers: Record<string, string>;
  /** The text body, with quoted-printable decoded. */
  text: string;
}

export interface TestSmtpServer {
  port: number;
  /** A nodemailer URL for this server with the given credentials. */
  url(user: string, password: string): string;
  received: ReceivedMail[];
  /** Addresses the server refuses (a permanent 550) until they are taken out of the set. */
  refusedRecipients: Set<string>;
  /** Resolves with the next message the server accepts (or the one already waiting). */
  nextMail(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a loopback port (the `smtp-server` package) that accepts mail from `user`/`password` over
 * plain SMTP with AUTH, so the mail module is tested through the protocol it speaks in production.
 */
export async function startTestSmtpServer(credentials: { user: string; password: string }): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  const refusedRecipients = new Set<string>();
  let delivered = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.password) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onRcptTo(address, _session, callback) {
      if (refusedRecipients.has(address.address.toLowerCase())) callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const mail = parseMail(Buffer.concat(chunks).toString("utf8"), session);
        received.push(mail);
        waiting.shift()?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: (user, password) => `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    received,
    refusedRecipients,
    nextMail() {
      const ready = received[delivered];
      delivered += 1;
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parseMail(raw: string, session: { user?: unknown; envelope: { mailFrom: false | { address: string }; rcptTo: { address: string }[] } }): ReceivedMail {
  const [head = "", ...bodyParts] = raw.split("\r\n\r\n");
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let text = bodyParts.join("\r\n\r\n");
  if (headers["content-transfer-encoding"]?.toLowerCase() === "quoted-printable") {
    text = Buffer.from(
      text.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      "latin1",
    ).toString("utf8");
  }
  return {
    user: typeof session.user === "string" ? session.user : undefined,
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
    to: session.envelope.rcptTo.map((recipient) => recipient.address),
    headers,
    text: text.replace(/\r\n/g, "\n"),
  };
}
