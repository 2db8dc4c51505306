#!/usr/bin/env bash
# install.sh [PROJECT] [--plugin]: build cairn and install it onto PATH
# ($CAIRN_INSTALL_DIR, default ~/.local/bin). With PROJECT, also provision
# PROJECT/.cairn and wire the project for Claude Code with
# `cairn init --claude`: a committed launcher and project hooks that name
# nothing of this machine, so every teammate who pulls gets the memory.
# With --plugin, also install cairn's Claude Code plugin for yourself (user
# scope: every repository of yours that has .cairn/). Idempotent.
set -euo pipefail

usage() { echo "usage: ./install.sh [PROJECT_DIR] [--plugin]" >&2; exit 64; }
plugin=0
project=
for a in "$@"; do
  case "$a" in
    -h|--help) echo "usage: ./install.sh [PROJECT_DIR] [--plugin]  (see README.md)"; exit 0 ;;
    --plugin) plugin=1 ;;
    -*) usage ;;
    *) [ -z "$project" ] || usage; project=$a ;;
  esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "$project" ]; then
  project=$(cd "$project" 2>/dev/null && pwd) || { echo "install.sh: $project is not a directory" >&2; exit 1; }
  git -C "$project" rev-parse --show-toplevel >/dev/null 2>&1 ||
    { echo "install.sh: $project is not a git repository (run git init there first)" >&2; exit 1; }
fi
command -v go >/dev/null 2>&1 ||
  { echo "install.sh: Go is needed to build cairn: install Go 1.26 from https://go.dev/dl" >&2; exit 1; }

bindir="${CAIRN_INSTALL_DIR:-$HOME/.local/bin}"
mkdir -p "$bindir"
echo "building cairn into $bindir/cairn (the first build downloads its Go modules: usually 30-90 s; later builds take seconds)"
started=$(date +%s)
if ! (cd "$repo" && CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o "$bindir/cairn.tmp.$$" ./helpers/cairn); then
  rm -f "$bindir/cairn.tmp.$$"
  echo "install.sh: go build failed (see above); nothing was installed" >&2
  exit 1
fi
mv -f "$bindir/cairn.tmp.$$" "$bindir/cairn"
cairn="$bindir/cairn"
echo "built cairn $("$cairn" version | awk '{print $2}') in $(($(date +%s) - started)) s"
# The plugin's wrapper uses this build too (scripts/cairn-bin).
mkdir -p "$repo/.build/bin"
cp -f "$cairn" "$repo/.build/bin/cairn"
"$cairn" version | awk '{print $2}' >"$repo/.build/bin/cairn.version"

if [ "$plugin" = 1 ]; then
  claude="${CLAUDE_BIN:-$(command -v claude || true)}"
  [ -n "$claude" ] || { echo "install.sh: --plugin needs the claude CLI on PATH (or CLAUDE_BIN)" >&2; exit 1; }
  echo "installing the cairn plugin for you (user scope) from $repo"
  "$claude" plugin marketplace add "$repo" >/dev/null
  "$claude" plugin install cairn@cairn-marketplace --scope user >/dev/null
fi

case ":$PATH:" in *":$bindir:"*) ;; *) echo "note: add $bindir to PATH (export PATH=\"\$PATH:$bindir\") so you and your agents can run cairn" ;; esac
if [ -n "$project" ]; then
  "$cairn" --dir "$project" init --claude
  echo "Try: cairn --dir $project doctor"
fi
