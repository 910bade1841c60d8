import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDatabase } from "@/lib/db";
import { env } from "@/lib/env";
import { getOrCreateInstanceSecret } from "@/lib/instance-secrets";
import { verifySignIn } from "./sign-in";

declare module "next-auth" {
  interface Session {
    user: { id: number; username: string; name: string };
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: number;
    username?: string;
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
        async authorize(credentials) {
          if (!credentials?.login || !credentials.password) throw new Error("invalid_credentials");
          const result = await verifySignIn(
            await getDatabase(),
            { login: credentials.login, password: credentials.password, otp: credentials.otp || undefined },
            new Date(),
          );
          // The reason reaches the sign-in form as `error`, which words it for the person.
          if (!result.ok) throw new Error(result.reason);
          return { id: String(result.user.id), name: result.user.name, email: result.user.email, username: result.user.username };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.uid = Number(user.id);
          token.username = (user as { username?: string }).username;
        }
        return token;
      },
      session({ session, token }) {
        session.user = { id: token.uid ?? 0, username: token.username ?? "", name: token.name ?? "" };
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
