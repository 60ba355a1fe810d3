# syntax=docker/dockerfile:1
# One image with every graft binary in /usr/local/bin; the charts choose the
# binary with the container's command. Build from the repository root:
#   docker build -t ghcr.io/graft-dev/graft:dev .

FROM golang:1.26 AS build
WORKDIR /src
# Module files first, so that the dependency download is cached separately
# from source changes.
COPY go.work go.work.sum go.mod go.sum ./
COPY apis/go.mod apis/go.sum apis/
COPY staging/src/github.com/graft-dev/client-go/go.mod staging/src/github.com/graft-dev/client-go/go.sum staging/src/github.com/graft-dev/client-go/
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# The version the binaries report (--version, graftctl version); the build
# context has no .git, so pass them, e.g. --build-arg VERSION=$(git describe --tags)
# --build-arg GIT_COMMIT=$(git rev-parse HEAD).
ARG VERSION=v0.0.0-dev
ARG GIT_COMMIT=""
ARG BUILD_DATE=1970-01-01T00:00:00Z
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath \
      -ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${VERSION} -X k8s.io/component-base/version.gitCommit=${GIT_COMMIT} -X k8s.io/component-base/version.buildDate=${BUILD_DATE}" \
      -o /out/ ./cmd/...

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/graftctl"]
