// Command cairn is team memory for coding agents, shared through git.
//
// # The fast path: inits before main
//
// Most hook calls are the capture hook (a tool ran, the agent replied)
// with nothing to capture, and those must cost almost nothing (a budget of
// 3 ms for the whole process). Go initialises a package once the packages
// it imports are initialised, taking ready packages in import-path order,
// so a package that imports only light packages runs its init before
// SQLite, go-git, the MCP SDK and the CLI framework initialise. cairn
// answers the hooks in four such inits, and calls os.Exit before
// main runs:
//
//   - package hookgate/judge's init is the reject rule. For `cairn hook
//     EVENT` or `cairn hook AGENT EVENT` of a capture-only event or a tool
//     call it reads the payload and judges it (judge.Judge, the one reject
//     rule). It may import only the standard library's early packages (never
//     path/filepath, os/exec, sort, runtime/debug, crypto/rand or
//     golang.org/x/sys) and cairn's leaves event, typed and the agents'
//     event tables (agent/*/hooks, not the adapters).
//   - package hookgate/toolgate's init, right after judge's, answers a
//     tool's output without a typed prefix: it exits 0 having written
//     nothing, once it has started a background sync when the log changed
//     under the anchor map (a pull). It answers the hook before a tool
//     call on a file with no note from the anchor map (and notes an edit
//     for the turn's capture): it may import, beyond
//     judge's, only the leaves anchor, projroot and filestat, which import
//     none of those late packages either (it reads .cairn through an
//     os.Root, not fsx).
//   - package hookgate's init is the rest of the reject path: a reply
//     without a prefix has its session queued for the personal pipeline
//     when the user turned it on (hookgate.Run). It may import, beyond
//     judge's and toolgate's, fsx and the pipeline's producer
//     (pipeline/queue, with userconf and detach).
//   - package hookgate/accept's init is the accept path: a payload that
//     does hold a typed prefix is captured there by session/record (the
//     code the full hook runs for it) and the process exits. It may import
//     the adapters and session/record (project, knowledge, capture,
//     gitmeta), never SQLite, go-git, the MCP SDK or the CLI framework.
//
// `cairn add TYPE CONTENT` (with --dir or CAIRN_DIR at most, no flag of
// add's) is answered the same way, in package addgate's init, which
// imports what the accept path imports (TestAddRunsBeforeHeavyPackages).
//
// Anything else (another event, a payload the gate cannot judge) reaches
// main and cli.Main, whose stdin is what the gate already read
// ([hookgate.Stdin]). Packages that exist for this order: hookgate/judge,
// hookgate/toolgate, hookgate, hookgate/accept, session/record (the session layer's light half),
// agent/*/hooks (the event tables apart from their adapters),
// pipeline/queue (the producer apart from the worker), gitmeta (a
// repository's metadata read from .git's files, without go-git), and the
// leaves projroot, filestat and userconf. TestGateRunsBeforeHeavyPackages
// and TestToolGateRunsBeforeHeavyPackages (hookgate_test.go) run the
// binary with GODEBUG=inittrace=1 and fail when a path waits for a heavy
// package's init or runs more initialisers than its ceiling. docs/ARCHITECTURE.md
// traces both paths ("A capture hook: payload to log line").
package main

import (
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate"

	// `cairn add TYPE CONTENT` runs in addgate's init, and the capture
	// hook's accept path in accept's, before the program's heavy packages
	// initialise (hookgate's reject path runs before both).
	_ "github.com/cairn-dev/cairn/helpers/internal/addgate"
	_ "github.com/cairn-dev/cairn/helpers/internal/hookgate/accept"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.Env{Stdin: hookgate.Stdin(), Stdout: os.Stdout, Stderr: os.Stderr}))
}
