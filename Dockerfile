# syntax=docker/dockerfile:1
# The gateway's container image: a build stage (all dependencies, TypeScript compiled, then
# pruned to production dependencies) and a slim runtime stage running as the unprivileged
# `node` user, with its state under a volume. test/e2e/container-build.test.ts runs this file's
# build-stage commands in a temp folder and starts the result (where no container runtime exists).
#
#   docker build -t ai-gateway .
#   docker run --rm -p 8787:8787 -v gateway-data:/var/lib/gateway ai-gateway
#   docker run --rm ai-gateway --check            # flags go to the gateway (node dist/main.js)
# Node 24, the LTS line (Node 20 reached its end of life in April 2026).
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 is compiled here (npm_config_build_from_source: no prebuilt binary is downloaded).
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
ENV npm_config_build_from_source=true
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
# better-sqlite3 12 (its last line for Node 20) compiled against Node 24.19+ headers aborts when
# the GC collects a statement outside JS (nodejs/node#65446); on Node 24 it is compiled against
# 24.18.1's headers (the same ABI), as test/e2e/service/node-versions.test.ts does.
ARG SQLITE_NODE_HEADERS=24.18.1
RUN case "$(node -v)" in v24.*) npm rebuild better-sqlite3 --target="$SQLITE_NODE_HEADERS" ;; *) npm rebuild better-sqlite3 ;; esac
COPY tsconfig.json tsconfig.build.json ./
COPY schema ./schema
COPY providers ./providers
COPY scripts ./scripts
COPY src ./src
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    GATEWAY_DATA_DIR=/var/lib/gateway \
    GATEWAY_CONFIG=/app/gateway.yaml
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json gateway.yaml ./
COPY schema ./schema
COPY prices ./prices
COPY providers ./providers
COPY pipelines ./pipelines
COPY examples ./examples
RUN mkdir -p /var/lib/gateway && chown node:node /var/lib/gateway
VOLUME ["/var/lib/gateway"]
USER node
EXPOSE 8787
# The gateway drains on SIGTERM and exits 0; node is PID 1's command itself, so signals reach it.
STOPSIGNAL SIGTERM
# The probe reads the effective config (GATEWAY_CONFIG, GATEWAY_PORT, server.port, server.ssl), as the gateway does.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "dist/cli/healthcheck.js"]
ENTRYPOINT ["node", "dist/main.js"]
