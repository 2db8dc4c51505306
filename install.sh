#!/usr/bin/env bash
# install.sh PROJECT: build cairn, provision PROJECT/.cairn, and wire Claude
# Code for PROJECT — through the plugin marketplace when the claude CLI is on
# PATH (or $CLAUDE_BIN), otherwise by merging cairn's hooks into
# PROJECT/.claude/settings.json. Idempotent: a second run changes nothing.
set -euo pipefail

usage() { echo "usage: ./install.sh PROJECT_DIR" >&2; exit 64; }
[ $# -eq 1 ] || usage
case "$1" in -h|--help) echo "usage: ./install.sh PROJECT_DIR  (see README.md)"; exit 0 ;; esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project=$(cd "$1" 2>/dev/null && pwd) || { echo "install.sh: $1 is not a directory" >&2; exit 1; }
git -C "$project" rev-parse --show-toplevel >/dev/null 2>&1 ||
  { echo "install.sh: $project is not a git repository (run git init there first)" >&2; exit 1; }
command -v go >/dev/null 2>&1 ||
  { echo "install.sh: Go is needed to build cairn: install Go 1.26 from https://go.dev/dl" >&2; exit 1; }

bindir="${CAIRN_INSTALL_DIR:-$HOME/.local/bin}"
mkdir -p "$bindir"
echo "building cairn into $bindir/cairn (the first build downloads its Go modules: usually 30-90 s; later builds take seconds)"
started=$(date +%s)
if ! (cd "$repo" && go build -tags urfave_cli_no_docs -o "$bindir/cairn.tmp.$$" ./helpers/cairn); then
  rm -f "$bindir/cairn.tmp.$$"
  echo "install.sh: go build failed (see above); nothing was installed" >&2
  exit 1
fi
mv -f "$bindir/cairn.tmp.$$" "$bindir/cairn"
echo "built cairn $("$bindir/cairn" version | awk '{print $2}') in $(( $(date +%s) - started )) s"
# The plugin's wrapper uses this build too (scripts/cairn-bin).
mkdir -p "$repo/.build/bin"
cp -f "$bindir/cairn" "$repo/.build/bin/cairn"
"$bindir/cairn" version | awk '{print $2}' > "$repo/.build/bin/cairn.version"
cairn="$bindir/cairn"

"$cairn" --dir "$project" init

claude="${CLAUDE_BIN:-$(command -v claude || true)}"
if [ -n "$claude" ]; then
  if grep -qs '"cairn@cairn-marketplace": *true' "$project/.claude/settings.json"; then
    echo "Claude Code already has the cairn plugin enabled for $project"
  else
    echo "wiring Claude Code through the plugin marketplace ($claude)"
    (cd "$project" && "$claude" plugin marketplace add "$repo" --scope project >/dev/null)
    (cd "$project" && "$claude" plugin install cairn@cairn-marketplace --scope project >/dev/null)
  fi
  wired=".claude/settings.json (enabledPlugins, extraKnownMarketplaces)"
else
  echo "no claude CLI on PATH: merging cairn's hooks into .claude/settings.json"
  "$cairn" claude-settings "$project/.claude/settings.json" --wrapper "$repo/scripts/cairn-hook" >/dev/null
  wired=".claude/settings.json (hooks)"
fi

case ":$PATH:" in *":$bindir:"*) ;; *) echo "note: add $bindir to PATH to run cairn from the shell" ;; esac
cat <<MSG
cairn is installed in $project:
  .cairn/            the team's knowledge log (commit it)
  $wired
Commit them:  cd $project && git add .cairn .claude/settings.json && git commit -m "Add cairn team memory"
Try:          cairn --dir $project doctor
MSG
