import { NextResponse, type NextRequest } from "next/server";

/**
 * A path with malformed percent-encoding (`/api/v4/projects/%E0%A4%A`) cannot be routed; without this the framework
 * answers it with a bare 500. Only paths containing `%` come here (see `config.matcher`), so other requests pay nothing.
 */
export function proxy(request: NextRequest): NextResponse {
  try {
    decodeURIComponent(request.nextUrl.pathname);
    return NextResponse.next();
  } catch {
    const body = request.nextUrl.pathname.startsWith("/api/")
      ? { error: "path is not valid: it contains malformed percent-encoding" }
      : { message: "400 Bad request - the path contains malformed percent-encoding" };
    return NextResponse.json(body, { status: 400 });
  }
}

export const config = { matcher: ["/(.*%.*)"] };
