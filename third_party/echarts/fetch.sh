#!/usr/bin/env bash
# Re-fetches the chart library the HTML report embeds, from the npm registry,
# and checks it against the checksums pinned here: the tarball's (as npm
# published it) and the file's. Run it to verify the committed copy, or after
# raising VERSION (then update both checksums from its output, by hand, after
# reading the release notes). The build never fetches: the file is committed,
# so a build and CI work offline.
set -euo pipefail
VERSION=6.1.0
TARBALL_SHA256=681aff88cc1038c3fa941a3a53d1b177a52250b05335efc607d6105ae13be481
FILE_SHA256=61f13280aba3161f77fc801bf5f9c786f55f10432153a0683fc5cc0700b013d5
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "echarts@$VERSION" >/dev/null)
tgz="$tmp/echarts-$VERSION.tgz"
echo "$TARBALL_SHA256  $tgz" | sha256sum -c --quiet - || { echo "fetch.sh: the tarball's checksum differs" >&2; exit 1; }
tar -xzf "$tgz" -C "$tmp" package/dist/echarts.common.min.js package/LICENSE package/NOTICE
echo "$FILE_SHA256  $tmp/package/dist/echarts.common.min.js" | sha256sum -c --quiet - ||
  { echo "fetch.sh: echarts.common.min.js's checksum differs" >&2; exit 1; }
if [ "${1:-}" = "--check" ]; then
  cmp "$tmp/package/dist/echarts.common.min.js" "$here/echarts.common.min.js"
  echo "fetch.sh: the committed echarts $VERSION is the registry's"
  exit 0
fi
cp "$tmp/package/dist/echarts.common.min.js" "$tmp/package/LICENSE" "$tmp/package/NOTICE" "$here/"
echo "fetch.sh: echarts $VERSION fetched and verified into $here"
