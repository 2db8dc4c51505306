package wiki

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/model"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// Wiki is one wiki with its sources and the model that compiles it.
type Wiki struct {
	Dir     string // the wiki
	Sources Readable
	Model   model.Func // the configured model command
}

// OpenPersonal finds the user's own wiki through their config (getenv
// reads the environment): <knowledge>/wiki, compiled from the daily logs
// <knowledge>/daily/*.md that the session pipeline writes.
func OpenPersonal(getenv func(string) string) (Wiki, error) {
	u, err := userconf.Load(getenv)
	if err != nil {
		return Wiki{}, err
	}
	d, c := u.Dirs, u.Config
	know := c.Knowledge(d)
	return Wiki{
		Dir:     filepath.Join(know, "wiki"),
		Sources: DailySources(know),
		Model:   model.Command(c.Command(), filepath.Join(d.State, "model"), c.Timeout()),
	}, nil
}

// ContradictionMarker starts lint's request to the model.
const ContradictionMarker = "You check a wiki's articles for contradictions."

// Contradictions is lint's model check: the articles (each cut, the whole
// bounded) go to the model, which names the pairs that contradict each
// other.
func Contradictions(ask model.Func) func(pages []Page) ([]Finding, error) {
	return func(pages []Page) ([]Finding, error) {
		var b strings.Builder
		b.WriteString(ContradictionMarker + "\nAnswer with ONE JSON object: {\"contradictions\": [{\"files\": [\"concepts/a\", \"concepts/b\"], \"detail\": \"what contradicts what\"}]}, [] when there are none.\n\n")
		for _, p := range pages {
			if b.Len() > 60000 {
				break
			}
			fmt.Fprintf(&b, "### %s (%s)\n\n%s\n\n", p.Path, p.Front.Title, cutText(p.Body, 1500))
		}
		ctx := context.Background() // the model command bounds each call with the configured timeout
		r, err := ask(ctx, b.String())
		if err != nil {
			return nil, err
		}
		obj, err := model.ExtractJSON(r.Text)
		if err != nil {
			return nil, err
		}
		var answer struct {
			Contradictions []struct {
				Files  []string `json:"files"`
				Detail string   `json:"detail"`
			} `json:"contradictions"`
		}
		if err := json.Unmarshal(obj, &answer); err != nil {
			return nil, err
		}
		var out []Finding
		for _, c := range answer.Contradictions {
			if len(c.Files) == 0 {
				continue
			}
			out = append(out, Finding{Check: "contradiction", Severity: "warning", File: c.Files[0] + ".md",
				Detail: oneLine(c.Detail) + " (with " + strings.Join(c.Files[1:], ", ") + ")"})
		}
		return out, nil
	}
}
