#!/usr/bin/env bash
# release-notes.sh TAG: print CHANGELOG.md's section for TAG (from its
# "## TAG" heading to the next "## "), for the release's notes. Fails if
# the changelog has no such section, so a tag cannot ship without notes.
set -euo pipefail
tag=${1:?usage: release-notes.sh TAG}
cd "$(dirname "$0")/.."
notes=$(awk -v tag="$tag" '
  /^## / { if (found) exit; if ($2 == tag) { found = 1; next } }
  found { print }
' CHANGELOG.md)
if [ -z "${notes//[[:space:]]/}" ]; then
  echo "release-notes.sh: CHANGELOG.md has no section for $tag" >&2
  exit 1
fi
printf '%s\n' "$notes"
