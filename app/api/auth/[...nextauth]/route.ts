import NextAuth from "next-auth";
import { getAuthOptions } from "@/lib/auth/options";

type NextAuthContext = { params: Promise<{ nextauth: string[] }> };

// next-auth's options hold a secret that may be read from the database, so they are resolved per request (cached).
async function handler(request: Request, context: NextAuthContext): Promise<Response> {
  return NextAuth(request as never, context as never, await getAuthOptions());
}

export { handler as GET, handler as POST };
