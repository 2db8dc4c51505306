// Package redact removes secrets from free text before cairn writes it to
// the knowledge log, which is committed to git and shared with a team.
//
// [String] replaces every secret it recognises with a marker
// "[REDACTED:<kind>]" and reports what it replaced. It recognises provider
// tokens by their shape (AWS access key ids, GitHub, GitLab, Slack, Stripe,
// OpenAI, Anthropic, Google and npm keys, JWTs), PEM private keys, passwords
// in URLs ("postgres://app:[REDACTED:url-password]@db/app"), Authorization
// headers, "curl -u user:password", and values assigned to secret-looking
// names ("DB_PASSWORD=...", "api_key: ...", `"client_secret": "..."`).
//
// It is deliberately conservative about what is NOT a secret, so that
// knowledge stays useful: hex digests and git commit ids, UUIDs, base64 in
// prose, file paths and identifiers are never touched unless they are the
// value of a secret-looking assignment. The word "password" in prose ("the
// password is stored in vault") is not an assignment and is left alone; only
// the "name = value" and "name: value" forms are. Obvious placeholders
// ("<from vault>", "${GITHUB_TOKEN}", "$TOKEN", "xxxxxxxx", "changeme",
// "your-api-key-here", an environment variable name, a code expression such
// as os.Getenv("X") or cfg.Password, a file path) are not redacted.
//
// String is idempotent, never panics, and keeps valid UTF-8 valid. Text in
// which no rule could possibly match is recognised by a single cheap scan and
// returned unchanged without running any regular expression.
package redact

import (
	"regexp"
	"sort"
	"strings"
)

// Kinds of secrets, as reported in [Finding.Kind] and written in the marker.
const (
	// KindPrivateKey is a PEM private key block (RSA, EC, DSA, OpenSSH,
	// PKCS#8, encrypted, PGP), replaced whole, or through its base64 body
	// when the END line is missing.
	KindPrivateKey = "private-key"
	// KindAWSAccessKey is an AWS access key id: AKIA, ASIA, ABIA or ACCA
	// and 16 capitals or digits.
	KindAWSAccessKey = "aws-access-key"
	// KindAWSSecretKey is a 40-character AWS secret access key assigned to
	// a name such as aws_secret_access_key or AWS_SECRET_KEY.
	KindAWSSecretKey = "aws-secret-key"
	// KindGitHubToken is a GitHub token: ghp_, gho_, ghu_, ghs_, ghr_ or
	// github_pat_.
	KindGitHubToken = "github-token"
	// KindGitLabToken is a GitLab personal access token (glpat-).
	KindGitLabToken = "gitlab-token"
	// KindSlackToken is a Slack token (xoxa-, xoxb-, xoxp-, xoxr-, xoxs-,
	// xoxo-, xoxe-).
	KindSlackToken = "slack-token"
	// KindSlackWebhook is the secret path of a Slack incoming webhook URL.
	KindSlackWebhook = "slack-webhook"
	// KindStripeKey is a Stripe secret or restricted key, live or test
	// (sk_live_, rk_live_, sk_test_, rk_test_).
	KindStripeKey = "stripe-key"
	// KindOpenAIKey is an OpenAI key: sk-, sk-proj-, sk-svcacct-...
	KindOpenAIKey = "openai-key"
	// KindAnthropicKey is an Anthropic key (sk-ant-).
	KindAnthropicKey = "anthropic-key"
	// KindGoogleAPIKey is a Google API key (AIza and 35 more).
	KindGoogleAPIKey = "google-api-key"
	// KindNPMToken is an npm access token (npm_).
	KindNPMToken = "npm-token"
	// KindJWT is a JSON Web Token: three base64url segments, the first two
	// starting with eyJ.
	KindJWT = "jwt"
	// KindURLPassword is the password of scheme://user:password@host; the
	// scheme, user and host are kept.
	KindURLPassword = "url-password"
	// KindBearerToken is the credential of "Authorization: Bearer ..." or
	// "Authorization: token ...", or of a bare "Bearer <token>" whose token
	// is long and random-looking.
	KindBearerToken = "bearer-token"
	// KindBasicAuth is the credential of "Authorization: Basic ..." or the
	// password of "curl -u user:password" / "--user user:password".
	KindBasicAuth = "basic-auth"
	// KindGenericAssignment is a value assigned to a secret-looking name:
	// password=..., DB_PASS=..., api_key: ..., "client_secret": "...",
	// GITHUB_TOKEN=... (see the package documentation for what is kept).
	KindGenericAssignment = "generic-assignment"
)

// Finding reports that String replaced Count secrets of one Kind.
type Finding struct {
	Kind  string // one of the Kind* constants
	Count int    // how many were replaced
}

// Marker returns the text that replaces a secret of the given kind:
// "[REDACTED:<kind>]".
func Marker(kind string) string { return markerPrefix + kind + "]" }

const markerPrefix = "[REDACTED:"

// maxPasses bounds the fixed-point loop in String. One pass is enough for
// every input seen so far; further passes only run when the previous one
// changed something, and exist so that String(String(x)) == String(x) holds
// by construction.
const maxPasses = 4

// String returns s with every recognised secret replaced by [Marker] of its
// kind, and what it replaced, sorted by Kind (nil when nothing was replaced).
// It is idempotent: String of its own output returns that output and no
// findings.
func String(s string) (string, []Finding) {
	mask := candidates(s)
	if mask == 0 {
		return s, nil // the fast path: nothing could match
	}
	return redact(s, mask)
}

// redact runs the rules selected by mask, then repeats the scan and the
// rules on the result until nothing changes.
func redact(s string, mask uint32) (string, []Finding) {
	var counts map[string]int
	for pass := 0; pass < maxPasses && mask != 0; pass++ {
		changed := false
		for i := range rules {
			r := &rules[i]
			if mask&r.trigger == 0 {
				continue
			}
			out, n := r.apply(s, &counts)
			if n > 0 {
				s, changed = out, true
			}
		}
		if !changed {
			break
		}
		mask = candidates(s)
	}
	if len(counts) == 0 {
		return s, nil
	}
	fs := make([]Finding, 0, len(counts))
	for k, n := range counts {
		fs = append(fs, Finding{Kind: k, Count: n})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Kind < fs[j].Kind })
	return s, fs
}

// Trigger bits: a rule runs only when the cheap scan saw its trigger.
const (
	tPEM uint32 = 1 << iota
	tAWS
	tGitHub
	tGitLab
	tSlack
	tStripe
	tSK
	tGoogle
	tNPM
	tJWT
	tURL
	tAuth
	tKeyword
	tUserFlag
)

// candidates scans s once and reports which rules could possibly match.
// It returns 0 for the common case of ordinary prose, and ignores markers
// left by an earlier pass. Only a few bytes are worth a look: those that
// every token of a rule contains at a fixed place ("_" in "ghp_", "-" in
// "sk-", "J" in "eyJ", "A" in "AKIA", ":" in "://"), the separators of an
// assignment (the name before them is checked for a keyword), "[" for
// markers and "b" for a bare "Bearer".
func candidates(s string) uint32 {
	var m uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !interesting[c] {
			continue
		}
		switch c {
		case '[':
			if n := markerLen(s[i:]); n > 0 {
				i += n - 1
			}
		case '-':
			switch {
			case strings.HasPrefix(s[i:], "-----BEGIN "):
				m |= tPEM
			case i >= 2 && s[i-2:i] == "sk":
				m |= tSK
			case i >= 4 && s[i-4:i-1] == "xox":
				m |= tSlack
			case i >= 5 && s[i-5:i] == "glpat":
				m |= tGitLab
			case strings.HasPrefix(s[i:], "-u ") || strings.HasPrefix(s[i:], "-u\t") ||
				strings.HasPrefix(s[i:], "--user ") || strings.HasPrefix(s[i:], "--user="):
				m |= tUserFlag
			}
		case '_':
			switch {
			case i >= 3 && s[i-3] == 'g' && s[i-2] == 'h' && strings.IndexByte("pousr", s[i-1]) >= 0,
				i >= 6 && s[i-6:i] == "github" && strings.HasPrefix(s[i:], "_pat_"):
				m |= tGitHub
			case i >= 3 && s[i-3:i] == "npm":
				m |= tNPM
			case i >= 2 && (s[i-2:i] == "sk" || s[i-2:i] == "rk") &&
				(strings.HasPrefix(s[i:], "_live_") || strings.HasPrefix(s[i:], "_test_")):
				m |= tStripe
			}
		case 'A':
			if len(s)-i >= 4 {
				switch s[i : i+4] {
				case "AKIA", "ASIA", "ABIA", "ACCA":
					m |= tAWS
				case "AIza":
					m |= tGoogle
				}
			}
		case 'J':
			if i >= 2 && s[i-2:i] == "ey" {
				m |= tJWT
			}
		case 'B', 'b':
			if hasPrefixFold(s[i:], "bearer") {
				m |= tAuth
			}
		case ':', '=':
			if c == ':' && strings.HasPrefix(s[i:], "://") {
				m |= tURL
			}
			name := nameBefore(s, i)
			if hasSuffixFold(name, "authorization") {
				m |= tAuth
			}
			if k, _ := nextKeyword(name, 0); k >= 0 {
				m |= tKeyword
			}
		}
	}
	return m
}

// interesting marks the bytes candidates looks at.
var interesting = func() (t [256]bool) {
	for _, c := range []byte("[-_AJBb:=") {
		t[c] = true
	}
	return t
}()

// nameBefore returns the name that a separator at offset sep would assign
// to, the way assignments reads it: a run of name characters, then an
// optional (possibly escaped) closing quote, then blanks.
func nameBefore(s string, sep int) string {
	k := sep
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	if k > 0 && isQuote(s[k-1]) {
		k--
		if k > 0 && s[k-1] == '\\' {
			k--
		}
	}
	e := k
	for k > 0 && isKeyChar(s[k-1]) {
		k--
	}
	return s[k:e]
}

// hasSuffixFold reports whether s ends with lower, ignoring ASCII case.
func hasSuffixFold(s, lower string) bool {
	return len(s) >= len(lower) && hasPrefixFold(s[len(s)-len(lower):], lower)
}

// markerLen returns the length of the marker at the start of s, or 0.
func markerLen(s string) int {
	if !strings.HasPrefix(s, markerPrefix) {
		return 0
	}
	for j := len(markerPrefix); j < len(s); j++ {
		c := s[j]
		switch {
		case c == ']' && j > len(markerPrefix):
			return j + 1
		case 'a' <= c && c <= 'z' || isDigitByte(c) || c == '-':
		default:
			return 0
		}
	}
	return 0
}

// hasPrefixFold reports whether s starts with lower, ignoring ASCII case.
// lower must be lower-case ASCII.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// rule is one redaction rule. Either fn finds the spans itself, or the rule
// is a regular expression tried at each occurrence of its literal prefixes.
type rule struct {
	trigger uint32
	// prefixes start every match (compared ignoring ASCII case if fold).
	prefixes []string
	fold     bool
	// glued reports whether a match may not start after byte c (a word
	// boundary); nil means it always may.
	glued func(c byte) bool
	// re is anchored at the prefix: it is tried on s[start:].
	re *regexp.Regexp
	// classify decides, for one match m of re (offsets into s), whether and
	// what to redact: the kind and the byte span [start, end) to replace.
	classify func(s string, m []int) (kind string, start, end int, ok bool)
	// fn finds the spans itself.
	fn func(s string, emit func(kind string, start, end int))
}

// apply runs the rule on s and returns the redacted text and the number of
// replacements, adding them to *counts.
func (r *rule) apply(s string, counts *map[string]int) (string, int) {
	var b strings.Builder
	last, n := 0, 0
	emit := func(kind string, start, end int) {
		if start < last || end <= start {
			return
		}
		if n == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(Marker(kind))
		last = end
		n++
		if *counts == nil {
			*counts = make(map[string]int)
		}
		(*counts)[kind]++
	}
	if r.fn != nil {
		r.fn(s, emit)
	} else {
		r.find(s, emit)
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// find tries the rule's expression at every occurrence of its prefixes, in
// order, skipping occurrences inside an earlier redaction.
func (r *rule) find(s string, emit func(kind string, start, end int)) {
	var starts []int
	for _, p := range r.prefixes {
		for i := 0; ; {
			var j int
			if r.fold {
				j = indexFold(s[i:], p)
			} else {
				j = strings.Index(s[i:], p)
			}
			if j < 0 {
				break
			}
			starts = append(starts, i+j)
			i += j + 1
		}
	}
	if len(r.prefixes) > 1 {
		sort.Ints(starts)
	}
	done := 0
	for _, st := range starts {
		if st < done || st > 0 && r.glued != nil && r.glued(s[st-1]) {
			continue
		}
		m := r.re.FindStringSubmatchIndex(s[st:])
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += st
			}
		}
		if kind, start, end, ok := r.classify(s, m); ok {
			emit(kind, start, end)
			done = end
		}
	}
}

// indexFold is strings.Index ignoring ASCII case; lower must be lower case.
func indexFold(s, lower string) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		if s[i]|0x20 == lower[0] && hasPrefixFold(s[i:], lower) {
			return i
		}
	}
	return -1
}

// anchored compiles pattern to match at the start of the text only.
func anchored(pattern string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + pattern + `)`) }

// isWordByte reports whether c is [A-Za-z0-9_], the bytes of a \b word.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// isTokenByte reports whether c can be part of a dashed token: a word byte
// or "-". An "sk-" or "eyJ" glued to one is part of a longer word
// ("task-sk-list", "risk-").
func isTokenByte(c byte) bool { return isWordByte(c) || c == '-' }

// group returns a classify function that redacts submatch g as kind when
// check (if not nil) accepts its text.
func group(kind string, g int, check func(string) bool) func(string, []int) (string, int, int, bool) {
	return func(s string, m []int) (string, int, int, bool) {
		start, end := m[2*g], m[2*g+1]
		if start < 0 || (check != nil && !check(s[start:end])) {
			return "", 0, 0, false
		}
		return kind, start, end, true
	}
}

// rules, in the order they run. Specific shapes run before the generic
// assignment rule so that they get the more precise kind; the PEM rule runs
// first because a key body can contain anything.
var rules = []rule{
	{
		trigger: tPEM,
		fn:      privateKeys,
	},
	{
		trigger:  tAWS,
		prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		glued:    isWordByte,
		re:       anchored(`[A-Z0-9]{20}\b`),
		classify: group(KindAWSAccessKey, 0, nil),
	},
	{
		trigger:  tGitHub,
		prefixes: []string{"gh", "github_pat_"},
		glued:    isWordByte,
		re:       anchored(`gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}`),
		classify: group(KindGitHubToken, 0, nil),
	},
	{
		trigger:  tGitLab,
		prefixes: []string{"glpat-"},
		glued:    isWordByte,
		re:       anchored(`glpat-[A-Za-z0-9_\-]{20,}`),
		classify: group(KindGitLabToken, 0, nil),
	},
	{
		trigger:  tSlack,
		prefixes: []string{"xox"},
		glued:    isWordByte,
		re:       anchored(`xox[abposre]-[A-Za-z0-9\-]{10,}`),
		classify: group(KindSlackToken, 0, hasDigit),
	},
	{
		trigger:  tStripe,
		prefixes: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		glued:    isWordByte,
		re:       anchored(`[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`),
		classify: group(KindStripeKey, 0, func(v string) bool { return hasDigit(v[8:]) && hasLetter(v[8:]) }),
	},
	{
		// OpenAI and Anthropic keys share the "sk-" prefix. The token must
		// not be glued to a word ("task-sk-...", "risk-...") and must look
		// random (upper, lower and digit), which rules out "sk-learn" and
		// hyphenated prose.
		trigger:  tSK,
		prefixes: []string{"sk-"},
		glued:    isTokenByte,
		re:       anchored(`sk-[A-Za-z0-9_\-]{20,}`),
		classify: func(s string, m []int) (string, int, int, bool) {
			v := s[m[0]:m[1]]
			if !hasUpper(v) || !hasLower(v[3:]) || !hasDigit(v) {
				return "", 0, 0, false
			}
			if strings.HasPrefix(v, "sk-ant-") {
				return KindAnthropicKey, m[0], m[1], true
			}
			return KindOpenAIKey, m[0], m[1], true
		},
	},
	{
		trigger:  tGoogle,
		prefixes: []string{"AIza"},
		glued:    isWordByte,
		re:       anchored(`AIza[A-Za-z0-9_\-]{35,}`),
		classify: group(KindGoogleAPIKey, 0, nil),
	},
	{
		trigger:  tNPM,
		prefixes: []string{"npm_"},
		glued:    isWordByte,
		re:       anchored(`npm_[A-Za-z0-9]{36,}`),
		classify: group(KindNPMToken, 0, nil),
	},
	{
		// Header and payload of a JWT are base64url JSON objects, so both
		// start with "eyJ".
		trigger:  tJWT,
		prefixes: []string{"eyJ"},
		glued:    isTokenByte,
		re:       anchored(`eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*`),
		classify: group(KindJWT, 0, nil),
	},
	{
		trigger:  tURL,
		prefixes: []string{"https://hooks.slack.com/services/"},
		glued:    isWordByte,
		re:       anchored(`https://hooks\.slack\.com/services/([A-Za-z0-9_/\-]{10,})`),
		classify: group(KindSlackWebhook, 1, nil),
	},
	{
		trigger: tURL,
		fn:      urlPasswords,
	},
	{
		// "Authorization: Bearer|Token|Basic <credentials>" in any case and
		// quoting; or a bare "Bearer <token>" when the token is long and
		// random-looking (prose such as "Bearer authentication" survives).
		// The credential runs to the end of the word, not just over the
		// base64 alphabet, so that nothing after it is left half-read.
		trigger:  tAuth,
		prefixes: []string{"authorization", "bearer"},
		fold:     true,
		glued:    isWordByte,
		re: anchored(`(?i)(?:authorization["']?[ \t]*[:=][ \t]*["']?(bearer|token|basic)|(bearer))` +
			"[ \t]+([^\\s\"'`<>,;()\\[\\]{}]+)"),
		classify: func(s string, m []int) (string, int, int, bool) {
			start, end := m[6], m[7]
			for end > start && s[end-1] == '.' {
				end--
			}
			v := s[start:end]
			if len(v) < 8 || isPlaceholder(v) {
				return "", 0, 0, false
			}
			if m[2] < 0 { // bare "Bearer ..."
				if len(v) < 16 || !hasDigit(v) || !hasLetter(v) {
					return "", 0, 0, false
				}
				return KindBearerToken, start, end, true
			}
			if hasPrefixFold(s[m[2]:m[3]], "basic") {
				return KindBasicAuth, start, end, true
			}
			return KindBearerToken, start, end, true
		},
	},
	{
		// Command-line credentials: "curl -u user:password",
		// "--user=user:password". A numeric password is a uid:gid
		// ("docker run -u 1000:1000") and is kept.
		trigger:  tUserFlag,
		prefixes: []string{"-u", "--user"},
		glued:    func(c byte) bool { return !isSpace(c) && !isQuote(c) },
		re:       anchored(`(?:-u|--user)(?:[ \t]+|=)["']?[^\s:"'@]+:([^\s"']+)`),
		classify: group(KindBasicAuth, 1, func(v string) bool {
			return !isPlaceholder(v) && strings.Trim(v, "0123456789") != ""
		}),
	},
	{
		trigger: tKeyword,
		fn:      assignments,
	},
}

// urlPasswords finds the password of scheme://user:password@host. The
// password runs to the last "@" of the authority, so "p@ss" is covered;
// placeholders ("${DB_PASSWORD}", "password") are kept.
func urlPasswords(s string, emit func(kind string, start, end int)) {
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return
		}
		sep := i + j
		i = sep + 3
		k := sep
		for k > 0 && (isAlnum(s[k-1]) || s[k-1] == '+' || s[k-1] == '.' || s[k-1] == '-') {
			k--
		}
		if k == sep || !hasLetter(s[k:sep]) {
			continue // no scheme
		}
		p := i
		for p < len(s) && !isSpace(s[p]) && strings.IndexByte(`:/?#@[]"'<>`, s[p]) < 0 {
			p++
		}
		if p >= len(s) || s[p] != ':' {
			continue // no password
		}
		ps, at := p+1, -1
		for p = ps; p < len(s) && !isSpace(s[p]) && strings.IndexByte(`/?#"'<>`, s[p]) < 0; p++ {
			if s[p] == '@' {
				at = p
			}
		}
		if at <= ps || isPlaceholder(s[ps:at]) {
			continue
		}
		emit(KindURLPassword, ps, at)
		i = at
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isAlnum(c byte) bool { return isLetter(c) || isDigitByte(c) }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

func hasDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return '0' <= r && r <= '9' }) >= 0
}

func hasUpper(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) >= 0
}

func hasLower(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return 'a' <= r && r <= 'z' }) >= 0
}

func hasLetter(s string) bool { return hasUpper(s) || hasLower(s) }
