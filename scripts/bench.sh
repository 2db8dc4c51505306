#!/usr/bin/env bash
# bench.sh — whole-process medians of cairn's hot paths.
#
# Builds cairn, generates synthetic logs of 1k, 10k and 100k entries (in the
# log's hash-of-key order, as cairn writes it), and measures with hyperfine:
#
#   cairn add            into a 10k log (a fresh copy of the log every run)
#   cairn recall QUERY   at 1k, 10k and 100k, cache current (warmed up)
#   cairn sync --full    at 1k, 10k and 100k (entries/s = entries / median)
#   grep -i WORD         the same logs, as the naive baseline
#   cairn sanitize       at 1k, 10k and 100k
#
# Prints a markdown table of medians on stdout; hyperfine's own output goes
# to stderr. Nothing is left behind: everything lives in a temporary
# directory removed on exit.
#
# Usage: scripts/bench.sh            (from anywhere inside the repository)
# Env:   BENCH_SIZES="1000 10000 100000"   log sizes for recall, sync and grep
#                                          (add 1000000 for the 1M rows: about
#                                          150 MB of log and a long rebuild)
#        BENCH_BASELINE=REV                also build git revision REV and
#                                          measure its hooks in the same
#                                          hyperfine runs, first; a second
#                                          table compares the medians; the
#                                          floor table (below) runs REV and
#                                          this build interleaved, round by
#                                          round
#        BENCH_ONLY=floor                  only the floor table: the hooks'
#                                          budgets at 10k and 100k, first
#                                          calls after a write included,
#                                          each case interleaved with a Go
#                                          hello world (and the baseline)
#        BENCH_ROUNDS=21                   rounds of the floor table
#        BENCH_CASES=REGEX                 only the floor cases whose name
#                                          matches (grep -E), e.g. insert
#        BENCH_FLOOR_SIZES="10000 100000"  log sizes of the floor table
#        BENCH_QUERY="oauth redirect"      the recall query
#        BENCH_WORD=oauth                  the grep word
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sizes=${BENCH_SIZES:-1000 10000 100000}
query=${BENCH_QUERY:-oauth redirect}
word=${BENCH_WORD:-oauth}
add_size=10000

for tool in go git; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "bench.sh: $tool is required" >&2
		exit 1
	fi
done
if ! command -v hyperfine >/dev/null 2>&1; then
	echo "bench.sh: installing hyperfine (apt-get install -y hyperfine)" >&2
	if [ "$(id -u)" -eq 0 ]; then
		apt-get install -y -qq hyperfine >&2 || { apt-get update -qq >&2 && apt-get install -y -qq hyperfine >&2; }
	else
		sudo apt-get install -y -qq hyperfine >&2
	fi
fi

load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "bench.sh: building cairn" >&2
(cd "$root" && CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o "$tmp/cairn" ./helpers/cairn)
cairn=$tmp/cairn
base=""
if [ -n "${BENCH_BASELINE:-}" ]; then
	echo "bench.sh: building the baseline, $BENCH_BASELINE" >&2
	mkdir "$tmp/base-src"
	git -C "$root" archive "$BENCH_BASELINE" | tar -x -C "$tmp/base-src"
	(cd "$tmp/base-src" && CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o "$tmp/cairn-base" ./helpers/cairn)
	base=$tmp/cairn-base
fi

# The interleaved runner of the floor table: each round runs every
# command once, in an order that rotates by round (so no build always
# runs first or after the same one), each after its own untimed prepare;
# it prints each command's median wall time in seconds. A command is
# words split at blanks (no quoting): leading NAME=VALUE words are its
# environment, "< FILE" its stdin. @n@ in a prepare is the round number.
cat >"$tmp/pairrun.go" <<'EOF'
package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// usage: pairrun ROUNDS LABEL PREPARE COMMAND [LABEL PREPARE COMMAND]...
func main() {
	rounds, _ := strconv.Atoi(os.Args[1])
	type cmd struct{ label, prepare, run string }
	var cmds []cmd
	for a := os.Args[2:]; len(a) >= 3; a = a[3:] {
		cmds = append(cmds, cmd{a[0], a[1], a[2]})
	}
	times := make([][]float64, len(cmds))
	for r := 0; r < rounds+1; r++ { // round 0 warms up
		for i := range cmds {
			j := (i + r) % len(cmds)
			c := cmds[j]
			if c.prepare != "" {
				p := exec.Command("sh", "-c", strings.ReplaceAll(c.prepare, "@n@", strconv.Itoa(r)))
				p.Stdout, p.Stderr = os.Stderr, os.Stderr
				if err := p.Run(); err != nil {
					fmt.Fprintf(os.Stderr, "pairrun: prepare %s: %v\n", c.label, err)
					os.Exit(1)
				}
			}
			d, err := run(c.run)
			if err != nil {
				fmt.Fprintf(os.Stderr, "pairrun: %s: %v\n", c.label, err)
				os.Exit(1)
			}
			if r > 0 {
				times[j] = append(times[j], d.Seconds())
			}
		}
	}
	for i, c := range cmds {
		slices.Sort(times[i])
		fmt.Printf("%s %.6f\n", c.label, times[i][len(times[i])/2])
	}
}

func run(line string) (time.Duration, error) {
	words := strings.Fields(line)
	env := os.Environ()
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "/") {
		env = append(env, words[0])
		words = words[1:]
	}
	var stdin *os.File
	if i := slices.Index(words, "<"); i >= 0 && i+1 < len(words) {
		f, err := os.Open(words[i+1])
		if err != nil {
			return 0, err
		}
		defer f.Close()
		stdin = f
		words = append(words[:i], words[i+2:]...)
	}
	c := exec.Command(words[0], words[1:]...)
	c.Env = env
	c.Stdin = stdin
	c.Stdout = nil
	start := time.Now()
	err := c.Run()
	return time.Since(start), err
}
EOF
(cd "$tmp" && go build -o "$tmp/pairrun" pairrun.go)
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$tmp/hello.go"
(cd "$tmp" && go build -o "$tmp/hello" hello.go)

# The generator: deterministic entries in cairn's shape, sorted by the
# SHA-256 of the key (then ts), one JSON line each.
cat >"$tmp/gen.go" <<'EOF'
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

var words = strings.Fields(`
oauth redirect token session cache retry queue worker migration schema
index query latency timeout deadline context tenant header cookie csrf
login logout refresh expiry clock skew webhook signature payload batch
stream consumer producer offset partition lag backoff jitter circuit breaker
limiter bucket quota throttle billing invoice export import parser encoder
decoder utf8 json yaml config flag rollout canary deploy rollback release
build cache docker image layer registry pipeline lint test fixture mock
snapshot golden flaky race mutex channel goroutine leak pool connection
socket dns tls certificate proxy gateway router handler middleware
validation sanitize escape template render layout component state store
reducer effect hook prop event listener debounce scroll viewport
accessibility locale timezone currency decimal rounding float overflow
pagination cursor sort filter search ranking score embedding vector shard
replica primary failover backup restore vacuum analyze lock deadlock
transaction isolation savepoint trigger constraint foreign unique null
default enum column table view materialized partitioned archive rotation
log metric trace span alert dashboard oncall runbook incident postmortem
feature permission role admin audit secret vault kms encryption hash salt
password email notification sms push mobile android ios safari chrome
firefox upload download multipart chunk resume checksum compression gzip
`)

var types = []string{"learned", "decision", "fact", "pattern", "investigation", "deviation", "must-check"}
var tags = []string{"auth", "db", "api", "ui", "infra", "ci", "perf", "security"}
var authors = []string{"Ana", "Bo", "Chen", "Dara", "Eli"}

type entry struct {
	Key     string   `json:"key"`
	Type    string   `json:"type"`
	Content string   `json:"content"`
	Source  string   `json:"source"`
	Tags    []string `json:"tags"`
	TS      int64    `json:"ts"`
	Author  string   `json:"author"`
	Branch  string   `json:"branch"`
	Commit  string   `json:"commit"`
	Files   []string `json:"files,omitempty"`
}

func main() {
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: gen N [anchored]")
		os.Exit(2)
	}
	// anchored: every tenth entry is anchored to a file (src/W/W.go).
	anchored := len(os.Args) > 2 && os.Args[2] == "anchored"
	seed := uint64(0x9e3779b97f4a7c15)
	next := func(m int) int {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(m))
	}
	type line struct {
		hash [32]byte
		ts   int64
		json []byte
	}
	lines := make([]line, 0, n)
	for i := 0; i < n; i++ {
		k := 8 + next(12)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = words[next(len(words))]
		}
		content := fmt.Sprintf("%s (note %d)", strings.Join(ws, " "), i)
		typ := types[next(len(types))]
		sum := sha256.Sum256([]byte(typ + "\n" + content))
		e := entry{
			Key:     typ + "-" + strings.Join(ws[:4], "-") + "-" + hex.EncodeToString(sum[:3]),
			Type:    typ,
			Content: content,
			Source:  "agent",
			Tags:    []string{tags[next(len(tags))], tags[next(len(tags))]},
			TS:      1700000000 + int64(i)*60,
			Author:  authors[next(len(authors))],
			Branch:  "main",
			Commit:  hex.EncodeToString(sum[3:7])[:7],
		}
		if anchored && i%10 == 0 {
			e.Files = []string{"src/" + ws[0] + "/" + ws[1] + ".go"}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&e); err != nil {
			panic(err)
		}
		lines = append(lines, line{sha256.Sum256([]byte(e.Key)), e.TS, buf.Bytes()})
	}
	sort.Slice(lines, func(a, b int) bool {
		if c := bytes.Compare(lines[a].hash[:], lines[b].hash[:]); c != 0 {
			return c < 0
		}
		return lines[a].ts < lines[b].ts
	})
	w := bufio.NewWriter(os.Stdout)
	for _, l := range lines {
		w.Write(l.json)
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
}
EOF
(cd "$tmp" && go build -o "$tmp/gen" gen.go)

# project N: a git repository with an N-entry log, at $tmp/pN.
project() {
	local n=$1 dir=$tmp/p$1
	if [ ! -d "$dir" ]; then
		mkdir -p "$dir/.cairn"
		git init -q "$dir"
		"$tmp/gen" "$n" >"$dir/.cairn/knowledge.jsonl"
		printf '*.jsonl merge=union\n' >"$dir/.cairn/.gitattributes"
		printf 'cache/\nlocal/\n*.lock\n.*.cairn-tmp-*\n' >"$dir/.cairn/.gitignore"
		git -C "$dir" add -A
		git -C "$dir" -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false \
			commit -q -m "synthetic log of $n entries"
	fi
	echo "$dir"
}

# median CSV: the median wall time of hyperfine's CSV export, in seconds;
# cpu CSV: the mean user + system time (less sensitive to a busy machine).
# Both read the CSV's last row: this build's (a baseline's comes first).
median() { awk -F, 'END { print $4 }' "$1"; }
cpu() { awk -F, 'END { printf "%.1f ms", ($5 + $6) * 1000 }' "$1"; }
ms() { awk -v s="$1" 'BEGIN { printf "%.1f ms", s * 1000 }'; }

rows=()
row() { # name entries csv rate budget
	rows+=("| $1 | $2 | $(ms "$(median "$3")") | $(cpu "$3") | $4 | $5 |")
}

bench() { # name csv hyperfine-args...
	local name=$1 csv=$2
	shift 2
	echo "bench.sh: $name" >&2
	# --output=pipe: GNU grep stops at the first match when its output is
	# /dev/null (hyperfine's default), which would flatter the baseline.
	hyperfine -N --style basic --output=pipe --export-csv "$csv" "$@" >&2
}

# The floor table: the hooks' budgets, each case run interleaved, round
# by round, with a Go hello world built in the same run and, with
# BENCH_BASELINE, the baseline's build. Each build works on its own copy
# of the project (an anchored log: every tenth entry names a file), so a
# first call after a write finds what its own build wrote.
floor=()
export CAIRN_NO_BACKGROUND=1 # no detached sanitize or sync between rounds
unset CLAUDE_PROJECT_DIR CAIRN_DIR
rounds=${BENCH_ROUNDS:-21}
builds=(this)
[ -n "$base" ] && builds+=(base)
bin_of() { if [ "$1" = base ]; then echo "$base"; else echo "$cairn"; fi; }
# floor_setup N: each build's project copy of N entries, synced and
# sanitized, with its payloads beside it (DIR.reject.json, ...), and the
# logs of a pull of 50 entries (DIR.before.jsonl, DIR.pulled.jsonl).
floor_setup() {
	local n=$1 b d bin hit
	for b in "${builds[@]}"; do
		d=$tmp/floor-$n-$b
		bin=$(bin_of "$b")
		[ -d "$d" ] && continue
		mkdir -p "$d/.cairn"
		git init -q "$d"
		printf '*.jsonl merge=union\n' >"$d/.cairn/.gitattributes"
		printf 'cache/\nlocal/\n*.lock\n.*.cairn-tmp-*\n' >"$d/.cairn/.gitignore"
		"$tmp/gen" "$n" anchored >"$d.before.jsonl"
		"$tmp/gen" $((n + 50)) anchored >"$d.pulled.jsonl"
		cp "$d.before.jsonl" "$d/.cairn/knowledge.jsonl"
		"$bin" --dir "$d" sync >/dev/null
		hit=$(grep -m1 -o '"files":\["[^"]*"' "$d.before.jsonl" | sed 's/.*\["//; s/"$//')
		# The hit's file is tracked, so sanitize keeps its notes (it marks
		# a note on a file git does not track stale, and the hook does not
		# show it).
		mkdir -p "$(dirname "$d/$hit")" && : >"$d/$hit" && git -C "$d" add "$hit"
		"$bin" --dir "$d" sanitize >/dev/null
		printf '{"session_id":"b","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok","stderr":""}}\n' "$d" >"$d.reject.json"
		printf '{"session_id":"b","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"git pull"},"tool_response":{"stdout":"Fast-forward","stderr":""}}\n' "$d" >"$d.pull.json"
		printf '{"session_id":"b","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"%s/src/none/nothing.go"}}\n' "$d" "$d" >"$d.miss.json"
		printf '{"session_id":"b","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"%s/%s"}}\n' "$d" "$d" "$hit" >"$d.hit.json"
		printf '{"session_id":"b","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}\n' "$d" >"$d.start.json"
	done
}
# floor_case NAME N BUDGET PREPARE COMMAND: @cairn@ and @dir@ in PREPARE
# and COMMAND stand for each build's binary and project copy.
floor_case() {
	local name=$1 n=$2 budget=$3 prep=$4 cmd=$5 b bin d p c out h t bm="" base_cell="—" vs_base="—"
	local args=(hello "" "$tmp/hello")
	if [ -n "${BENCH_CASES:-}" ] && ! grep -qE -- "$BENCH_CASES" <<<"$name"; then
		return 0
	fi
	for b in "${builds[@]}"; do
		bin=$(bin_of "$b")
		d=$tmp/floor-$n-$b
		p=${prep//@cairn@/$bin}
		p=${p//@dir@/$d}
		c=${cmd//@cairn@/$bin}
		c=${c//@dir@/$d}
		args+=("$b" "$p" "$c")
	done
	echo "bench.sh: floor: $name at $n" >&2
	out=$("$tmp/pairrun" "$rounds" "${args[@]}")
	h=$(awk '$1 == "hello" { print $2 }' <<<"$out")
	t=$(awk '$1 == "this" { print $2 }' <<<"$out")
	bm=$(awk '$1 == "base" { print $2 }' <<<"$out")
	if [ -n "$bm" ]; then
		base_cell=$(ms "$bm")
		vs_base=$(awk -v b="$bm" -v t="$t" 'BEGIN { printf "%.2f", t / b }')
	fi
	floor+=("| $name | $n | $(ms "$h") | $base_cell | $(ms "$t") | $(awk -v h="$h" -v t="$t" 'BEGIN { printf "%.1f", t / h }') | $vs_base | $budget |")
}
# floor_restore N: each copy back to the log before the pull, synced.
floor_restore() {
	local b d
	for b in "${builds[@]}"; do
		d=$tmp/floor-$1-$b
		cp "$d.before.jsonl" "$d/.cairn/knowledge.jsonl"
		"$(bin_of "$b")" --dir "$d" sync >/dev/null
	done
}
pull='cp @dir@.before.jsonl @dir@/.cairn/knowledge.jsonl && @cairn@ --dir @dir@ sync >/dev/null && cp @dir@.pulled.jsonl @dir@/.cairn/knowledge.jsonl'
for n in ${BENCH_FLOOR_SIZES:-10000 100000}; do
	floor_setup "$n"
	floor_case "capture hook, nothing to capture" "$n" "<= 3 ms and <= 2x hello" "" "@cairn@ hook PostToolUse < @dir@.reject.json"
	floor_case "PreToolUse, file with no note" "$n" "the capture hook's, +-10%" "" "@cairn@ hook PreToolUse < @dir@.miss.json"
	floor_case "PreToolUse, file with a note" "$n" "<= 10 ms at 100k" "rm -rf @dir@/.cairn/local/sessions" "@cairn@ hook PreToolUse < @dir@.hit.json"
	floor_case "SessionStart" "$n" "<= 15 ms at 10k" "" "@cairn@ hook SessionStart < @dir@.start.json"
	floor_case "first PreToolUse (no note) after an add" "$n" "<= 2x the same hook warm" \
		"@cairn@ --dir @dir@ add learned 'bench note @n@: retries back off with jitter' >/dev/null" "@cairn@ hook PreToolUse < @dir@.miss.json"
	floor_case "first PreToolUse (note) after an add" "$n" "<= 2x the same hook warm" \
		"@cairn@ --dir @dir@ add learned 'bench note @n@: the timeout wraps the retry' >/dev/null; rm -rf @dir@/.cairn/local/sessions" "@cairn@ hook PreToolUse < @dir@.hit.json"
	floor_restore "$n"
	floor_case "first PreToolUse (no note) after a pull of +50" "$n" "<= 2x the same hook warm" "$pull" "@cairn@ hook PreToolUse < @dir@.miss.json"
	floor_case "first PreToolUse (note) after a pull of +50" "$n" "<= 2x the same hook warm" "$pull; rm -rf @dir@/.cairn/local/sessions" "@cairn@ hook PreToolUse < @dir@.hit.json"
	# The agent pulls through its shell: the capture hook of that call
	# starts the background sync (CAIRN_NO_BACKGROUND=0 for it alone), and
	# the model's think time before the next tool call lets it finish
	# (flock waits for the sync's lock, untimed); then the timed call.
	floor_case "first PreToolUse (no note) after a pull by the agent (+50; its capture hook, then the sync)" "$n" "<= 2x the same hook warm" \
		"$pull && CAIRN_NO_BACKGROUND=0 @cairn@ hook PostToolUse < @dir@.pull.json && flock @dir@/.cairn/cache/sync.lock true" "@cairn@ hook PreToolUse < @dir@.miss.json"
	# The capture hook of the pull itself, which starts that sync: the
	# last round's sync is waited for first (untimed); this round's runs
	# detached after the timed part.
	floor_case "capture hook right after a pull of +50 (starts the sync)" "$n" "<= 2x the capture hook warm" \
		"flock @dir@/.cairn/cache/sync.lock true; $pull" "CAIRN_NO_BACKGROUND=0 @cairn@ hook PostToolUse < @dir@.pull.json"
	floor_case "capture hook, nothing to capture (after the pull cases, for the ratio)" "$n" "<= 3 ms and <= 2x hello" "flock @dir@/.cairn/cache/sync.lock true" "@cairn@ hook PostToolUse < @dir@.reject.json"
	floor_case "resync after a pull of +50 (cairn sync)" "$n" "<= 30 ms at 100k" "$pull" "@cairn@ --dir @dir@ sync"
	floor_case "SessionStart right after a pull of +50" "$n" "<= 60 ms at 100k" "$pull" "@cairn@ hook SessionStart < @dir@.start.json"
	floor_restore "$n"
	floor_case "insert one entry (cairn add)" "$n" "<= 8 ms at 10k, <= 30 ms at 100k" \
		"cp @dir@.before.jsonl @dir@/.cairn/knowledge.jsonl" "@cairn@ --dir @dir@ add learned the-bench-entry-retries-back-off-with-jitter"
	# The log as the insertion before left it (its key index current).
	floor_case "insert one entry after an insert (cairn add)" "$n" "<= 8 ms at 10k, <= 30 ms at 100k" \
		"cp @dir@.before.jsonl @dir@/.cairn/knowledge.jsonl && @cairn@ --dir @dir@ add learned bench warm-up @n@ >/dev/null" "@cairn@ --dir @dir@ add learned the-bench-entry-retries-back-off-with-jitter"
	floor_restore "$n"
done
print_floor() {
	echo "## cairn's floor: whole-process medians of $rounds interleaved rounds ($(nproc) cores, load average $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at end)"
	echo
	echo "| case | entries | Go hello world | baseline ${BENCH_BASELINE:-} | this build | this / hello | this / baseline | budget |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	printf '%s\n' "${floor[@]}"
}
if [ "${BENCH_ONLY:-}" = floor ]; then
	print_floor
	exit 0
fi

# cairn add into a 10k log, from a fresh copy each run.
p=$(project "$add_size")
cp "$p/.cairn/knowledge.jsonl" "$tmp/fresh.jsonl"
bench "add into $add_size" "$tmp/add.csv" --warmup 2 \
	--prepare "cp '$tmp/fresh.jsonl' '$p/.cairn/knowledge.jsonl'" \
	"'$cairn' --dir '$p' add learned 'the bench entry: retries back off with jitter after a timeout'"
cp "$tmp/fresh.jsonl" "$p/.cairn/knowledge.jsonl"
row "\`cairn add\` (fresh copy each run)" "$add_size" "$tmp/add.csv" "" "capture, 1 entry, 10k log: <= 10 ms"

for n in $sizes; do
	p=$(project "$n")
	log=$p/.cairn/knowledge.jsonl
	"$cairn" --dir "$p" sync >/dev/null

	bench "recall at $n" "$tmp/recall-$n.csv" --warmup 3 \
		"'$cairn' --dir '$p' recall $query"
	budget=""
	[ "$n" -eq 10000 ] && budget="SessionStart recall, 10k: <= 25 ms (whole hook)"
	[ "$n" -eq 100000 ] && budget="recall, 100k: <= 50 ms"
	row "\`cairn recall $query\` (cache current)" "$n" "$tmp/recall-$n.csv" "" "$budget"

	bench "grep at $n" "$tmp/grep-$n.csv" --warmup 3 \
		"grep -i $word '$log'"
	row "\`grep -i $word knowledge.jsonl\` (baseline)" "$n" "$tmp/grep-$n.csv" "" ""

	runs=(--warmup 1)
	[ "$n" -ge 100000 ] && runs=(--warmup 0 --min-runs 3)
	bench "sync --full at $n" "$tmp/sync-$n.csv" "${runs[@]}" \
		"'$cairn' --dir '$p' sync --full"
	m=$(median "$tmp/sync-$n.csv")
	rate=$(awk -v n="$n" -v s="$m" 'BEGIN { printf "%.0f entries/s", n / s }')
	row "\`cairn sync --full\`" "$n" "$tmp/sync-$n.csv" "$rate" "rebuild: >= 50k entries/s"
done

# Hooks as Claude Code runs them: payload on stdin. hyperfine runs these
# through a shell and subtracts the shell's own start-up.
bench_sh() { # name csv hyperfine-args...
	local name=$1 csv=$2
	shift 2
	echo "bench.sh: $name" >&2
	hyperfine --style basic --output=pipe --export-csv "$csv" "$@" >&2
}
# bench_hook NAME CSV ENTRIES HYPERFINE-ARGS... -- COMMAND: @cairn@ in
# COMMAND is this build; with BENCH_BASELINE the baseline's build runs in
# the same hyperfine run, first, and the pair goes to the comparison table.
pairs=()
bench_hook() {
	local name=$1 csv=$2 n=$3
	shift 3
	local args=()
	while [ "$1" != "--" ]; do
		args+=("$1")
		shift
	done
	local cmd=$2 cmds=() qbase="'$base'" qthis="'$cairn'"
	if [ -n "$base" ]; then
		cmds+=(-n baseline "${cmd//@cairn@/$qbase}")
	fi
	cmds+=(-n this "${cmd//@cairn@/$qthis}")
	bench_sh "$name" "$csv" "${args[@]}" "${cmds[@]}"
	if [ -n "$base" ]; then
		local b t
		b=$(awk -F, 'NR == 2 { print $4 }' "$csv")
		t=$(median "$csv")
		pairs+=("| $name | $n | $(ms "$b") | $(ms "$t") | $(awk -v b="$b" -v t="$t" 'BEGIN { printf "%.2f", t / b }') |")
	fi
}
p=$(project 10000)
printf '{"session_id":"b","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./... && git status --short"},"tool_response":{"stdout":"ok  example.com/x 0.3s","stderr":""}}\n' "$p" >"$tmp/reject.json"
printf '{"session_id":"b","cwd":"%s","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"bd comments add bd-1 \\"LEARNED: the bench capture: retries back off with jitter\\""},"error":"Exit code 127"}\n' "$p" >"$tmp/capture.json"
bench_hook "capture hook, nothing to capture" "$tmp/reject.csv" 10000 --warmup 10 --min-runs 100 -- "@cairn@ hook PostToolUse < '$tmp/reject.json'"
row "capture hook, nothing to capture" 10000 "$tmp/reject.csv" "" "<= 3 ms"
bench_hook "capture hook, one entry captured" "$tmp/capture.csv" 10000 --warmup 2 \
	--prepare "cp '$tmp/fresh.jsonl' '$p/.cairn/knowledge.jsonl'; sync" \
	-- "@cairn@ hook PostToolUseFailure < '$tmp/capture.json'"
cp "$tmp/fresh.jsonl" "$p/.cairn/knowledge.jsonl"
row "capture hook, one entry captured" 10000 "$tmp/capture.csv" "" "<= 10 ms"
# The session pipeline's producer at Stop: a reply with nothing to capture,
# the pipeline on, a 50 MB transcript (it is stat'ed, never read). Each run
# queues (the pending task is removed first); the detached worker's start
# is left out (CAIRN_NO_BACKGROUND=1), as it runs after the hook returns.
home="$tmp/pipeline-home"
mkdir -p "$home/.config/cairn"
echo '{"pipeline": true}' >"$home/.config/cairn/config.json"
truncate -s 50M "$tmp/transcript.jsonl"
printf '{"session_id":"bench-stop","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done: the retry loop now backs off."}\n' "$tmp/transcript.jsonl" "$p" >"$tmp/stop.json"
bench_hook "Stop hook, pipeline on (enqueue)" "$tmp/stop.csv" 10000 --warmup 10 --min-runs 100 \
	--prepare "rm -f '$home/.local/state/cairn/queue/bench-stop.task'" \
	-- "HOME='$home' CAIRN_NO_BACKGROUND=1 @cairn@ hook Stop < '$tmp/stop.json'"
row "Stop hook, pipeline on: enqueue, 50 MB transcript" 10000 "$tmp/stop.csv" "" "<= 5 ms"
"$cairn" --dir "$p" sync >/dev/null
# Steady state: the working set is current, so no hook starts a background
# sanitize while it is measured (the run itself is measured below).
"$cairn" --dir "$p" sanitize >/dev/null
for n in $sizes; do
	p=$(project "$n")
	"$cairn" --dir "$p" sync >/dev/null
	"$cairn" --dir "$p" sanitize >/dev/null
	printf '{"session_id":"b","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"why does the oauth redirect callback time out after the retry?"}\n' "$p" >"$tmp/prompt-$n.json"
	bench_hook "UserPromptSubmit hook" "$tmp/prompt-$n.csv" "$n" --warmup 3 --prepare "rm -rf '$p/.cairn/local'" \
		-- "@cairn@ hook UserPromptSubmit < '$tmp/prompt-$n.json'"
	budget=""
	[ "$n" -eq 10000 ] && budget="<= 25 ms"
	row "UserPromptSubmit hook (per-prompt recall)" "$n" "$tmp/prompt-$n.csv" "" "$budget"
done
for n in $sizes; do
	p=$(project "$n")
	git -C "$p" checkout -q -B fix/oauth-redirect-timeout
	printf '{"session_id":"b","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}\n' "$p" >"$tmp/start-$n.json"
	bench_hook "SessionStart hook" "$tmp/start-$n.csv" "$n" --warmup 3 -- "@cairn@ hook SessionStart < '$tmp/start-$n.json'"
	budget=""
	[ "$n" -eq 10000 ] && budget="<= 25 ms"
	row "SessionStart hook (sync + recall + render)" "$n" "$tmp/start-$n.csv" "" "$budget"
	# No cache (a fresh clone): the hook answers from a bounded read of the
	# log and leaves the rebuild to a background sync (not started here).
	bench_hook "SessionStart hook, no cache" "$tmp/start-nocache-$n.csv" "$n" --warmup 1 \
		--prepare "rm -rf '$p/.cairn/cache'" \
		-- "CAIRN_NO_BACKGROUND=1 @cairn@ hook SessionStart < '$tmp/start-$n.json'"
	budget=""
	[ "$n" -ge 100000 ] && budget="<= 150 ms at 100k"
	row "SessionStart hook, no cache (bounded read, build in background)" "$n" "$tmp/start-nocache-$n.csv" "" "$budget"
	"$cairn" --dir "$p" sync >/dev/null
done

# sanitize (the background run): working set and audit, anchors checked
# against the repository.
for n in $sizes; do
	p=$(project "$n")
	bench "sanitize at $n" "$tmp/sanitize-$n.csv" --warmup 1 --runs 5 "'$cairn' --dir '$p' sanitize"
	row "\`cairn sanitize\` (background run of the hooks)" "$n" "$tmp/sanitize-$n.csv" "" ""
done

# Incremental sync after a pull that added 50 entries.
for n in $sizes; do
	p=$(project "$n")
	cp "$p/.cairn/knowledge.jsonl" "$tmp/before-$n.jsonl"
	"$tmp/gen" $((n + 50)) >"$tmp/pulled-$n.jsonl"
	bench_sh "sync after +50 at $n" "$tmp/inc-$n.csv" --warmup 1 \
		--prepare "cp '$tmp/before-$n.jsonl' '$p/.cairn/knowledge.jsonl'; '$cairn' --dir '$p' sync >/dev/null; cp '$tmp/pulled-$n.jsonl' '$p/.cairn/knowledge.jsonl'" \
		"'$cairn' --dir '$p' sync"
	budget=""
	[ "$n" -eq 100000 ] && budget="<= 30 ms"
	[ "$n" -eq 1000000 ] && budget="<= 150 ms"
	row "\`cairn sync\` after a pull added 50 entries" "$n" "$tmp/inc-$n.csv" "" "$budget"
	cp "$tmp/before-$n.jsonl" "$p/.cairn/knowledge.jsonl"
done

# The hook before a tool call, paired with the capture hook's reject path
# in one hyperfine run, on logs where every tenth entry is anchored to a
# file: a Read of a file nothing is anchored to (the no-match path, judged
# before the program starts), a Read of an anchored file (the match path:
# the cache, the shown-record, the render; the session's record is
# cleared before each run so the note comes every time).
for n in $sizes; do
	[ "$n" -gt 100000 ] && continue
	dir=$tmp/a$n
	if [ ! -d "$dir" ]; then
		mkdir -p "$dir/.cairn"
		git init -q "$dir"
		"$tmp/gen" "$n" anchored >"$dir/.cairn/knowledge.jsonl"
		"$cairn" --dir "$dir" sync >/dev/null
	fi
	hit=$(grep -m1 -o '"files":\["[^"]*"' "$dir/.cairn/knowledge.jsonl" | sed 's/.*\["//; s/"$//')
	hit=${hit%%$'\n'*} # the first, if the line anchors several
	printf '{"session_id":"b","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok"}}\n' "$dir" >"$tmp/reject-a$n.json"
	printf '{"session_id":"b","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"%s/src/none/nothing.go"}}\n' "$dir" "$dir" >"$tmp/miss-$n.json"
	printf '{"session_id":"b","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"%s/%s"}}\n' "$dir" "$dir" "$hit" >"$tmp/hit-$n.json"
	bench_sh "PreToolUse at $n, paired with the reject path" "$tmp/pretool-$n.csv" --warmup 10 --min-runs 60 \
		--prepare "rm -rf '$dir/.cairn/local/sessions'" \
		-n reject "'$cairn' hook PostToolUse < '$tmp/reject-a$n.json'" \
		-n "no match" "'$cairn' hook PreToolUse < '$tmp/miss-$n.json'" \
		-n match "'$cairn' hook PreToolUse < '$tmp/hit-$n.json'"
	for i in 2 3 4; do
		name=$(awk -F, -v r="$i" 'NR == r { print $1 }' "$tmp/pretool-$n.csv")
		awk -F, -v r="$i" 'NR == r' "$tmp/pretool-$n.csv" >"$tmp/pretool-$n-$i.csv"
		budget=""
		[ "$i" -ne 4 ] && budget="<= 3 ms"
		[ "$i" -eq 4 ] && budget="per-prompt recall's"
		row "PreToolUse pair: $name" "$n" "$tmp/pretool-$n-$i.csv" "" "$budget"
	done
done

# Peak memory (max RSS) of the heaviest paths at the largest size.
big=$(for n in $sizes; do echo "$n"; done | sort -n | tail -1)
p=$(project "$big")
mem=()
peak() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
mem+=("| \`cairn sync --full\` | $big | $(peak "$cairn" --dir "$p" sync --full) |")
# shellcheck disable=SC2086 # the query is several words
mem+=("| \`cairn recall $query\` | $big | $(peak "$cairn" --dir "$p" recall $query) |")
mem+=("| \`cairn sanitize\` | $big | $(peak "$cairn" --dir "$p" sanitize) |")
mem+=("| SessionStart hook | $big | $(/usr/bin/time -f '%M' "$cairn" hook SessionStart <"$tmp/start-$big.json" 2>&1 >/dev/null | tail -1) |")

echo "## cairn benchmarks: whole-process medians ($(nproc) cores, $(uname -sm), $(go env GOVERSION), load average $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at end)"
echo
echo "| command | entries | median (wall) | user+sys (mean) | rate | budget (nearest path) |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${rows[@]}"
echo
echo "| peak memory (max RSS) | entries | KiB |"
echo "| --- | ---: | ---: |"
printf '%s\n' "${mem[@]}"
echo
print_floor
if [ -n "$base" ]; then
	echo
	echo "| hook, same hyperfine run | entries | baseline $BENCH_BASELINE | this build | this / baseline |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${pairs[@]}"
fi
