# One image per service, from one Dockerfile:
#   docker build --build-arg SERVICE=auth --build-arg GIT_COMMIT=$(git rev-parse HEAD) -t account-access-auth .
# SERVICE is auth, user, categorization or notifier. The final stage holds the service's
# compiled JavaScript (dist/), its production dependencies (pnpm deploy --prod) and, where the
# service owns tables, its migrations; it runs `node dist/main.js` as the unprivileged `node`
# user. `node dist/migrate.js` applies the service's migrations and exits.
ARG NODE_VERSION=22.23.3

FROM node:${NODE_VERSION}-bookworm-slim AS pnpm
RUN npm install --global pnpm@10.34.9

# Dependencies first, from the lockfile alone, so that a change of source reuses this layer.
FROM pnpm AS dependencies
WORKDIR /src
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --frozen-lockfile

FROM dependencies AS build
ARG SERVICE
RUN test -n "$SERVICE" || { echo "build with --build-arg SERVICE=auth|user|categorization|notifier" >&2; exit 1; }
COPY . .
RUN pnpm install --offline --frozen-lockfile \
 && pnpm build \
 && pnpm --filter "@platform/${SERVICE}" deploy --legacy --prod --prefer-offline /out
# (--legacy deploy resolves the package's ranges again: it needs registry metadata, which
# pnpm fetch does not store, so --offline would fail on a clean builder.)

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG SERVICE
# The commit GET /version names (the image holds no .git to read it from).
ARG GIT_COMMIT=unknown
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    SERVICE=${SERVICE} \
    GIT_COMMIT=${GIT_COMMIT}
WORKDIR /app
# Owned by root and read-only for the service user: the process cannot rewrite its own code.
COPY --from=build /out ./
USER node
EXPOSE 8081 8082 8083 8084
# Ready means every dependency answers (GET /health/ready); the port is the service's own.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const s=process.env.SERVICE,d={auth:8081,user:8082,categorization:8083,notifier:8084}[s],p=process.env[s.toUpperCase()+'_PORT']||d;fetch('http://127.0.0.1:'+p+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# A young generation of 2 × 64 MiB instead of V8's 2 × 16: under load the user service allocates
# about 12 KB per debit, and the smaller one made it scavenge four times as often, each scavenge
# copying the debits still waiting for their batch (24 % of its thread against 18 %, and 42,200
# against 40,300 debits/s at 32 MiB: docs/benchmarks.md, "Batch debits at 32 connections"). About
# 100 MiB more at peak, inside every service's memory limit (k8s/).
CMD ["node", "--max-semi-space-size=64", "dist/main.js"]
