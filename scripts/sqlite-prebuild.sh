#!/usr/bin/env bash
# better-sqlite3 ships prebuilt binaries only from GitHub, which this machine cannot reach, so every `npm ci`
# compiles SQLite with node-gyp (~70 CPU-s of a 2-core CI run). prebuild-install, which better-sqlite3's install
# script tries first, also looks for the release tarball in a local folder named by
# `npm_config_better_sqlite3_local_prebuilds` (.ci/run sets it to this script's folder). After an `npm ci` this
# script keeps the binary it compiled there, under the release's own name — package version, Node ABI, platform
# and arch — so the next `npm ci` of the same versions on this machine unpacks it (prebuild-install then loads
# it as a check) instead of compiling; another version or Node compiles again and is kept in turn.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${npm_config_better_sqlite3_local_prebuilds:-/var/cache/suanli/prebuilds}"
pkg=node_modules/better-sqlite3
[ -f "$pkg/build/Release/better_sqlite3.node" ] || exit 0
name="better-sqlite3-v$(node -p "require('./$pkg/package.json').version")-node-v$(node -p process.versions.modules)-$(node -p process.platform)-$(node -p process.arch).tar.gz"
[ -e "$dir/$name" ] && exit 0
mkdir -p "$dir"
tar -C "$pkg" -czf "$dir/$name.tmp" build/Release/better_sqlite3.node
mv "$dir/$name.tmp" "$dir/$name"
echo "sqlite-prebuild: kept $dir/$name"
