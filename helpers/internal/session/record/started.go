package record

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// An agent's `cairn add` runs in its shell tool, whose environment tells
// the agent but, for some agents (Gemini CLI, OpenCode, Cursor), not the
// session. The session start records, per agent, the session that started
// last in the project, so that the entry can name it. The rule lives here,
// in the session layer's light half, so that `cairn add`'s early path
// (package addgate) names the same agent and session as the command.

// InHookEnv is set by the hook launchers and by the background runs a
// hook starts, and inherited by anything they start: commands that are a
// person's decision (curate --apply, resolve) refuse there.
const InHookEnv = "CAIRN_IN_HOOK"

// InHook reports whether getenv's environment is a hook's, or something a
// hook started.
func InHook(getenv func(string) string) bool { return getenv(InHookEnv) == "1" }

// startedDir holds one record per agent, under .cairn.
const startedDir = knowledge.LocalDir + "/started"

// started is the record of the last session of one agent in a project.
type started struct {
	Session string `json:"session"`
	TS      int64  `json:"ts"`
}

// NoteStarted records session as agent's latest in the project of store;
// it does nothing for a session or an agent that cannot name a record, or
// a project with no .cairn.
func NoteStarted(store *knowledge.Store, agent, session string) error {
	if session == "" || !agentName(agent) || !store.Exists() {
		return nil
	}
	data, _ := json.Marshal(started{Session: session, TS: time.Now().Unix()})
	return store.Root().ReplaceFile(startedDir+"/"+agent+".json", data, 0o644)
}

// Provenance is who records an entry that does not say: "agent", with
// the agent and its session, when one of adapters' agents runs cairn from
// its tools (see Caller); else "user".
func Provenance(adapters []agent.Adapter, getenv func(string) string, store *knowledge.Store) (source, agentName, sessionID string) {
	name, id, ok := Caller(adapters, getenv, store)
	if !ok {
		return "user", "", ""
	}
	return "agent", name, id
}

// Caller names the coding agent whose tools run this process (an agent's
// `cairn add`, its MCP server) and its session: the id the environment
// gives, else the session of that agent that started last in the project
// of store. ok is false in a person's shell and in a hook's (a hook's
// environment is the agent's, but what a hook does is cairn's own).
func Caller(adapters []agent.Adapter, getenv func(string) string, store *knowledge.Store) (name, session string, ok bool) {
	if InHook(getenv) {
		return "", "", false
	}
	name, session, ok = agent.Caller(adapters, getenv)
	if ok && session == "" {
		session = LastStarted(store, name)
	}
	return name, session, ok
}

// LastStarted is the id of the session of agent (an adapter's name) that
// started last in the project of store on this machine ("" when none is
// recorded).
func LastStarted(store *knowledge.Store, agent string) string {
	if !agentName(agent) {
		return ""
	}
	data, err := store.ReadFile(startedDir+"/"+agent+".json", 4<<10)
	var st started
	if err != nil || json.Unmarshal(data, &st) != nil {
		return ""
	}
	return st.Session
}

// agentName reports whether name can name a record: an adapter's name,
// lower-case letters.
func agentName(name string) bool {
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz") == ""
}
