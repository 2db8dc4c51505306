package redact

import (
	"encoding/base64"
	"strings"
)

// awsSecretLen is the length of an AWS secret access key: base64 of 30
// bytes.
const awsSecretLen = 40

// bareBase64 finds two kinds of credentials that have no name or prefix
// in front of them: a 40-character AWS secret access key, and base64 that
// decodes to "user:password" (the payload of HTTP Basic authentication,
// or the "auth" of a Docker config). It looks at whole runs of base64
// bytes only, not at parts of longer words, URLs or data URIs.
func bareBase64(s string, emit func(kind string, start, end int)) {
	for i := 0; i < len(s); {
		if !isB64Byte(s[i]) {
			i++
			continue
		}
		start := i
		for i < len(s) && isB64Byte(s[i]) {
			i++
		}
		end := i
		pad := end
		for pad < len(s) && pad-end < 2 && s[pad] == '=' {
			pad++
		}
		if !standsAlone(s, start, pad) {
			continue
		}
		w := s[start:end]
		switch {
		case len(w) == awsSecretLen && pad == end && looksLikeAWSSecret(w) && !strings.Contains(w, "EXAMPLE"):
			emit(KindAWSSecretKey, start, end)
		case pad-start >= minB64Run && (pad-start)%4 == 0 && isUserPass(s[start:pad]):
			emit(KindBasicAuth, start, pad)
		}
		i = pad
	}
}

func isB64Byte(c byte) bool { return isAlnum(c) || c == '+' || c == '/' }

// standsAlone reports whether s[start:end] is a whole word: not glued to
// token characters, not the payload of a data URI or part of a path or
// URL, and followed by a separator (a sentence period counts as one).
func standsAlone(s string, start, end int) bool {
	if start > 0 {
		c := s[start-1]
		if isTokenByte(c) || c == '.' || c == '=' || c == '%' || c == '\\' && start >= 2 && s[start-2] == '\\' {
			return false
		}
		if c == ',' && strings.HasSuffix(s[:start-1], ";base64") {
			return false
		}
	}
	if end < len(s) {
		c := s[end]
		if isTokenByte(c) || c == '=' || c == '%' || c == '~' {
			return false
		}
		if c == '.' && end+1 < len(s) && isAlnum(s[end+1]) {
			return false // a host name or file name
		}
	}
	return true
}

// looksLikeAWSSecret reports whether a 40-character run of base64 looks
// like random base64 rather than a word, an identifier, a path or base64
// of text: upper case, lower case and digits, not all hex, not decoding to
// mostly printable bytes, and few lower-case letters in runs of four or
// more (see maxWordy).
func looksLikeAWSSecret(w string) bool {
	if !hasUpper(w) || !hasLower(w) || !hasDigit(w) {
		return false
	}
	hex := true
	for i := 0; i < len(w); i++ {
		if !isHexByte(w[i]) {
			hex = false
			break
		}
	}
	if hex {
		return false
	}
	// Base64 of text ("dGhlIHF1aWNr..."): an AWS key is 30 random bytes,
	// of which about a third are printable, never most.
	if d, err := base64.StdEncoding.DecodeString(w); err == nil {
		printable := 0
		for _, c := range d {
			if ' ' <= c && c < 0x7f {
				printable++
			}
		}
		if printable*5 >= len(d)*4 {
			return false
		}
	}
	// Words: the lower-case letters in runs of four or more. Random base64
	// has few (a run of four lower-case letters in 40 characters is
	// uncommon); identifiers and paths are made of them.
	wordy, run := 0, 0
	for i := 0; i <= len(w); i++ {
		if i < len(w) && 'a' <= w[i] && w[i] <= 'z' {
			run++
			continue
		}
		if run >= 4 {
			wordy += run
		}
		run = 0
	}
	return wordy <= maxWordy
}

// maxWordy is the most lower-case letters in runs of four or more that a
// bare AWS secret key may have: about one random key in two hundred has
// more (and is missed, unless a name such as aws_secret_access_key comes
// before it), and identifiers and paths of 40 characters have more.
const maxWordy = 14

// isUserPass reports whether the base64 text b decodes to printable
// "user:password": a user name of name characters with a letter, and a
// password of at least three characters that is not a port number or the
// rest of a URL.
func isUserPass(b string) bool {
	d, err := base64.StdEncoding.DecodeString(b)
	if err != nil {
		return false
	}
	colon := -1
	for i, c := range d {
		if c <= ' ' || c >= 0x7f {
			return false
		}
		if c == ':' && colon < 0 {
			colon = i
		}
	}
	if colon < 1 || colon > 64 || len(d)-colon-1 < 3 {
		return false
	}
	user, pass := string(d[:colon]), string(d[colon+1:])
	letter := false
	for i := 0; i < len(user); i++ {
		c := user[i]
		switch {
		case isLetter(c):
			letter = true
		case isDigitByte(c) || strings.IndexByte("._@+-\\$", c) >= 0:
		default:
			return false
		}
	}
	if !letter || strings.HasPrefix(pass, "//") || strings.Trim(pass, "0123456789") == "" || isPlaceholder(pass) {
		return false // not a port, a URL, or "username:password"
	}
	return true
}
