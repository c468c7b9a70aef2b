package vault

import (
	"context"
	"testing"
)

func TestMoved(t *testing.T) {
	snap, err := Load(context.Background(), "../testdata/vault", Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := snap.Moved("Archive/Ideas.md", "Misc/Ideas.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		view           *Snapshot
		target, from   string
		wantKind       LinkKind
		wantPath       string
		wantMatchCount int
	}{
		{snap, "Ideas", "Gardening/Garden Log.md", LinkNote, "Archive/Ideas.md", 2},
		{m, "Ideas", "Gardening/Garden Log.md", LinkNote, "Misc/Ideas.md", 2},
		{m, "Ideas", "Projects/Roadmap.md", LinkNote, "Projects/Ideas.md", 2},
		{m, "Archive/Ideas", "Home.md", LinkUnresolved, "", 0},
		{m, "Misc/Ideas", "Home.md", LinkNote, "Misc/Ideas.md", 1},
		{m, "Old Notes/Ancient", "Archive/Old Plans.md", LinkNote, "Archive/2019/Old Notes/Ancient.md", 1},
		{m, "K8s", "Home.md", LinkNote, "Software/Kubernetes.md", 1},
		{m, "diagram.png", "Home.md", LinkAttachment, "Attachments/diagram.png", 1},
	} {
		k, p := tt.view.Resolve(tt.target, tt.from)
		if k != tt.wantKind || p != tt.wantPath {
			t.Errorf("Resolve(%q from %s) = %s %s, want %s %s", tt.target, tt.from, k, p, tt.wantKind, tt.wantPath)
		}
		if n := tt.view.MatchCount(tt.target); n != tt.wantMatchCount {
			t.Errorf("MatchCount(%q) = %d, want %d", tt.target, n, tt.wantMatchCount)
		}
	}
	if snap.Note("Archive/Ideas.md") == nil || snap.Note("Misc/Ideas.md") != nil {
		t.Fatal("Moved changed the original snapshot")
	}
	if m.Note("Misc/Ideas.md") == nil || m.Note("Archive/Ideas.md") != nil {
		t.Fatal("moved view lookups wrong")
	}
	// Moving onto an existing note replaces it in the view.
	o, err := snap.Moved("Archive/Ideas.md", "Projects/Ideas.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := o.MatchCount("Ideas"); n != 1 {
		t.Fatalf("overwrite view: MatchCount(Ideas) = %d, want 1", n)
	}
	if _, err := snap.Moved("Nope.md", "X.md"); err == nil {
		t.Fatal("moving a missing note must fail")
	}
}
