package cursor

// TEMPORARY, until package launcher (helpers/internal/agent/launcher) lands
// on main: a launcher that also takes `.cairn/hook --agent cursor EVENT`.
// It is Claude Code's launcher with an --agent prelude. Replace
// writeLauncher with launcher.Write, checkLauncher with launcher.Check and
// launcherPath with launcher.Path when merging main.

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// launcherPath is the launcher's path from the project's root.
const launcherPath = ".cairn/hook"

// launcherFile is the launcher's name under .cairn.
const launcherFile = "hook"

// maxFile caps how much of a wiring file is read.
const maxFile = 1 << 20

// tempLauncher is the launcher's text: the --agent prelude, then Claude
// Code's launcher.
var tempLauncher = func() string {
	msg := strings.NewReplacer("'", "", "%", "").Replace(claude.NotInstalled)
	prelude := `#!/bin/sh
if [ "${1:-}" = --agent ]; then
  agent=${2:-}
  event=${3:-}
  if [ "$agent" != ` + hooks.Agent + ` ]; then
    cat >/dev/null
    exit 0
  fi
  CAIRN_IN_HOOK=1
  export CAIRN_IN_HOOK
  bin=
  if [ -n "${CAIRN_BIN:-}" ] && [ -x "$CAIRN_BIN" ]; then
    bin=$CAIRN_BIN
  elif command -v cairn >/dev/null 2>&1; then
    bin=$(command -v cairn)
  else
    for c in "$HOME/.local/bin/cairn" "${GOBIN:-/nonexistent}/cairn" "${GOPATH:-$HOME/go}/bin/cairn"; do
      if [ -x "$c" ]; then
        bin=$c
        break
      fi
    done
  fi
  if [ -n "$bin" ]; then
    CAIRN_LAUNCHED=1
    export CAIRN_LAUNCHED
    exec "$bin" hook "$agent" "$event"
  fi
  cat >/dev/null
  if [ "$event" = ` + hooks.StartEvent + ` ]; then
    printf '` + hooks.NotInstalledFormat + `' '` + msg + `'
  fi
  exit 0
fi
`
	return prelude + strings.TrimPrefix(claude.Launcher, "#!/bin/sh\n")
}()

// writeLauncher writes the launcher into cairnDir, executable, only where
// it differs, and reports whether it wrote.
func writeLauncher(cairnDir fsx.Root) (bool, error) {
	want := []byte(tempLauncher)
	cur, err := cairnDir.ReadFile(launcherFile, maxFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	changed := false
	if !bytes.Equal(cur, want) {
		if err := cairnDir.WriteAtomic(launcherFile, want, 0o755); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, cairnDir.Chmod(launcherFile, 0o755)
}

// launcherState is what checkLauncher found.
type launcherState int

const (
	launcherOK launcherState = iota
	launcherMissing
	launcherDiffers
	launcherNotExecutable
	launcherUnreadable
)

// checkLauncher reports the state of the launcher in cairnDir.
func checkLauncher(cairnDir fsx.Root) (launcherState, error) {
	cur, err := cairnDir.ReadFile(launcherFile, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return launcherMissing, nil
	case err != nil:
		return launcherUnreadable, err
	case string(cur) != tempLauncher:
		return launcherDiffers, nil
	}
	f, err := cairnDir.OpenFile(launcherFile, os.O_RDONLY, 0)
	if err != nil {
		return launcherUnreadable, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return launcherUnreadable, err
	}
	if fi.Mode().Perm()&0o100 == 0 {
		return launcherNotExecutable, nil
	}
	return launcherOK, nil
}
