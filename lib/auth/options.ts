import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDatabase } from "@/lib/db";
import { env } from "@/lib/env";
import { clientAddress } from "@/lib/http/client-address";
import { getOrCreateInstanceSecret } from "@/lib/instance-secrets";
import { RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { verifySignIn } from "./sign-in";

declare module "next-auth" {
  interface Session {
    user: { id: number; username: string; name: string; sessionVersion: number };
  }
  interface User {
    username?: string;
    sessionVersion?: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: number;
    username?: string;
    /** The user's session version at sign-in; raising it in the database ends this session (lib/auth/sessions.ts). */
    sessionVersion?: number;
  }
}

const sessionMaxAgeSeconds = 7 * 24 * 60 * 60;

async function buildAuthOptions(): Promise<NextAuthOptions> {
  const secret = env.SESSION_SECRET ?? (await getOrCreateInstanceSecret(await getDatabase(), "session_secret"));
  return {
    secret,
    session: { strategy: "jwt", maxAge: sessionMaxAgeSeconds },
    pages: { signIn: "/users/sign_in", error: "/users/sign_in" },
    providers: [
      CredentialsProvider({
        name: "Password",
        credentials: {
          login: { label: "Username or email", type: "text" },
          password: { label: "Password", type: "password" },
          otp: { label: "Two-factor code", type: "text" },
        },
        async authorize(credentials, request) {
          if (!credentials?.login || !credentials.password) throw new Error("invalid_credentials");
          const attempt = {
            login: credentials.login,
            password: credentials.password,
            otp: credentials.otp || undefined,
            clientAddress: clientAddress(request.headers ?? {}),
          };
          const result = await verifySignIn(await getDatabase(), attempt, new Date()).catch((error: unknown) => {
            // The route answers throttled addresses with 429 before this runs; this covers the attempt that crosses the limit.
            if (error instanceof RateLimitExceeded) return { ok: false as const, reason: "throttled" };
            throw error;
          });
          // The reason reaches the sign-in form as `error`, which words it for the person.
          if (!result.ok) throw new Error(result.reason);
          const { user } = result;
          return { id: String(user.id), name: user.name, email: user.email, username: user.username, sessionVersion: user.sessionVersion };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.uid = Number(user.id);
          token.username = user.username;
          token.sessionVersion = user.sessionVersion;
        }
        return token;
      },
      session({ session, token }) {
        // Sessions signed in before versions existed carry none: version 1, the column's default.
        session.user = { id: token.uid ?? 0, username: token.username ?? "", name: token.name ?? "", sessionVersion: token.sessionVersion ?? 1 };
        return session;
      },
    },
  };
}

const globalForAuth = globalThis as unknown as { authOptions?: Promise<NextAuthOptions> };

/** next-auth's configuration; built once per process because the secret may come from the database. */
export function getAuthOptions(): Promise<NextAuthOptions> {
  globalForAuth.authOptions ??= buildAuthOptions().catch((error: unknown) => {
    globalForAuth.authOptions = undefined;
    throw error;
  });
  return globalForAuth.authOptions;
}
