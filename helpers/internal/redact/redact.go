// Package redact removes secrets from free text before cairn writes it to
// the knowledge log, which is committed to git and shared with a team.
//
// [String] first normalises the text (normalize: control characters,
// ANSI escape sequences, zero-width, bidirectional and tag characters are
// removed, so that none of them can split a secret), then replaces every
// secret it recognises with a marker "[REDACTED:<kind>]" and reports what
// it replaced. A literal two-character "\n", "\t" or "\r" (JSON or shell
// text) separates words for the rules but is kept in the text.
//
// It recognises, by their shape, the tokens of many providers (AWS, GitHub,
// GitLab, Slack, Stripe, OpenAI, Anthropic, Google, npm, Hugging Face,
// SendGrid, Twilio, Databricks, DigitalOcean, Shopify, Mailgun, PyPI,
// Docker, Atlassian, Heroku, Vault, age, Terraform Cloud, Linear, Doppler,
// Postman, Square, Mailchimp, Telegram, New Relic, Grafana, Sentry,
// Supabase, PlanetScale, Pulumi, Notion, Airtable, Alibaba, Dynatrace,
// Figma, RubyGems, Buildkite, Azure), JWTs, Slack and Discord webhooks, PEM
// private keys (also JSON-escaped and truncated), passwords in URLs
// ("postgres://app:[REDACTED:url-password]@db/app"), Authorization headers
// and bare Bearer tokens, "curl -u user:password", Azure connection strings
// and SAS signatures, passwords on command lines ("mysql -pSECRET",
// "sshpass -p SECRET", "docker login -p SECRET", "redis-cli -a SECRET",
// "--password SECRET"), base64 that decodes to "user:password", a bare
// 40-character AWS secret access key, values assigned to secret-looking
// names ("DB_PASSWORD=...", "export API_KEY=...", "api_key: ...",
// `"client_secret": "..."`), and passwords stated in prose ("the password
// is hunter2"; see prose.go for the rule).
//
// It is deliberately conservative about what is NOT a secret, so that
// knowledge stays useful: hex digests and git commit ids, UUIDs, base64 in
// prose, data URIs, file paths and identifiers are never touched unless
// they are the value of a secret-looking assignment. The word "password"
// in prose ("the password is stored in vault", "password is required") is
// left alone. Obvious placeholders ("<from vault>", "${GITHUB_TOKEN}",
// "$TOKEN", "%TOKEN%", "xxxxxxxx", "changeme", "your-api-key-here", an
// environment variable name, a code expression such as os.Getenv("X") or
// cfg.Password, a file path) are not redacted.
//
// String is idempotent, never panics, and keeps valid UTF-8 valid. Text in
// which no rule could possibly match and nothing needs normalising is
// recognised by a single cheap scan and returned unchanged without running
// any regular expression or allocating.
package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
	// KindAWSSecretKey is a 40-character AWS secret access key, assigned
	// to a name such as aws_secret_access_key or standing alone (then it
	// must look random: capitals, lower case and digits, no long word).
	KindAWSSecretKey = "aws-secret-key"
	// KindGitHubToken is a GitHub token: ghp_, gho_, ghu_, ghs_, ghr_ or
	// github_pat_.
	KindGitHubToken = "github-token"
	// KindGitLabToken is a GitLab token (glpat-, glptt-, gldt-, glrt-,
	// glcbt-, glimt-, glsoat-, glffct-, glagent-, gloas-, glft-, glcd-)
	// or runner registration token (GR1348941).
	KindGitLabToken = "gitlab-token"
	// KindSlackToken is a Slack token (xoxa-, xoxb-, xoxp-, xoxr-, xoxs-,
	// xoxo-, xoxe-, xapp-).
	KindSlackToken = "slack-token"
	// KindSlackWebhook is the secret path of a Slack incoming webhook URL.
	KindSlackWebhook = "slack-webhook"
	// KindStripeKey is a Stripe secret or restricted key, live or test
	// (sk_live_, rk_live_, sk_test_, rk_test_), or a webhook signing
	// secret (whsec_). Publishable keys (pk_) are public and kept.
	KindStripeKey = "stripe-key"
	// KindOpenAIKey is an OpenAI key: sk-, sk-proj-, sk-svcacct-,
	// sk-admin-...
	KindOpenAIKey = "openai-key"
	// KindAnthropicKey is an Anthropic key (sk-ant-).
	KindAnthropicKey = "anthropic-key"
	// KindGoogleAPIKey is a Google API key (AIza and 35 more).
	KindGoogleAPIKey = "google-api-key"
	// KindGoogleOAuthSecret is a Google OAuth client secret (GOCSPX-).
	KindGoogleOAuthSecret = "google-oauth-secret"
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
	// KindBasicAuth is the credential of "Authorization: Basic ...", the
	// password of "curl -u user:password" / "--user user:password", or
	// base64 standing alone that decodes to "user:password".
	KindBasicAuth = "basic-auth"
	// KindGenericAssignment is a value assigned to a secret-looking name:
	// password=..., DB_PASS=..., api_key: ..., "client_secret": "...",
	// GITHUB_TOKEN=... (see assign.go for what is kept).
	KindGenericAssignment = "generic-assignment"
	// KindProsePassword is a password stated in prose: "the password is
	// hunter2", "pwd was Tr0ub4dor", "password: s3cret" (see prose.go).
	KindProsePassword = "prose-password"
	// KindProseSecret is a random-looking token, secret or API key stated
	// in prose: "the API key is 9f8e7d6c5b4a3210".
	KindProseSecret = "prose-secret"
	// KindCLIPassword is a password given on a command line: "mysql
	// -pSECRET", "sshpass -p SECRET", "docker login -p SECRET", "redis-cli
	// -a SECRET", "--password SECRET".
	KindCLIPassword = "cli-password"
	// KindDiscordWebhook is the id and token of a Discord webhook URL.
	KindDiscordWebhook = "discord-webhook"
	// KindHuggingFaceToken is a Hugging Face token (hf_, api_org_).
	KindHuggingFaceToken = "huggingface-token"
	// KindSendGridKey is a SendGrid API key (SG.xxx.yyy).
	KindSendGridKey = "sendgrid-key"
	// KindTwilioKey is a Twilio API key SID (SK and 32 hex digits).
	KindTwilioKey = "twilio-key"
	// KindAzureStorageKey is the AccountKey or SharedAccessKey of an Azure
	// connection string.
	KindAzureStorageKey = "azure-storage-key"
	// KindAzureSAS is the signature (sig=) of an Azure shared access
	// signature.
	KindAzureSAS = "azure-sas"
	// KindAzureClientSecret is an Azure AD (Entra) client secret
	// ("...8Q~...").
	KindAzureClientSecret = "azure-client-secret"
	// KindDatabricksToken is a Databricks personal access token (dapi).
	KindDatabricksToken = "databricks-token"
	// KindDigitalOceanToken is a DigitalOcean token (dop_v1_, doo_v1_,
	// dor_v1_).
	KindDigitalOceanToken = "digitalocean-token"
	// KindShopifyToken is a Shopify token (shpat_, shpca_, shppa_, shpss_).
	KindShopifyToken = "shopify-token"
	// KindMailgunKey is a Mailgun API key (key- and 32 hex digits).
	KindMailgunKey = "mailgun-key"
	// KindPyPIToken is a PyPI upload token (pypi-AgEIcHlwaS5vcmc...).
	KindPyPIToken = "pypi-token"
	// KindDockerToken is a Docker Hub access token (dckr_pat_, dckr_oat_).
	KindDockerToken = "docker-token"
	// KindAtlassianToken is an Atlassian API token (ATATT3, ATCTT3).
	KindAtlassianToken = "atlassian-token"
	// KindHerokuKey is a Heroku API key (HRKU-).
	KindHerokuKey = "heroku-key"
	// KindVaultToken is a HashiCorp Vault token (hvs., hvb., hvr.).
	KindVaultToken = "vault-token"
	// KindAgeSecretKey is an age secret key (AGE-SECRET-KEY-1...).
	KindAgeSecretKey = "age-secret-key"
	// KindTerraformToken is a Terraform Cloud token (....atlasv1....).
	KindTerraformToken = "terraform-token"
	// KindLinearKey is a Linear API key (lin_api_, lin_oauth_).
	KindLinearKey = "linear-key"
	// KindDopplerToken is a Doppler token (dp.st., dp.pt., dp.ct., dp.sa.).
	KindDopplerToken = "doppler-token"
	// KindPostmanKey is a Postman API key (PMAK-).
	KindPostmanKey = "postman-key"
	// KindSquareToken is a Square access token or secret (EAAA, sq0atp-,
	// sq0csp-).
	KindSquareToken = "square-token"
	// KindMailchimpKey is a Mailchimp API key (32 hex digits and -us12).
	KindMailchimpKey = "mailchimp-key"
	// KindTelegramBotToken is a Telegram bot token (digits:AA...).
	KindTelegramBotToken = "telegram-bot-token"
	// KindNewRelicKey is a New Relic user API key (NRAK-).
	KindNewRelicKey = "newrelic-key"
	// KindGrafanaToken is a Grafana service account or cloud token (glsa_,
	// glc_).
	KindGrafanaToken = "grafana-token"
	// KindSentryToken is a Sentry auth token (sntrys_, sntryu_).
	KindSentryToken = "sentry-token"
	// KindSupabaseToken is a Supabase access token (sbp_).
	KindSupabaseToken = "supabase-token"
	// KindPlanetScaleToken is a PlanetScale token or password (pscale_).
	KindPlanetScaleToken = "planetscale-token"
	// KindPulumiToken is a Pulumi access token (pul-).
	KindPulumiToken = "pulumi-token"
	// KindNotionToken is a Notion integration token (secret_, ntn_).
	KindNotionToken = "notion-token"
	// KindAirtableToken is an Airtable personal access token (pat...).
	KindAirtableToken = "airtable-token"
	// KindAlibabaKey is an Alibaba Cloud AccessKey id (LTAI).
	KindAlibabaKey = "alibaba-key"
	// KindDynatraceToken is a Dynatrace API token (dt0c01.).
	KindDynatraceToken = "dynatrace-token"
	// KindFigmaToken is a Figma personal access token (figd_).
	KindFigmaToken = "figma-token"
	// KindRubyGemsKey is a RubyGems API key (rubygems_).
	KindRubyGemsKey = "rubygems-key"
	// KindBuildkiteToken is a Buildkite API token (bkua_).
	KindBuildkiteToken = "buildkite-token"
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

// Excerpt is s redacted, then cut to max runes (with " [...]" after a
// cut): the form in which a model's or a person's text is quoted in an
// error or a log line. Redacting first keeps a cut from leaving half a
// secret the redactor no longer recognises.
func Excerpt(s string, max int) string {
	out, _ := String(s)
	r := []rune(out)
	if len(r) <= max {
		return out
	}
	return string(r[:max]) + " [...]"
}

// String returns normalize(s) with every recognised secret replaced by
// [Marker] of its kind, and what it replaced, sorted by Kind (nil when
// nothing was replaced). It is idempotent: String of its own output
// returns that output and no findings.
func String(s string) (string, []Finding) {
	mask := candidates(s)
	if mask == 0 {
		return s, nil // the fast path: nothing to normalise, nothing could match
	}
	var counts map[string]int
	if mask&tNorm != 0 {
		var joins []int
		s, joins = normalize(s)
		s = redactJoined(s, joins, &counts)
		if mask = candidates(s) &^ tNorm; mask == 0 {
			return s, findings(counts)
		}
	}
	return redact(s, mask, counts)
}

// redact runs the rules selected by mask, then repeats the scan and the
// rules on the result until nothing changes. The rules read the escape
// view of the text (see escapeView), so that a literal "\n" separates
// words; their replacements apply to the text itself.
func redact(s string, mask uint32, counts map[string]int) (string, []Finding) {
	for pass := 0; pass < maxPasses && mask != 0; pass++ {
		view := escapeView(s)
		changed := false
		for i := range rules {
			r := &rules[i]
			if mask&r.trigger == 0 {
				continue
			}
			v, o, n := r.apply(view, s, &counts)
			if n > 0 {
				view, s, changed = v, o, true
			}
		}
		if !changed {
			break
		}
		mask = candidates(s) &^ tNorm
	}
	return s, findings(counts)
}

// findings returns counts as findings sorted by kind, or nil.
func findings(counts map[string]int) []Finding {
	if len(counts) == 0 {
		return nil
	}
	fs := make([]Finding, 0, len(counts))
	for k, n := range counts {
		fs = append(fs, Finding{Kind: k, Count: n})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Kind < fs[j].Kind })
	return fs
}

// Trigger bits: a rule runs only when the cheap scan saw its trigger.
const (
	tNorm uint32 = 1 << iota // something for normalize to remove
	tPEM
	tToken
	tURL
	tConn
	tAuth
	tUserFlag
	tCLI
	tB64
	tKeyword
	tProse
)

// Byte classes for candidates.
const (
	cUD  uint8 = 1 << iota // a capital or a digit: may be inside a run of base64
	cHot                   // has a case in scan.at
)

// roles[c] holds the classes of the next byte after which c may start
// something; roleOf[n] the classes of n.
const (
	rAny   uint8 = 1 << iota // any byte
	rSolid                   // not a blank: "-u", ".atlasv1", "sk-x"
	rUpper                   // a capital or "~": "AK"IA, "SK", "EA"AA, "Q~"
	rE                       // e or E: "Be"arer
	rPW                      // a, w or i: "pa"ss, "pw"d, da"pi"
)

var roles, roleOf = func() (t, n [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		n[c] = rAny
		if !isSpace(b) {
			n[c] |= rSolid
		}
		if 'A' <= b && b <= 'Z' || b == '~' {
			n[c] |= rUpper
		}
		switch b {
		case 'e', 'E':
			n[c] |= rE
		case 'a', 'A', 'w', 'W', 'i':
			n[c] |= rPW
		}
		t[c] = rAny // by default, every hot byte is looked at
	}
	for _, c := range []byte("-.") {
		t[c] = rSolid
	}
	for _, c := range []byte("AEGLQS") {
		t[c] = rUpper
	}
	t['B'] = rE
	t['p'], t['P'] = rPW, rPW
	return t, n
}()

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if 'A' <= b && b <= 'Z' || isDigitByte(b) {
			t[c] |= cUD
		}
		if suspect[c] {
			t[c] |= cHot
		}
	}
	for _, c := range []byte("[-_.~:=pPABEGJLQS") {
		t[c] |= cHot
	}
	return t
}()

// minB64Run is the shortest run of base64 that can hold "user:pass";
// minRandomRun the shortest that can be a secret stated in prose.
const (
	minB64Run    = 12
	minRandomRun = 8
)

// candidates scans s once and reports which rules could possibly match,
// and whether s has anything for normalize to remove. It returns 0 for the
// common case of ordinary prose, and ignores markers left by an earlier
// pass. Only a few bytes are worth a look (looking at a byte costs a
// mispredicted branch, which is most of the cost of the scan): those that
// every token of a rule contains at a fixed place ("_" in "ghp_", "-" in
// "sk-", "J" in "eyJ", "A" in "AKIA", ":" in "://"), the separators of an
// assignment (the name before them is checked for a keyword), the "p" of
// the password keywords, "[" for markers, "B" for "Bearer", the control
// bytes and the lead bytes of invisible characters, and a capital or a
// digit inside a word: it may be part of a run of base64 long enough to
// be a credential (without one, base64 is ordinary prose). Only when there
// is such a run does candidates look for the words that may name it in
// prose ("token", "secret", "key", "bearer").
func candidates(s string) uint32 {
	sc := scan{s: s}
	for i := 0; i < len(s); i++ {
		k := class[s[i]]
		if k == 0 {
			continue
		}
		if k&cUD != 0 && i > 0 && i >= sc.looked && isB64Byte(s[i-1]) {
			sc.run(i)
		}
		if k&cHot == 0 {
			continue
		}
		// Cheap cases first: most hot bytes in prose end here.
		nx := byte(' ')
		if i+1 < len(s) {
			nx = s[i+1]
		}
		if roles[s[i]]&roleOf[nx] == 0 {
			continue
		}
		i = sc.at(i) - 1
	}
	if sc.random {
		sc.m |= secretWords(s)
	}
	return sc.m
}

// secretWords returns tProse when s has one of the words that name a
// secret in prose ("token", "secret", "api key", "access key") and tAuth
// when it has "bearer".
func secretWords(s string) uint32 {
	var m uint32
	for i := 0; i < len(s); i++ {
		if !secretWordBytes[s[i]] {
			continue
		}
		switch s[i] {
		case 'k', 'K':
			if i+1 < len(s) && s[i+1]|0x20 == 'e' && (i >= 2 && hasPrefixFold(s[i-2:], "token") || proseKeyAt(s, i)) {
				m |= tProse
			}
		case 'c', 'C':
			if i >= 2 && s[i-1]|0x20 == 'e' && hasPrefixFold(s[i-2:], "secret") {
				m |= tProse
			}
		case 'b', 'B':
			if i+1 < len(s) && s[i+1]|0x20 == 'e' && hasPrefixFold(s[i:], "bearer") {
				m |= tAuth
			}
		}
	}
	return m
}

// secretWordBytes are the bytes secretWords looks at.
var secretWordBytes = [256]bool{'k': true, 'K': true, 'c': true, 'C': true, 'b': true, 'B': true}

// scan is the state of candidates.
type scan struct {
	s      string
	m      uint32
	looked int  // runs of base64 before this offset have been looked at
	random bool // there is a run of base64 that may be a secret
}

// run looks at the run of base64 around offset i, whose byte s[i] is a
// capital or a digit and not its first.
func (sc *scan) run(i int) {
	s := sc.s
	st, en := i-1, i+1
	for st > 0 && isB64Byte(s[st-1]) {
		st--
	}
	for en < len(s) && isB64Byte(s[en]) {
		en++
	}
	sc.looked = en
	if !sc.random && en-st >= minRandomRun {
		// The run of letters and digits around s[i], without "/" or "+"
		// (a path such as deploy/k8s/rollout is not random).
		a, b := i, i+1
		for a > st && isAlnum(s[a-1]) {
			a--
		}
		for b < en && isAlnum(s[b]) {
			b++
		}
		sc.random = b-a >= minRandomRun
	}
	if en-st >= minB64Run {
		sc.m |= b64Trigger(s, st, en)
	}
}

// at looks at the byte at offset i, which has a case here, and returns
// the offset of the next byte to look at.
func (sc *scan) at(i int) int {
	s := sc.s
	c := s[i]
	if suspect[c] {
		if removableAt(s, i) > 0 {
			sc.m |= tNorm
		}
		return i + 1
	}
	if class[c]&cUD != 0 && i > 0 && i >= sc.looked && isB64Byte(s[i-1]) {
		sc.run(i)
	}
	nx := byte(' ')
	if i+1 < len(s) {
		nx = s[i+1]
	}
	m := sc.m
	switch c {
	case '[':
		if n := markerLen(s[i:]); n > 0 {
			i += n - 1
		}
	case '-':
		m |= dashCandidates(s, i)
	case '_':
		if tokenHeadBefore(s, i) {
			m |= tToken
		}
	case '.':
		if tokenHeadBefore(s, i) || strings.HasPrefix(s[i:], ".atlasv1.") ||
			i >= 17 && s[i-17:i-14] == "pat" {
			m |= tToken
		}
	case 'Q':
		if nx == '~' {
			m |= tToken
		}
	case 'A':
		if len(s)-i >= 4 {
			switch s[i : i+4] {
			case "AKIA", "ASIA", "ABIA", "ACCA", "AIza", "ATAT", "ATCT":
				m |= tToken
			}
		}
	case 'J':
		if i >= 2 && s[i-2] == 'e' && s[i-1] == 'y' {
			m |= tToken // eyJ
		}
	case 'G':
		if strings.HasPrefix(s[i:], "GR1348941") {
			m |= tToken
		}
	case 'S':
		if nx == 'K' && i+2 < len(s) && isHexByte(s[i+2]) {
			m |= tToken
		}
	case 'E':
		if strings.HasPrefix(s[i:], "EAAA") {
			m |= tToken
		}
	case 'L':
		if strings.HasPrefix(s[i:], "LTAI") {
			m |= tToken
		}
	case 'p', 'P':
		switch nx | 0x20 {
		case 'a':
			if hasPrefixFold(s[i:], "pass") {
				m |= tProse
			}
		case 'w':
			if hasPrefixFold(s[i:], "pwd") {
				m |= tProse
			}
		case 'i':
			if c == 'p' && i >= 2 && s[i-2] == 'd' && s[i-1] == 'a' {
				m |= tToken // dapi
			}
		}
	case 'B':
		if nx|0x20 == 'e' && hasPrefixFold(s[i:], "bearer") {
			m |= tAuth
		}
	case ':', '=':
		if c == ':' {
			if strings.HasPrefix(s[i:], "://") {
				m |= tURL
			}
			if nx == 'A' && strings.HasPrefix(s[i+1:], "AA") && i > 0 && isDigitByte(s[i-1]) {
				m |= tToken
			}
		}
		name := nameBefore(s, i)
		if hasSuffixFold(name, "authorization") {
			m |= tAuth
		}
		if k, _ := nextKeyword(name, 0); k >= 0 {
			m |= tKeyword
		}
		if c == '=' && isConnName(name) {
			m |= tConn
		}
	}
	sc.m = m
	return i + 1
}

// dashCandidates is the "-" case of candidates.
func dashCandidates(s string, i int) uint32 {
	var m uint32
	switch {
	case strings.HasPrefix(s[i:], "-BEGIN "):
		m |= tPEM
	case tokenHeadBefore(s, i):
		m |= tToken
	case strings.HasPrefix(s[i:], "-us") && i >= 32 && isLowerHex(s[i-1]):
		m |= tToken // Mailchimp
	}
	if i+1 < len(s) && (i == 0 || !isTokenByte(s[i-1])) {
		switch r := s[i+1:]; {
		case strings.HasPrefix(r, "u ") || strings.HasPrefix(r, "u\t") ||
			strings.HasPrefix(r, "-user ") || strings.HasPrefix(r, "-user="):
			m |= tUserFlag
		case strings.IndexByte("paPwU", r[0]) >= 0 || flagHasPass(r):
			m |= tCLI
		}
	}
	return m
}

// flagHasPass reports whether the option name at the start of r (after
// its first "-") contains "pass" ("-storepass", "--passwd").
func flagHasPass(r string) bool {
	e := 0
	for e < len(r) && e < 24 && (isLetter(r[e]) || r[e] == '-') {
		e++
	}
	return indexFold(r[:e], "pass") >= 0
}

// tokenHeadBefore reports whether the word before the separator at s[i]
// starts a provider prefix: "ghp" before "_", "sk" before "-". A literal
// "\n", "\t" or "\r" before the word does not belong to it.
func tokenHeadBefore(s string, i int) bool {
	k := i
	for k > 0 && i-k <= maxHeadLen && isAlnum(s[k-1]) {
		k--
	}
	if isTokenHead(s[k:i], s[i]) {
		return true
	}
	return k > 0 && s[k-1] == '\\' && k < i && (s[k] == 'n' || s[k] == 't' || s[k] == 'r') &&
		isTokenHead(s[k+1:i], s[i])
}

// proseKeyAt reports whether the "k" at s[i] starts the "key" of "api
// key", "apikey", "access key" or "secret key".
func proseKeyAt(s string, i int) bool {
	if !hasPrefixFold(s[i:], "key") {
		return false
	}
	b := s[:i]
	return hasSuffixFold(b, "api") || hasSuffixFold(b, "api ") || hasSuffixFold(b, "api-") ||
		hasSuffixFold(b, "access ") || hasSuffixFold(b, "secret ")
}

// b64Trigger reports tB64 when the run of base64 bytes s[start:end] could
// be a bare AWS secret key or base64 of "user:password": 40 bytes, or a
// whole number of base64 quanta (with its padding). candidates only asks
// about runs with a capital or a digit after their first byte.
func b64Trigger(s string, start, end int) uint32 {
	n := end - start
	pad := 0
	for pad < 2 && end+pad < len(s) && s[end+pad] == '=' {
		pad++
	}
	if n == awsSecretLen && pad == 0 {
		return tB64
	}
	if (n+pad)%4 != 0 {
		return 0
	}
	return tB64
}

// isConnName reports whether name, before "=", names a key or signature of
// an Azure connection string or SAS URL.
func isConnName(name string) bool {
	switch strings.ToLower(name) {
	case "accountkey", "sharedaccesskey", "sig", "sharedaccesssignature":
		return true
	}
	return false
}

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
	for k > 0 && e-k <= maxNameLen && isKeyChar(s[k-1]) {
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
	re *lazyRegexp
	// classify decides, for one match m of re (offsets into s), whether and
	// what to redact: the kind and the byte span [start, end) to replace.
	classify func(s string, m []int) (kind string, start, end int, ok bool)
	// fn finds the spans itself. It must emit them in increasing order.
	fn func(s string, emit func(kind string, start, end int))
}

// apply runs the rule on view (the escape view of orig, or orig itself)
// and returns both with the secrets it found replaced, and the number of
// replacements, adding them to *counts.
func (r *rule) apply(view, orig string, counts *map[string]int) (string, string, int) {
	same := view == orig
	var bv, bo strings.Builder
	last, n := 0, 0
	emit := func(kind string, start, end int) {
		if start < last || end <= start || end > len(view) {
			return
		}
		if n == 0 {
			bv.Grow(len(view))
			if !same {
				bo.Grow(len(orig))
			}
		}
		mk := Marker(kind)
		bv.WriteString(view[last:start])
		bv.WriteString(mk)
		if !same {
			bo.WriteString(orig[last:start])
			bo.WriteString(mk)
		}
		last = end
		n++
		if *counts == nil {
			*counts = make(map[string]int)
		}
		(*counts)[kind]++
	}
	if r.fn != nil {
		r.fn(view, emit)
	} else {
		r.find(view, emit)
	}
	if n == 0 {
		return view, orig, 0
	}
	bv.WriteString(view[last:])
	v := bv.String()
	if same {
		return v, v, n
	}
	bo.WriteString(orig[last:])
	return v, bo.String(), n
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

// anchored returns pattern, to match at the start of the text only.
func anchored(pattern string) *lazyRegexp { return lazy(`^(?:` + pattern + `)`) }

// lazyRegexp is a regular expression compiled on first use. cairn runs
// once per hook, and most runs redact nothing: compiling the hundred-odd
// expressions of the rules up front would cost more than the scan.
type lazyRegexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

func lazy(pattern string) *lazyRegexp { return &lazyRegexp{pattern: pattern} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (l *lazyRegexp) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}

// isWordByte reports whether c is [A-Za-z0-9_], the bytes of a \b word.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// isTokenByte reports whether c can be part of a dashed token: a word byte
// or "-". An "sk-" or "eyJ" glued to one is part of a longer word
// ("task-sk-list", "risk-").
func isTokenByte(c byte) bool { return isWordByte(c) || c == '-' }

func isHexByte(c byte) bool { return isDigitByte(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

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
	{trigger: tPEM, fn: privateKeys},
	{trigger: tToken, fn: tokens},
	{trigger: tURL, fn: urlPasswords},
	{trigger: tConn, fn: connStrings},
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
	{trigger: tCLI, fn: cliPasswords},
	{trigger: tB64, fn: bareBase64},
	{trigger: tKeyword, fn: assignments},
	{trigger: tProse, fn: prosePasswords},
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

// wideStopAt reports whether a non-ASCII blank or punctuation mark
// ("\u00a0", "«", "。", "\u3000") starts at s[i]: it ends a value or a
// word as an ASCII one would.
func wideStopAt(s string, i int) bool {
	if s[i] < 0x80 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
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
