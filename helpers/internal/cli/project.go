package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	ucli "github.com/urfave/cli/v2"
)

// project is the repository a command works on.
type project struct {
	root  string
	store *knowledge.Store
	isGit bool
}

// findProject resolves the project: --dir or CAIRN_DIR when given, else the
// git repository of the working directory, else the nearest directory above
// it that holds a .cairn directory.
func findProject(c *ucli.Context, env Env) (*project, error) {
	if dir := c.String("dir"); dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Dir, dir)
		}
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return nil, hinted(fmt.Errorf("project directory %s does not exist", dir), "check --dir or CAIRN_DIR")
		}
		_, gerr := os.Lstat(filepath.Join(dir, ".git"))
		return &project{root: dir, store: knowledge.Open(dir), isGit: gerr == nil}, nil
	}
	root, err := gitx.FindRoot(env.Dir)
	if err == nil {
		return &project{root: root, store: knowledge.Open(root), isGit: true}, nil
	}
	if d, ok := knowledge.FindUp(env.Dir); ok {
		return &project{root: d, store: knowledge.Open(d)}, nil
	}
	return nil, hinted(fmt.Errorf("not a git repository: %s", env.Dir), "run cairn inside your project, or pass --dir PATH")
}

// requireStore fails, with the fix, when the project has no .cairn yet.
func (p *project) requireStore() error {
	if !p.store.Exists() {
		return hinted(fmt.Errorf("no %s in %s", knowledge.DirName, p.root), "run cairn init or cairn add first")
	}
	return nil
}

// explainRead turns a failure to read the log into a message with a fix.
func explainRead(err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return hinted(err, "make .cairn/knowledge.jsonl readable, e.g. chmod u+rw .cairn/knowledge.jsonl")
	}
	return err
}

// openIndex opens the project's cache and syncs it with the log.
func (p *project) openIndex() (*index.Index, index.SyncResult, error) {
	ix, err := index.Open(p.store)
	if err != nil {
		return nil, index.SyncResult{}, explainCache(p, err)
	}
	res, err := ix.Sync()
	if err != nil {
		ix.Close()
		return nil, res, explainCache(p, err)
	}
	return ix, res, nil
}

func explainCache(p *project, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return explainRead(err)
	}
	msg := err.Error()
	if strings.Contains(msg, "cache") {
		return hinted(err, "delete "+filepath.Join(knowledge.DirName, knowledge.CacheDir)+" and run cairn sync --full")
	}
	return err
}
