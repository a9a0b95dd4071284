# syntax=docker/dockerfile:1
# The Tidemark dashboard. Build from the repository root:
#   docker build -f deploy/docker/dashboard.Dockerfile -t tidemark/dashboard:0.1.0 .
# Here, with no registry reachable, scripts/build-images builds it with buildah from the bases that
# scripts/assemble-base-image makes (NODE_IMAGE and the others below are build arguments).
# Stage 1 installs everything and bundles (scripts/build.mjs -> apps/dashboard/dist; type-checking is
# CI's job, `npm run check`); then drops the dev dependencies. The final stage holds node, the production node_modules
# and one bundled file, and runs as a numeric non-root user.

# The runtime base, and the bases of the build stages: Node.js 24 LTS and Go 1.26.
ARG NODE_IMAGE=node:24-slim
ARG NODE_BUILD_IMAGE=node:24-slim

FROM ${NODE_BUILD_IMAGE} AS build
# A proxy's CA for the build's downloads (scripts/build-images mounts the host's); empty elsewhere. Not in the image.
ARG NODE_EXTRA_CA_CERTS
WORKDIR /src
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci
RUN node scripts/build.mjs
# Production dependencies only; the workspace links (@tidemark/*) are bundled into main.js.
RUN npm prune --omit=dev && rm -rf node_modules/@tidemark node_modules/.bin

FROM ${NODE_IMAGE}
# OCI annotations, also as labels (what `docker inspect` shows); scripts/build-images passes the commit's.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=https://tidemark.dev
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="tidemark-dashboard" \
      org.opencontainers.image.description="Tidemark dashboard" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="${LICENSES}"
ENV NODE_ENV=production HOME=/tmp
WORKDIR /app
# package.json says "type": "module" for dist/main.js.
COPY --from=build /src/apps/dashboard/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/apps/dashboard/dist ./dist
ENV TIDEMARK_DASHBOARD_HOST=0.0.0.0 TIDEMARK_DASHBOARD_PORT=8080
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--enable-source-maps", "/app/dist/main.js"]
