package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"nothing to do", "plain text, café, 東京\n\tand a tab\r\n", "plain text, café, 東京\n\tand a tab\r\n"},
		{"literal escapes kept", `printf 'a\nb\tc\r'`, `printf 'a\nb\tc\r'`},
		{"C0 controls", "a\x00b\x07c\x08d\x0be\x0cf\x1fg", "abcdefg"},
		{"DEL", "a\x7fb", "ab"},
		{"C1 controls", "a\u0080b\u0085c\u009fd", "abcd"},
		{"zero width", "a\u200bb\u200cc\u200dd\u2060e\ufefff\u180eg\u00adh", "abcdefgh"},
		{"bidi", "a\u202ab\u202ec\u2066d\u2069e\u200ef\u200fg\u061ch", "abcdefgh"},
		{"tags", "a\U000E0001b\U000E0041c\U000E007Fd", "abcd"},
		{"CSI", "\x1b[31mred\x1b[0m \x1b[1;32;40mgreen\x1b[m \x1b[2K\x1b[?25l", "red green "},
		{"8-bit CSI", "a\u009b31mb", "ab"},
		{"OSC with BEL", "\x1b]0;window title\x07text", "text"},
		{"OSC with ST", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"unterminated OSC", "\x1b]0;title", "0;title"},
		{"charset", "\x1b(Bplain\x1b)0", "plain"},
		{"lone ESC", "a\x1bMb\x1b=c\x1b", "abc"},
		{"ESC before blank", "a\x1b b", "a b"},
		{"ESC before backslash", "a\x1b\\nb", `a\nb`},
		{"ESC does not swallow dashes", "\x1b)-----BEGIN", "-----BEGIN"},
		{"invalid UTF-8 with a removal", "a\xffb\u200bc", "a\uFFFDbc"},
		{"invalid UTF-8 alone", "a\xffb", "a\xffb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(tt.in)
			if got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Normalize(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
			if utf8.ValidString(tt.in) && !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8 out of valid input: %q", got)
			}
		})
	}
}

// Nothing to normalise and nothing to redact costs no allocation.
func TestFastPathAllocates(t *testing.T) {
	for _, s := range []string{cleanLine, proseText, "non-ASCII prose: café, naïve, 東京 — “quoted” … ✓"} {
		if n := testing.AllocsPerRun(100, func() { Normalize(s) }); n != 0 {
			t.Errorf("Normalize allocates %v times on %q", n, s)
		}
		if n := testing.AllocsPerRun(100, func() { String(s) }); n != 0 {
			t.Errorf("String allocates %v times on %q", n, s)
		}
	}
}

// Secrets hidden by invisible characters, escapes and literal "\n".
func TestStringEvasions(t *testing.T) {
	tok := fakeGitHub
	tests := []struct{ name, in, want string }{
		{"literal newline before", `\n` + tok, `\n` + m(KindGitHubToken)},
		{"literal tab before", "token\\t" + fakeAnthropic, "token\\t" + m(KindAnthropicKey)},
		{"double-escaped newline", `\\n` + tok, `\\n` + m(KindGitHubToken)},
		{"BEL inside", tok[:7] + "\a" + tok[7:], m(KindGitHubToken)},
		{"zero width inside", tok[:7] + "\u200b" + tok[7:], m(KindGitHubToken)},
		{"ANSI around", "\x1b[31m" + fakeAWSID + "\x1b[0m", m(KindAWSAccessKey)},
		{"ANSI inside", fakeAWSID[:6] + "\x1b[1m" + fakeAWSID[6:], m(KindAWSAccessKey)},
		{"tag characters inside", fakeNPM[:5] + "\U000E0041\U000E0042" + fakeNPM[5:], m(KindNPMToken)},
		{"zero width glues to the word before", "key\u200b" + fakeAWSID, "key" + m(KindAWSAccessKey)},
		{"zero width glues to the word after", fakeAWSID + "\u200bnext", m(KindAWSAccessKey) + "next"},
		{"zero width inside and before", "token\a" + fakeNPM[:6] + "\u2060" + fakeNPM[6:], "token" + m(KindNPMToken)},
		{"control glues a command", "0\u200bmysql -u root -pS3cretPw db", "0mysql -u root -p" + m(KindCLIPassword) + " db"},
		{"literal newline kept elsewhere", `printf 'a\nb' && export GH_TOKEN=` + tok, `printf 'a\nb' && export GH_TOKEN=` + m(KindGitHubToken)},
		{"JSON-escaped PEM", `{"k":"-----BEGIN PRIVATE KEY-----\n` + strings.ReplaceAll(fakePEMBody, "\n", `\n`) + `\n-----END PRIVATE KEY-----\n"}`,
			`{"k":"` + m(KindPrivateKey) + `\n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fs := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if fs == nil {
				t.Errorf("String(%q): no findings", tt.in)
			}
			if again, fs2 := String(got); again != got || fs2 != nil {
				t.Errorf("not idempotent: %q -> %q %v", got, again, fs2)
			}
		})
	}
}

// The prose rule (prose.go): what follows "password is" is a secret
// unless it reads as English.
func TestProsePasswords(t *testing.T) {
	redacted := map[string]string{
		"the password is hunter2":                       "hunter2",
		"the password was Tr0ub4dor":                    "Tr0ub4dor",
		"pwd is swordfish":                              "swordfish",
		"password is admin for now":                     "admin",
		"the password is now dragon77":                  "dragon77",
		"the password has been set to Welcome1":         "Welcome1",
		"password changed to N3wRootPw":                 "N3wRootPw",
		"set the root password to Kick5tart":            "Kick5tart",
		"the password for the staging db is swordfish":  "swordfish",
		"the db password for prod: qwerty12":            "qwerty12",
		"the passphrase is 'correct horse battery'":     "correct horse battery",
		"login as admin, password Adm1nPw!":             "Adm1nPw!",
		"passcode is 482916":                            "482916",
		"password: hunt3r":                              "hunt3r",
		"the API key is 9f8e7d6c5b4a3210abcd":           "9f8e7d6c5b4a3210abcd",
		"the session token is abc123def456ghi, rotated": "abc123def456ghi",
	}
	for in, secret := range redacted {
		out, _ := String(in)
		if strings.Contains(out, secret) {
			t.Errorf("String(%q) = %q: %q survives", in, out, secret)
		}
	}
	for _, in := range []string{
		"password is required",
		"the password reset flow sends an email",
		"password is stored in vault",
		"password must be at least 12 characters",
		"the password is at least 12 characters long",
		"password is too short",
		"password is case-sensitive",
		"the password is hashed with bcrypt",
		"password is base64 encoded",
		"the password is the same as staging",
		"password is 12345678 characters long",
		"password is per user",
		"password: configured elsewhere in production",
		"password: required",
		"the token is expired",
		"the API key is valid until March",
		"the password field is required",
		"passwords are hashed with argon2id",
	} {
		if out, fs := String(in); out != in || fs != nil {
			t.Errorf("String(%q) = %q, %v; want unchanged", in, out, fs)
		}
	}
}

// Normalize is normalize's text alone.
func Normalize(s string) string {
	out, _ := normalize(s)
	return out
}
