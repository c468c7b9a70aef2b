#!/usr/bin/env bash
# Builds the six desktop binaries (linux, darwin, windows × amd64, arm64)
# into dist/, pure Go (CGO_ENABLED=0), stamped with version, commit and
# date so that `enquire-mcp --version` names exactly what it is, plus a
# SHA256SUMS file. Usage: scripts/release.sh [VERSION] [OUTDIR]
# VERSION defaults to `git describe --tags --always --dirty`.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
out=${2:-dist}
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# The commit's own time, not the clock: rebuilding a commit gives the same stamp.
date=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
ldflags="-s -w -X main.version=${version} -X main.commit=${commit} -X main.date=${date}"

mkdir -p "$out"
for os in linux darwin windows; do
  for arch in amd64 arm64; do
    ext=""; [ "$os" = windows ] && ext=".exe"
    bin="$out/enquire-mcp-${version}-${os}-${arch}${ext}"
    echo "building $bin"
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$bin" ./cmd/enquire-mcp
  done
done

(cd "$out" && sha256sum enquire-mcp-"${version}"-* > SHA256SUMS)

# The binary for this machine must report the stamp it was given.
native="$out/enquire-mcp-${version}-$(go env GOOS)-$(go env GOARCH)"
[ "$(go env GOOS)" = windows ] && native="$native.exe"
if [ -x "$native" ]; then
  line=$("$native" --version)
  echo "$line"
  case "$line" in
    *"enquire-mcp ${version} (commit ${commit}, built ${date},"*) ;;
    *) echo "release: --version does not show version ${version}, commit ${commit}, date ${date}" >&2; exit 1 ;;
  esac
fi
ls -l "$out"
