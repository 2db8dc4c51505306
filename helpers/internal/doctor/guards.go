package doctor

import (
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// checkGuards reports the must-check guards: the person's own choice
// (mine: their config says "guards": "ask"), and, when the team's
// .cairn/config.json sets "guards": "ask", that the team only recommends
// them, with the command that turns them on. Nothing committed turns
// them on.
func checkGuards(p *project.Project, mine bool, add addFunc) {
	team, _ := p.Store.LoadConfig()
	switch {
	case mine:
		add("guards", OK, "on for you: a must-check asks you before a change it protects (cairn guards off turns them off)", "")
	case team.Guards == userconf.GuardsAsk:
		add("guards", OK, "the team recommends guards: ask (a must-check asks you before a change it protects); turn them on for yourself with cairn guards on", "")
	}
}
