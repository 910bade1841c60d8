# The service's image (README, Container): `docker build -t gitlab-compatible-service .`
#
# BASE_IMAGE is any Debian-based image with Node.js 20.19 or newer and npm 11 or newer; the default is the official
# Node.js 24 LTS image, whose npm is 11. The container test builds on a base of its own (it cannot pull images).
ARG BASE_IMAGE=node:24-trixie-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# Dependencies first, so a change to the sources alone reuses this layer; npm's cache outlives the build. The lock
# file is npm 11's: npm 10 and older resolve its optional peer dependencies differently and refuse it as out of sync.
# No install scripts, as under npm 11 in development (package.json's allowScripts): nothing needs one.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm --version | grep -Eq '^(1[1-9]|[2-9][0-9])\.' || { echo "npm 11 or newer is needed, this base has $(npm --version)" >&2; exit 1; }; \
    npm ci --ignore-scripts --no-audit --no-fund --prefer-offline
COPY . .
# Then what the server does not run is dropped: development dependencies, the build's cache, and the compilers
# (`next build` needs them, serving does not). IMAGE_BUILD: see next.config.mjs.
RUN IMAGE_BUILD=1 npx next build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf .next/cache node_modules/@next/swc-*

FROM ${BASE_IMAGE}
# git serves the repositories over HTTP (git http-backend); a base that already has it is left as it is.
RUN if ! command -v git >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*; \
    fi \
 && groupadd --system --gid 10001 gitlab \
 && useradd --system --uid 10001 --gid gitlab --home-dir /data --no-create-home --shell /usr/sbin/nologin gitlab \
 && mkdir /data && chown gitlab:gitlab /data
WORKDIR /app
# The application is root's and read-only to the server; only /data is written.
COPY --from=build /app/package.json /app/server.mjs /app/next.config.mjs ./
COPY --from=build /app/drizzle ./drizzle
COPY --from=build /app/lib ./lib
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/.next ./.next

# Everything the service keeps: the embedded database and the git repositories (REPOSITORIES_DIR defaults to
# /data/repositories). With DATABASE_URL, only the repositories.
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    DATA_DIR=/data
VOLUME /data
EXPOSE 3000
USER gitlab

# GitLab's own health check; the base has no curl, so Node asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/-/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Node itself is the container's main process, so `docker stop` (SIGTERM) reaches server.mjs, which closes its
# listeners and exits at once. The option is `npm start`'s: a larger young generation, fewer garbage collections.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=32", "server.mjs"]
