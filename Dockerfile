# syntax=docker/dockerfile:1
#
# spindle in a container: a static binary on Alpine, with git for history
# scans, run as an unprivileged user in /repo.
#
#   docker build -t spindle --build-arg VERSION="$(git describe --tags --always --dirty)" .
#   docker run --rm -v "$PWD:/repo" spindle git            # the history of the repository here
#   docker run --rm -v "$PWD:/repo" spindle scan -f sarif -o spindle.sarif .
#
# The build context is the repository root; .dockerignore keeps it to what
# the build needs.

ARG GO_VERSION=1.26
ARG ALPINE_VERSION=3.22

FROM golang:${GO_VERSION}-alpine AS build
WORKDIR /src
# Modules first, so that this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION is what `spindle version` and SARIF reports name; .git is not in
# the build context, so without it the binary says "(devel)".
ARG VERSION=
# No cgo: the binary must not need a libc that the runtime image lacks.
# -trimpath keeps the build machine's paths out of the binary.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/spindle ./cmd/spindle \
 && /out/spindle version

FROM alpine:${ALPINE_VERSION}
ARG VERSION=
LABEL org.opencontainers.image.title="spindle" \
      org.opencontainers.image.description="Find secrets in files, archives and git history" \
      org.opencontainers.image.version="${VERSION}"
# git for `spindle git`. A mounted repository belongs to whoever owns the
# host's files, not to this image's user; git refuses such a repository
# ("dubious ownership") unless it is marked safe.
RUN apk add --no-cache git ca-certificates \
 && git config --system --add safe.directory '*' \
 && addgroup -S -g 10001 spindle \
 && adduser -S -D -H -u 10001 -G spindle spindle
COPY --from=build /out/spindle /usr/local/bin/spindle
# Numeric, so that Kubernetes' runAsNonRoot can check it without /etc/passwd.
USER 10001:10001
WORKDIR /repo
ENTRYPOINT ["spindle"]
CMD ["scan", "."]
