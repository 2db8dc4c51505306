package redact

import "strings"

// connStrings finds the keys of Azure connection strings
// ("AccountKey=...;", "SharedAccessKey=...") and the signatures of shared
// access signatures ("...?sv=2022-11-02&...&sig=..."). The names are
// matched ignoring case, as Azure does; a signature must follow "?", "&"
// or ";" (or start the text), and both must look like base64 (URL-escaped
// or not), so "sig=" in other text is kept.
func connStrings(s string, emit func(kind string, start, end int)) {
	type hit struct {
		kind       string
		start, end int
	}
	var hits []hit
	for _, name := range []string{"accountkey=", "sharedaccesskey=", "sig="} {
		for i := 0; ; {
			j := indexFold(s[i:], name)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(name)
			if at > 0 && isAlnum(s[at-1]) {
				continue // "xsig=", "MyAccountKey="
			}
			kind := KindAzureStorageKey
			if name == "sig=" {
				kind = KindAzureSAS
				if at > 0 && strings.IndexByte("?&; \t\n\"'", s[at-1]) < 0 {
					continue
				}
			}
			vs := i
			ve := vs
			for ve < len(s) && (isB64Byte(s[ve]) || s[ve] == '=' || s[ve] == '%' || s[ve] == '-' || s[ve] == '_') {
				ve++
			}
			v := s[vs:ve]
			if len(v) < 16 || !hasDigit(v) || !hasLetter(v) || isPlaceholder(v) {
				continue
			}
			hits = append(hits, hit{kind, vs, ve})
			i = ve
		}
	}
	// Emit in order of position.
	for len(hits) > 0 {
		k := 0
		for j := range hits {
			if hits[j].start < hits[k].start {
				k = j
			}
		}
		emit(hits[k].kind, hits[k].start, hits[k].end)
		hits = append(hits[:k], hits[k+1:]...)
	}
}
