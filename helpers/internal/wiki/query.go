package wiki

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/model"

	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// Markers of the two query requests.
const (
	PickMarker   = "You choose which articles of a wiki answer a question."
	AnswerMarker = "You answer a question from a wiki's articles."
)

// maxConsulted caps the articles one answer reads.
const maxConsulted = 8

// Answer is a query's answer.
type Answer struct {
	Question  string   `json:"question"`
	Text      string   `json:"answer"`
	Consulted []string `json:"consulted"`
	Filed     string   `json:"filed,omitempty"` // the qa page, with --file-back
	CostUSD   float64  `json:"cost_usd,omitempty"`
}

// Query answers question from the wiki w as the pattern reads a wiki:
// first the index (its rows most relevant to the question, by cairn's
// search, when it is too long to read whole), from which the model picks
// the articles; then those articles, from which it answers, citing them
// as [[wikilinks]]. With fileBack the answer is filed as qa/<slug>.md,
// and the index and the log are updated.
func Query(w string, src Readable, question string, fileBack bool, ask model.Func, now time.Time) (Answer, error) {
	a := Answer{Question: question}
	pages, _ := ReadWiki(w)
	if len(pages) == 0 {
		return a, fmt.Errorf("the wiki %s has no articles yet (cairn wiki compile)", w)
	}
	byPath := map[string]Page{}
	for _, p := range pages {
		byPath[p.Path] = p
	}
	summaries := readSummaries(w)
	rows := relevantPages(question, pages, maxIndexRows)
	if len(rows) == 0 {
		rows = relevantPages("", pages, maxIndexRows)
	}
	var pick strings.Builder
	pick.WriteString(PickMarker + "\nAnswer with ONE JSON object: {\"articles\": [\"concepts/<slug>\", ...]} naming at most 8 articles of the index below, most useful first.\n\n")
	fmt.Fprintf(&pick, "## Question\n\n%s\n\n## Index (%d of %d articles)\n\n", question, len(rows), len(pages))
	for _, p := range rows {
		fmt.Fprintf(&pick, "- [[%s]] %s: %s\n", p.Path, p.Front.Title, summaries[p.Path])
	}
	ctx := context.Background() // the model command bounds each call with the configured timeout
	r1, err := ask(ctx, pick.String())
	if err != nil {
		return a, fmt.Errorf("model: %w", err)
	}
	a.CostUSD += r1.CostUSD
	var picked struct {
		Articles []string `json:"articles"`
	}
	if obj, err := model.ExtractJSON(r1.Text); err == nil {
		_ = json.Unmarshal(obj, &picked)
	}
	for _, p := range picked.Articles {
		p = strings.TrimSuffix(strings.Trim(strings.TrimSpace(p), "[]"), ".md")
		if _, ok := byPath[p]; ok && len(a.Consulted) < maxConsulted && !slices.Contains(a.Consulted, p) {
			a.Consulted = append(a.Consulted, p)
		}
	}
	if len(a.Consulted) == 0 { // the model picked nothing usable: cairn's search picks
		for _, p := range relevantPages(question, pages, maxConsulted) {
			a.Consulted = append(a.Consulted, p.Path)
		}
	}
	var ans strings.Builder
	ans.WriteString(AnswerMarker + "\nAnswer in markdown, citing the articles you use as [[concepts/<slug>]] wikilinks. Say so when the articles do not answer it.\n\n")
	fmt.Fprintf(&ans, "## Question\n\n%s\n\n## Articles\n", question)
	for _, p := range a.Consulted {
		fmt.Fprintf(&ans, "\n### [[%s]] %s\n\n%s\n", p, byPath[p].Front.Title, cutText(byPath[p].Body, 6000))
	}
	r2, err := ask(ctx, ans.String())
	if err != nil {
		return a, fmt.Errorf("model: %w", err)
	}
	a.CostUSD += r2.CostUSD
	a.Text = redactText(strings.TrimSpace(r2.Text))
	if !fileBack {
		return a, nil
	}
	valid := map[string]bool{}
	for p := range byPath {
		valid[p] = true
	}
	body, repairs := repairLinks(a.Text, valid, "", src)
	slug := knowledge.Slug(question, 60)
	if slug == "" {
		slug = "question"
	}
	path := "qa/" + slug
	day := when.MachineDay(now)
	var sources []string
	for _, c := range a.Consulted {
		for _, s := range byPath[c].Front.Sources {
			sources = union(sources, s)
		}
	}
	f := FrontMatter{Title: oneLine(question), Sources: sources, Created: day, Updated: day,
		Question: oneLine(question), Consulted: a.Consulted, Filed: day,
		Extra: map[string]string{"summary": quoteJSON(firstSentence(body))}}
	if old, ok := byPath[path]; ok {
		f.Created = old.Front.Created
	}
	var links strings.Builder
	links.WriteString("\n\n## Consulted\n\n")
	for _, c := range a.Consulted {
		fmt.Fprintf(&links, "- [[%s]]\n", c)
	}
	text := RenderFrontMatter(f) + "\n# " + oneLine(question) + "\n\n" + body + strings.TrimRight(links.String(), "\n") + "\n\n" + withSources("", sources, src) + "\n"
	if err := writeFile(w, "qa/"+slug+".md", []byte(text)); err != nil {
		return a, err
	}
	a.Filed = path
	if err := WriteIndex(w, src); err != nil {
		return a, err
	}
	sr := SourceResult{Source: question, Created: []string{path}}
	for _, r := range repairs {
		sr.Repaired = append(sr.Repaired, path+": "+r)
	}
	return a, appendLog(w, now, "query | "+oneLine(question), sr, model.Reply{CostUSD: a.CostUSD, Costed: r1.Costed || r2.Costed})
}
