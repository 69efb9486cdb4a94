# syntax=docker/dockerfile:1
# Tollgate container image (docs/operators.md, "Container"). Two stages: the builder compiles the native modules
# (better-sqlite3, isolated-vm) with python3/make/g++ and builds the console bundle and phone data; the runtime
# stage gets the result with production dependencies only, no compiler, and runs as the unprivileged `node` user.
# Both stages use the same base image, so the compiled modules match the runtime's Node ABI and glibc.
ARG NODE_IMAGE=node:22.20.0-bookworm-slim

FROM ${NODE_IMAGE} AS builder
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json operations.yaml ./
COPY core ./core
COPY plugins ./plugins
COPY web ./web
# npm ci runs the native builds (allowed by package.json allowScripts) and the postinstall that builds web/dist and
# the phone data. The postinstall tolerates a failed step; an image must not, hence the test.
RUN npm ci --no-audit --no-fund \
 && test -f web/dist/index.html \
 && test -f plugins/phone/assets/generated/geo.bin \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
# The code belongs to root and is read-only for the user the gateway runs as; only /data is writable.
COPY --from=builder --chown=root:root /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# --no-node-snapshot: isolated-vm needs it on Node 20+.
CMD ["node", "--no-node-snapshot", "--import", "./core/bin/load-ts.mjs", "core/main.ts", "serve"]
