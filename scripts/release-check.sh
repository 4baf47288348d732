#!/usr/bin/env bash
# release-check.sh [VERSION]: check here what a release will do.
#
#   1. builds spindle for every target .goreleaser.yaml names (linux,
#      darwin, windows on amd64 and arm64) with its flags: CGO_ENABLED=0,
#      -trimpath, -ldflags "-s -w -X main.version=VERSION";
#   2. checks that each binary is static (built with CGO_ENABLED=0, as
#      go version -m records) and that the host's binary says
#      "spindle VERSION" in `spindle version`;
#   3. checks that CHANGELOG.md has notes for VERSION
#      (scripts/release-notes.sh);
#   4. with goreleaser on PATH, also `goreleaser check` (the config against
#      its schema) and a snapshot release of every target into dist/
#      (docker, and the SBOM when syft is missing, skipped).
#
# VERSION defaults to the newest version in CHANGELOG.md. The binaries go
# to $OUT (default: a temporary directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-$(awk '/^## v[0-9]/ { print $2; exit }' CHANGELOG.md)}
out=${OUT:-}
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
hostos=$(go env GOHOSTOS)
hostarch=$(go env GOHOSTARCH)
for t in $targets; do
  os=${t%/*} arch=${t#*/}
  exe=spindle
  [ "$os" = windows ] && exe=spindle.exe
  bin="$out/${os}_${arch}/$exe"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X main.version=$version" -o "$bin" ./cmd/spindle
  if ! go version -m "$bin" | grep -q 'CGO_ENABLED=0'; then
    echo "release-check: $t: not built with CGO_ENABLED=0" >&2
    exit 1
  fi
  echo "built $t"
  if [ "$os" = "$hostos" ] && [ "$arch" = "$hostarch" ]; then
    got=$("$bin" version)
    case "$got" in
    "spindle $version "*) echo "host binary: $got" ;;
    *)
      echo "release-check: spindle version says \"$got\", want \"spindle $version ...\"" >&2
      exit 1
      ;;
    esac
  fi
done
scripts/release-notes.sh "$version" > /dev/null
echo "CHANGELOG.md has notes for $version"
if command -v goreleaser > /dev/null; then
  goreleaser check
  skip=docker,publish
  command -v syft > /dev/null || skip=$skip,sbom
  goreleaser release --snapshot --clean --skip="$skip"
else
  echo "goreleaser not on PATH: config schema and snapshot release not checked here"
fi
