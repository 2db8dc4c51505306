package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// plantedSecrets must never survive String, whatever text precedes them
// (after a blank). The check looks for the secret part of each: the whole
// token, or the password.
var plantedSecrets = []string{
	fakeGitHub, fakeAWSID, fakeOpenAI, fakeJWT, fakeSlack,
	"postgres://app:" + "Pl4nted" + "Pw0rd!xyzXYZ12345@db:5432/app",
	"DB_PASSWORD=" + "Pl4nted" + "Pw0rd!xyzXYZ12345",
}

// FuzzString checks the properties of String on any input: it never
// panics, redacting twice changes nothing and finds nothing, valid UTF-8
// stays valid, findings are reported exactly when more than normalisation
// changed the text, Normalize is idempotent, and a secret planted after
// the input is still redacted.
func FuzzString(f *testing.F) {
	for _, s := range negatives {
		f.Add(s)
	}
	f.Add(fakePEM)
	f.Add(secretLine)
	f.Add(keywordLine)
	f.Add("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
	f.Add("postgres://app:hunter2@db:5432/app password=hunter22 Authorization: Bearer " + fakeBearer)
	f.Add(`{\"api_key\":\"` + fakeOpenAIProj + `\"}`)
	f.Add("x://u:a@b@c " + fakeSlack + " " + fakeHook)
	f.Add("\x1b[31m" + fakeAWSID + "\x1b[0m \\n" + fakeGitHub + " gh\u200bp_ the password is hunter2")
	f.Add("\x1b]0;title\x07 ESC\x1b(B tag\U000E0041 bidi\u202e soft\u00ad" + fakeNPM)
	f.Fuzz(func(t *testing.T, in string) {
		out, fs := String(in)
		again, fs2 := String(out)
		if again != out || fs2 != nil {
			t.Fatalf("not idempotent:\n in    %q\n out   %q\n again %q %v", in, out, again, fs2)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input %q: %q", in, out)
		}
		norm := Normalize(in)
		if Normalize(norm) != norm {
			t.Fatalf("Normalize not idempotent: %q -> %q -> %q", in, norm, Normalize(norm))
		}
		if (out == norm) != (fs == nil) {
			t.Fatalf("findings %v do not match the change %q -> %q", fs, norm, out)
		}
		for _, secret := range plantedSecrets {
			planted, _ := String(in + " " + secret)
			body := secret
			if i := strings.Index(secret, "Pl4nted"); i >= 0 {
				body = secret[i : i+24]
			}
			// A control sequence at the end of in may swallow the blank and
			// the first character of the secret (ESC [ takes a final byte,
			// as a terminal would): then the secret is not there whole,
			// which is what String promises.
			if strings.Contains(planted, body) && !strings.Contains(in, body) {
				t.Fatalf("planted secret survived:\n in  %q\n out %q", in+" "+secret, planted)
			}
		}
	})
}

// Secrets for FuzzPlanted, one of many kinds, with what must not survive
// (the secret itself, not the text around it).
var fuzzSecrets = []struct{ text, secret string }{
	{fakeGitHub, fakeGitHub},
	{fakeGitHubPAT, fakeGitHubPAT},
	{fakeAWSID, fakeAWSID},
	{fakeOpenAIProj, fakeOpenAIProj},
	{fakeAnthropic, fakeAnthropic},
	{fakeSlack, fakeSlack},
	{fakeStripe, fakeStripe},
	{fakeGoogle, fakeGoogle},
	{fakeNPM, fakeNPM},
	{fakeJWT, fakeJWT},
	{"hf_" + rep("kZCpLevgwRVe", 3), "hf_" + rep("kZCpLevgwRVe", 3)},
	{"SG." + rep("aB3dE5fG7h", 2) + "xy." + rep("Qw9Er8Ty7U", 4) + "abc", "SG." + rep("aB3dE5fG7h", 2) + "xy." + rep("Qw9Er8Ty7U", 4) + "abc"},
	{"dop_v1_" + rep("0a1b2c3d", 8), "dop_v1_" + rep("0a1b2c3d", 8)},
	{"hvs." + rep("CAESIx9Kq", 10), "hvs." + rep("CAESIx9Kq", 10)},
	{"1234567890:AA" + rep("Hb3xQ9kLmN2", 3), "1234567890:AA" + rep("Hb3xQ9kLmN2", 3)},
	{"postgres://app:Zx9kQ7wLp2@db/app", "Zx9kQ7wLp2"},
	{"DB_PASSWORD=Zx9kQ7wLp2", "Zx9kQ7wLp2"},
	{"the password is Zx9kQ7wLp2", "Zx9kQ7wLp2"},
	{"mysql -u root -pZx9kQ7wLp2", "Zx9kQ7wLp2"},
	{fakePEM, fakePEMBody[:40]},
}

// fuzzGlue is what may stand between the random text and the secret.
var fuzzGlue = []string{" ", "\n", "\t", "\r\n", `\n`, `\t`, `\r`, "\u200b", "\u2060", "\ufeff", "\u00ad",
	"\u202e", "\x07", "\x1b[0m", "\x1b[1;31m", ", ", "; ", ": ", "(", ")", "'", "\"", "`", "[", "]", "<", ">",
	"{", "}", "|", "=", " = ", "\u00a0", "\u3000", "。", "«", "»"}

// FuzzPlanted embeds a known secret in random text, at a random place,
// with random glue on either side (blanks, literal "\n", zero-width and
// control characters, ANSI escapes, punctuation): the secret must never
// appear in the output.
func FuzzPlanted(f *testing.F) {
	f.Add("", "", uint8(0), uint8(0), uint8(0), uint16(0))
	f.Add("LEARNED: the deploy uses", "for the bot", uint8(3), uint8(4), uint8(1), uint16(10))
	f.Add("x=", "y", uint8(7), uint8(7), uint8(13), uint16(1))
	f.Add("\x1b[31mred", "\x1b[0m", uint8(19), uint8(5), uint8(14), uint16(3))
	f.Add("token\\", "\\n", uint8(9), uint8(8), uint8(15), uint16(5))
	f.Fuzz(func(t *testing.T, before, after string, which, left, right uint8, at uint16) {
		p := fuzzSecrets[int(which)%len(fuzzSecrets)]
		// The secret goes after a random prefix of before, the rest of
		// before after it, then after.
		k := int(at) % (len(before) + 1)
		for k > 0 && k < len(before) && !utf8.RuneStart(before[k]) {
			k--
		}
		head := before[:k] + fuzzGlue[int(left)%len(fuzzGlue)]
		tail := p.text + fuzzGlue[int(right)%len(fuzzGlue)] + before[k:] + after
		in := head + tail
		if strings.Contains(before+after, p.secret) {
			return // the random text itself holds the secret
		}
		if Normalize(in) != Normalize(head)+Normalize(tail) {
			// An escape sequence at the end of the random text swallowed
			// the first byte of the planted text ("ESC [" takes "m" of
			// "mysql" as its final byte, as a terminal would): the text
			// the rules see is not the planted one.
			return
		}
		out, _ := String(in)
		if strings.Contains(out, p.secret) {
			t.Fatalf("secret survived:\n in  %q\n out %q", in, out)
		}
	})
}
