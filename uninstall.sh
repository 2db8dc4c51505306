#!/usr/bin/env bash
# uninstall.sh PROJECT [--purge]: remove what install.sh and cairn init
# added to PROJECT — every agent's wiring (cairn uninstall --all: Claude
# Code, Codex, Cursor, Gemini CLI, OpenCode, and the launcher), and what
# older versions of install.sh added (the plugin enabled at project scope,
# or hooks that ran this checkout's wrapper). The knowledge log stays unless
# --purge is given. The binary stays; delete it from ~/.local/bin by hand.
set -euo pipefail

usage() { echo "usage: ./uninstall.sh PROJECT_DIR [--purge]" >&2; exit 64; }
purge=0
args=()
for a in "$@"; do
  case "$a" in
    --purge) purge=1 ;;
    -h|--help) echo "usage: ./uninstall.sh PROJECT_DIR [--purge]"; exit 0 ;;
    -*) echo "uninstall.sh: unknown option $a" >&2; usage ;;
    *) args+=("$a") ;;
  esac
done
[ ${#args[@]} -eq 1 ] || usage
project=$(cd "${args[0]}" 2>/dev/null && pwd) || { echo "uninstall.sh: ${args[0]} is not a directory" >&2; exit 1; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
settings="$project/.claude/settings.json"

claude="${CLAUDE_BIN:-$(command -v claude || true)}"
if [ -n "$claude" ] && [ -f "$settings" ] && grep -q 'cairn@cairn-marketplace' "$settings"; then
  (cd "$project" && "$claude" plugin uninstall cairn@cairn-marketplace --scope project) >/dev/null 2>&1 || true
  (cd "$project" && "$claude" plugin marketplace remove cairn-marketplace) >/dev/null 2>&1 || true
  echo "removed the cairn plugin and marketplace from $settings"
fi
CAIRN_SCRIPTS="$repo/scripts" # read by cairn-bin
export CAIRN_SCRIPTS
# shellcheck source=scripts/cairn-bin
. "$repo/scripts/cairn-bin"
if bin=$(CAIRN_MAY_BUILD=1 cairn_find_bin); then
  "$bin" --dir "$project" uninstall --all
else
  echo "uninstall.sh: no cairn binary found or built; the agents' wiring is left as it is" >&2
  exit 1
fi
if [ "$purge" = 1 ]; then
  rm -rf "$project/.cairn"
  echo "deleted $project/.cairn"
else
  echo "kept $project/.cairn (the team's knowledge); --purge deletes it"
fi
