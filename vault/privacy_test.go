package vault

import "testing"

func TestPrivacyWithMarked(t *testing.T) {
	var p Privacy
	q := p.WithMarked("a.md", true)
	if q.HiddenNotes != 1 || !q.marked["a.md"] || p.HiddenNotes != 0 || p.marked["a.md"] {
		t.Fatalf("mark: %+v (original %+v)", q, p)
	}
	if r := q.WithMarked("a.md", true); r.HiddenNotes != 1 {
		t.Errorf("marking twice counts twice: %d", r.HiddenNotes)
	}
	r := q.WithMarked("a.md", false)
	if r.HiddenNotes != 0 || r.marked["a.md"] || !q.marked["a.md"] {
		t.Errorf("unmark: %+v (previous %+v)", r, q)
	}
	s := &Snapshot{Privacy: q}
	if !s.Hides("a.md") || s.Hides("b.md") {
		t.Error("Hides ignores the marked set")
	}
}
