package cli

import (
	"fmt"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/eval"
	"github.com/cairn-dev/cairn/helpers/internal/eval/tooleval"
)

func evalCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "eval",
		Usage:     "measure recall quality on labelled queries (P@k, R@k, MRR, nDCG@10)",
		ArgsUsage: "QUERIES.jsonl... | --tools CALLS.jsonl",
		Description: "Each line of QUERIES.jsonl has at least \"query\" and \"relevant_keys\" (and\n" +
			"optionally \"kind\"). With --corpus, that knowledge JSONL is indexed in a temporary\n" +
			"cache; without it, the project's own log is searched. Queries without relevant\n" +
			"keys are negatives: eval reports how many of them returned anything.\n\n" +
			"Several QUERIES files are several sets, each with its own --corpus, in the same\n" +
			"order (or none, for the project's log), reported one after the other.\n\n" +
			"With --tools, each line of CALLS.jsonl is a tool call of a session ({\"session\",\n" +
			"\"tool\", \"path\" or \"command\", \"expected_keys\"}), replayed in order through the\n" +
			"hook that runs before a tool call; eval reports the precision and recall of the\n" +
			"notes it injected.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "corpus", Usage: "a knowledge JSONL to index (keys kept); once per QUERIES file"},
			&ucli.IntFlag{Name: "k", Value: 5, Usage: "the cut-off for precision and recall"},
			&ucli.StringFlag{Name: "baseline", Usage: "also run a baseline: grep"},
			&ucli.BoolFlag{Name: "json", Usage: "print {\"cairn\": M, \"grep\": M} as JSON (with several sets, an array of {\"queries\", \"corpus\", \"results\"})"},
			&ucli.StringFlag{Name: "tools", Usage: "score the notes injected before the scripted tool calls of this JSONL instead"},
		},
		Action: func(c *ucli.Context) error {
			if c.IsSet("tools") {
				return evalTools(c, env)
			}
			if c.NArg() == 0 {
				return usagef("eval needs the QUERIES.jsonl file")
			}
			corpora := c.StringSlice("corpus")
			if len(corpora) > 0 && len(corpora) != c.NArg() {
				return usagef("eval got %d QUERIES files and %d --corpus: give one --corpus per QUERIES file, in the same order, or none", c.NArg(), len(corpora))
			}
			if b := c.String("baseline"); b != "" && b != "grep" {
				return usagef("unknown --baseline %q: the baseline is grep", b)
			}
			if c.Int("k") < 1 {
				return usagef("--k must be at least 1")
			}
			opts := eval.Options{K: c.Int("k"), Grep: c.String("baseline") == "grep"}
			var sets []eval.Set
			for i, name := range c.Args().Slice() {
				set := eval.Set{Queries: name}
				if len(corpora) > 0 {
					set.Corpus = corpora[i]
				}
				var err error
				if set.Results, err = evalOne(c, env, set, opts); err != nil {
					return err
				}
				sets = append(sets, set)
			}
			if c.Bool("json") {
				if len(sets) == 1 {
					return writeJSON(env.Stdout, sets[0].Results)
				}
				return writeJSON(env.Stdout, sets)
			}
			eval.WriteSets(env.Stdout, sets, c.Int("k"))
			return nil
		},
	}
}

// evalOne reads set's queries and evaluates them on its corpus or, with
// none, on the project's log.
func evalOne(c *ucli.Context, env Env, set eval.Set, opts eval.Options) (map[string]eval.Result, error) {
	qdata, err := readArg(env, set.Queries, "check the path")
	if err != nil {
		return nil, err
	}
	queries, err := eval.ReadQueries(qdata)
	if err != nil {
		return nil, hinted(fmt.Errorf("%s: %w", set.Queries, err), "each line needs {\"query\": ..., \"relevant_keys\": [...]}")
	}
	if set.Corpus != "" {
		data, err := readArg(env, set.Corpus, "check --corpus")
		if err != nil {
			return nil, err
		}
		return eval.EvaluateCorpus(data, queries, opts)
	}
	p, err := findProject(c, env)
	if err != nil {
		return nil, err
	}
	return eval.Evaluate(p.Store, queries, opts)
}

// readArg reads the file a command line names (relative to the working
// directory); an error names it as given, with hint.
func readArg(env Env, name, hint string) ([]byte, error) {
	data, err := os.ReadFile(abs(env, name))
	if err != nil {
		return nil, hinted(fmt.Errorf("cannot read %s: %w", name, unwrapPath(err)), hint)
	}
	return data, nil
}

func abs(env Env, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

// evalTools replays --tools' calls against --corpus (or the project's
// log) and prints the precision and recall of the notes injected.
func evalTools(c *ucli.Context, env Env) error {
	if c.NArg() != 0 {
		return usagef("eval --tools takes no QUERIES file")
	}
	name := c.String("tools")
	data, err := readArg(env, name, "check --tools")
	if err != nil {
		return err
	}
	calls, err := tooleval.ReadToolCalls(data)
	if err != nil {
		return hinted(fmt.Errorf("%s: %w", name, err), "each line needs {\"session\": ..., \"tool\": ..., \"path\" or \"command\", \"expected_keys\": [...]}")
	}
	var corpus []byte
	corpora := c.StringSlice("corpus")
	if len(corpora) > 1 {
		return usagef("eval --tools takes one --corpus")
	}
	if len(corpora) == 1 {
		if corpus, err = readArg(env, corpora[0], "check --corpus"); err != nil {
			return err
		}
	} else {
		p, err := findProject(c, env)
		if err != nil {
			return err
		}
		if corpus, err = p.Store.ReadLog(); err != nil {
			return err
		}
	}
	m, err := tooleval.EvaluateTools(corpus, calls)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return writeJSON(env.Stdout, map[string]tooleval.ToolMetrics{"tools": m})
	}
	fmt.Fprintln(env.Stdout, m)
	return nil
}
