# Build stage: compile TypeScript and the native SQLite binding.
FROM node:22-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace packages (packages/*, see package.json): npm ci needs their package.json files to
# match the lock, and the root's prepare script builds each into its dist/.
COPY packages ./packages
# The dashboard (a workspace too): built by the same prepare script into web/dist.
COPY web ./web
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY projections ./projections
COPY scripts/api-types.ts ./scripts/
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and compiled code only, as a non-root user.
FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 WATCHLOG_DATA_DIR=/data
# glibc's malloc gives each busy thread an arena of its own (the HTTP, log writer and projector
# threads, V8's and libuv's pools); two arenas keep 15-25 MB less resident under ingest, at the
# same throughput (docs/operations.md, Memory).
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# node_modules/@watchlog/agenda-sqlite and @watchlog/masking are workspace symlinks to
# packages/: their package.json (exports) and compiled dist must be there.
COPY --from=build /app/packages/agenda-sqlite/package.json ./packages/agenda-sqlite/
COPY --from=build /app/packages/agenda-sqlite/dist ./packages/agenda-sqlite/dist
COPY --from=build /app/packages/masking/package.json ./packages/masking/
COPY --from=build /app/packages/masking/dist ./packages/masking/dist
# /embed serves the audit-log viewer's bundle from packages/viewer/dist.
COPY --from=build /app/packages/viewer/dist ./packages/viewer/dist
COPY --from=build /app/web/dist ./web/dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Readiness, not liveness: healthy means a request would succeed now (see docs/operations.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["start"]
