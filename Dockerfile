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
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ ./cmd/...

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/graftctl"]
