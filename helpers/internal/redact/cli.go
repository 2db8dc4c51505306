package redact

import "strings"

// cliFlag is a command-line option that takes a password.
type cliFlag struct {
	flag string
	// glued: the value follows the flag without a blank ("-pSECRET");
	// otherwise it is the next word ("-p SECRET", also "-p=SECRET").
	glued bool
	// tools: the flag means a password only in a command of one of these
	// tools (nil: in any command).
	tools []string
	// notTools: ... and not in a command of one of these.
	notTools []string
	// inner: the password follows this text inside the value
	// ("pass:SECRET" for openssl, "user%SECRET" for smbclient).
	inner string
}

var (
	mysqlTools = []string{"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow",
		"mysqlcheck", "mysqlpump", "mysqlsh", "mariadb", "mariadb-dump", "mariadb-admin"}
	loginTools = []string{"login"} // docker/podman/helm/oras/skopeo/buildah/nerdctl login
	mongoTools = []string{"mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"}
	ldapTools  = []string{"ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare"}
	mssqlTools = []string{"sqlcmd", "bcp", "osql"}
)

// cliFlags, most specific first.
var cliFlags = []cliFlag{
	{flag: "-p", glued: true, tools: mysqlTools},
	{flag: "-p", glued: true, tools: []string{"sshpass"}},
	{flag: "-p", tools: []string{"sshpass"}},
	{flag: "-p", tools: loginTools},
	{flag: "-p", tools: mongoTools},
	{flag: "-a", tools: []string{"redis-cli"}},
	{flag: "--pass", tools: []string{"redis-cli"}},
	{flag: "-w", tools: ldapTools},
	{flag: "-P", tools: mssqlTools},
	{flag: "-U", tools: []string{"smbclient", "rpcclient"}, inner: "%"},
	{flag: "-passin", inner: "pass:"},
	{flag: "-passout", inner: "pass:"},
	{flag: "-pass", inner: "pass:"},
	{flag: "-storepass"},
	{flag: "-keypass"},
	{flag: "-srcstorepass"},
	{flag: "-deststorepass"},
	{flag: "-srckeypass"},
	{flag: "-destkeypass"},
	{flag: "--password", notTools: mysqlTools},
	{flag: "--passwd"},
	{flag: "--pass", notTools: []string{"redis-cli"}},
	{flag: "-password"},
}

// cliPasswords finds passwords given as options on a command line:
// "mysql -u root -pS3cret", "sshpass -p S3cret ssh host", "docker login
// -u bot -p S3cret", "redis-cli -a S3cret", "ldapsearch -w S3cret",
// "sqlcmd -P S3cret", "openssl ... -passin pass:S3cret", "keytool
// -storepass S3cret", and "--password S3cret" for any tool but mysql
// (where the next word is a database and the password is prompted for).
// "--password=S3cret" is an assignment and left to that rule. Values that
// are variables, placeholders or other options are kept.
func cliPasswords(s string, emit func(kind string, start, end int)) {
	for i := 0; i < len(s); i++ {
		if s[i] != '-' || i > 0 && !isSpace(s[i-1]) && !isQuote(s[i-1]) {
			continue
		}
		for k := range cliFlags {
			f := &cliFlags[k]
			if !strings.HasPrefix(s[i:], f.flag) {
				continue
			}
			p := i + len(f.flag)
			if f.glued {
				if p >= len(s) || isSpace(s[p]) || s[p] == '=' {
					continue
				}
			} else {
				switch {
				case p < len(s) && s[p] == '=':
					if f.flag[1] == '-' {
						continue // --password=: an assignment
					}
					p++
				case p < len(s) && (s[p] == ' ' || s[p] == '\t'):
					p = skipBlanks(s, p)
				default:
					continue
				}
			}
			seg := commandAt(s, i)
			if f.tools != nil && !hasTool(seg, f.tools) || f.notTools != nil && hasTool(seg, f.notTools) {
				continue
			}
			vs, ve := cliValue(s, p)
			if f.inner != "" {
				j := strings.Index(s[vs:ve], f.inner)
				if j < 0 {
					continue
				}
				vs += j + len(f.inner)
			}
			v := s[vs:ve]
			if len(v) < 3 || v[0] == '-' || isPlaceholder(v) || strings.HasPrefix(v, "file:") || strings.HasPrefix(v, "env:") {
				continue
			}
			if lv := strings.ToLower(v); docWords()[lv] || proseStopWords()[lv] || isProseWord(v) && hasProseSuffix(lv) {
				continue // documentation: "-password arg", "the --password option"
			}
			if v == "stdin" || strings.HasPrefix(v, "fd:") {
				continue
			}
			emit(KindCLIPassword, vs, ve)
			i = ve - 1
			break
		}
	}
}

// docWords stand for the value of an option in documentation.
var docWords = words(`arg args argument arguments option options flag flags value values val
	password passwd pass pwd passphrase secret string str text file name word`)

// cliValue returns the word at p: quoted ('...' or "...") without its
// quotes, or up to a blank or a shell operator.
func cliValue(s string, p int) (start, end int) {
	if p < len(s) && (s[p] == '\'' || s[p] == '"') {
		if j := strings.IndexByte(s[p+1:], s[p]); j >= 0 && !strings.ContainsAny(s[p+1:p+1+j], "\n\r") {
			return p + 1, p + 1 + j
		}
	}
	e := p
	for e < len(s) && !isSpace(s[e]) && strings.IndexByte(";|&<>()`'\"\\", s[e]) < 0 && !wideStopAt(s, e) {
		e++
	}
	return p, e
}

// commandAt returns the shell command around offset i: from the last line
// break or shell operator before it.
func commandAt(s string, i int) string {
	k := i
	for k > 0 && strings.IndexByte("\n\r;|&`(", s[k-1]) < 0 {
		k--
	}
	return s[k:i]
}

// hasTool reports whether one of the words of cmd (runs of name
// characters), or its base name when it is a path, is one of tools.
func hasTool(cmd string, tools []string) bool {
	words := strings.FieldsFunc(cmd, func(r rune) bool {
		return r >= 0x80 || !isAlnum(byte(r)) && !strings.ContainsRune("_.-/", r)
	})
	for _, w := range words {
		if j := strings.LastIndexByte(w, '/'); j >= 0 {
			w = w[j+1:]
		}
		for _, t := range tools {
			if w == t {
				return true
			}
		}
	}
	return false
}
