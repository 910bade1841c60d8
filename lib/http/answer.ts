/**
 * An answer held whole: status, headers and the body as text. The machine-facing handlers (the JSON API, the OAuth
 * endpoints, the alert receiver) build these rather than web `Response`s: the production server's direct lane writes
 * one to the socket as it is, while a `Response` costs a body stream, header validation and a read of that stream
 * back into bytes on every request — a sizeable share of these handlers' CPU. The framework is handed the `Response`
 * made from it (`answerResponse`).
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Null for an answer without a body (204). */
  body: string | null;
}

/** The web `Response` the framework sends for an answer. */
export function answerResponse(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
