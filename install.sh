#!/usr/bin/env bash
# install.sh [PROJECT] [--plugin]: build cairn and install it onto PATH
# ($CAIRN_INSTALL_DIR, default ~/.local/bin). With PROJECT, also provision
# PROJECT/.cairn and wire the project for Claude Code with
# `cairn init --claude`: a committed launcher and project hooks that name
# nothing of this machine, so every teammate who pulls gets the memory, and
# .cairn/config.json records how a teammate installs cairn (a clone of this
# checkout and ./install.sh). With --plugin, also install cairn's Claude
# Code plugin for yourself (user scope: every repository of yours that has
# .cairn/). Idempotent.
set -euo pipefail

usage() { echo "usage: ./install.sh [PROJECT_DIR] [--plugin]" >&2; exit 64; }
plugin=0
project=
for a in "$@"; do
  case "$a" in
    -h|--help) echo "usage: ./install.sh [PROJECT_DIR] [--plugin]  (see README.md)"; exit 0 ;;
    --plugin) plugin=1 ;;
    -*) echo "install.sh: unknown option $a" >&2; usage ;;
    *) [ -z "$project" ] || { echo "install.sh: one project at a time (got $project and $a)" >&2; usage; }; project=$a ;;
  esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "$project" ]; then
  given=$project
  project=$(cd "$given" 2>/dev/null && pwd) || { echo "install.sh: $given is not a directory" >&2; exit 1; }
  git -C "$project" rev-parse --show-toplevel >/dev/null 2>&1 ||
    { echo "install.sh: $project is not a git repository (run git init there first)" >&2; exit 1; }
fi
command -v go >/dev/null 2>&1 ||
  { echo "install.sh: Go is needed to build cairn: install Go 1.26 from https://go.dev/dl" >&2; exit 1; }

bindir="${CAIRN_INSTALL_DIR:-$HOME/.local/bin}"
mkdir -p "$bindir"
tmp="$bindir/cairn.tmp.$$"
trap 'rm -f "$tmp"' EXIT

# progress LABEL [TOTAL]: one line that counts the lines read from stdin
# (on a terminal it moves in place; elsewhere, a line every 25), with the
# time since the install started. Lines that are not progress (errors) are
# passed through.
progress() {
  local label=$1 total=${2:-} n=0 line of=
  [ -n "$total" ] && of=" of $total"
  while IFS= read -r line; do
    case "$line" in
      *:*|*' '*) printf '%s\n' "$line" >&2; continue ;; # a compiler or download error
    esac
    n=$((n + 1))
    if [ -t 1 ]; then
      printf '\r  %s: %d%s (%d s)' "$label" "$n" "$of" "$SECONDS"
    elif [ $((n % 25)) -eq 0 ]; then
      printf '  %s: %d%s (%d s)\n' "$label" "$n" "$of" "$SECONDS"
    fi
  done
  if [ -t 1 ]; then
    printf '\r\033[K'
  elif [ $((n % 25)) -eq 0 ] && [ "$n" -gt 0 ]; then
    return 0 # said already
  fi
  printf '  %s: %d%s (%d s)\n' "$label" "$n" "$of" "$SECONDS"
}

# Where teammates clone cairn from: this checkout's origin, when it is a
# URL (any credentials in it left out); a path on this machine is no route
# for a teammate, so then the binary knows none (cairn init says how to
# name one).
source_url=$(git -C "$repo" remote get-url origin 2>/dev/null | sed -E 's#^([a-z+]+://)[^/@]*@#\1#') || true
ldflags=
case "$source_url" in
  *"'"*|*' '*) ;;
  [a-z]*://*|[A-Za-z0-9._-]*@[A-Za-z0-9._-]*:*) ldflags="-X 'github.com/cairn-dev/cairn.Source=$source_url'" ;;
esac

SECONDS=0
echo "building cairn from $repo into $bindir/cairn"
echo "  (the first build downloads about 50 Go modules and compiles about 460 packages: a few minutes on a small machine; later builds take seconds)"
cd "$repo"
export CGO_ENABLED=0
if ! go mod download -json 2>/dev/null | sed -n 's/^[[:space:]]"Path": "\(.*\)",$/\1/p' | progress "Go modules ready"; then
  go mod download || true # again, to show why
  echo "install.sh: downloading Go modules failed (see above); nothing was installed" >&2
  exit 1
fi
total=$(go list -deps -tags urfave_cli_no_docs ./helpers/cairn 2>/dev/null | wc -l | tr -d ' ') || total=
if ! go build -v -tags urfave_cli_no_docs -ldflags "$ldflags" -o "$tmp" ./helpers/cairn 2>&1 |
  progress "packages compiled (the others were cached)" "$total"; then
  echo "install.sh: go build failed (see above); nothing was installed" >&2
  exit 1
fi
mv -f "$tmp" "$bindir/cairn"
cairn="$bindir/cairn"
echo "built cairn $("$cairn" version | awk '{print $2}') in $SECONDS s: $cairn"
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

# run: how to run cairn in a command printed for the person: by name when
# the install directory is on PATH, else by its full path.
run=cairn
case ":$PATH:" in
  *":$bindir:"*) ;;
  *)
    run=$(printf '%q' "$cairn")
    shown=$bindir
    case "$bindir" in "$HOME"/*) shown="\$HOME${bindir#"$HOME"}" ;; esac
    case "$(basename "${SHELL:-sh}")" in
      fish) line="fish_add_path $(printf '%q' "$bindir")" ;;
      zsh) line="echo 'export PATH=\"$shown:\$PATH\"' >> ${ZDOTDIR:-\$HOME}/.zshrc" ;;
      bash) line="echo 'export PATH=\"$shown:\$PATH\"' >> ~/.bashrc" ;;
      *) line="echo 'export PATH=\"$shown:\$PATH\"' >> ~/.profile" ;;
    esac
    echo
    echo "$bindir is not on your PATH. So that you and your agents can run cairn by name, run:"
    echo "  $line"
    echo "then open a new terminal. Until then, run it as $run."
    ;;
esac
if [ -n "$project" ]; then
  "$cairn" --dir "$project" init --claude
  echo "Try: $run --dir $(printf '%q' "$project") doctor"
else
  echo "Try: $run --help"
fi
