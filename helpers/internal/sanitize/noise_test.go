package sanitize

import (
	"strings"
	"testing"
)

func TestNoise(t *testing.T) {
	pastedScript := strings.Join([]string{
		"# Check the two-grep pipeline for bead ids",
		`echo 'LEARNED: something' | grep -E 'bd[[:space:]]+comments?' | \`,
		`  sed -E 's/["'"'"'][[:space:]]*(2>&1|&&|\||;).*$//'`,
		"# And the trailing operator",
		`echo 'foo" || true' | sed -E 's/x//'`,
	}, "\n")
	goPanic := "panic: runtime error: invalid memory address or nil pointer dereference\n" +
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b1c]\n\n" +
		"goroutine 1 [running]:\nmain.main()\n\t/home/x/main.go:12 +0x1d"
	goroutineDump := "goroutine 7 [chan receive]:\nmain.worker(0xc000012345)\n\t/src/app/worker.go:40 +0x65\n" +
		"created by main.main in goroutine 1\n\t/src/app/main.go:12 +0x2a"
	pyTrace := "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\n" +
		"  File \"app.py\", line 2, in main\n    raise ValueError('bad')\nValueError: bad"
	pyFrames := "the server died with\n  File \"/srv/app/views.py\", line 88, in handler\n    return render(x)\n" +
		"  File \"/srv/app/render.py\", line 12, in render\n    raise KeyError(k)"
	javaTrace := "java.lang.IllegalStateException: connection closed\n\tat com.foo.Bar(Bar.java:12)\n\tat com.foo.Main.main(Main.java:5)"
	javaFrames := "Request failed:\n    at com.foo.Bar(Bar.java:12)\n    at com.foo.Baz.run(Baz.java:40)"

	tests := []struct {
		name, content, want string
	}{
		// Knowledge that merely starts with a command's name is kept.
		{"git prose", "git rebase -i drops signed commits", ""},
		{"bd show prose", "bd show --json returns an array, not a single object. Must use jq '.[0].field' to extract fields.", ""},
		{"warning prose", "WARNING: never run migrations on Friday", ""},
		{"backticked shell syntax", "Use `a && b` to chain", ""},
		{"go prose", "go test caches results; pass -count=1 to force a rerun", ""},
		{"docker prose with flag", "docker run --rm keeps the disk clean after the container exits", ""},
		{"prose with trailing paste", `grep -E (ERE) does not support Perl-style lookaheads like (?!...). Both macOS BSD grep and GNU grep reject them. Use two-stage grep (match then exclude) instead." && bd close bdcompound-5iq`, ""},
		{"prose naming a pipe", "The deploy script pipes its logs through tee so CI keeps them; never remove the tee or the job output is lost", ""},
		{"two words", "Prefer tabs", ""},
		{"dated prose sentence", "2026-01-02 the API moved to v2. Clients must send the new header.", ""},
		{"prose with error word", "ERROR codes from the billing API are strings, not numbers", ""},

		// Pasted commands.
		{"bd create", `bd create --title="x" --type=task`, NoiseCommand},
		{"bd create long", `bd create --title="Fix SQL injection risk in knowledge-db.sh kb_search() heredoc" --type=bug --priority=1 --description="## Issue` + "\nkb_search() builds an FTS5 MATCH expression from user content.\"", NoiseCommand},
		{"dollar prompt", "$ go test ./...", NoiseCommand},
		{"cd and make", "cd /tmp && make", NoiseCommand},
		{"computed flag", `git commit -m "$(cat <<'EOF'` + "\nfeat: x\nEOF\n)\"", NoiseCommand},
		{"redirect", "echo hello > /tmp/out.txt", NoiseCommand},
		{"pasted script", pastedScript, NoiseCommand},

		// Stack traces.
		{"go panic", goPanic, NoiseStackTrace},
		{"goroutine dump", goroutineDump, NoiseStackTrace},
		{"python traceback", pyTrace, NoiseStackTrace},
		{"python frames", pyFrames, NoiseStackTrace},
		{"java trace", javaTrace, NoiseStackTrace},
		{"java frames", javaFrames, NoiseStackTrace},

		// Log lines.
		{"iso timestamp", "2026-01-02T03:04:05Z ERROR failed", NoiseLogLine},
		{"bracketed timestamp", "[2026-01-02 03:04:05] worker started with 4 threads", NoiseLogLine},
		{"info tag", "[INFO] started", NoiseLogLine},
		{"logfmt", `time=2026-01-02T03:04:05Z level=error msg="dial tcp: refused"`, NoiseLogLine},

		// Fragments.
		{"ok", "ok", NoiseFragment},
		{"todo", "TODO", NoiseFragment},
		{"empty", "", NoiseFragment},
		{"blank", " \n\t ", NoiseFragment},
		{"one word and numbers", "fixed 123 456", NoiseFragment},
		{"punctuation", "!!! ---", NoiseFragment},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Noise(tt.content); got != tt.want {
				t.Errorf("Noise(%q) = %q, want %q", tt.content, got, tt.want)
			}
		})
	}
}

// TestNoiseKeepsProseWithQuotedFlag: prose that starts with a command and
// names a flag with a quoted value is knowledge, not a pasted command.
// isCommand treats any flag with a quoted value after a command word as a
// command line however much prose follows, so these are dropped today.
func TestNoiseKeepsProseWithQuotedFlag(t *testing.T) {
	for _, s := range []string{
		"make fails on macOS because BSD sed needs -i ''",
		"git commit -m 'wip' skips the pre-commit hook when core.hooksPath is unset",
		`grep -r "TODO" ignores binary files by default`,
		`git log --since="2 weeks" is relative to the committer date, not the author date`,
	} {
		if got := Noise(s); got != "" {
			t.Errorf("Noise(%q) = %q, want \"\" (prose after the flag)", s, got)
		}
	}
}

func TestCanonicalText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"Use the cache.", "use cache"},
		{"USE   THE\tCACHE!!!", "use cache"},
		{"Note: just use a cache, please.", "use cache"},
		{"Run `go test ./...` -- then commit", "run go test commit"},
		{"Ünïcode Wörds stay, lower-cased", "ünïcode wörds stay lower cased"},
		{"v1.2.3 ships 2 fixes", "v1 2 3 ships 2 fixes"},
		{"the a an", ""},
	}
	for _, tt := range tests {
		if got := CanonicalText(tt.in); got != tt.want {
			t.Errorf("CanonicalText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Contents that differ only in case, spacing, punctuation and filler
	// share a canonical form; contents that differ in a real word do not.
	same := []string{
		"Always run migrations before deploying.",
		"always   run migrations before deploying",
		"Note: always, really, run the migrations before deploying!",
	}
	for _, s := range same[1:] {
		if CanonicalText(s) != CanonicalText(same[0]) {
			t.Errorf("CanonicalText(%q) = %q, want %q", s, CanonicalText(s), CanonicalText(same[0]))
		}
	}
	if CanonicalText("never run migrations before deploying") == CanonicalText(same[0]) {
		t.Error("a changed word must change the canonical text")
	}
}

func TestNoiseApostropheInProse(t *testing.T) {
	for _, s := range []string{
		"git commit -m 'wip' doesn't run the pre-commit hook when core.hooksPath points elsewhere",
		`grep -r "TODO" won't look inside binary files unless you pass -a, which we don't want here`,
	} {
		if got := Noise(s); got != "" {
			t.Errorf("Noise(%q) = %q, want kept", s, got)
		}
	}
}
