package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
)

// Issue 24: every string the model writes passes the redactor. A
// learning's title is; its scope and tags, which the file's front matter
// holds, were not.
func TestWriteLearningRedactsEveryField(t *testing.T) {
	know := t.TempDir()
	const secret = "AKIAIOSFODNN7EXAMPLQ"
	l := pipeline.Learning{Title: "Push with " + secret, Content: "The bot pushes with " + secret + ".", Context: secret,
		Scope: secret, Tags: pipeline.List{secret, "ci"}}
	wrote, err := pipeline.WriteLearning(know, l, "shop", "s-1", time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC))
	if err != nil || !wrote {
		t.Fatalf("WriteLearning = %v, %v", wrote, err)
	}
	files, _ := filepath.Glob(filepath.Join(know, "learnings", "*", "*.md"))
	if len(files) != 1 {
		t.Fatalf("learning files: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	// A slug folds it to lowercase.
	for _, form := range []string{secret, strings.ToLower(secret)} {
		if strings.Contains(files[0], form) || strings.Contains(string(data), form) {
			t.Errorf("%s holds the secret as %q:\n%s", files[0], form, data)
		}
	}
}
