package redact

import "strings"

var (
	// Some of the five dashes may be missing (an escape sequence before
	// the line took them, or a sloppy paste): the key is still a key.
	pemBeginRE = lazy(`-{1,5}BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-{1,5}`)
	pemEndRE   = lazy(`-{1,5}END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-{1,5}`)
)

// privateKeys finds PEM private keys: from the BEGIN line through the END
// line when everything in between can be PEM content, else (a truncated
// paste) from the BEGIN line through the base64 that follows it.
func privateKeys(s string, emit func(kind string, start, end int)) {
	last := 0
	for _, loc := range pemBeginRE.FindAllStringIndex(s, -1) {
		if loc[0] < last {
			continue
		}
		rest := s[loc[1]:]
		var n int
		if m := pemEndRE.FindStringIndex(rest); m != nil && isPEMBody(rest[:m[0]]) {
			n = m[1]
		} else {
			n = truncatedPEMBody(rest)
		}
		last = loc[1] + n
		emit(KindPrivateKey, loc[0], last)
	}
}

// isPEMBody reports whether b can sit between BEGIN and END lines: base64,
// white space (or escaped line breaks) and the RFC 1421 headers of an
// encrypted key ("Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,...").
func isPEMBody(b string) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !(isAlnum(c) || isSpace(c) || c == '+' || c == '/' || c == '=' || c == '\\' || c == ':' || c == ',' || c == '-') {
			return false
		}
	}
	return true
}

// truncatedPEMBody returns how many bytes of rest, which follows a BEGIN
// line with no matching END, belong to the key: the encryption headers and
// the base64 words after it. It stops before the first word that is not
// base64 or does not look like part of a key, so that prose or another
// secret after the key ("ghp_...") is left to the other rules intact.
func truncatedPEMBody(rest string) int {
	good, p := 0, 0
	for {
		p = skipPEMSeparators(rest, p)
		if p >= len(rest) {
			return good
		}
		if hasPrefixFold(rest[p:], "proc-type:") || hasPrefixFold(rest[p:], "dek-info:") {
			e := p
			for e < len(rest) && rest[e] != '\n' && !(rest[e] == '\\' && e+1 < len(rest) && (rest[e+1] == 'n' || rest[e+1] == '\n')) {
				e++
			}
			good, p = e, e
			continue
		}
		e := p
		for e < len(rest) && (isAlnum(rest[e]) || rest[e] == '+' || rest[e] == '/' || rest[e] == '=') {
			e++
		}
		// The word may end in punctuation ("MIIEow..." or "...AB==.").
		f := e
		for f < len(rest) && (rest[f] == '.' || rest[f] == ',' || rest[f] == ';' || rest[f] == ')' || rest[f] == '"' || rest[f] == '\'') {
			f++
		}
		if e == p || f < len(rest) && skipPEMSeparators(rest, f) == f {
			return good // not a base64 word
		}
		w := rest[p:e]
		if !(len(w) >= 20 || w[len(w)-1] == '=' || hasDigit(w) && hasUpper(w) && hasLower(w)) {
			return good // a short plain word: prose
		}
		good, p = e, f
	}
}

// skipPEMSeparators skips white space and escaped line breaks ("\n",
// "\r"), in the text or in its escape view.
func skipPEMSeparators(s string, p int) int {
	for p < len(s) {
		switch {
		case isSpace(s[p]):
			p++
		case s[p] == '\\' && p+1 < len(s) && strings.IndexByte("nrt\n\r\t", s[p+1]) >= 0:
			p += 2
		default:
			return p
		}
	}
	return p
}
