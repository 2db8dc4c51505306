package anchor_test

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
)

// The files a shell command writes, moves or removes; a command that only
// reads writes nothing.
func TestWritePaths(t *testing.T) {
	for _, c := range []struct {
		command string
		want    []string
	}{
		{"sed -i 's/linear/exp/' client/retry.go", []string{"s/linear/exp/", "client/retry.go"}},
		{"sed -i.bak -e s/a/b/ a.go", []string{"s/a/b/", "a.go"}},
		{"echo x > a.go", []string{"a.go"}},
		{"echo x >> logs/a.txt 2>/dev/null", []string{"logs/a.txt", "/dev/null"}},
		{"go test ./... 2>&1 | tee out.txt", []string{"out.txt"}},
		{"rm -f db/migrations/0001.sql", []string{"db/migrations/0001.sql"}},
		{"mv a.go b.go", []string{"a.go", "b.go"}},
		{"cp template.go payments/client.go", []string{"payments/client.go"}},
		{"dd if=/dev/zero of=disk.img", []string{"disk.img"}},
		{"git checkout -- payments/client.go", []string{"payments/client.go"}},
		{"gofmt -w payments", []string{"payments"}},
		{"bash -c 'touch x.go'", []string{"x.go"}},
		{"cat payments/client.go", nil},
		{"sed -n 1,20p payments/client.go", nil},
		{"git status", nil},
		{"ls -la db/migrations", nil},
		{"go test ./...", nil},
		{"grep -rn retry payments", nil},
		{"gofmt -l payments", nil},
	} {
		if got := anchor.WritePaths(c.command); !slices.Equal(got, c.want) {
			t.Errorf("WritePaths(%q) = %q, want %q", c.command, got, c.want)
		}
	}
}

// A command a must-check may name is read-only when all it runs reads,
// lists or tests.
func TestReadOnly(t *testing.T) {
	for _, c := range []struct {
		command string
		want    bool
	}{
		{"git status", true},
		{"ls", true},
		{"go test ./...", true},
		{"cat a.go | grep x", true},
		{"terraform apply", false},
		{"git push", false},
		{"go generate ./...", false},
		{"ls > out.txt", false},
		{"make", false},
		{"", false},
	} {
		if got := anchor.ReadOnly(c.command); got != c.want {
			t.Errorf("ReadOnly(%q) = %v, want %v", c.command, got, c.want)
		}
	}
}
