# syntax=docker/dockerfile:1
# The Tidemark reconciler. Build from the repository root:
#   docker build -f deploy/docker/reconciler.Dockerfile -t tidemark/reconciler:0.1.0 .
# Here, with no registry reachable, scripts/build-images builds it with buildah from the bases that
# scripts/assemble-base-image makes (NODE_IMAGE and the others below are build arguments).
# Stage 1 installs everything and bundles (scripts/build.mjs -> apps/reconciler/dist; type-checking is
# CI's job, `npm run check`); then drops the dev dependencies. The final stage holds node, the production node_modules
# and one bundled file, and runs as a numeric non-root user.

# The runtime base, and the bases of the build stages: Node.js 24 LTS and Go 1.26.
ARG NODE_IMAGE=node:24-slim
ARG NODE_BUILD_IMAGE=node:24-slim
ARG GO_IMAGE=golang:1.26-bookworm

FROM ${NODE_BUILD_IMAGE} AS build
# A proxy's CA for the build's downloads (scripts/build-images mounts the host's); empty elsewhere. Not in the image.
ARG NODE_EXTRA_CA_CERTS
WORKDIR /src
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci
RUN node scripts/build.mjs
# Production dependencies only; the workspace links (@tidemark/*) are bundled into main.js.
RUN npm prune --omit=dev && rm -rf node_modules/@tidemark node_modules/.bin && mkdir -p /out/cache

# The pinned renderers (tools/*/go.mod): kustomize, helm and sops, built from the Go module proxy,
# the same versions scripts/setup builds for the tests.
FROM ${GO_IMAGE} AS tools
ARG SSL_CERT_FILE
WORKDIR /tools
COPY tools/kustomize ./kustomize
COPY tools/helm ./helm
COPY tools/sops ./sops
RUN --mount=type=cache,target=/root/.cache/go-build --mount=type=cache,target=/go/pkg/mod \
    cd kustomize && CGO_ENABLED=0 go build -trimpath -o /out/kustomize sigs.k8s.io/kustomize/kustomize/v5 \
 && cd ../helm && CGO_ENABLED=0 go build -trimpath -o /out/helm helm.sh/helm/v3/cmd/helm \
 && cd ../sops && CGO_ENABLED=0 go build -trimpath -o /out/sops github.com/getsops/sops/v3/cmd/sops

FROM ${NODE_IMAGE}
# OCI annotations, also as labels (what `docker inspect` shows); scripts/build-images passes the commit's.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=https://tidemark.dev
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="tidemark-reconciler" \
      org.opencontainers.image.description="Tidemark reconciler: Git to server-side apply" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="${LICENSES}"
ENV NODE_ENV=production HOME=/tmp
WORKDIR /app
# package.json says "type": "module" for dist/main.js.
COPY --from=build /src/apps/reconciler/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/apps/reconciler/dist ./dist
# Renderers run as sandboxed subprocesses; the reconciler finds them on PATH (or render.toolsDir).
COPY --from=tools /out/ /usr/local/bin/
# The Git cache when no volume is mounted there (the Kubernetes manifests mount an emptyDir). Copied, not
# made with RUN, so the final stage runs nothing: the runtime base needs no shell tools.
COPY --from=build --chown=10001:10001 /out/cache /var/cache/tidemark
USER 10001:10001
# 9464: health, metrics and Git webhooks; 9443: the CRD conversion webhook (with conversionWebhook.service or url).
EXPOSE 9464
EXPOSE 9443
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# V8 sizes the heap for a 4 GiB old space by default, and with a heap-growing factor near 4 the old
# space grew to 221 MiB around 88 MiB of live objects (bench/scale, 1,000 x 3). A 512 MiB old space (half
# the manifests' 1 GiB limit) caps the factor near 1.4; 4 MiB semi-spaces make the young space 8 MiB, not 32.
# Measured side by side (bench/scale 300 x 3, README "Reconciler memory"): peak RSS 354 -> 182 MiB for
# about 18% more reconciler CPU until converged; 2 MiB semi-spaces cost about 37% in another such run.
# No --enable-source-maps: once any stack trace is formatted, Node keeps the bundle's source map decoded,
# 4.4 MiB of payload plus 13.4 MiB of mappings (18.2 MiB in a heap snapshot of the reconciler at 10,000 x 3).
# Stack traces then name dist/main.js positions; NODE_OPTIONS=--enable-source-maps brings TypeScript ones back.
ENTRYPOINT ["node", "--max-semi-space-size=4", "--max-old-space-size=512", "/app/dist/main.js"]
