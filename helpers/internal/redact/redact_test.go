package redact

import (
	"reflect"
	"strings"
	"testing"
)

// Fake secrets, built by concatenation so that this file does not contain
// anything that a secret scanner would flag as a live credential.
var (
	rep = strings.Repeat

	fakeGitHub      = "gh" + "p_" + rep("a1B2", 9)
	fakeGitHubOAuth = "gh" + "o_" + rep("Zz90", 9)
	fakeGitHubUser  = "gh" + "u_" + rep("Q1w2", 9)
	fakeGitHubApp   = "gh" + "s_" + rep("E3r4", 9)
	fakeGitHubRefr  = "gh" + "r_" + rep("T5y6", 9)
	fakeGitHubPAT   = "github" + "_pat_" + rep("11AB", 6) + "_" + rep("cD3e", 15)
	fakeGitLab      = "gl" + "pat-" + rep("x9Y8", 5)
	fakeAWSID       = "AK" + "IA" + rep("Q7", 8)
	fakeAWSTempID   = "AS" + "IA" + rep("Z3", 8)
	fakeAWSSecret   = rep("wJalr/X+", 5)
	fakeSlack       = "xo" + "xb-" + "1234567890-" + rep("Ab1", 8)
	fakeSlackUser   = "xo" + "xp-" + "98765-43210-" + rep("cD2", 8)
	fakeStripe      = "sk" + "_live_" + rep("a1B2", 6)
	fakeStripeRK    = "rk" + "_live_" + rep("Q9w8", 6)
	fakeStripeTest  = "sk" + "_test_" + rep("z5X6", 6)
	fakeOpenAI      = "sk" + "-" + rep("a1B2", 12)
	fakeOpenAIProj  = "sk" + "-proj-" + rep("Ab3_x9-Z", 8)
	fakeAnthropic   = "sk" + "-ant-api03-" + rep("Ab3_x9-Z", 10)
	fakeGoogle      = "AI" + "za" + rep("Sy1_", 8) + "k9Q"
	fakeNPM         = "np" + "m_" + rep("a1B2", 9)
	fakeJWT         = "ey" + "JhbGciOiJIUzI1NiJ9" + "." + "ey" + "JzdWIiOiIxMjM0In0" + "." + rep("s1G_", 8)
	fakePEMBody     = rep("MIIEowIBAAKCAQEA7x"+rep("q", 46)+"\n", 3) + "Ab3dEf=="
	fakePEM         = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + fakePEMBody + "\n-----END RSA PRIVATE KEY-----"
	fakeBearer      = rep("Ab3-x9_Z", 4)
	fakeHook        = "https://hooks.slack.com/services/" + "T0000" + "0000/B00000000/" + rep("Xy3", 8)
)

func m(kind string) string { return Marker(kind) }

func TestStringRedacts(t *testing.T) {
	tests := []struct {
		name, in, want string
		kinds          []Finding
	}{
		{"github classic", "LEARNED: CI uses " + fakeGitHub + " for releases", "LEARNED: CI uses " + m(KindGitHubToken) + " for releases", []Finding{{KindGitHubToken, 1}}},
		{"github oauth", "token " + fakeGitHubOAuth, "token " + m(KindGitHubToken), []Finding{{KindGitHubToken, 1}}},
		{"github user-to-server", fakeGitHubUser, m(KindGitHubToken), []Finding{{KindGitHubToken, 1}}},
		{"github app in url", "https://x-access-token:" + fakeGitHubApp + "@github.com/o/r.git", "https://x-access-token:" + m(KindGitHubToken) + "@github.com/o/r.git", []Finding{{KindGitHubToken, 1}}},
		{"github refresh", "(" + fakeGitHubRefr + ")", "(" + m(KindGitHubToken) + ")", []Finding{{KindGitHubToken, 1}}},
		{"github fine-grained", "export GH_TOKEN=" + fakeGitHubPAT, "export GH_TOKEN=" + m(KindGitHubToken), []Finding{{KindGitHubToken, 1}}},
		{"gitlab", "glab auth with " + fakeGitLab + ".", "glab auth with " + m(KindGitLabToken) + ".", []Finding{{KindGitLabToken, 1}}},
		{"aws access key id", "key id " + fakeAWSID + " in us-east-1", "key id " + m(KindAWSAccessKey) + " in us-east-1", []Finding{{KindAWSAccessKey, 1}}},
		{"aws temporary id", `"AccessKeyId": "` + fakeAWSTempID + `"`, `"AccessKeyId": "` + m(KindAWSAccessKey) + `"`, []Finding{{KindAWSAccessKey, 1}}},
		{"aws secret key", "aws_secret_access_key = " + fakeAWSSecret, "aws_secret_access_key = " + m(KindAWSSecretKey), []Finding{{KindAWSSecretKey, 1}}},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=" + fakeAWSSecret + " aws s3 ls", "AWS_SECRET_ACCESS_KEY=" + m(KindAWSSecretKey) + " aws s3 ls", []Finding{{KindAWSSecretKey, 1}}},
		{"aws pair", "AWS_ACCESS_KEY_ID=" + fakeAWSID + " AWS_SECRET_ACCESS_KEY=\"" + fakeAWSSecret + "\"", "AWS_ACCESS_KEY_ID=" + m(KindAWSAccessKey) + " AWS_SECRET_ACCESS_KEY=\"" + m(KindAWSSecretKey) + "\"", []Finding{{KindAWSAccessKey, 1}, {KindAWSSecretKey, 1}}},
		{"slack bot", "SLACK_BOT_TOKEN=" + fakeSlack, "SLACK_BOT_TOKEN=" + m(KindSlackToken), []Finding{{KindSlackToken, 1}}},
		{"slack user", "the user token is " + fakeSlackUser, "the user token is " + m(KindSlackToken), []Finding{{KindSlackToken, 1}}},
		{"slack webhook", "alerts go to " + fakeHook + " now", "alerts go to https://hooks.slack.com/services/" + m(KindSlackWebhook) + " now", []Finding{{KindSlackWebhook, 1}}},
		{"stripe live", "STRIPE_KEY=" + fakeStripe, "STRIPE_KEY=" + m(KindStripeKey), []Finding{{KindStripeKey, 1}}},
		{"stripe restricted", "use " + fakeStripeRK, "use " + m(KindStripeKey), []Finding{{KindStripeKey, 1}}},
		{"stripe test", "use " + fakeStripeTest + " in CI", "use " + m(KindStripeKey) + " in CI", []Finding{{KindStripeKey, 1}}},
		{"openai", "OPENAI_API_KEY=" + fakeOpenAI, "OPENAI_API_KEY=" + m(KindOpenAIKey), []Finding{{KindOpenAIKey, 1}}},
		{"openai project", "client = OpenAI(api_key='" + fakeOpenAIProj + "')", "client = OpenAI(api_key='" + m(KindOpenAIKey) + "')", []Finding{{KindOpenAIKey, 1}}},
		{"anthropic", "x-api-key: " + fakeAnthropic, "x-api-key: " + m(KindAnthropicKey), []Finding{{KindAnthropicKey, 1}}},
		{"google", "maps key " + fakeGoogle + ";", "maps key " + m(KindGoogleAPIKey) + ";", []Finding{{KindGoogleAPIKey, 1}}},
		{"npm", "//registry.npmjs.org/:_authToken=" + fakeNPM, "//registry.npmjs.org/:_authToken=" + m(KindNPMToken), []Finding{{KindNPMToken, 1}}},
		{"jwt", "session cookie was " + fakeJWT + " (expired)", "session cookie was " + m(KindJWT) + " (expired)", []Finding{{KindJWT, 1}}},
		{"jwt in bearer header", "Authorization: Bearer " + fakeJWT, "Authorization: Bearer " + m(KindJWT), []Finding{{KindJWT, 1}}},
		{"pem", "key:\n" + fakePEM + "\nafter", "key:\n" + m(KindPrivateKey) + "\nafter", []Finding{{KindPrivateKey, 1}}},
		{"pem openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + fakePEMBody + "\n-----END OPENSSH PRIVATE KEY-----", m(KindPrivateKey), []Finding{{KindPrivateKey, 1}}},
		{"pem pkcs8 one line", "-----BEGIN PRIVATE KEY----- " + strings.ReplaceAll(fakePEMBody, "\n", " ") + " -----END PRIVATE KEY----- ok", m(KindPrivateKey) + " ok", []Finding{{KindPrivateKey, 1}}},
		{"pem escaped newlines", `"-----BEGIN EC PRIVATE KEY-----\n` + strings.ReplaceAll(fakePEMBody, "\n", `\n`) + `\n-----END EC PRIVATE KEY-----\n"`, `"` + m(KindPrivateKey) + `\n"`, []Finding{{KindPrivateKey, 1}}},
		{"pem encrypted", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123456789ABCDEF\n\n" + fakePEMBody + "\n-----END RSA PRIVATE KEY-----", m(KindPrivateKey), []Finding{{KindPrivateKey, 1}}},
		{"pem truncated", "the key starts -----BEGIN RSA PRIVATE KEY-----\n" + fakePEMBody + "\nand then it was cut", "the key starts " + m(KindPrivateKey) + "\nand then it was cut", []Finding{{KindPrivateKey, 1}}},
		{"pem truncated with ellipsis", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC... (truncated)", m(KindPrivateKey) + "... (truncated)", []Finding{{KindPrivateKey, 1}}},
		{"pem truncated then token", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n" + fakeGitHub, m(KindPrivateKey) + "\n" + m(KindGitHubToken), []Finding{{KindGitHubToken, 1}, {KindPrivateKey, 1}}},
		{"pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + fakePEMBody + "\n-----END PGP PRIVATE KEY BLOCK-----", m(KindPrivateKey), []Finding{{KindPrivateKey, 1}}},
		{"url password", "LEARNED: the staging DB URL is postgres://app:hunter2@db:5432/app", "LEARNED: the staging DB URL is postgres://app:" + m(KindURLPassword) + "@db:5432/app", []Finding{{KindURLPassword, 1}}},
		{"url password with at", "redis://default:p@ss@cache:6379/0", "redis://default:" + m(KindURLPassword) + "@cache:6379/0", []Finding{{KindURLPassword, 1}}},
		{"url password no user", "REDIS_URL=redis://:s3cr3t@localhost", "REDIS_URL=redis://:" + m(KindURLPassword) + "@localhost", []Finding{{KindURLPassword, 1}}},
		{"url password mongodb+srv", `"mongodb+srv://svc:Zx9!kq@cluster0.abcde.mongodb.net/db"`, `"mongodb+srv://svc:` + m(KindURLPassword) + `@cluster0.abcde.mongodb.net/db"`, []Finding{{KindURLPassword, 1}}},
		{"two url passwords", "a=amqp://u:one@h1 b=amqp://u:two@h2", "a=amqp://u:" + m(KindURLPassword) + "@h1 b=amqp://u:" + m(KindURLPassword) + "@h2", []Finding{{KindURLPassword, 2}}},
		{"bearer header", `curl -H "Authorization: Bearer ` + fakeBearer + `" https://api`, `curl -H "Authorization: Bearer ` + m(KindBearerToken) + `" https://api`, []Finding{{KindBearerToken, 1}}},
		{"bearer header lower", "authorization:bearer abcdefgh123", "authorization:bearer " + m(KindBearerToken), []Finding{{KindBearerToken, 1}}},
		{"token scheme header", `"Authorization": "token ` + fakeBearer + `"`, `"Authorization": "token ` + m(KindBearerToken) + `"`, []Finding{{KindBearerToken, 1}}},
		{"bare bearer", "send Bearer " + fakeBearer + ".", "send Bearer " + m(KindBearerToken) + ".", []Finding{{KindBearerToken, 1}}},
		{"basic auth", "Authorization: Basic dXNlcjpodW50ZXIy", "Authorization: Basic " + m(KindBasicAuth), []Finding{{KindBasicAuth, 1}}},
		{"curl user", "curl -u admin:Tr0ub4dor https://ci/api", "curl -u admin:" + m(KindBasicAuth) + " https://ci/api", []Finding{{KindBasicAuth, 1}}},
		{"curl user long", `curl --user="deploy:s3cr3t!" x`, `curl --user="deploy:` + m(KindBasicAuth) + `" x`, []Finding{{KindBasicAuth, 1}}},
		{"generic password env", "DB_PASSWORD=hunter22 make migrate", "DB_PASSWORD=" + m(KindGenericAssignment) + " make migrate", []Finding{{KindGenericAssignment, 1}}},
		{"generic password yaml", "  password: correcthorse\n  user: app", "  password: " + m(KindGenericAssignment) + "\n  user: app", []Finding{{KindGenericAssignment, 1}}},
		{"generic json", `{"client_secret": "Zq8-x7_Wv", "client_id": "abc"}`, `{"client_secret": "` + m(KindGenericAssignment) + `", "client_id": "abc"}`, []Finding{{KindGenericAssignment, 1}}},
		{"generic escaped json", `{\"password\":\"hunter22!\"}`, `{\"password\":\"` + m(KindGenericAssignment) + `\"}`, []Finding{{KindGenericAssignment, 1}}},
		{"generic quoted passphrase", `passphrase = "correct horse battery staple"`, `passphrase = "` + m(KindGenericAssignment) + `"`, []Finding{{KindGenericAssignment, 1}}},
		{"generic api key header", "X-Api-Key: 0f3c9a7e5b1d", "X-Api-Key: " + m(KindGenericAssignment), []Finding{{KindGenericAssignment, 1}}},
		{"generic apiKey go", `apiKey := "a8f5f167f44f4964e6c998dee827110c"`, `apiKey := "` + m(KindGenericAssignment) + `"`, []Finding{{KindGenericAssignment, 1}}},
		{"generic ruby hash", `:secret_key_base => 'deadbeefcafe1234'`, `:secret_key_base => '` + m(KindGenericAssignment) + `'`, []Finding{{KindGenericAssignment, 1}}},
		{"generic access token query", "GET /cb?code=1&access_token=9f8e7d6c5b4a&state=x", "GET /cb?code=1&access_token=" + m(KindGenericAssignment) + "&state=x", []Finding{{KindGenericAssignment, 1}}},
		{"generic flag", "psql --password=Tr0ub4dor&3", "psql --password=" + m(KindGenericAssignment) + "&3", []Finding{{KindGenericAssignment, 1}}},
		{"generic compound pass", "DB_PASS=letmein99", "DB_PASS=" + m(KindGenericAssignment), []Finding{{KindGenericAssignment, 1}}},
		{"generic uuid token", "HEROKU_API_TOKEN=01234567-89ab-cdef-0123-456789abcdef", "HEROKU_API_TOKEN=" + m(KindGenericAssignment), []Finding{{KindGenericAssignment, 1}}},
		{"generic markdown", "**Password:** Sup3rS3cret!", "**Password:** " + m(KindGenericAssignment), []Finding{{KindGenericAssignment, 1}}},
		{"generic sentence end", "set secret=abc123def456.", "set secret=" + m(KindGenericAssignment) + ".", []Finding{{KindGenericAssignment, 1}}},
		{"generic bcrypt hash", "password_hash: $2b$12$abcdefghijklmnopqrstuv", "password_hash: " + m(KindGenericAssignment), []Finding{{KindGenericAssignment, 1}}},
		{"generic random base64 path-like", "secret=/9j4AbCdEfGh12/Kx+z==", "secret=" + m(KindGenericAssignment), []Finding{{KindGenericAssignment, 1}}},
		{"specific beats generic", "api_key=" + fakeOpenAI + " token=" + fakeGitHub, "api_key=" + m(KindOpenAIKey) + " token=" + m(KindGitHubToken), []Finding{{KindGitHubToken, 1}, {KindOpenAIKey, 1}}},
		{"several kinds", fakeAWSID + " " + fakeSlack + " " + fakeAWSID, m(KindAWSAccessKey) + " " + m(KindSlackToken) + " " + m(KindAWSAccessKey), []Finding{{KindAWSAccessKey, 2}, {KindSlackToken, 1}}},
		{"adjacent tokens", fakeGitHub + "," + fakeGitHub, m(KindGitHubToken) + "," + m(KindGitHubToken), []Finding{{KindGitHubToken, 2}}},
		{"non-ascii around", "clé: « " + fakeGitHub + " » ✓", "clé: « " + m(KindGitHubToken) + " » ✓", []Finding{{KindGitHubToken, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fs := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if !reflect.DeepEqual(fs, tt.kinds) {
				t.Errorf("String(%q) findings = %v, want %v", tt.in, fs, tt.kinds)
			}
			again, fs2 := String(got)
			if again != got || fs2 != nil {
				t.Errorf("not idempotent: String(%q) = %q, %v", got, again, fs2)
			}
		})
	}
}

// negatives must come out of String unchanged and without findings.
var negatives = []string{
	// Commit ids, digests, UUIDs, base64 in prose.
	"LEARNED: the regression came in with 9c1e2d4 and was fixed by 9c1e2d4f5a6b",
	"commit 3f9a1c27e8b04d5f6a7b8c9d0e1f2a3b4c5d6e7f reverted the migration",
	"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"the image digest is sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"request id 550e8400-e29b-41d4-a716-446655440000 shows the retry",
	"bead bd-42 session 6a89830e tracks this",
	"the fixture is aGVsbG8gd29ybGQ= in base64",
	"etag W/\"33a64df551425fcc55e4d42a148795d9f25f89d4\" is stable",
	"the 20-char id AKIAIOSFODNN7EXAMPLEX is longer than a key id",
	"AKIA is the prefix of long-term AWS access key ids",
	// "sk-" in words and tools.
	"risk-free refactor: desk-top layout, task-sk-list, sk-learn 1.5 pipelines",
	"use sk-learn-pipeline-compatible-estimators for the model",
	"ask-me-anything-about-this-task-list-please is a slug",
	"the prefixes sk-, sk-ant- and sk-proj- mark API keys",
	"ghp_ tokens are classic PATs; github_pat_ tokens are fine-grained",
	"xoxb-token and xoxp-token are Slack token types",
	// Paths and identifiers.
	"see internal/auth/redirect.go and ~/.config/cairn/config.toml",
	"tokenizer: sentencepiece-v2 and max_tokens: 4096",
	"token_url: https://auth.example.com/oauth/token",
	"PASSWORD_FILE=/run/secrets/db_password",
	"password_file: /run/secrets/db-password",
	"secretName: my-app-secrets-v2",
	"the k8s secretKeyRef: db-credentials-2024 is mounted",
	"PWD=/home/runner/work/cairn",
	"--- PASS: TestCaptureRedactsSecrets (0.01s)",
	"go test output: ok and PASS: TestFoo12345",
	"ssh://git@github.com:22/cairn-dev/cairn.git",
	"https://example.com:8443/path?x=1 and mail ops@example.com",
	"the oauth token endpoint is https://auth.example.com/token?grant=client",
	"docker run -u 1000:1000 --rm image",
	"git push -u origin main && curl -u $USER:$TOKEN https://x",
	// Placeholders.
	"password: <from vault>",
	"token=${GITHUB_TOKEN}",
	"token=$GITHUB_TOKEN",
	`api_key="<your-api-key>"`,
	"DB_PASSWORD=$(cat /run/secrets/db)",
	"secret: {{ .Values.secret }}",
	"password: xxxxxxxxxxxx",
	`"password": "********"`,
	"password=changeme",
	"api_key=your-api-key-here",
	"token: ${{ secrets.GITHUB_TOKEN }}",
	"token: GITHUB_TOKEN",
	"password = os.Getenv(\"DB_PASSWORD\")",
	"token := cfg.GitHubToken",
	"apiKey: process.env.OPENAI_API_KEY",
	"postgres://user:password@localhost:5432/dev",
	"postgres://app:${DB_PASSWORD}@db:5432/app",
	"Authorization: Bearer $TOKEN",
	"Authorization: Bearer <token>",
	"password: " + m(KindGenericAssignment),
	// Prose.
	"the password is stored in vault",
	"DECISION: rotate the password every 90 days; the secret lives in SSM",
	"Note on the session token: expiration is one hour",
	"Gotcha with the secret: kubernetes secrets are only base64",
	"password: configured elsewhere in production",
	"we use Bearer authentication with short-lived tokens",
	"the token expires after 3600 seconds",
	"if token == expectedToken12 { ok }",
	"compare with password != previousPassword",
	"bypass: somethinglong",
	"",
	"plain ascii with no candidates at all",
	"non-ASCII prose: café, naïve, 東京, emoji 🎉",
}

func TestStringKeepsNonSecrets(t *testing.T) {
	for _, in := range append(negatives, cleanLine, keywordLine) {
		got, fs := String(in)
		if got != in || fs != nil {
			t.Errorf("String(%q) = %q, %v; want unchanged", in, got, fs)
		}
	}
}

func TestCandidatesCleanLine(t *testing.T) {
	if c := candidates(cleanLine); c != 0 {
		t.Errorf("candidates(clean line) = %b, want 0 (the fast path)", c)
	}
}

func TestMarker(t *testing.T) {
	if got := Marker(KindJWT); got != "[REDACTED:jwt]" {
		t.Errorf("Marker(jwt) = %q", got)
	}
}

// cleanLine is a typical knowledge line with nothing to redact (300 bytes).
var cleanLine = "LEARNED: the staging deploy uses blue-green with a five minute drain; " +
	"rollouts that skip the drain drop in-flight websocket sessions. See deploy/k8s/rollout.yaml " +
	"and commit 9c1e2d4 for why we pinned ingress-nginx to 1.9.4 (later versions change the " +
	"upstream keepalive default). Check the dashboard before promoting a canary."

// secretLine is the same kind of line with a URL password and a token.
var secretLine = "LEARNED: the staging DB URL is postgres://app:hunter2@db:5432/app and CI " +
	"pushes with " + fakeGitHub + "; rollouts that skip the drain drop in-flight websocket " +
	"sessions. See deploy/k8s/rollout.yaml and commit 9c1e2d4 for why we pinned ingress-nginx."

func BenchmarkStringClean(b *testing.B) {
	b.SetBytes(int64(len(cleanLine)))
	for b.Loop() {
		String(cleanLine)
	}
}

func BenchmarkStringSecret(b *testing.B) {
	b.SetBytes(int64(len(secretLine)))
	for b.Loop() {
		String(secretLine)
	}
}

// A line with keywords before separators but nothing to redact, so the
// generic assignment rule has to look at it and let it through.
var keywordLine = "DECISION: the password: <from vault> rule stays; the session token: expires " +
	"after one hour, max_tokens=4096 and token=${GITHUB_TOKEN} in CI. See deploy/k8s/rollout.yaml " +
	"and commit 9c1e2d4 for why we pinned ingress-nginx to 1.9.4 (keepalive default)."

func BenchmarkStringKeywords(b *testing.B) {
	b.SetBytes(int64(len(keywordLine)))
	for b.Loop() {
		String(keywordLine)
	}
}

// proseText is ordinary prose with nothing to redact and nothing to
// normalise: what String sees after most shell commands.
var proseText = strings.Repeat("LEARNED: the staging deploy uses blue-green with a five minute drain; "+
	"rollouts that skip the drain drop in-flight websocket sessions. ", 3)

// text4K is 4 KB of knowledge lines with two secrets in the middle.
var text4K = func() string {
	var b strings.Builder
	para := "DECISION: keep the retry budget at three attempts; the upstream gateway drops idle " +
		"connections after ninety seconds, so the client pings every sixty. See deploy/k8s/rollout.yaml " +
		"and commit 9c1e2d4 for details.\n"
	for b.Len() < 1800 {
		b.WriteString(para)
	}
	b.WriteString("CI pushes with " + fakeGitHub + " and the DB is postgres://app:Hunter2x9@db:5432/app\n")
	for b.Len() < 4096 {
		b.WriteString(para)
	}
	return b.String()[:4096]
}()

func BenchmarkStringProse(b *testing.B) {
	b.SetBytes(int64(len(proseText)))
	for b.Loop() {
		String(proseText)
	}
}

func BenchmarkString4KTwoSecrets(b *testing.B) {
	b.SetBytes(int64(len(text4K)))
	for b.Loop() {
		String(text4K)
	}
}

// Excerpt redacts before it cuts: a secret that a cut would split is
// still removed whole.
func TestExcerpt(t *testing.T) {
	secret := "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	for _, max := range []int{10, 20, 30, 200} {
		got := Excerpt("the answer was "+secret+" and more", max)
		if strings.Contains(got, "ghp_01234") {
			t.Errorf("Excerpt(%d) = %q: the secret's head is left", max, got)
		}
	}
	if got := Excerpt("short", 10); got != "short" {
		t.Errorf("Excerpt of a short text = %q", got)
	}
	if got := Excerpt("abcdefghij-klm", 10); got != "abcdefghij [...]" {
		t.Errorf("Excerpt cut = %q", got)
	}
}
