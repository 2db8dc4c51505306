// Package pipeline is the consumer's side of cairn's personal session
// pipeline (package pipeline/queue is the producer's): the worker that
// drains the queue of sessions, one at a time, detached from the hook that
// started it. For each session it reads the agent's transcript, exports it
// as markdown to the user's knowledge directory, asks the model (package
// model) for a distillation with the user's recent decisions, failures and
// learning titles in the prompt, reads the answer tolerantly, and writes
// what it holds: personal entries of the project, the branch's handoff,
// write-once learnings and the daily log; then `qmd update` when qmd is on
// PATH, and once a day, when the user asks for it, a compile of their wiki
// (package wiki). It also owns the pipeline's status (each session's last
// outcome), `cairn handoff-now` and `cairn promote` (a personal entry added
// to the team's log).
//
// Everything it writes lives in the user's own directories, outside every
// repository, and is redacted first; nothing of it is committed. A model
// call that fails writes nothing and leaves the session to be queued again.
package pipeline
