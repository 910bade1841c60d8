const isDevelopment = process.env.NODE_ENV !== "production";
// The container image's build (Dockerfile) throws the build's cache away and is made from sources `npm run typecheck`
// has checked: it skips writing the one and running the other, which cost it minutes.
const imageBuild = process.env.IMAGE_BUILD === "1";

// Next's own inline bootstrap scripts need 'unsafe-inline'; the dev server also needs 'unsafe-eval'.
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDevelopment ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // rate-limiter-flexible loads drizzle-orm with a computed import() that a bundle cannot resolve.
  serverExternalPackages: ["@electric-sql/pglite", "@node-rs/argon2", "nodemailer", "pino", "prom-client", "rate-limiter-flexible"],
  // The issue forms take descriptions and comments as long as GitLab's (a million characters, several bytes each in
  // some scripts); the framework's default of 1 MB would refuse them before our own validation could answer.
  experimental: { serverActions: { bodySizeLimit: "4mb" }, turbopackFileSystemCacheForBuild: !imageBuild },
  typescript: { ignoreBuildErrors: imageBuild },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
