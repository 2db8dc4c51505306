package untrusted

import "testing"

func TestForMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                           "`plain`",
		"a `tick` here":                   "`` a `tick` here ``",
		"``double``":                      "``` ``double`` ```",
		"<img src=x onerror=alert(1)>":    "`<img src=x onerror=alert(1)>`",
		"**bold** [x](https://evil) @ana": "`**bold** [x](https://evil) @ana`",
		"line\n# Heading":                 "`line⏎# Heading`",
		"\x1b[31mred":                     "`\\x1b[31mred`",
		"":                                "``",
	} {
		if got := ForMarkdown(in); got != want {
			t.Errorf("ForMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}
