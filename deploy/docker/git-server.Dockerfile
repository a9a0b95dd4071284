# syntax=docker/dockerfile:1
# A sample Git server for docker-compose.yml: serves examples/sample-repo (mounted at /sample)
# read-only over smart HTTP with `git http-backend`. Not for production.
FROM node:20-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends git \
  && rm -rf /var/lib/apt/lists/*
COPY deploy/docker/git-server.mjs /app/git-server.mjs
ENV HOME=/tmp GIT_SERVER_PORT=8000
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=5s --timeout=3s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8000/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/git-server.mjs"]
