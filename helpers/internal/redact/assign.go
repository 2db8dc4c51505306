package redact

import "strings"

// The generic assignment rule: NAME SEP VALUE where NAME contains a secret
// keyword, SEP is "=", ":", ":=" or "=>", and VALUE is quoted or a run of
// non-space characters.
//
// NAME: the keyword, any identifier characters before it ("DB_", "x-api-",
// "spring.datasource."), and after it only words that keep the meaning of a
// secret ("_KEY", "Secret", "_value", "_hash", "2"...). So "GITHUB_TOKEN",
// "client_secret", "apiKey" and "SECRET_KEY_BASE" are names of secrets, but
// "tokenizer", "max_tokens", "token_url", "PASSWORD_FILE" and "secretName"
// are not. "pass" and "pwd" only count inside a compound name ("DB_PASS",
// "dbPwd") or as SSHPASS, so "--- PASS: TestX" and "PWD=" survive.
//
// VALUE is redacted when it is at least minValueLen bytes long
// (minPasswordLen for the password keywords: "DB_PASSWORD=hunt3r") and is
// not a placeholder, an environment variable name, a word that describes
// rather than is a value (notValues: "true", "str", "stdin"), a code
// expression (a call, an index or a field, unless the value looks random;
// a variable after " = "), a path, or (unquoted, after ":") prose: a plain
// word followed by more words ("the secret: kubernetes secrets are
// base64"), or an ordinary English word ("password: required"; the word
// lists of prose.go).
//
// The keywords, in any case: password, passwd, passphrase, pass, pwd,
// secret, token, and api/access/auth/private/signing/encryption/master
// followed by key (optionally after "_" or "-").

// nextKeyword returns the first keyword at or after offset i, or -1.
func nextKeyword(s string, i int) (start, end int) {
	for ; i < len(s); i++ {
		if n := keywordAt(s[i:]); n > 0 {
			return i, i + n
		}
	}
	return -1, -1
}

// keywordAt returns the length of the keyword at the start of r, or 0.
func keywordAt(r string) int {
	if len(r) < 3 {
		return 0
	}
	switch r[0] | 0x20 {
	case 'p':
		switch {
		case hasPrefixFold(r, "password"):
			return 8
		case hasPrefixFold(r, "passphrase"):
			return 10
		case hasPrefixFold(r, "passwd"):
			return 6
		case hasPrefixFold(r, "pass"):
			return 4
		case hasPrefixFold(r, "pwd"):
			return 3
		case hasPrefixFold(r, "private"):
			return keySuffix(r, 7)
		}
	case 's':
		switch {
		case hasPrefixFold(r, "secret"):
			return 6
		case hasPrefixFold(r, "signing"):
			return keySuffix(r, 7)
		}
	case 't':
		if hasPrefixFold(r, "token") {
			return 5
		}
	case 'a':
		switch {
		case hasPrefixFold(r, "api"):
			return keySuffix(r, 3)
		case hasPrefixFold(r, "access"):
			return keySuffix(r, 6)
		case hasPrefixFold(r, "auth"):
			return keySuffix(r, 4)
		}
	case 'e':
		if hasPrefixFold(r, "encryption") {
			return keySuffix(r, 10)
		}
	case 'm':
		if hasPrefixFold(r, "master") {
			return keySuffix(r, 6)
		}
	}
	return 0
}

// keySuffix returns the length of r[:n] followed by "key", "_key" or
// "-key", or 0 when no such suffix follows.
func keySuffix(r string, n int) int {
	if n < len(r) && (r[n] == '_' || r[n] == '-') {
		n++
	}
	if hasPrefixFold(r[n:], "key") {
		return n + 3
	}
	return 0
}

// minValueLen is the shortest value the generic rule redacts, and
// minPasswordLen the shortest assigned to a password keyword (password,
// passwd, passphrase, pass, pwd): "DB_PASSWORD=hunt3r" is redacted, but
// "api_key: abc" and "max_token=1024" are not.
const (
	minValueLen    = 8
	minPasswordLen = 4
)

// isPasswordKeyword reports whether the keyword k is one of the password
// keywords.
func isPasswordKeyword(k string) bool {
	return hasPrefixFold(k, "pass") || hasPrefixFold(k, "pwd")
}

// notValues are values that say something about a secret rather than
// being one: booleans, types of a declaration ("password: str"), and the
// sources a tool reads a password from.
var notValues = words(`true false yes no on off null nil none undefined required optional
	str string bytes int bool boolean number any object char text varchar secretstr secretbytes
	stdin prompt ask env file struct interface uintptr func map chan byte rune error
	int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64
	files compat systemd nis nisplus sss winbind`)

// isIdentLike reports whether v can name a function or a variable of code:
// letters, digits, "_", "$" and ".".
func isIdentLike(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isWordByte(c) && c != '$' && c != '.' {
			return false
		}
	}
	return true
}

// closingEmphasis reports whether Markdown emphasis closes at s[p]: "**"
// or "__" and then a blank or the end ("**Password:** x", but not the
// "__" of "__ccgo_ts").
func closingEmphasis(s string, p int) bool {
	if !strings.HasPrefix(s[p:], "**") && !strings.HasPrefix(s[p:], "__") {
		return false
	}
	return p+2 == len(s) || s[p+2] == ' ' || s[p+2] == '\t'
}

// looksRandom reports whether v looks like generated text rather than a
// name: eight or more letters and digits only, with upper case, lower case
// and digits, switching between letters and digits at least three times
// ("Zx9kQ7wLp2" but not "getPassword2" or "libc.Uint8FromInt32").
func looksRandom(v string) bool {
	v = strings.TrimRight(v, "=") // base64 padding
	if len(v) < 8 || !hasUpper(v) || !hasLower(v) || !hasDigit(v) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) {
			return false
		}
	}
	switches := 0
	for i := 1; i < len(v); i++ {
		if isDigitByte(v[i]) != isDigitByte(v[i-1]) && isAlnum(v[i]) && isAlnum(v[i-1]) {
			switches++
		}
	}
	return switches >= 3
}

// isIPv6 reports whether v is an IPv6 address or suffix: hex digits and
// two or more colons ("::1a:2b:3c:4d").
func isIPv6(v string) bool {
	if strings.Count(v, ":") < 2 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isHexByte(v[i]) && v[i] != ':' {
			return false
		}
	}
	return true
}

// isNumber reports whether v is digits only.
func isNumber(v string) bool { return v != "" && strings.Trim(v, "0123456789") == "" }

// isCodeVariable reports whether the unquoted value v at p is a variable
// of code rather than a literal: the separator has blanks around it
// ("password = new_password", "token := authToken"), and v is an
// identifier without digits that has an underscore or a lower-to-upper
// hump; or, blanks or not, v is an identifier with an underscore or a
// capital that names a secret itself ("original_token=alias_token",
// "Fts5Token = TFts5Token").
func isCodeVariable(s string, p int, v string) bool {
	if k, _ := nextKeyword(v, 0); k >= 0 && strings.IndexFunc(v, func(r rune) bool {
		return r >= 0x80 || !isWordByte(byte(r))
	}) < 0 && strings.ContainsAny(v, "_ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return true // "original_token=alias_token", "Fts5Token = TFts5Token"
	}
	if p == 0 || s[p-1] != ' ' && s[p-1] != '\t' {
		return false
	}
	under, hump := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '_':
			under = true
		case isLetter(c):
			if i > 0 && 'A' <= c && c <= 'Z' && 'a' <= v[i-1] && v[i-1] <= 'z' {
				hump = true
			}
		default:
			return false
		}
	}
	return under || hump
}

// sshpassName reports whether the keyword "pass" at s[ks:ke] ends the
// name SSHPASS (the variable sshpass -e reads).
func sshpassName(s string, ks, ke int) bool {
	return ks >= 3 && hasPrefixFold(s[ks-3:], "sshpass") && (ke == len(s) || !isKeyChar(s[ke])) &&
		(ks == 3 || !isKeyChar(s[ks-4]))
}

// maxNameLen is the longest name the generic rule considers; a longer run
// of name characters is not a variable name.
const maxNameLen = 256

// tailWords may follow the keyword inside a secret's name.
var tailWords = map[string]bool{
	"key": true, "keys": true, "base": true, "value": true, "val": true, "hash": true, "hashed": true,
	"secret": true, "token": true, "str": true, "string": true, "b64": true, "base64": true,
	"enc": true, "encoded": true, "plain": true, "plaintext": true, "raw": true,
	"confirm": true, "confirmation": true, "prod": true, "production": true,
	"dev": true, "staging": true, "live": true,
}

func isKeyChar(c byte) bool { return isAlnum(c) || c == '_' || c == '.' || c == '-' }

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// isValueStop ends an unquoted value.
func isValueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '`', ',', ';', '&', '|', '<', '>', '(', ')', '[', ']', '{', '}', '\\':
		return true
	}
	return false
}

// assignments finds NAME SEP VALUE assignments of secrets in s.
func assignments(s string, emit func(kind string, start, end int)) {
	next := 0 // keyword matches before this offset are inside a name already handled
	runStart, runEnd := 0, 0
	for ks, ke := nextKeyword(s, 0); ks >= 0; ks, ke = nextKeyword(s, ke) {
		if ks < next {
			continue
		}
		if ke-ks <= 4 && !compound(s, ks) && !sshpassName(s, ks, ke) { // "pass" or "pwd" alone
			continue
		}
		if ks >= runEnd { // a new run of name characters
			runStart, runEnd = ks, ke
			for runStart > 0 && isKeyChar(s[runStart-1]) {
				runStart--
			}
			for runEnd < len(s) && isKeyChar(s[runEnd]) {
				runEnd++
			}
		}
		nameStart, nameEnd := runStart, runEnd
		if nameEnd-nameStart > maxNameLen {
			next = nameEnd // not a name; keeps the scan linear
			continue
		}
		if !secretTail(s[ke:nameEnd]) {
			continue // "tokenizer", "token_url": a later keyword in the same name may still qualify
		}
		next = nameEnd
		p := nameEnd
		// Closing quote of a quoted name, possibly escaped (JSON in a string).
		if p+1 < len(s) && s[p] == '\\' && isQuote(s[p+1]) {
			p += 2
		} else if p < len(s) && isQuote(s[p]) {
			p++
		}
		p = skipBlanks(s, p)
		colon := false
		switch {
		case strings.HasPrefix(s[p:], ":="), strings.HasPrefix(s[p:], "=>"):
			p += 2
		case strings.HasPrefix(s[p:], "=="), strings.HasPrefix(s[p:], "=~"), strings.HasPrefix(s[p:], "::"):
			continue // comparison, match, scope: not an assignment
		case p < len(s) && s[p] == '=':
			p++
		case p < len(s) && s[p] == ':':
			p++
			colon = true
		default:
			continue
		}
		sepEnd := p
		p = skipBlanks(s, p)
		// Markdown emphasis around the name: "**Password:** ..."
		if closingEmphasis(s, p) {
			p = skipBlanks(s, p+2)
		}
		vs, ve, quoted := value(s, p)
		v := s[vs:ve]
		min := minValueLen
		if isPasswordKeyword(s[ks:ke]) && !isNumber(v) {
			min = minPasswordLen // a short number is an error code or a port
		}
		if ve-vs < min || !quoted && strings.HasPrefix(v, "-") && isNumber(v[1:]) ||
			strings.Contains(v, ".") && isNumber(strings.ReplaceAll(v, ".", "")) || isIPv6(v) {
			continue // negative numbers, versions, OIDs and IP addresses are not secrets
		}
		if colon && !quoted && vs == sepEnd && len(v) < minValueLen && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz") == "" {
			continue // "passwd:shell": a short word glued to the colon is a field name
		}
		if isPlaceholder(v) || isEnvName(v) || isPathLike(v) || notValues()[strings.ToLower(v)] {
			continue
		}
		if !quoted {
			if (ve < len(s) && (s[ve] == '(' || s[ve] == '[') && isIdentLike(v) || isDottedIdent(v)) && !looksRandom(v) {
				continue // a call, an index or a field: code, not a literal
			}
			if isCodeVariable(s, p, v) {
				continue
			}
			if colon && isProseWord(v) && (followedByWord(s, ve) || proseStopWords()[strings.ToLower(v)] ||
				hasProseSuffix(strings.ToLower(v))) {
				continue // "password: configured elsewhere", "password: required"
			}
		}
		next = ve
		kind := KindGenericAssignment
		if len(v) == 40 && isAWSSecretName(s[nameStart:nameEnd]) && isBase64Std(v) {
			kind = KindAWSSecretKey
		}
		emit(kind, vs, ve)
	}
}

// compound reports whether the keyword at ks is glued to a previous word of
// the same name: "DB_PASS", "redis.pwd", "dbPass".
func compound(s string, ks int) bool {
	if ks == 0 {
		return false
	}
	c := s[ks-1]
	if c == '_' || c == '.' || c == '-' {
		return ks >= 2 && isAlnum(s[ks-2])
	}
	return 'a' <= c && c <= 'z' && 'A' <= s[ks] && s[ks] <= 'Z'
}

// secretTail reports whether the rest of a name after its keyword keeps it
// the name of a secret: empty, or only words from tailWords and numbers,
// separated by "_", ".", "-" or camel case.
func secretTail(t string) bool {
	i := 0
	for i < len(t) {
		c := t[i]
		if c == '_' || c == '.' || c == '-' {
			i++
			continue
		}
		j := i + 1
		switch {
		case isDigitByte(c):
			for j < len(t) && isDigitByte(t[j]) {
				j++
			}
		default:
			// A word: an optional capital then lower case, or all capitals.
			if 'A' <= c && c <= 'Z' && j < len(t) && 'A' <= t[j] && t[j] <= 'Z' {
				for j < len(t) && 'A' <= t[j] && t[j] <= 'Z' {
					j++
				}
			} else {
				for j < len(t) && 'a' <= t[j] && t[j] <= 'z' {
					j++
				}
			}
			// Letters followed by digits ("b64") stay one word.
			for j < len(t) && isDigitByte(t[j]) {
				j++
			}
			if !tailWords[strings.ToLower(t[i:j])] {
				return false
			}
		}
		i = j
	}
	return true
}

func skipBlanks(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

// value parses the value starting at p: a quoted string on one line
// ('...', "...", `...`, or \"...\" inside an escaped string), else a run of
// characters up to a stop character, without a final sentence period.
func value(s string, p int) (start, end int, quoted bool) {
	if p >= len(s) {
		return p, p, false
	}
	escaped := false
	q := s[p]
	open := -1
	if q == '\\' && p+1 < len(s) && isQuote(s[p+1]) {
		escaped, q, open = true, s[p+1], p+2
	} else if isQuote(q) {
		open = p + 1
	}
	if open >= 0 {
		for i := open; i < len(s); i++ {
			c := s[i]
			if c == '\n' || c == '\r' {
				break
			}
			if c == '\\' {
				if escaped && i+1 < len(s) && s[i+1] == q {
					return open, i, true
				}
				i++
				continue
			}
			if c == q && !escaped {
				return open, i, true
			}
		}
		p = open // unterminated: read it as an unquoted value
	}
	e := p
	for e < len(s) && !isValueStop(s[e]) && !wideStopAt(s, e) {
		e++
	}
	for e > p && s[e-1] == '.' {
		e--
	}
	return p, e, false
}

// placeholderWords are values that stand for a secret without being one
// (compared in lower case with "-", "_", "." and spaces removed).
var placeholderWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true,
	"apikey": true, "key": true, "changeme": true, "changeit": true, "placeholder": true,
	"example": true, "redacted": true, "dummy": true, "none": true, "null": true, "nil": true,
	"undefined": true, "empty": true, "todo": true, "tbd": true, "required": true, "hidden": true,
	"masked": true, "notasecret": true, "value": true, "string": true, "secretvalue": true,
}

// isPlaceholder reports whether v stands for a secret rather than being one:
// "<...>", "${VAR}", "$VAR", "$(cmd)", "{{ x }}", "{x}", "%s", "%(name)s",
// an existing marker, a masked value ("xxxxxxxx", "****"), or a
// placeholder word ("changeme", "your-api-key-here", "example-token").
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '<', '{':
		return true
	case '$':
		return len(v) > 1 && (v[1] == '{' || v[1] == '(' || v[1] == '_' || isLetter(v[1]))
	case '%':
		return len(v) > 1 && (v[1] == '(' || isLetter(v[1]))
	}
	if strings.HasPrefix(v, markerPrefix) || strings.HasPrefix(v, "[REDACTED]") {
		return true
	}
	masked := true
	for _, r := range v {
		if !strings.ContainsRune("xX*#•.-_ ", r) {
			masked = false
			break
		}
	}
	if masked {
		return true
	}
	n := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.', ' ':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, v)
	if placeholderWords[n] {
		return true
	}
	for _, p := range []string{"your", "example", "dummy", "fake", "sample", "placeholder", "changeme", "redacted", "insert", "replace"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return strings.HasSuffix(n, "here")
}

// isEnvName reports whether v is an environment variable name such as
// GITHUB_TOKEN: capitals and digits with at least one underscore.
func isEnvName(v string) bool {
	if v == "" || !('A' <= v[0] && v[0] <= 'Z') || !strings.Contains(v, "_") {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('A' <= c && c <= 'Z' || isDigitByte(c) || c == '_') {
			return false
		}
	}
	return true
}

// isDottedIdent reports whether v is a field path such as cfg.Password,
// process.env.TOKEN or db.example.com: two or more dot-separated parts of
// letters and underscores only.
func isDottedIdent(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !isLetter(p[i]) && p[i] != '_' {
				return false
			}
		}
	}
	return true
}

// isPathLike reports whether v is a file path ("/run/secrets/db",
// "~/.aws/credentials", "./token.txt") rather than base64 that happens to
// start with a slash: path characters only, and no random-looking part.
func isPathLike(v string) bool {
	if !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../")) {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isAlnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~') {
			return false
		}
	}
	for _, p := range strings.Split(v, "/") {
		if len(p) >= 12 && hasUpper(p) && hasLower(p) && hasDigit(p) {
			return false
		}
	}
	return true
}

// isProseWord reports whether v is an ordinary word: letters, with single
// inner hyphens or apostrophes.
func isProseWord(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if isLetter(c) {
			continue
		}
		if (c == '-' || c == '\'') && i > 0 && i+1 < len(v) && isLetter(v[i-1]) && isLetter(v[i+1]) {
			continue
		}
		return false
	}
	return true
}

// followedByWord reports whether blanks and then a letter follow offset e.
func followedByWord(s string, e int) bool {
	p := skipBlanks(s, e)
	return p > e && p < len(s) && isLetter(s[p])
}

// isAWSSecretName reports whether name is the name of an AWS secret access
// key (aws_secret_access_key, AWS_SECRET_KEY, secretAccessKey...).
func isAWSSecretName(name string) bool {
	n := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, name)
	return strings.Contains(n, "secretaccesskey") || strings.Contains(n, "awssecretkey")
}

func isBase64Std(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isAlnum(c) || c == '+' || c == '/') {
			return false
		}
	}
	return true
}
