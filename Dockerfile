# syntax=docker/dockerfile:1
# The hooks server image: docker build -t c5c3-hooks:dev .
# The base image is pinned to a Node release (README quickstart); it is one build argument, so it can
# be pinned further, to a digest:
#   docker build --build-arg NODE_IMAGE=node:24.11.1-trixie-slim@sha256:<digest> -t c5c3-hooks:dev .
ARG NODE_IMAGE=node:24.11.1-trixie-slim

# Build stage: full dependency set, compile TypeScript.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The service only: the simulator and the CLIs (src/sim, src/cli) are tooling, not in the image.
RUN npm run build:service

# Runtime stage: production dependencies and the compiled output only, as a non-root user.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["node", "dist/main.js"]
