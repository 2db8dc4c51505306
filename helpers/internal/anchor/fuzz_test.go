package anchor

import "testing"

// Parse and Lookup never panic, and what Parse accepts encodes back to a
// map Parse reads the same.
func FuzzParse(f *testing.F) {
	f.Add(Encode(sample()), "db/migrations/x.sql", "terraform apply")
	f.Add([]byte(magic+"\nsrc \nf a\tk\nc b c\tk\n"), "a", "b c")
	f.Add([]byte("junk"), "", "")
	f.Fuzz(func(t *testing.T, data []byte, p, command string) {
		Lookup(data, []string{p}, command)
		m, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(Encode(m))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(again.Files) > len(m.Files) || len(again.Commands) > len(m.Commands) {
			t.Fatalf("re-parse grew: %+v vs %+v", again, m)
		}
	})
}
