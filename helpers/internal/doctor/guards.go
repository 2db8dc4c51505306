package doctor

import (
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// checkGuards reports the must-check guards: the person's own choice
// (their config's "guards"), and, when the team's .cairn/config.json
// sets "guards": "ask", that the team only recommends them, with the
// command that turns them on. Nothing committed turns them on.
func checkGuards(p *project.Project, getenv func(string) string, add addFunc) {
	team, _ := p.Store.LoadConfig()
	u, _ := userconf.Load(getenv) // an unreadable config: the pipeline's check reports it
	switch {
	case u.Config.Asks():
		add("guards", OK, "on for you: a must-check asks you before a change it protects (cairn guards off turns them off)", "")
	case team.Guards == userconf.GuardsAsk:
		add("guards", OK, "the team recommends guards: ask (a must-check asks you before a change it protects); turn them on for yourself with cairn guards on", "")
	}
}
