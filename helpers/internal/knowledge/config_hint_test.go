package knowledge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SetInstallHint records the hint in .cairn/config.json, keeping every
// other setting and the file's layout, cleaned of what could break out of
// a shell or JSON string; a second call with the same hint changes
// nothing.
func TestSetInstallHint(t *testing.T) {
	for _, tc := range []struct{ name, before, hint, want string }{
		{"no file", "", "git clone U cairn && cd cairn && ./install.sh",
			"{\n  \"install_hint\": \"git clone U cairn && cd cairn && ./install.sh\"\n}\n"},
		{"empty object", "{}\n", "go install m@v1.2.3", "{\n  \"install_hint\": \"go install m@v1.2.3\"\n}\n"},
		{"other settings kept", "{\n  \"min_version\": \"0.1.0\",\n  \"recall\": {\"budget\": 4000}\n}\n", "go install m@v1.2.3",
			"{\n  \"min_version\": \"0.1.0\",\n  \"recall\": {\"budget\": 4000},\n  \"install_hint\": \"go install m@v1.2.3\"\n}\n"},
		{"replaced in place", "{\"install_hint\": \"old\", \"status_line\": false}", "new one",
			"{\"install_hint\": \"new one\", \"status_line\": false}\n"},
		{"cleaned", "{}", "a'b\"c\\d%e`f\ng\x1b[31mh", "{\n  \"install_hint\": \"a b c d e f g [31mh\"\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := Open(dir)
			if err := s.Provision(); err != nil {
				t.Fatal(err)
			}
			if tc.before != "" {
				os.WriteFile(filepath.Join(s.Dir, ConfigName), []byte(tc.before), 0o644)
			}
			if changed, err := s.SetInstallHint(tc.hint); err != nil || !changed {
				t.Fatalf("SetInstallHint = %v, %v", changed, err)
			}
			got, _ := os.ReadFile(filepath.Join(s.Dir, ConfigName))
			if string(got) != tc.want {
				t.Errorf("config.json:\n%s\nwant:\n%s", got, tc.want)
			}
			cfg, err := s.LoadConfig()
			if err != nil || cfg.InstallHint != CleanInstallHint(tc.hint) {
				t.Errorf("LoadConfig = %q, %v", cfg.InstallHint, err)
			}
			if changed, err := s.SetInstallHint(tc.hint); err != nil || changed {
				t.Errorf("second SetInstallHint = %v, %v; want unchanged", changed, err)
			}
		})
	}
	s := Open(t.TempDir())
	s.Provision()
	os.WriteFile(filepath.Join(s.Dir, ConfigName), []byte("[1, 2]"), 0o644)
	if _, err := s.SetInstallHint("x"); err == nil || !strings.Contains(err.Error(), "fix it by hand") {
		t.Errorf("a config that is not an object: %v", err)
	}
	if got := CleanInstallHint(strings.Repeat("x", 1000)); len(got) != MaxInstallHint {
		t.Errorf("a long hint is %d bytes, want %d", len(got), MaxInstallHint)
	}
}
