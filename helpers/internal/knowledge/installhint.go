package knowledge

import (
	"errors"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Why an install hint is refused (see [CheckInstallHint]).
var (
	ErrHintEmpty       = errors.New("the install hint is empty")
	ErrHintPlaceholder = errors.New("the install hint is a placeholder, not a command")
	ErrHintRunsRemote  = errors.New("the install hint downloads code and runs it")
)

// HintExample is a real install hint, for the messages that suggest
// --install-hint: the route install.sh records, with cairn's own
// repository (a team names its own clone URL).
const HintExample = "git clone https://github.com/cairn-dev/cairn.git cairn && cd cairn && ./install.sh"

// placeholderWords are words that stand for a command rather than being
// one, when written in capitals.
var placeholderWords = map[string]bool{
	"COMMAND": true, "CMD": true, "URL": true, "REPO": true, "REPOSITORY": true, "HOST": true,
	"HINT": true, "TODO": true, "FIXME": true, "XXX": true, "TBD": true, "SOURCE": true,
}

var (
	angleRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<[^<>]*>|\{\{[^{}]*\}\}|\$\{?(URL|REPO|HINT|COMMAND|CMD)\}?`)
	})
	hintWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\$\(|<\(|&&|\|\||[|;()` + "`" + `]|[^\s|;()` + "`" + `&<]+`)
	})
)

// downloaders fetch code; interpreters run what they are given; a
// command word in both (after sudo, env and assignments) is what
// "downloads and runs" means.
var (
	downloaders  = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true, "iwr": true, "irm": true, "invoke-webrequest": true, "invoke-restmethod": true, "wget2": true, "lwp-download": true, "nc": true, "ncat": true, "socat": true, "scp": true}
	interpreters = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "csh": true, "tcsh": true, "ash": true, "busybox": true,
		"python": true, "python3": true, "perl": true, "ruby": true, "node": true, "php": true, "pwsh": true, "powershell": true, "cmd": true, "iex": true, "invoke-expression": true,
		"eval": true, "source": true, ".": true, "exec": true, "xargs": true, "bun": true, "deno": true}
)

// CheckInstallHint reports why hint (as given, before [CleanInstallHint])
// is not fit to record as the command a teammate runs to install cairn:
// empty, a placeholder (..., COMMAND, <cmd>), or a command that downloads
// code and runs it (curl ... | sh, wget ... | bash, iex (iwr ...), bash
// <(curl ...), curl -o x && sh x). nil means fit. A person reads the hint
// before running it; cairn shows it only to the person, labelled as the
// repository's suggestion, never to the model.
func CheckInstallHint(hint string) error {
	clean := CleanInstallHint(hint)
	if clean == "" {
		return ErrHintEmpty
	}
	if placeholder(clean) || placeholder(hint) {
		return ErrHintPlaceholder
	}
	if runsRemote(hint) || runsRemote(clean) {
		return ErrHintRunsRemote
	}
	return nil
}

// placeholder reports whether hint stands for a command instead of being
// one.
func placeholder(hint string) bool {
	if !strings.ContainsFunc(hint, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) {
		return true // "...", "…", "-"
	}
	if strings.Contains(hint, "...") || strings.Contains(hint, "…") || angleRE().MatchString(hint) {
		return true
	}
	for _, w := range strings.Fields(hint) {
		w = strings.Trim(w, `"'[](){}.,:;`)
		if placeholderWords[w] || strings.HasPrefix(w, "YOUR_") || strings.HasPrefix(w, "YOUR-") || strings.HasPrefix(strings.ToLower(w), "your-") {
			return true
		}
	}
	return false
}

// runsRemote reports whether hint downloads code and runs it: a pipe into
// an interpreter, PowerShell's iex, or a downloader and an interpreter (or
// a ./script) in one command line.
func runsRemote(hint string) bool {
	toks := hintWords().FindAllString(strings.ToLower(hint), -1)
	download, run := false, false
	start := true // the next word is a command's first
	afterPipe := false
	for _, t := range toks {
		switch t {
		case "|", "||", "&&", ";", "(", ")", "$(", "<(", "`":
			start = true
			afterPipe = t == "|"
			if t == "<(" || t == "$(" || t == "`" {
				run = run || download // bash <(curl ...), sh -c "$(curl ...)"
			}
			continue
		}
		w := strings.Trim(t, `"'{}`)
		if w == "" {
			continue
		}
		if start && (w == "sudo" || w == "env" || w == "doas" || w == "command" || w == "nohup" || strings.Contains(w, "=") && !strings.HasPrefix(w, "-") || strings.HasPrefix(w, "-") && afterPipe) {
			continue // the command is the next word
		}
		base := path.Base(strings.ReplaceAll(w, `\`, "/"))
		base = strings.TrimSuffix(base, ".exe")
		if base == "iex" || base == "invoke-expression" {
			return true
		}
		if start {
			switch {
			case downloaders[base]:
				download = true
			case interpreters[base]:
				if afterPipe {
					return true
				}
				run = true
			case strings.HasPrefix(w, "./") || strings.HasSuffix(base, ".sh") || strings.HasSuffix(base, ".ps1"):
				run = true
			}
		}
		start, afterPipe = false, false
	}
	return download && run
}
