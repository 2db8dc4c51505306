// Package launcher is the committed .cairn/hook: the one file every agent's
// project wiring runs, so that the wiring names nothing of one machine. It
// finds this machine's cairn and runs `cairn hook EVENT` (Claude Code) or
// `cairn hook AGENT EVENT` (called as `.cairn/hook --agent AGENT EVENT`).
// Without cairn, the agent's session-start event tells the person how to
// install it (the repository's install hint, labelled as its suggestion)
// and the model only that cairn is missing, in cairn's fixed wording;
// every other event is silent; it always exits 0. The
// agents it accepts, and their answers without cairn, are the agent
// registry's (agent/registry); the events it passes without --agent are
// Claude Code's (agent/claude/hooks).
package launcher

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// File is the launcher's name under .cairn.
const File = "hook"

// Path is the launcher's path from the project's root.
const Path = ".cairn/" + File

// maxScript caps how much of a launcher file is read.
const maxScript = 1 << 20

// notInstalled is what the person is told when the project shares memory
// through cairn and this machine has no cairn to read it: how to install
// it, by the project's install hint when [knowledge.CheckInstallHint]
// passes it (labelled as the repository's suggestion), else the route
// that always works.
func notInstalled(hint string) string {
	how := knowledge.CleanInstallHint(hint)
	if knowledge.CheckInstallHint(hint) != nil {
		return "cairn is not installed on this machine, so the team memory of this repository (.cairn/knowledge.jsonl) was not loaded. " +
			"To install it: " + cairn.NoRouteHint + ". Then start a new session."
	}
	return "cairn is not installed on this machine, so the team memory of this repository (.cairn/knowledge.jsonl) was not loaded. " +
		"To install it, this repository suggests (read it before you run it): " + how + ". Then start a new session."
}

// modelNotice is what the model is told instead: cairn's fixed wording,
// nothing of the repository's.
const modelNotice = "This repository shares team memory through cairn, but cairn is not installed on this machine, " +
	"so none of it was loaded into this session: " + cairn.ModelInstallNotice + "."

// installHint is the install hint of the project whose .cairn is cairnDir: its
// config's install_hint ("" without one, or when the config can't be
// read: the launcher then names the route that always works).
func installHint(cairnDir fsx.Root) string {
	data, err := cairnDir.ReadFile(knowledge.ConfigName, knowledge.MaxConfigBytes)
	if err != nil {
		return ""
	}
	var c knowledge.Config
	if json.Unmarshal(data, &c) != nil {
		return ""
	}
	return c.InstallHint
}

// Script is the launcher's text for a project whose install hint is hint:
// POSIX sh, so a hook costs a dash start. It is built from the agents'
// tables and the agent registry.
func Script(hint string) string {
	names := make([]string, len(hooks.Events))
	for i, h := range hooks.Events {
		names[i] = h.Event
	}
	person := strings.NewReplacer("'", "", "%", "").Replace(notInstalled(hint))
	var b strings.Builder
	b.WriteString(`#!/bin/sh
# cairn's launcher, committed with the project. The project's agent hooks
# (.claude/settings.json, and the other agents' wiring) run it for every
# event; it names nothing of one machine. It finds this machine's cairn and
# runs: cairn hook EVENT (Claude Code), or cairn hook AGENT EVENT when
# called as: .cairn/hook --agent AGENT EVENT. Without cairn, the session's
# start tells the person how to install it (the model only that cairn is
# missing); other events are silent. It always exits 0
# (a hook that fails must not break a session). Given anything else, it
# runs cairn with those arguments: the project's slash commands call it so,
# as .cairn/hook recall WORDS.
event=${1:-}
agent=
find_cairn() {
  if [ -n "${CAIRN_BIN:-}" ] && [ -x "$CAIRN_BIN" ]; then
    printf '%s\n' "$CAIRN_BIN"
    return 0
  fi
  if command -v cairn >/dev/null 2>&1; then
    command -v cairn
    return 0
  fi
  for c in "$HOME/.local/bin/cairn" "${GOBIN:-/nonexistent}/cairn" "${GOPATH:-$HOME/go}/bin/cairn"; do
    if [ -x "$c" ]; then
      printf '%s\n' "$c"
      return 0
    fi
  done
  return 1
}
if [ "$event" = --agent ]; then
  agent=${2:-}
  event=${3:-}
  case "$agent" in
  `)
	agents := registry.Names()
	sort.Strings(agents)
	b.WriteString(strings.Join(agents, " | "))
	b.WriteString(`) ;;
  *)
    cat >/dev/null
    exit 0
    ;;
  esac
else
  case "$event" in
  `)
	b.WriteString(strings.Join(names, " | "))
	b.WriteString(`) ;;
  *)
    # Not a hook: a cairn command (the project's slash commands run these).
    if bin=$(find_cairn); then
      exec "$bin" "$@"
    fi
    echo 'cairn: ` + modelNotice + `' >&2
    exit 1
    ;;
  esac
fi
CAIRN_IN_HOOK=1
export CAIRN_IN_HOOK
if bin=$(find_cairn); then
  CAIRN_LAUNCHED=1
  export CAIRN_LAUNCHED
  if [ -z "$agent" ]; then
    exec "$bin" hook "$event"
  fi
  exec "$bin" hook "$agent" "$event"
fi
cat >/dev/null
person='` + person + `'
model='` + modelNotice + `'
case "${agent:-` + registry.Default + `}:$event" in
`)
	for _, a := range registry.Agents {
		if a.NotInstalled == "" {
			continue
		}
		format, args := printfOf(a.NotInstalled)
		b.WriteString(a.Name + ":" + a.StartEvent + ")\n  printf '" + format + "' " + strings.Join(args, " ") + "\n")
		if !strings.Contains(a.NotInstalled, "{person}") {
			b.WriteString("  printf 'cairn: %s\\n' \"$person\" >&2\n")
		}
		b.WriteString("  ;;\n")
	}
	b.WriteString(`esac
exit 0
`)
	return b.String()
}

// printfOf turns an agent's NotInstalled format into a printf format and
// its arguments, in order: {person} and {model} become %s and "$person",
// "$model".
func printfOf(notice string) (string, []string) {
	var args []string
	var b strings.Builder
	for {
		i := strings.IndexByte(notice, '{')
		if i < 0 {
			b.WriteString(notice)
			return b.String(), args
		}
		b.WriteString(notice[:i])
		notice = notice[i:]
		switch {
		case strings.HasPrefix(notice, "{person}"):
			args = append(args, `"$person"`)
		case strings.HasPrefix(notice, "{model}"):
			args = append(args, `"$model"`)
		default:
			b.WriteByte('{')
			notice = notice[1:]
			continue
		}
		b.WriteString("%s")
		notice = notice[strings.IndexByte(notice, '}')+1:]
	}
}

// Write writes the launcher into cairnDir (with the project's install
// hint), executable, only where it differs, and reports whether it wrote.
func Write(cairnDir fsx.Root) (bool, error) {
	want := []byte(Script(installHint(cairnDir)))
	cur, err := cairnDir.ReadFile(File, maxScript)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	changed := false
	if !bytes.Equal(cur, want) {
		if err := cairnDir.WriteAtomic(File, want, 0o755); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, cairnDir.Chmod(File, 0o755)
}

// Remove deletes the launcher from cairnDir and reports whether it was
// there.
func Remove(cairnDir fsx.Root) (bool, error) {
	_, err := cairnDir.ReadFile(File, maxScript)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := cairnDir.Remove(File); err != nil {
		return false, err
	}
	return true, nil
}

// State is what [Check] found of the launcher.
type State int

// The launcher's states.
const (
	OK            State = iota
	Missing             // no .cairn/hook
	Differs             // not this cairn's launcher
	NotExecutable       // every hook would fail
	Unreadable          // the error says why
)

// Check reports the state of the launcher in cairnDir.
func Check(cairnDir fsx.Root) (State, error) {
	cur, err := cairnDir.ReadFile(File, maxScript)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Missing, nil
	case err != nil:
		return Unreadable, err
	case string(cur) != Script(installHint(cairnDir)):
		return Differs, nil
	}
	f, err := cairnDir.OpenFile(File, os.O_RDONLY, 0)
	if err != nil {
		return Unreadable, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Unreadable, err
	}
	if fi.Mode().Perm()&0o100 == 0 {
		return NotExecutable, nil
	}
	return OK, nil
}
