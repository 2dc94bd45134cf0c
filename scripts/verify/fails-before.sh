#!/usr/bin/env bash
# Shows that the tests a fix commit added fail without the fix: runs the commit's versions of the given test
# files (and of the test helpers it changed) against the source of the commit's parent, in a throw-away
# worktree. Usage: scripts/verify/fails-before.sh <fix-commit> <test file>... (paths from the repo root).
# BEFORE=<commit> runs them against that source instead of the parent (a fix that landed earlier than its test).
# Prints vitest's summary; exit status 0 means at least one of the tests failed before the fix (as expected).
set -euo pipefail
commit="$1"; shift
repo="$(git rev-parse --show-toplevel)"
dir="$(mktemp -d /tmp/suanli-before-XXXXXX)"
trap 'git -C "$repo" worktree remove --force "$dir" >/dev/null 2>&1 || rm -rf "$dir"' EXIT
git -C "$repo" worktree add -q --detach "$dir" "${BEFORE:-$commit^}"
# The fix commit's tests and test helpers; everything else as it was before the fix.
helpers=$(git -C "$repo" show --name-only --format= "$commit" | grep -E '(^apps/server/test/|test-client\.ts$|/test/)' || true)
git -C "$dir" checkout -q "$commit" -- "$@" $helpers
# The test helpers as the tests knew them (they are not the fix).
git -C "$dir" checkout -q "$commit" -- apps/server/test
cp -al "$repo/node_modules" "$dir/node_modules"
for ws in apps/server apps/console packages/contracts; do [ -d "$repo/$ws/node_modules" ] && cp -al "$repo/$ws/node_modules" "$dir/$ws/node_modules"; done
cd "$dir"
if npx vitest run "$@" > "$dir/.out" 2>&1; then
  grep -E "Test Files|Tests " "$dir/.out" || true
  echo "fails-before: $commit — the tests PASS without the fix (not a reproduction)"; exit 1
fi
grep -E "FAIL .*>|Test Files|Tests |Error:|Cannot find|does not provide" "$dir/.out" | head -80
echo "fails-before: $commit — the tests fail without the fix"
