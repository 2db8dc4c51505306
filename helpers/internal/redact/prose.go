package redact

import (
	"strings"
	"sync"
)

// Passwords and secrets stated in prose.
//
// The rule: a keyword, then a connector, then the value.
//
// Keywords (any case, as a word or at the end of a name such as DB_PASSWORD
// or dbPassword): password, passwd, passphrase, passcode, pwd (the password
// family, kind prose-password), and token, secret, apikey, "api key",
// "api-key", "access key" (the secret family, kind prose-secret). Between
// the keyword and the connector there may be a qualifier of up to six
// words that starts with for, of, on, in or to ("the password for the
// staging db is ...").
//
// Connectors: ":" after a qualifier, "is", "was", "are", "were", "has been", "had
// been", optionally followed by an adverb (now, still, currently, ...) and
// by "set to", "changed to", "reset to", "updated to"; or "set to",
// "changed to", "reset to", "updated to", "rotated to" right after the
// keyword; or "to" when a verb (set, change, reset, update) comes just
// before the keyword ("set the root password to ..."); or nothing when the
// value is quoted and does not read as a word ("password 'hunter2'"), or
// is bare, and reads as a credential (see isDirectValue: "password
// Adm1nPw!").
//
// The value is a quoted string, or the next word without its trailing
// punctuation. A quoted value is a secret unless it is a placeholder. A
// bare value of the password family is a secret when it is at least four
// characters long and is not:
//
//   - a placeholder, a variable reference, a path, a URL, or a marker;
//   - an ordinary English word: one of the function words, adverbs,
//     adjectives and irregular participles in proseStopWords ("required",
//     "stored", "the", "at", "too", "kept", "case"), or a word of letters
//     with an inner hyphen or apostrophe ("case-sensitive"), or a word
//     ending like an adjective, participle or noun of state ("-ed",
//     "-ing", "-ly", "-able", "-ible", "-tion", "-sion", "-ment", "-ness",
//     "-ful", "-less", "-ous", "-ive", "-ent", "-ant", "-ary", "-ity");
//   - a technical word such as base64, sha256, md5 or utf-8, a version
//     number, or a number of fewer than four digits;
//   - followed by a word that makes it a description: a participle or
//     "-able" word ("base64 encoded", "user configurable"), or a unit
//     ("12345 characters"); after ":", an all-letter value followed by
//     more words is prose too ("password: configured elsewhere in prod").
//
// So "password is required", "the password reset flow sends an email",
// "password is stored in vault" and "password must be at least 12
// characters" are kept, while "password is hunter2", "the password was
// Tr0ub4dor", "pwd is swordfish" and "the password for prod: admin" are
// redacted ("password: admin" right after the keyword is an assignment,
// see assign.go, which uses the same word lists). A
// bare value of the secret family must also hold a letter and a digit and
// be at least eight characters long ("the token is expired" is kept; "the
// API key is 9f8e7d6c5b4a3210" is not).

// proseFamily tells the password keywords from the secret keywords.
type proseFamily int

const (
	famPassword proseFamily = iota + 1
	famSecret
)

// proseKeywordAt returns the family and length of the keyword at s[i], or
// 0.
func proseKeywordAt(s string, i int) (proseFamily, int) {
	r := s[i:]
	if len(r) < 3 {
		return 0, 0
	}
	switch r[0] | 0x20 {
	case 'p':
		for _, k := range []string{"password", "passwd", "passphrase", "passcode", "pwd"} {
			if hasPrefixFold(r, k) {
				return famPassword, len(k)
			}
		}
	case 't':
		if hasPrefixFold(r, "token") {
			return famSecret, 5
		}
	case 's':
		if hasPrefixFold(r, "secret") {
			return famSecret, 6
		}
	case 'a':
		for _, k := range []string{"apikey", "api key", "api-key", "access key"} {
			if hasPrefixFold(r, k) {
				return famSecret, len(k)
			}
		}
	}
	return 0, 0
}

// prosePasswords finds passwords and secrets stated in prose (see above).
func prosePasswords(s string, emit func(kind string, start, end int)) {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c != 'p' && c != 't' && c != 's' && c != 'a' {
			continue
		}
		if i > 0 && !keywordMayStart(s, i) {
			continue
		}
		fam, n := proseKeywordAt(s, i)
		if fam == 0 {
			continue
		}
		end := i + n
		if end < len(s) && isAlnum(s[end]) {
			continue // "passwords", "tokenizer", "secretName"
		}
		vs, ve, ok := proseValue(s, i, end, fam)
		if !ok {
			continue
		}
		kind := KindProsePassword
		if fam == famSecret {
			kind = KindProseSecret
		}
		emit(kind, vs, ve)
		i = ve - 1
	}
}

// keywordMayStart reports whether a keyword may start at s[i] (i > 0): at
// the start of a word, after "_", "." or "-" inside a name, or at a
// capital after a lower-case letter (dbPassword).
func keywordMayStart(s string, i int) bool {
	p := s[i-1]
	switch {
	case !isAlnum(p):
		return true
	case 'a' <= p && p <= 'z' && 'A' <= s[i] && s[i] <= 'Z':
		return true
	}
	return false
}

// proseValue parses the connector and the value after the keyword that
// ends at end, and decides whether the value is a secret.
func proseValue(s string, ks, end int, fam proseFamily) (vs, ve int, ok bool) {
	p := skipBlanks(s, end)
	connected, colon := false, false
	// A direct quoted value: "password 'hunter2'". It must read as a
	// credential (see isDirectValue), not as words or code in quotes
	// (troff's `.BR passwd " and " chsh`).
	if p > end && p < len(s) && isQuote(s[p]) {
		vs, ve, quoted := proseWord(s, p)
		if quoted && isDirectValue(s[vs:ve], fam) && isSecretValue(s, vs, ve, true, false, fam) {
			return vs, ve, true
		}
	}
	// A direct bare value that cannot be a word: "login as admin, password
	// Adm1nPw!", "API key 9f8E7d6C5b4A3210abcd". One blank only: more is
	// the columns of a table ("passwd    1:4.13+dfsg1").
	if p == end+1 && p < len(s) && !isQuote(s[p]) {
		vs, ve, _ := proseWord(s, p)
		if v := s[vs:ve]; ve > vs && isDirectValue(v, fam) && isSecretValue(s, vs, ve, false, false, fam) {
			return vs, ve, true
		}
	}
	// "password: ..." and "password = ..." right after the keyword are
	// assignments, left to that rule.
	{
		w, q := wordAt(s, p)
		switch lw := strings.ToLower(w); lw {
		case "for", "of", "on", "in", "to":
			if lw == "to" && verbBefore(s, ks) {
				connected, p = true, q
				break
			}
			// A qualifier: up to six words, then a connector.
			p = q
			for n := 0; n < 6 && !connected; n++ {
				p = skipBlanks(s, p)
				if p < len(s) && s[p] == ':' {
					connected, colon = true, true
					p++
					break
				}
				w, q = wordAt(s, p)
				if w == "" {
					break
				}
				if isConnectorVerb(w) {
					p = connectorRest(s, q)
					connected = true
					break
				}
				p = q
			}
		default:
			if isConnectorVerb(w) {
				p = connectorRest(s, q)
				connected = true
			} else if toVerbs[lw] {
				if w2, q2 := wordAt(s, skipBlanks(s, q)); strings.EqualFold(w2, "to") {
					p, connected = q2, true
				}
			}
		}
	}
	if !connected {
		return 0, 0, false
	}
	p = skipBlanks(s, p)
	if p < len(s) && s[p] == ':' { // "is: hunter2"
		p = skipBlanks(s, p+1)
	}
	if closingEmphasis(s, p) {
		p = skipBlanks(s, p+2) // "**Password:** hunter2"
	}
	vs, ve, quoted := proseWord(s, p)
	if ve <= vs || !isSecretValue(s, vs, ve, quoted, colon, fam) {
		return 0, 0, false
	}
	return vs, ve, true
}

// isDirectValue reports whether v, right after a keyword with no
// connector, reads as a credential rather than a word, an option or code:
// for a password, six or more characters without blanks, with a letter
// and a digit; for a secret, sixteen or more with upper case, lower case
// and digits.
func isDirectValue(v string, fam proseFamily) bool {
	if strings.ContainsAny(v, " \t") || strings.HasPrefix(v, "-") {
		return false // words in quotes, or an option: "password --basic"
	}
	if fam == famSecret {
		return len(v) >= 16 && hasUpper(v) && hasLower(v) && hasDigit(v)
	}
	if len(v) < 6 || !hasLetter(v) || !hasDigit(v) || strings.ContainsAny(v, "()[]{}=<>") {
		return false // a word, a marker, or code: "password VARCHAR(255)"
	}
	if isDigitByte(v[0]) && strings.ContainsAny(v, ".:") {
		return false // a version: "passwd 1:4.13+dfsg1-1"
	}
	return true
}

// isConnectorVerb reports whether w links a keyword to its value.
func isConnectorVerb(w string) bool {
	switch strings.ToLower(w) {
	case "is", "was", "are", "were", "has", "had", "have", "becomes", "became":
		return true
	}
	return false
}

// toVerbs may come between a keyword and "to": "password changed to X".
var toVerbs = map[string]bool{"set": true, "changed": true, "reset": true, "updated": true, "rotated": true}

// connectorRest skips what may follow a connector verb before the value:
// "been", adverbs, and "set to" / "changed to".
func connectorRest(s string, p int) int {
	for n := 0; n < 4; n++ {
		q := skipBlanks(s, p)
		w, r := wordAt(s, q)
		lw := strings.ToLower(w)
		switch {
		case lw == "been" || connectorAdverbs[lw]:
			p = r
		case toVerbs[lw]:
			w2, r2 := wordAt(s, skipBlanks(s, r))
			if !strings.EqualFold(w2, "to") && !strings.EqualFold(w2, "as") {
				return p
			}
			p = r2
		default:
			return p
		}
	}
	return p
}

// connectorAdverbs may follow "is": "the password is now hunter2".
var connectorAdverbs = map[string]bool{
	"now": true, "still": true, "currently": true, "actually": true, "literally": true,
	"just": true, "simply": true, "temporarily": true, "again": true, "apparently": true,
}

// verbBefore reports whether one of the three words before the keyword at
// ks is set, change, reset or update ("set the root password to X").
func verbBefore(s string, ks int) bool {
	p := ks
	for n := 0; n < 3; n++ {
		for p > 0 && (s[p-1] == ' ' || s[p-1] == '\t') {
			p--
		}
		e := p
		for p > 0 && isLetter(s[p-1]) {
			p--
		}
		if p == e {
			return false
		}
		switch strings.ToLower(s[p:e]) {
		case "set", "change", "changed", "reset", "update", "updated", "sets", "changes":
			return true
		}
	}
	return false
}

// wordAt returns the run of letters at p and the offset after it.
func wordAt(s string, p int) (string, int) {
	e := p
	for e < len(s) && isLetter(s[e]) {
		e++
	}
	if e < len(s) && isAlnum(s[e]) {
		return "", p // not a plain word
	}
	return s[p:e], e
}

// proseWord returns the value at p: the inside of a quoted string on one
// line, or the next word without its trailing punctuation.
func proseWord(s string, p int) (start, end int, quoted bool) {
	if p >= len(s) {
		return p, p, false
	}
	if q := s[p]; isQuote(q) {
		for j := p + 1; j < len(s) && j-p < 256; j++ {
			if s[j] == '\n' || s[j] == '\r' {
				break
			}
			if s[j] == q {
				return p + 1, j, true
			}
		}
		return p, p, false
	}
	if s[p] == '(' {
		p++
	}
	e := p
	for e < len(s) && !isSpace(s[e]) && s[e] != '\\' && !wideStopAt(s, e) {
		e++
	}
	for e > p && strings.IndexByte(".,;:!?)]}'\"`", s[e-1]) >= 0 && !strings.HasPrefix(s[p:e], markerPrefix) {
		e--
	}
	return p, e, false
}

// isSecretValue decides whether the value s[vs:ve] is a secret (see the
// rule at the top of this file).
func isSecretValue(s string, vs, ve int, quoted, colon bool, fam proseFamily) bool {
	v := s[vs:ve]
	if strings.HasPrefix(v, markerPrefix) || strings.Contains(v, "://") || isPlaceholder(v) || isEnvName(v) || isPathLike(v) {
		return false
	}
	if quoted {
		if fam == famSecret {
			return len(v) >= 8
		}
		return len(v) >= 3
	}
	lower := strings.ToLower(v)
	if fam == famSecret {
		return len(v) >= 8 && hasDigit(v) && hasLetter(v) && !techWords()[lower] && !isVersion(v) && !isProseFollower(s, ve)
	}
	if len(v) < 4 || proseStopWords()[lower] || techWords()[lower] || isVersion(v) {
		return false
	}
	if isProseWord(v) {
		if strings.ContainsAny(v, "-'") || hasProseSuffix(lower) || isProseFollower(s, ve) {
			return false
		}
		if colon && followedByWord(s, ve) && lower == v {
			return false // "password: configured elsewhere"
		}
		return true
	}
	if strings.Trim(v, "0123456789") == "" && isProseFollower(s, ve) {
		return false // "12345 characters"
	}
	if strings.HasSuffix(v, "+") && strings.Trim(v, "0123456789+") == "" {
		return false // "8+ chars"
	}
	return looksRandom(v) || !isProseFollower(s, ve)
}

// isVersion reports whether v is a version number: "1.2.3", "v2", "v1.0".
func isVersion(v string) bool {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "v"), "V")
	if v == "" || !isDigitByte(v[0]) {
		return false
	}
	return strings.Trim(v, "0123456789.") == "" && strings.Contains(v, ".") || strings.Trim(v, "0123456789") == "" && len(v) < 4
}

// isProseFollower reports whether the word after offset e makes the value
// before it a description: a participle, an "-able" word, or a unit, in
// lower case.
func isProseFollower(s string, e int) bool {
	p := skipBlanks(s, e)
	if p == e {
		return false
	}
	w, _ := wordAt(s, p)
	if strings.ToLower(w) != w {
		return false // a name or an acronym, not a description
	}
	if len(w) >= 5 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "able") || strings.HasSuffix(w, "ible")) {
		return true
	}
	return proseFollowers()[w]
}

var proseFollowers = words(`only specific wide based level scoped dependent sensitive insensitive
	format formatted characters character chars char letters digits symbols long min minimum max maximum
	days hours minutes seconds times bytes bits encoding hash hashes string strings`)

// hasProseSuffix reports whether the word w (lower case, letters) ends
// like an adjective, a participle or a noun of state.
func hasProseSuffix(w string) bool {
	if len(w) == 4 && strings.HasSuffix(w, "ed") {
		return true // "used", "owed"
	}
	if len(w) < 5 {
		return false
	}
	for _, suf := range []string{"ed", "ing", "ly", "able", "ible", "tion", "sion", "ment", "ness", "ful",
		"less", "ous", "ive", "ent", "ant", "ary", "ity"} {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// proseStopWords are ordinary English words that follow "password is" in
// prose: function words, adverbs, common adjectives and irregular
// participles.
var proseStopWords = words(`
	a an the this that these those it its it's my your our their his her them they we you me us
	is was are were be been being am not no never none nothing something anything everything whatever
	in on at by for from with without within into onto of off out over under via per as than then
	there here where when what which who whom whose why how and or but nor so yet also too very quite
	rather just only still already always usually often sometimes now currently all any each every
	both either neither some many much more most less least few several same other another different
	required optional mandatory needed necessary missing present absent empty blank null nil unset set
	reset valid invalid correct incorrect right wrong fine good bad weak strong long short
	secure insecure safe unsafe new old current previous next last first default initial temporary
	permanent static dynamic random unique shared common global local internal external personal
	hidden visible known unknown available unavailable enabled disabled active inactive expired stale
	fresh kept held saved sent given shown written read made done taken stolen chosen found built lost
	left got gotten seen led meant bound brought bought caught taught thought told sold won broken
	forgotten frozen drawn grown thrown torn worn begun hung stuck struck spent split cut shut hit let
	put run paid laid said ridden driven bitten eaten fallen proven plain clear plaintext cleartext case
	enough about above below after before during until since while because though although like unlike
	such hard easy simple complex complicated auto manual gone mine yours ours theirs please ignored
	one two three four five six seven eight nine ten twelve twenty characters chars letters digits
	literal literally part same identical mandatory irrelevant useless correctly exactly unchanged
	stored managed generated rotated hashed salted encrypted encoded configured handled
	true false yes off none undefined tbd todo unknown asked prompted supplied provided passed
	sso ldap oauth saml otp totp mfa 2fa user username login email account
	older newer longer shorter weaker stronger better worse bigger smaller higher lower later earlier
	oldest newest longest shortest weakest strongest best worst
	similar equal close alike separate distinct tied linked`)

// techWords look like passwords (they have digits) but are names of
// encodings, hashes and tools.
var techWords = words(`base64 base32 base58 hex sha1 sha256 sha384 sha512 sha-256 sha-1 md5 bcrypt argon2
	argon2id argon2i scrypt pbkdf2 pbkdf2-sha256 utf8 utf-8 ascii aes aes256 aes-256 aes128 rsa rsa2048 rsa4096
	ed25519 x509 1password lastpass keepass keepassxc bitwarden vault kms ssm gpg pgp 2fa totp`)

// words returns a function that returns the set of the words of list,
// built on first use.
func words(list string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
		return m
	})
}
