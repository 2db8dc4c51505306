package redact

import (
	"sort"
	"strings"
)

// provider describes the shape of one provider's tokens: a literal prefix
// at the start of a word (or a literal infix inside the token), and an
// expression for the whole token.
type provider struct {
	kind string
	// prefix starts every token; empty for an infix provider.
	prefix string
	// infix is a literal inside the token; back returns where the token
	// starts given the offset of the infix (or -1).
	infix string
	back  func(s string, at int) int
	// re matches the token at its start (anchored).
	re *lazyRegexp
	// group is the submatch to redact (0: the whole match).
	group int
	// glued reports whether the token may not start after byte c; nil
	// means isWordByte.
	glued func(c byte) bool
	// check, if not nil, must accept the redacted text.
	check func(v string) bool
	// kindOf, if not nil, picks the kind from the redacted text.
	kindOf func(v string) string
}

// providers, by prefix. Prefixes that contain a separator ("_", "-" or
// ".") are found by candidates through the word before the separator; the
// others ("AKIA", "AIza", "eyJ", "SK", "dapi", ...) have a case of their
// own there.
var providers = []provider{
	{kind: KindAWSAccessKey, prefix: "AKIA", re: anchored(`[A-Z0-9]{20}\b`)},
	{kind: KindAWSAccessKey, prefix: "ASIA", re: anchored(`[A-Z0-9]{20}\b`)},
	{kind: KindAWSAccessKey, prefix: "ABIA", re: anchored(`[A-Z0-9]{20}\b`)},
	{kind: KindAWSAccessKey, prefix: "ACCA", re: anchored(`[A-Z0-9]{20}\b`)},

	{kind: KindGitHubToken, prefix: "ghp_", re: anchored(`ghp_[A-Za-z0-9]{30,}`)},
	{kind: KindGitHubToken, prefix: "gho_", re: anchored(`gho_[A-Za-z0-9]{30,}`)},
	{kind: KindGitHubToken, prefix: "ghu_", re: anchored(`ghu_[A-Za-z0-9]{30,}`)},
	{kind: KindGitHubToken, prefix: "ghs_", re: anchored(`ghs_[A-Za-z0-9]{30,}`)},
	{kind: KindGitHubToken, prefix: "ghr_", re: anchored(`ghr_[A-Za-z0-9]{30,}`)},
	{kind: KindGitHubToken, prefix: "github_pat_", re: anchored(`github_pat_[A-Za-z0-9_]{30,}`)},

	// GitLab: personal, pipeline trigger, deploy, runner, CI job, incoming
	// mail, SCIM, feature flag, agent, OAuth application, feed and
	// cluster tokens, and runner registration tokens.
	{kind: KindGitLabToken, prefix: "glpat-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glptt-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "gldt-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glrt-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glcbt-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glimt-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glsoat-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glffct-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glagent-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "gloas-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glft-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "glcd-", re: gitlabRE, check: bodyLooksRandom},
	{kind: KindGitLabToken, prefix: "GR1348941", re: anchored(`GR1348941[A-Za-z0-9_\-]{20,}`)},

	{kind: KindSlackToken, prefix: "xoxa-", re: slackRE, check: hasDigit},
	{kind: KindSlackToken, prefix: "xoxb-", re: slackRE, check: hasDigit},
	{kind: KindSlackToken, prefix: "xoxp-", re: slackRE, check: hasDigit},
	{kind: KindSlackToken, prefix: "xoxo-", re: slackRE, check: hasDigit},
	{kind: KindSlackToken, prefix: "xoxs-", re: slackRE, check: hasDigit},
	{kind: KindSlackToken, prefix: "xoxr-", re: slackRE, check: hasDigit},
	{kind: KindSlackToken, prefix: "xoxe-", re: anchored(`xoxe-[A-Za-z0-9\-.]{10,}`), check: hasDigit},
	{kind: KindSlackToken, prefix: "xapp-", re: anchored(`xapp-\d-[A-Za-z0-9\-]{10,}`)},
	{kind: KindSlackWebhook, prefix: "hooks.slack.com/", group: 1,
		re: anchored(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/\-]{10,})`)},

	{kind: KindStripeKey, prefix: "sk_live_", re: stripeRE, check: stripeBody},
	{kind: KindStripeKey, prefix: "sk_test_", re: stripeRE, check: stripeBody},
	{kind: KindStripeKey, prefix: "rk_live_", re: stripeRE, check: stripeBody},
	{kind: KindStripeKey, prefix: "rk_test_", re: stripeRE, check: stripeBody},
	{kind: KindStripeKey, prefix: "whsec_", re: anchored(`whsec_[A-Za-z0-9+/=]{24,}`), check: mixedAlnum},

	// OpenAI and Anthropic keys share the "sk-" prefix. The token must not
	// be glued to a word ("task-sk-...", "risk-...") and must look random
	// (upper, lower and digit), which rules out "sk-learn" and hyphenated
	// prose.
	{kind: KindOpenAIKey, prefix: "sk-", glued: isTokenByte, re: anchored(`sk-[A-Za-z0-9_\-]{20,}`),
		check: func(v string) bool { return hasUpper(v) && hasLower(v[3:]) && hasDigit(v) },
		kindOf: func(v string) string {
			if strings.HasPrefix(v, "sk-ant-") {
				return KindAnthropicKey
			}
			return KindOpenAIKey
		}},

	{kind: KindGoogleAPIKey, prefix: "AIza", re: anchored(`AIza[A-Za-z0-9_\-]{35,}`)},
	{kind: KindGoogleOAuthSecret, prefix: "GOCSPX-", re: anchored(`GOCSPX-[A-Za-z0-9_\-]{24,}`)},
	{kind: KindNPMToken, prefix: "npm_", re: anchored(`npm_[A-Za-z0-9]{36,}`)},

	// Header and payload of a JWT are base64url JSON objects, so both
	// start with "eyJ".
	{kind: KindJWT, prefix: "eyJ", glued: isTokenByte,
		re: anchored(`eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*`)},

	{kind: KindHuggingFaceToken, prefix: "hf_", re: anchored(`hf_[A-Za-z0-9]{30,}`), check: mixedCase},
	{kind: KindHuggingFaceToken, prefix: "api_org_", re: anchored(`api_org_[A-Za-z0-9]{30,}`), check: mixedCase},
	{kind: KindSendGridKey, prefix: "SG.", re: anchored(`SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}`)},
	{kind: KindTwilioKey, prefix: "SK", re: anchored(`SK[0-9a-fA-F]{32}\b`), check: hexMixed},
	{kind: KindDatabricksToken, prefix: "dapi", re: anchored(`dapi[0-9a-f]{32}(?:-\d)?\b`), check: hexMixed},
	{kind: KindDigitalOceanToken, prefix: "dop_v1_", re: doRE},
	{kind: KindDigitalOceanToken, prefix: "doo_v1_", re: doRE},
	{kind: KindDigitalOceanToken, prefix: "dor_v1_", re: doRE},
	{kind: KindShopifyToken, prefix: "shpat_", re: shopifyRE},
	{kind: KindShopifyToken, prefix: "shpca_", re: shopifyRE},
	{kind: KindShopifyToken, prefix: "shppa_", re: shopifyRE},
	{kind: KindShopifyToken, prefix: "shpss_", re: shopifyRE},
	{kind: KindMailgunKey, prefix: "key-", glued: isTokenByte, re: anchored(`key-[0-9a-f]{32}\b`), check: hexMixed},
	{kind: KindPyPIToken, prefix: "pypi-", re: anchored(`pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\-]{20,}`)},
	{kind: KindDockerToken, prefix: "dckr_pat_", re: anchored(`dckr_pat_[A-Za-z0-9_\-]{20,}`)},
	{kind: KindDockerToken, prefix: "dckr_oat_", re: anchored(`dckr_oat_[A-Za-z0-9_\-]{20,}`)},
	{kind: KindAtlassianToken, prefix: "ATATT3", re: anchored(`ATATT3[A-Za-z0-9_\-=]{40,}`)},
	{kind: KindAtlassianToken, prefix: "ATCTT3", re: anchored(`ATCTT3[A-Za-z0-9_\-=]{40,}`)},
	{kind: KindHerokuKey, prefix: "HRKU-", re: anchored(`HRKU-[A-Za-z0-9_\-]{20,}`)},
	{kind: KindVaultToken, prefix: "hvs.", re: vaultRE, check: mixedAlnum},
	{kind: KindVaultToken, prefix: "hvb.", re: vaultRE, check: mixedAlnum},
	{kind: KindVaultToken, prefix: "hvr.", re: vaultRE, check: mixedAlnum},
	{kind: KindAgeSecretKey, prefix: "AGE-SECRET-KEY-1", re: anchored(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`)},
	{kind: KindLinearKey, prefix: "lin_api_", re: anchored(`lin_api_[A-Za-z0-9]{40}\b`)},
	{kind: KindLinearKey, prefix: "lin_oauth_", re: anchored(`lin_oauth_[A-Za-z0-9]{40,64}\b`)},
	{kind: KindDopplerToken, prefix: "dp.", re: anchored(`dp\.(?:st|sa|ct|pt|scim|audit)\.[A-Za-z0-9_.\-]{40,}`), check: mixedAlnum},
	{kind: KindPostmanKey, prefix: "PMAK-", re: anchored(`PMAK-[0-9a-f]{24}-[0-9a-f]{34}\b`)},
	{kind: KindSquareToken, prefix: "EAAA", re: anchored(`EAAA[A-Za-z0-9_\-]{60,}`), check: mixedAlnum},
	{kind: KindSquareToken, prefix: "sq0atp-", re: anchored(`sq0atp-[A-Za-z0-9_\-]{22,}`)},
	{kind: KindSquareToken, prefix: "sq0csp-", re: anchored(`sq0csp-[A-Za-z0-9_\-]{40,}`)},
	{kind: KindNewRelicKey, prefix: "NRAK-", re: anchored(`NRAK-[A-Z0-9]{27}\b`)},
	{kind: KindGrafanaToken, prefix: "glsa_", re: anchored(`glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b`)},
	{kind: KindGrafanaToken, prefix: "glc_", re: anchored(`glc_[A-Za-z0-9+/]{32,}={0,2}`), check: mixedAlnum},
	{kind: KindSentryToken, prefix: "sntrys_", re: anchored(`sntrys_[A-Za-z0-9+/=_\-]{40,}`)},
	{kind: KindSentryToken, prefix: "sntryu_", re: anchored(`sntryu_[0-9a-f]{64}\b`)},
	{kind: KindSupabaseToken, prefix: "sbp_", re: anchored(`sbp_[0-9a-f]{40}\b`)},
	{kind: KindPlanetScaleToken, prefix: "pscale_", re: anchored(`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}`)},
	{kind: KindPulumiToken, prefix: "pul-", re: anchored(`pul-[0-9a-f]{40}\b`)},
	{kind: KindNotionToken, prefix: "secret_", re: anchored(`secret_[A-Za-z0-9]{43}\b`), check: mixedAlnum},
	{kind: KindNotionToken, prefix: "ntn_", re: anchored(`ntn_[A-Za-z0-9]{40,}`), check: mixedAlnum},
	{kind: KindAirtableToken, prefix: "pat", re: anchored(`pat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b`)},
	{kind: KindAlibabaKey, prefix: "LTAI", re: anchored(`LTAI[A-Za-z0-9]{12,24}\b`), check: mixedAlnum},
	{kind: KindDynatraceToken, prefix: "dt0c01.", re: anchored(`dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b`)},
	{kind: KindFigmaToken, prefix: "figd_", re: anchored(`figd_[A-Za-z0-9_\-]{40,}`)},
	{kind: KindRubyGemsKey, prefix: "rubygems_", re: anchored(`rubygems_[0-9a-f]{48}\b`)},
	{kind: KindBuildkiteToken, prefix: "bkua_", re: anchored(`bkua_[0-9a-f]{40}\b`)},
	{kind: KindDiscordWebhook, prefix: "discord.com/", group: 1, re: discordRE},
	{kind: KindDiscordWebhook, prefix: "discordapp.com/", group: 1, re: discordRE},

	// Infix providers: the token has no fixed start.
	{kind: KindTelegramBotToken, infix: ":AA", back: backOver(isDigitByte),
		glued: func(c byte) bool { return isWordByte(c) && c != 't' }, // "api.telegram.org/bot123:AA..."
		re:    anchored(`\d{8,10}:AA[A-Za-z0-9_\-]{33}\b`)},
	{kind: KindMailchimpKey, infix: "-us", back: backOver(isLowerHex),
		re: anchored(`[0-9a-f]{32}-us\d{1,2}\b`), check: func(v string) bool { return hexMixed(v[:32]) }},
	{kind: KindAzureClientSecret, infix: "Q~", back: backBy(4),
		re:    anchored(`[A-Za-z0-9_.\-]{3}\dQ~[A-Za-z0-9_.~\-]{31,34}`),
		glued: func(c byte) bool { return isTokenByte(c) || c == '.' || c == '~' }, check: mixedAlnum},
	{kind: KindTerraformToken, infix: ".atlasv1.", back: backBy(14),
		re: anchored(`[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-]{60,}`)},
}

var (
	gitlabRE  = anchored(`gl[a-z]{1,6}-[A-Za-z0-9_\-]{20,}`)
	slackRE   = anchored(`xox[abposr]-[A-Za-z0-9\-]{10,}`)
	stripeRE  = anchored(`[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`)
	doRE      = anchored(`do[por]_v1_[0-9a-f]{64}\b`)
	shopifyRE = anchored(`shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b`)
	vaultRE   = anchored(`hv[sbr]\.[A-Za-z0-9_\-]{20,}`)
	discordRE = anchored(`discord(?:app)?\.com/api/(?:v\d+/)?webhooks/(\d{15,22}/[A-Za-z0-9_\-]{30,})`)
	byFirst   [256][]int // indexes into providers, by the prefix's first byte
	infixes   []int      // indexes of the infix providers
	// The words before the first separator of the prefixes ("ghp" of
	// "ghp_"): by separator (see sepIndex) and length, and, as a quick
	// filter, a bit per separator for the bytes they start with.
	tokenHeads [3][maxHeadLen + 1][]string
	headFirst  [256]uint8
)

// sepIndex numbers the separators of prefixes: "_", "-", ".".
func sepIndex(c byte) int {
	switch c {
	case '_':
		return 0
	case '-':
		return 1
	}
	return 2
}

func init() {
	for i, p := range providers {
		if p.prefix == "" {
			infixes = append(infixes, i)
			continue
		}
		byFirst[p.prefix[0]] = append(byFirst[p.prefix[0]], i)
		if k := strings.IndexAny(p.prefix, "_-."); k > 0 {
			si, h := sepIndex(p.prefix[k]), p.prefix[:k]
			tokenHeads[si][k] = append(tokenHeads[si][k], h)
			headFirst[h[0]] |= 1 << si
		}
	}
}

// isTokenHead reports whether head, the word before the separator sep, is
// the start of a provider prefix ("ghp" before "_", "sk" before "-").
func isTokenHead(head string, sep byte) bool {
	if len(head) == 0 || len(head) > maxHeadLen {
		return false
	}
	si := sepIndex(sep)
	if headFirst[head[0]]&(1<<si) == 0 {
		return false
	}
	for _, h := range tokenHeads[si][len(head)] {
		if h == head {
			return true
		}
	}
	return false
}

// isMaskedToken reports whether the token v is a placeholder: its part
// after the prefix is masked ("ghp_xxxxxxxx...", "AKIAXXXXXXXXXXXXXXXX")
// or it is a documentation example ("AKIAIOSFODNN7EXAMPLE").
func isMaskedToken(v, prefix string) bool {
	if strings.Contains(v, "EXAMPLE") {
		return true
	}
	body := strings.TrimPrefix(v, prefix)
	if len(body) < 8 {
		return false
	}
	c := body[len(body)/2]
	return (c == 'x' || c == 'X' || c == '*' || c == '0') && strings.Count(body, string(c)) >= len(body)*3/4
}

// maxHeadLen is the longest word before a prefix's first separator
// ("glagent", "rubygems", "discordapp").
const maxHeadLen = 10

// tokens finds provider tokens by their shape.
func tokens(s string, emit func(kind string, start, end int)) { findTokens(s, nil, emit) }

// findTokens finds provider tokens. A token glued to the word before it
// is not one, unless it starts at an offset in unglue (increasing).
func findTokens(s string, unglue []int, emit func(kind string, start, end int)) {
	var spans []span
	try := func(p *provider, st int) int {
		if st > 0 && (p.glued == nil && isWordByte(s[st-1]) || p.glued != nil && p.glued(s[st-1])) && !isJoinAt(unglue, st) {
			return -1
		}
		m := p.re.FindStringSubmatchIndex(s[st:])
		if m == nil {
			return -1
		}
		start, end := st+m[2*p.group], st+m[2*p.group+1]
		if p.check != nil && !p.check(s[start:end]) || isMaskedToken(s[start:end], p.prefix) {
			return -1
		}
		kind := p.kind
		if p.kindOf != nil {
			kind = p.kindOf(s[start:end])
		}
		spans = append(spans, span{kind, start, end})
		return st + m[1]
	}
	for i := 0; i < len(s); i++ {
		idx := byFirst[s[i]]
		if len(idx) == 0 || i > 0 && isWordByte(s[i-1]) && (unglue == nil || !isJoinAt(unglue, i)) {
			continue // every prefix token starts a word
		}
		for _, k := range idx {
			p := &providers[k]
			if len(p.prefix) > 1 && (i+1 >= len(s) || s[i+1] != p.prefix[1]) || !strings.HasPrefix(s[i:], p.prefix) {
				continue
			}
			if e := try(p, i); e > i {
				i = e - 1
				break
			}
		}
	}
	for _, k := range infixes {
		p := &providers[k]
		for i := 0; ; {
			j := strings.Index(s[i:], p.infix)
			if j < 0 {
				break
			}
			at := i + j
			i = at + 1
			if st := p.back(s, at); st >= 0 {
				if e := try(p, st); e > at {
					i = e
				}
			}
		}
	}
	if len(spans) > 1 {
		sort.SliceStable(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	}
	for _, sp := range spans {
		emit(sp.kind, sp.start, sp.end)
	}
}

// isJoinAt reports whether i is one of the offsets in joins (increasing).
func isJoinAt(joins []int, i int) bool {
	k := sort.SearchInts(joins, i)
	return k < len(joins) && joins[k] == i
}

// backOver returns a back function that walks back over bytes in the class.
func backOver(in func(byte) bool) func(string, int) int {
	return func(s string, at int) int {
		k := at
		for k > 0 && in(s[k-1]) {
			k--
		}
		if k == at {
			return -1
		}
		return k
	}
}

// backBy returns a back function for tokens that start n bytes before the
// infix.
func backBy(n int) func(string, int) int {
	return func(_ string, at int) int {
		if at < n {
			return -1
		}
		return at - n
	}
}

func isLowerHex(c byte) bool { return isDigitByte(c) || 'a' <= c && c <= 'f' }

// hexMixed reports whether the hex string v has both digits and letters,
// as random hex almost always does ("SK" + 32 zeros is not a key).
func hexMixed(v string) bool {
	letters := strings.IndexFunc(v, func(r rune) bool { return 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F' }) >= 0
	return letters && hasDigit(v)
}

// mixedAlnum reports whether v has a letter and a digit.
func mixedAlnum(v string) bool { return hasLetter(v) && hasDigit(v) }

// mixedCase reports whether v has upper and lower case letters.
func mixedCase(v string) bool { return hasUpper(v) && hasLower(v) }

// bodyLooksRandom reports whether the part of v after its first "-" has a
// digit or a capital: "glpat-" followed by a hyphenated phrase is prose.
func bodyLooksRandom(v string) bool {
	b := v[strings.IndexByte(v, '-')+1:]
	return hasDigit(b) || hasUpper(b)
}

// stripeBody checks the part of a Stripe key after "sk_live_".
func stripeBody(v string) bool { return hasDigit(v[8:]) && hasLetter(v[8:]) }
