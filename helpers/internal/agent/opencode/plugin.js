// cairn's OpenCode plugin: team memory from .cairn/knowledge.jsonl.
// Written by `cairn init --opencode`; `cairn uninstall --opencode` removes it.
// Commit it with the project. It names nothing of one machine: it runs the
// project's committed launcher, .cairn/hook, which finds each teammate's
// own cairn (and, without one, says how to install it).
//
// What it does: at a session's first prompt, and at every prompt, it asks
// cairn what the team knows (SessionStart, UserPrompt), and before a file
// or shell tool runs, what the team noted on its file or command
// (ToolBefore), and adds the answers to the system prompt of the session's
// model requests; after every shell
// command (ToolAfter) and every text the model finishes (TextComplete) it
// hands them to cairn, which records the typed lines (LEARNED:, DECISION:,
// FACT:, PATTERN:, INVESTIGATION:, DEVIATION:, MUST-CHECK:). Deciding what
// counts is cairn's alone: nothing here matches prefixes. Every shell
// command gets the session's id in CAIRN_OPENCODE_SESSION, so that the
// agent's own \`cairn add\` names its session.
//
// It never breaks a session: every hook catches everything, and a cairn
// that fails, hangs or is missing is given up on (killed after its timeout)
// and the session goes on without it.
import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

// The events and how long each waits for cairn (from cairn's table).
const EVENTS = /*cairn:events*/
// The tools whose calls run a shell command.
const SHELL_TOOLS = /*cairn:shell*/
// The tools whose calls name a file (args.filePath).
const FILE_TOOLS = /*cairn:files*/
// How much of cairn's answer is read, and how much per-prompt context a
// session keeps (the oldest goes first).
const MAX_ANSWER = 1 << 20
const MAX_PROMPT_CONTEXT = 24000
// Sessions remembered by this process, at most.
const MAX_SESSIONS = 200
// The variable that tells a shell command's cairn the session it runs in.
const SESSION_ENV = "CAIRN_OPENCODE_SESSION"

// The project: this file is .opencode/plugins/cairn.js in it.
function projectRoot() {
  try {
    return join(dirname(fileURLToPath(import.meta.url)), "..", "..")
  } catch {
    return ""
  }
}

// run passes one event to cairn through the launcher and resolves to its
// answer ({context, status}), or null: it never rejects.
function run(root, name, payload) {
  return new Promise((resolve) => {
    let settled = false
    let timer
    const settle = (value) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(value)
    }
    try {
      const ev = EVENTS[name]
      if (!root || !ev) return settle(null)
      const chunks = []
      let size = 0
      const child = spawn(join(root, ".cairn", "hook"), ["--agent", "opencode", name], {
        cwd: root,
        stdio: ["pipe", "pipe", "ignore"],
        windowsHide: true,
      })
      timer = setTimeout(() => {
        try {
          child.kill("SIGKILL")
        } catch {}
        settle(null)
      }, ev.timeout)
      child.on("error", () => settle(null))
      child.stdout.on("error", () => {})
      child.stdout.on("data", (b) => {
        size += b.length
        if (size <= MAX_ANSWER) chunks.push(b)
      })
      child.on("close", () => {
        try {
          settle(size > MAX_ANSWER ? null : answer(Buffer.concat(chunks).toString("utf8")))
        } catch {
          settle(null)
        }
      })
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify(payload))
    } catch {
      settle(null)
    }
  })
}

// answer reads cairn's stdout: one JSON object, or nothing.
function answer(out) {
  const text = out.trim()
  if (!text) return null
  const a = JSON.parse(text)
  if (!a || typeof a !== "object") return null
  return {
    context: typeof a.context === "string" ? a.context : "",
    status: typeof a.status === "string" ? a.status : "",
  }
}

// promptText is what the person typed: the message's own text parts.
function promptText(parts) {
  if (!Array.isArray(parts)) return ""
  return parts
    .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n")
}

// isTitleRequest reports a request of OpenCode's title generator, which
// needs no team memory.
function isTitleRequest(system) {
  return typeof system[0] === "string" && system[0].startsWith("You are a title generator")
}

export const CairnPlugin = async (input) => {
  const root = projectRoot()
  const client = input && input.client
  const cwd = (input && input.directory) || root
  const sessions = new Map()

  const base = (sessionID) => ({ session_id: sessionID, cwd, project_dir: root })
  const show = (a) => {
    try {
      if (!a || !a.status || !client || !client.tui || !client.tui.showToast) return
      const shown = client.tui.showToast({ body: { message: a.status, variant: "info" } })
      if (shown && typeof shown.catch === "function") shown.catch(() => {})
    } catch {}
  }
  const session = (id) => {
    let s = sessions.get(id)
    if (!s) {
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value)
      s = { started: false, start: "", prompts: [] }
      sessions.set(id, s)
    }
    return s
  }

  try {
    return {
      "chat.message": async (info, output) => {
        try {
          const id = info && info.sessionID
          if (!id) return
          const s = session(id)
          if (!s.started) {
            s.started = true
            const a = await run(root, "SessionStart", base(id))
            if (a && a.context) s.start = a.context
            show(a)
          }
          const a = await run(root, "UserPrompt", { ...base(id), prompt: promptText(output && output.parts) })
          if (a && a.context) {
            s.prompts.push(a.context)
            let total = s.prompts.reduce((n, c) => n + c.length, 0)
            while (s.prompts.length > 1 && total > MAX_PROMPT_CONTEXT) total -= s.prompts.shift().length
          }
          show(a)
        } catch {}
      },
      "experimental.chat.system.transform": async (info, output) => {
        try {
          const s = info && info.sessionID && sessions.get(info.sessionID)
          if (!s || !output || !Array.isArray(output.system) || isTitleRequest(output.system)) return
          const text = [s.start, ...s.prompts].filter(Boolean).join("\n\n")
          if (text) output.system.push(text)
        } catch {}
      },
      // Before a file or shell tool runs, cairn may have notes anchored to
      // its file or command: they join the session's context from the
      // next model request on (with the tool's result).
      "tool.execute.before": async (info, output) => {
        try {
          if (!info || !info.sessionID || !(SHELL_TOOLS.includes(info.tool) || FILE_TOOLS.includes(info.tool))) return
          const args = (output && output.args) || info.args || {}
          const payload = { ...base(info.sessionID), tool: info.tool }
          if (typeof args.command === "string") payload.command = args.command
          if (typeof args.filePath === "string") payload.file_path = args.filePath
          const a = await run(root, "ToolBefore", payload)
          if (a && a.context) {
            const s = session(info.sessionID)
            s.prompts.push(a.context)
            let total = s.prompts.reduce((n, c) => n + c.length, 0)
            while (s.prompts.length > 1 && total > MAX_PROMPT_CONTEXT) total -= s.prompts.shift().length
          }
          show(a)
        } catch {}
      },
      "tool.execute.after": async (info, output) => {
        try {
          if (!info || !info.sessionID || !SHELL_TOOLS.includes(info.tool)) return
          const args = info.args || {}
          const meta = (output && output.metadata) || {}
          const payload = { ...base(info.sessionID), tool: info.tool, command: typeof args.command === "string" ? args.command : "" }
          if (typeof meta.exit === "number") payload.exit = meta.exit
          show(await run(root, "ToolAfter", payload))
        } catch {}
      },
      // OpenCode asks before each shell command for variables to add to
      // its environment: the session's id, so that an agent's own
      // \`cairn add\` names the session it was recorded in.
      "shell.env": async (info, output) => {
        try {
          if (info && typeof info.sessionID === "string" && info.sessionID && output && output.env && typeof output.env === "object") {
            output.env[SESSION_ENV] = info.sessionID
          }
        } catch {}
      },
      "experimental.text.complete": async (info, output) => {
        try {
          if (!info || !info.sessionID || !output || typeof output.text !== "string" || !output.text) return
          show(await run(root, "TextComplete", { ...base(info.sessionID), text: output.text }))
        } catch {}
      },
    }
  } catch {
    return {}
  }
}
