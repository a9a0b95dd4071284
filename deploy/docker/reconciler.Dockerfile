# syntax=docker/dockerfile:1
# The Tidemark reconciler. Build from the repository root:
#   docker build -f deploy/docker/reconciler.Dockerfile -t tidemark/reconciler:0.1.0 .
# Stage 1 installs everything, type-checks and bundles (npm run build -> apps/reconciler/dist);
# then drops the dev dependencies. The final stage holds node, the production node_modules
# and one bundled file, and runs as a numeric non-root user.

FROM node:20-slim AS build
WORKDIR /src
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci
RUN npm run build
# Production dependencies only; the workspace links (@tidemark/*) are bundled into main.js.
RUN npm prune --omit=dev && rm -rf node_modules/@tidemark node_modules/.bin

# The pinned renderers (tools/*/go.mod): kustomize, helm and sops, built from the Go module proxy,
# the same versions scripts/setup builds for the tests.
FROM golang:1.26-bookworm AS tools
WORKDIR /tools
COPY tools/kustomize ./kustomize
COPY tools/helm ./helm
COPY tools/sops ./sops
RUN --mount=type=cache,target=/root/.cache/go-build --mount=type=cache,target=/go/pkg/mod \
    cd kustomize && CGO_ENABLED=0 go build -trimpath -o /out/kustomize sigs.k8s.io/kustomize/kustomize/v5 \
 && cd ../helm && CGO_ENABLED=0 go build -trimpath -o /out/helm helm.sh/helm/v3/cmd/helm \
 && cd ../sops && CGO_ENABLED=0 go build -trimpath -o /out/sops github.com/getsops/sops/v3/cmd/sops

FROM node:20-slim
ENV NODE_ENV=production HOME=/tmp
WORKDIR /app
# package.json says "type": "module" for dist/main.js.
COPY --from=build /src/apps/reconciler/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/apps/reconciler/dist ./dist
# Renderers run as sandboxed subprocesses; the reconciler finds them on PATH (or render.toolsDir).
COPY --from=tools /out/ /usr/local/bin/
# The Git cache when no volume is mounted there (the Kubernetes manifests mount an emptyDir).
RUN mkdir -p /var/cache/tidemark && chown 10001:10001 /var/cache/tidemark
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
